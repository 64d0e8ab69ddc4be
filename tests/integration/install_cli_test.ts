/**
 * The two install steps as users run them, each under its own permission
 * set: the relay's `install` (print-only, `deno run -P mod.ts install`) prints
 * the command; that command (`-P=install` plus read/write on exactly the
 * config file) writes the entry; the entry starts a working relay.
 */

import assert from "assert";
import { parse as parseToml } from "smol-toml";
import { connectClient } from "../../testing/mcp_client.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { ROOT } from "../../testing/relay.ts";

const decoder = new TextDecoder();

/** Deno's cache folder, so children with another HOME reuse the downloaded packages. */
const DENO_DIR = await (async () => {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"], stdout: "piped" })
    .output();
  return JSON.parse(decoder.decode(out.stdout)).denoDir as string;
})();

async function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    env: { ...env, DENO_DIR, PATH: Deno.env.get("PATH") ?? "" },
    clearEnv: true,
    cwd: env.HOME,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** The printed apply command, as argv for `Deno.execPath()` (temp paths have no spaces). */
function appliedArgs(printed: string): string[] {
  const line = printed.split("\n").find((l) => l.trim().startsWith("deno run -P=install"));
  assert.ok(line, printed);
  const [deno, ...args] = line!.trim().split(" ");
  assert.equal(deno, "deno");
  return args;
}

Deno.test("the relay prints the install command; run as printed it registers a relay that works", async () => {
  const home = await Deno.makeTempDir({ prefix: "codex-relay-home-" });
  const f = await FixtureHome.create({ threads: [thread({ name: "alpha" })] });
  try {
    await Deno.mkdir(`${home}/.codex`);
    await Deno.writeTextFile(`${home}/.codex/config.toml`, 'model = "o3" # mine\n');
    const env = { HOME: home, CODEX_HOME: `${home}/.codex` };

    const printed = await run(
      [
        "run",
        "-P",
        "--quiet",
        "--config",
        `${ROOT}/deno.json`,
        `${ROOT}/mod.ts`,
        "install",
        "--client",
        "codex",
      ],
      env,
    );
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^\[mcp_servers\.codex-relay\]$/m);
    const args = appliedArgs(printed.stdout);
    assert.ok(args.includes("-P=install"));
    assert.ok(
      args.includes(
        `--allow-read=${home}/.codex/config.toml,${home}/.codex/config.toml.codex-relay.tmp`,
      ),
    );

    const refused = await run(args, env);
    assert.equal(refused.code, 1, "no terminal and no --yes: refused");
    assert.match(refused.stderr, /stdin is not a terminal/);

    const applied = await run([...args, "--yes"], env);
    assert.equal(applied.code, 0, applied.stderr);
    const text = await Deno.readTextFile(`${home}/.codex/config.toml`);
    assert.ok(text.startsWith('model = "o3" # mine\n'));
    const entry =
      (parseToml(text) as { mcp_servers: Record<string, { command: string; args: string[] }> })
        .mcp_servers["codex-relay"];
    assert.equal(entry.command, Deno.execPath());

    // The registered entry starts the relay under its own permission set.
    const relay = await connectClient({
      command: entry.command,
      args: entry.args,
      env: f.env,
      clearEnv: true,
      cwd: home,
      protocol: "2026-07-28",
      timeoutMs: 20_000,
    });
    try {
      const { tools } = await relay.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), [
        "codex_list_threads",
        "codex_queue_message",
        "codex_withdraw_message",
      ]);
    } finally {
      assert.equal((await relay.close()).code, 0);
    }

    const again = await run([...args, "--yes"], env);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /nothing to do/);
  } finally {
    await f.dispose();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the install entry under -P=install alone prints the exact command (77) and writes nothing", async () => {
  const home = await Deno.makeTempDir({ prefix: "codex-relay-home-" });
  try {
    await Deno.mkdir(`${home}/.cursor`);
    const env = { HOME: home };
    const r = await run(
      [
        "run",
        "-P=install",
        "--quiet",
        "--no-prompt",
        "--config",
        `${ROOT}/deno.json`,
        `${ROOT}/install.ts`,
        "--client",
        "cursor",
        "--yes",
      ],
      env,
    );
    assert.equal(r.code, 77, r.stderr);
    assert.match(r.stderr, /has no permission for read .*\/\.cursor\/mcp\.json/);
    assert.ok(
      r.stderr.includes(
        `--allow-write=${home}/.cursor/mcp.json,${home}/.cursor/mcp.json.codex-relay.bak,`,
      ),
    );
    assert.deepEqual([...Deno.readDirSync(`${home}/.cursor`)], []);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the install entry's file permissions cover one client's file only", async () => {
  const home = await Deno.makeTempDir({ prefix: "codex-relay-home-" });
  try {
    await Deno.mkdir(`${home}/.cursor`);
    await Deno.mkdir(`${home}/.codex`);
    const cursor = `${home}/.cursor/mcp.json`;
    const fileFlags = [
      `--allow-read=${cursor},${cursor}.codex-relay.tmp`,
      `--allow-write=${cursor},${cursor}.codex-relay.bak,${cursor}.codex-relay.tmp`,
    ];
    const base = [
      "run",
      "-P=install",
      "--quiet",
      "--no-prompt",
      "--config",
      `${ROOT}/deno.json`,
      ...fileFlags,
      `${ROOT}/install.ts`,
    ];
    const env = { HOME: home, CODEX_HOME: `${home}/.codex` };
    const other = await run([...base, "--client", "codex", "--yes"], env);
    assert.equal(other.code, 77, other.stderr);
    assert.ok(!(await Deno.stat(`${home}/.codex/config.toml`).then(() => true, () => false)));
    const own = await run([...base, "--client", "cursor", "--yes"], env);
    assert.equal(own.code, 0, own.stderr);
    assert.ok((await Deno.readTextFile(cursor)).includes('"codex-relay"'));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
