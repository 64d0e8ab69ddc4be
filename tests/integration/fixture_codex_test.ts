/**
 * The fixture app-server is found the way the relay finds Codex: as `codex` on
 * PATH (the POSIX launcher, or `codex.cmd` on Windows as npm installs Codex
 * there), and it starts from the test run's module cache even when its
 * environment is the relay's curated one (no DENO_DIR) with a fresh HOME.
 * @module
 */

import assert from "assert";
import { FIXTURE_BIN, FixtureHome, thread } from "../../testing/fixture_home.ts";

/** Runs `codex app-server` from PATH with exactly `env`; sends `initialize` and `thread/list`. */
async function listThroughCodex(env: Record<string, string>): Promise<unknown[]> {
  const child = new Deno.Command("codex", {
    args: ["app-server"],
    env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = [
    { id: 1, method: "initialize", params: { clientInfo: { name: "t", version: "0" } } },
    { method: "initialized" },
    { id: 2, method: "thread/list", params: {} },
  ].map((m) => JSON.stringify(m) + "\n").join("");
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(lines));
  const answers: unknown[] = [];
  let buffer = "";
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  while (answers.length < 2) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) !== -1) {
      const m = JSON.parse(buffer.slice(0, nl)) as { id?: number };
      buffer = buffer.slice(nl + 1);
      if (m.id !== undefined) answers.push(m);
    }
  }
  await reader.cancel();
  await writer.close();
  const [status, stderr] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  assert.equal(answers.length, 2, `the fixture answered (exit ${status.code}): ${stderr}`);
  return answers;
}

Deno.test("the fixture is found on PATH as codex and starts from the module cache with the relay's environment and a fresh HOME", async () => {
  const t = thread({ name: "found" });
  const f = await FixtureHome.create({ threads: [t] });
  const home = await Deno.makeTempDir({ prefix: "fixture-codex-home-" });
  try {
    // What the relay passes `codex`: its own variables only (no DENO_DIR), here with a HOME
    // whose Deno cache is empty.
    const env: Record<string, string> = { PATH: f.path, HOME: home, CODEX_HOME: f.home };
    const systemRoot = Deno.env.get("SystemRoot"); // Windows: no process starts without it
    if (systemRoot) env.SystemRoot = systemRoot;
    const [init, list] = await listThroughCodex(env) as {
      result: { data?: { id: string }[] };
    }[];
    assert.ok(init.result, "initialize answered");
    assert.deepEqual(list.result.data?.map((x) => x.id), [t.id]);
    assert.deepEqual(
      [...Deno.readDirSync(home)].map((e) => e.name),
      [],
      "nothing was written to the fresh HOME (no module cache of its own)",
    );
  } finally {
    await Deno.remove(home, { recursive: true });
    await f.dispose();
  }
});

Deno.test("the Windows launcher (codex.cmd) starts the fixture with the POSIX launcher's flags", async () => {
  const posix = await Deno.readTextFile(`${FIXTURE_BIN}/codex`);
  const cmd = await Deno.readTextFile(`${FIXTURE_BIN}/codex.cmd`);
  // The flags of each `deno run` line, with the shells' own spellings made equal.
  const runs = (text: string) =>
    text.replaceAll("\\\n", " ").split(/\r?\n/).map((l) => l.trim())
      .filter((l) => l.startsWith("deno run") || l.startsWith("exec deno run"))
      .map((l) =>
        l.replace(/^exec /, "").replaceAll('"$CODEX_HOME"', "HOME_DIR")
          .replaceAll('"%CODEX_HOME%"', "HOME_DIR").replaceAll('"$here/', "HERE/")
          .replaceAll('"%here%\\', "HERE/").replaceAll("\\", "/").replaceAll('"', "")
          .replace(/ ("?)\$@\1$/, "").replace(/ %\*$/, "").replace("bin/codex.cmd", "bin/codex")
          .replace(/\s+/g, " ")
      );
  assert.deepEqual(runs(cmd), runs(posix));
  assert.equal(runs(posix).length, 3, "the doctor, the proxy stand-in and the app-server");
  for (const line of runs(posix)) assert.ok(line.includes("--cached-only"), line);
  assert.ok(cmd.includes("fixture-deno-dir") && posix.includes("fixture-deno-dir"));
  assert.ok(cmd.includes("\r\n"), "cmd.exe reads the shim with CRLF line ends");
});
