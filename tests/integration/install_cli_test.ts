/**
 * The two install steps as users run them, each under its own permission
 * set: the relay's `install` (print-only, `deno run -P mod.ts install`) prints
 * the command; that command (`-P=install` plus read/write on exactly the
 * config file) writes the entry; the entry starts a working relay.
 */

import assert from "assert";
import { dedupePath } from "../../src/install/entry_env.ts";
import { parse as parseToml } from "smol-toml";
import { connectClient } from "../../testing/mcp_client.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { entryArgs } from "../../testing/relay.ts";
import { denoChildEnv, runDeno } from "../../testing/child_env.ts";
import { callTool } from "../../testing/call_tool.ts";

const run = runDeno;

/** The printed apply command, as argv for `Deno.execPath()` (temp paths have no spaces). */
function appliedArgs(printed: string): string[] {
  const line = printed.split("\n").find((l) =>
    l.trim().startsWith("deno run --no-prompt --quiet -P=install")
  );
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

    const printed = await run(entryArgs(["install", "--client", "codex"]), env);
    assert.equal(printed.code, 0, printed.stderr);
    assert.match(printed.stdout, /^\[mcp_servers\.codex-relay\]$/m);
    const args = appliedArgs(printed.stdout);
    assert.ok(args.includes("-P=install"));
    // Read on the config file, its temp file and backup, then (to look for npm's Codex) the PATH
    // folders and npm's folders beside them: nothing else of the home.
    const read = args.find((a) => a.startsWith("--allow-read="))!.slice("--allow-read=".length);
    const [files, looks] = [read.split(",").slice(0, 3), read.split(",").slice(3)];
    assert.deepEqual(files, [
      `${home}/.codex/config.toml`,
      `${home}/.codex/config.toml.codex-relay.tmp`,
      `${home}/.codex/config.toml.codex-relay.bak`,
    ]);
    assert.ok(looks.every((p) => !p.startsWith(home)), looks.join(","));

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
      env: denoChildEnv(f.env),
      clearEnv: true,
      cwd: home,
      protocol: "2026-07-28",
      timeoutMs: 20_000,
    });
    let closed: { code: number } | undefined;
    try {
      const { tools } = await relay.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), [
        "codex_list_threads",
        "codex_queue_message",
      ]);
    } finally {
      closed = await relay.close();
    }
    assert.equal(closed.code, 0);

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
      entryArgs(["--client", "cursor", "--yes"], {
        entry: "install.ts",
        permissions: ["-P=install"],
        noPrompt: true,
      }),
      env,
    );
    assert.equal(r.code, 77, r.stderr);
    assert.match(r.stderr, /has no permission for read .*\/\.cursor\/mcp\.json/);
    assert.ok(r.stderr.includes(`--allow-write=${home}/.cursor `), "write on Cursor's folder");
    assert.deepEqual([...Deno.readDirSync(`${home}/.cursor`)], []);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the install entry's permissions cover one client's files only (and read Codex's config for the providers' keys)", async () => {
  const home = await Deno.makeTempDir({ prefix: "codex-relay-home-" });
  try {
    await Deno.mkdir(`${home}/.cursor`);
    await Deno.mkdir(`${home}/.codex`);
    const cursor = `${home}/.cursor/mcp.json`;
    const fileFlags = [
      `--allow-read=${cursor},${cursor}.codex-relay.tmp,${home}/.codex/config.toml`,
      `--allow-write=${home}/.cursor`,
    ];
    const base = entryArgs([], {
      entry: "install.ts",
      permissions: ["-P=install"],
      noPrompt: true,
      denoFlags: fileFlags,
    });
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

Deno.test("Cursor in one go: --dry-run travels and tells the truth, --yes travels and writes without a terminal, the folder is created", async () => {
  const home = await Deno.makeTempDir({ prefix: "codex-relay-home-" });
  const f = await FixtureHome.create({ threads: [thread({ name: "alpha" })] });
  try {
    // The user's shell PATH has codex (the fixture's) on it; ~/.cursor does not exist yet.
    const env = { HOME: home, PATH: f.env.PATH };
    const dry = await run(entryArgs(["install", "--client", "cursor", "--dry-run"]), env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^Dry run: nothing was written/);
    const dryArgs = appliedArgs(dry.stdout);
    assert.ok(dryArgs.includes("--dry-run"), "the printed command is a dry run too");
    assert.ok(dryArgs.includes(`--allow-write=${home}/.cursor`), "write on the folder to create");
    const shown = await run(dryArgs, env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.ok(
      shown.stdout.includes(
        `Cursor (user): will create the folder ${home}/.cursor (as Cursor does on its first start) and will create ${home}/.cursor/mcp.json`,
      ),
      shown.stdout,
    );
    assert.match(shown.stdout, /Dry run: nothing was written/);
    assert.ok(!(await exists(`${home}/.cursor`)), "the dry run created nothing");

    const real = await run(entryArgs(["install", "--client", "cursor", "--yes"]), env);
    assert.notEqual(real.stdout, dry.stdout, "a dry run differs from the real one");
    const applied = await run(appliedArgs(real.stdout), env); // stdin is not a terminal
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stdout, new RegExp(`Created ${home}/\\.cursor\\. Wrote `));

    // Cursor starts servers with PATH=/usr/bin:/bin and the entry's own env on top.
    const entry = (JSON.parse(await Deno.readTextFile(`${home}/.cursor/mcp.json`)) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    }).mcpServers["codex-relay"];
    assert.equal(
      entry.env.PATH,
      dedupePath(f.env.PATH, Deno.build.os),
      "the entry carries the PATH of the install, each folder once",
    );
    const startAsCursor = async (entryEnv: Record<string, string>) => {
      const relay = await connectClient({
        command: entry.command,
        args: entry.args,
        env: denoChildEnv({
          HOME: f.env.HOME,
          CODEX_HOME: f.env.CODEX_HOME,
          PATH: "/usr/bin:/bin",
          ...entryEnv,
        }),
        clearEnv: true,
        cwd: home,
        protocol: "2026-07-28",
        timeoutMs: 20_000,
      });
      try {
        const r = await callTool(relay.client, "codex_list_threads", {});
        return r.structuredContent;
      } finally {
        assert.equal((await relay.close()).code, 0);
      }
    };
    assert.equal((await startAsCursor(entry.env)).status, "ok");
    // Without the PATH in the entry, the agent is told the PATH the relay saw and the fix.
    const { PATH: _, ...withoutPath } = entry.env;
    const missing = await startAsCursor(withoutPath);
    assert.equal(missing.reason, "codex_missing");
    assert.match(missing.message!, /PATH=\/usr\/bin:\/bin/);
    assert.match(missing.message!, /put the folder of codex .* in the PATH of codex-relay's entry/);
  } finally {
    await f.dispose();
    await Deno.remove(home, { recursive: true });
  }
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}
