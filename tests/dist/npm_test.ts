/**
 * The npm package (`deno task npm`), installed as a user installs it:
 * `npm install -g <tarball>` into a temporary prefix, then driven through the
 * installed `codex-relay` with only Node on PATH (no Deno: the launcher runs
 * npm's). Its MCP levels, the running relay's exact permissions, `install
 * --client claude-code` and the entry it writes, signals and stdin EOF, the
 * platform binary (a stand-in: `deno compile`'s runtime download is
 * unreachable here) and the fall-back to the bundle, and `npx`.
 */

import assert from "assert";
import { dirname } from "node:path";
import { buildNpm } from "../../scripts/npm.ts";
import { launchSpec } from "../../scripts/npm_package.ts";
import { startCommand } from "../../src/install/launch.ts";
import { toolNames } from "../../src/host/tools/all_tools.ts";
import type { Capabilities } from "../../src/core/capabilities.ts";
import { connectClient, SHUTDOWN_BOUND_MS } from "../../testing/mcp_client.ts";
import { FIXTURE_BIN, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { processTable } from "../../testing/process_table.ts";
import { normalizePermissionSet, permissionSetOfFlags } from "../../testing/permission_flags.ts";
import { RELAY_PERMISSIONS, withCodex } from "../../src/core/permissions.ts";
import { within } from "../../testing/deadline.ts";
import { initializeRequest } from "../../testing/raw_relay.ts";

/** A program on this process's PATH, or undefined. */
function onPath(name: string): string | undefined {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch { /* not here */ }
  }
  return undefined;
}

const npm = onPath("npm");
const required = Deno.env.get("CODEX_E2E_REQUIRED") === "1";
const sanitize = { sanitizeResources: false, sanitizeOps: false };
const ignore = Deno.build.os !== "linux" || (!npm && !required);

interface Installed {
  /** The installed `codex-relay` command. */
  bin: string;
  /** The installed package's folder. */
  pkg: string;
  /** The tarball. */
  tarball: string;
  /** PATH with the installed command and Node (and npm), and no Deno. */
  path: string;
  /** npm's cache, shared by every npm call here. */
  npmCache: string;
  /** A `codex` that starts the fixture app-server (its PATH of its own: Deno and the system's). */
  codex: string;
}

let installing: Promise<Installed> | undefined;

async function run(cmd: string, args: string[], env: Record<string, string>, cwd?: string) {
  const out = await new Deno.Command(cmd, { args, env, cwd, stdin: "null" }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** Builds the tarball and installs it globally into a temporary prefix, once for the file. */
function installed(): Promise<Installed> {
  installing ??= (async () => {
    if (!npm) throw new Error("npm is not on PATH; the npm package tests need it");
    const dir = await Deno.makeTempDir({ prefix: "relay-npm-" });
    const build = await buildNpm(`${dir}/out`, `${dir}/no-binaries`, Deno.execPath());
    const npmCache = `${Deno.env.get("HOME") ?? dir}/.npm`;
    const prefix = `${dir}/prefix`;
    const done = await run(npm, [
      "install",
      "-g",
      "--prefix",
      prefix,
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      build.main.tarball,
    ], { ...Deno.env.toObject(), npm_config_cache: npmCache });
    assert.equal(done.code, 0, `npm install -g failed:\n${done.stderr}`);
    // Only Node and npm: a folder of links to them (their own folder may hold a deno too).
    const node = await Deno.makeTempDir({ dir, prefix: "node-only-" });
    // npm runs lifecycle scripts with `sh` from PATH.
    for (const name of ["node", "npm", "npx", "sh"]) {
      const found = onPath(name);
      if (found) await Deno.symlink(found, `${node}/${name}`);
    }
    const codex = `${dir}/codex`;
    await Deno.writeTextFile(
      codex,
      `#!/bin/sh\nPATH="${dirname(Deno.execPath())}:${
        Deno.env.get("PATH")
      }" exec "${FIXTURE_BIN}/codex" "$@"\n`,
    );
    await Deno.chmod(codex, 0o755);
    return {
      bin: `${prefix}/bin/codex-relay`,
      pkg: `${prefix}/lib/node_modules/codex-relay`,
      tarball: build.main.tarball,
      path: `${prefix}/bin:${node}`,
      npmCache,
      codex,
    };
  })();
  return installing;
}

/** The environment a client gives the installed command: no Deno on PATH, a HOME of its own. */
async function clientEnv(i: Installed, f: FixtureHome, home?: string) {
  return {
    PATH: i.path,
    HOME: home ?? await Deno.makeTempDir({ prefix: "relay-npm-home-" }),
    CODEX_HOME: f.home,
    npm_config_cache: i.npmCache,
  };
}

/** A client of `command args` with only `env` (the way a client starts an entry). */
function client(command: string, args: string[], env: Record<string, string>, timeoutMs = 30_000) {
  return connectClient({
    command,
    args,
    env,
    clearEnv: true,
    protocol: "2025-11-25",
    timeoutMs,
  });
}

/** The argv of `pid`'s only child (the relay the launcher started; no word here has a space). */
async function childArgv(pid: number): Promise<{ pid: number; argv: string[] }> {
  const [child] = (await processTable()).filter((row) => row.ppid === pid);
  assert.ok(child, `the launcher (${pid}) has a child`);
  return { pid: child.pid, argv: child.args.split(" ") };
}

async function alive(pid: number): Promise<boolean> {
  return (await processTable()).some((row) => row.pid === pid);
}

const LEVELS: [string[], Capabilities][] = [
  [[], { replyRead: false, turnStart: false }],
  [["--allow-reply-read"], { replyRead: true, turnStart: false }],
  [["--allow-turn-start"], { replyRead: true, turnStart: true }],
];

Deno.test({
  name: "the installed codex-relay, with no Deno on PATH, serves each level's tools",
  ignore,
  ...sanitize,
  async fn() {
    const i = await installed();
    const f = await FixtureHome.create({ threads: [thread({ name: "alpha" })] });
    for (const [flags, caps] of LEVELS) {
      const relay = await client(
        i.bin,
        ["serve", ...flags, "--codex", i.codex],
        await clientEnv(i, f),
      );
      try {
        const { tools } = await relay.client.listTools();
        assert.deepEqual(tools.map((t) => t.name), toolNames(caps), flags.join(" "));
        const listed = await relay.client.callTool({ name: "codex_list_threads", arguments: {} });
        assert.ok(!listed.isError, JSON.stringify(listed.content));
        assert.match(JSON.stringify(listed.structuredContent), /alpha/);
      } finally {
        assert.equal((await relay.close()).code, 0);
      }
    }
  },
});

Deno.test({
  name: "the relay the launcher starts is the installed entry's command: its set, its V8 flags",
  ignore,
  ...sanitize,
  async fn() {
    const i = await installed();
    const f = await FixtureHome.create({ threads: [] });
    const relay = await client(
      i.bin,
      ["serve", "--allow-turn-start", "--codex", i.codex],
      await clientEnv(i, f),
    );
    try {
      const { argv } = await childArgv(relay.transport.pid!);
      const deno = `${i.pkg}/node_modules/deno/deno`;
      const bundle = `${i.pkg}/${launchSpec().bundle}`;
      const entry = startCommand(
        { kind: "bundle", path: bundle },
        { replyRead: true, turnStart: true },
        deno,
        i.codex,
      );
      // The entry's serve words come from its capabilities; the launcher passes the user's as given.
      assert.deepEqual(
        argv.slice(0, entry.indexOf(bundle) + 1),
        entry.slice(0, entry.indexOf(bundle) + 1),
      );
      assert.deepEqual(argv.slice(argv.indexOf(bundle) + 1), [
        "serve",
        "--allow-turn-start",
        "--codex",
        i.codex,
      ]);
      const flags = argv.slice(0, argv.indexOf(bundle)).filter((a) => a.startsWith("--allow-"));
      const set = permissionSetOfFlags(flags);
      assert.deepEqual(set, normalizePermissionSet(withCodex(RELAY_PERMISSIONS, i.codex)));
      for (const denied of ["read", "write", "net", "ffi", "sys", "import"] as const) {
        assert.ok(!set[denied], `no ${denied} grant`);
      }
    } finally {
      await relay.close();
    }
  },
});

Deno.test({
  name: "install --client claude-code through the launcher writes an entry that starts and serves",
  ignore,
  ...sanitize,
  async fn() {
    const i = await installed();
    const f = await FixtureHome.create({ threads: [thread({ name: "beta" })] });
    const env = await clientEnv(i, f);
    // The README's first install lines are these (the test installs the built tarball).
    const readme = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
    const block = readme.split("## Install")[1].split("```sh\n")[1].split("```")[0];
    assert.deepEqual(block.split("\n").map((l) => l.split("#")[0].trim()).filter(Boolean), [
      "npm install -g codex-relay",
      "codex-relay install --client claude-code",
    ]);
    const done = await run(i.bin, [
      "install",
      "--client",
      "claude-code",
      "--allow-reply-read",
      "--codex",
      i.codex,
      "--yes",
    ], env);
    assert.equal(done.code, 0, done.stderr + done.stdout);
    const config = JSON.parse(await Deno.readTextFile(`${env.HOME}/.claude.json`));
    const entry = config.mcpServers["codex-relay"];
    assert.equal(entry.command, `${i.pkg}/node_modules/deno/deno`, "Deno by absolute path, no npx");
    assert.ok(entry.args.includes(`${i.pkg}/${launchSpec().bundle}`));
    const relay = await client(entry.command, entry.args, { ...env, ...entry.env });
    try {
      const { tools } = await relay.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), toolNames({ replyRead: true, turnStart: false }));
    } finally {
      await relay.close();
    }
    const removed = await run(i.bin, ["uninstall", "--client", "claude-code", "--yes"], env);
    assert.equal(removed.code, 0, removed.stderr + removed.stdout);
    // install created the file, so uninstall removes it (and its backup).
    assert.deepEqual(
      [...Deno.readDirSync(env.HOME)].map((e) => e.name).filter((n) =>
        n.startsWith(".claude.json")
      ),
      [],
    );
  },
});

/** Starts the installed command serving, past `initialize`; returns it and its relay's pid. */
async function startServing(i: Installed, f: FixtureHome) {
  const child = new Deno.Command(i.bin, {
    args: ["serve", "--codex", i.codex],
    env: await clientEnv(i, f),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(`${JSON.stringify(initializeRequest(1))}\n`));
  const reader = child.stdout.getReader();
  const first = await within(reader.read(), "the initialize answer", 30_000);
  assert.match(new TextDecoder().decode(first.value), /"serverInfo"/);
  const relay = await childArgv(child.pid);
  return { child, writer, reader, relay: relay.pid };
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.test({
    name: `${signal} to the launcher ends the relay within its bound and leaves nothing`,
    ignore,
    ...sanitize,
    async fn() {
      const i = await installed();
      const f = await FixtureHome.create({ threads: [] });
      const { child, writer, reader, relay } = await startServing(i, f);
      child.kill(signal);
      const status = await within(child.status, `exit after ${signal}`, SHUTDOWN_BOUND_MS);
      assert.equal(status.code, 0, "the relay's own exit code, passed on");
      assert.ok(!await alive(relay), "the relay is gone with the launcher");
      await writer.close().catch(() => {});
      await reader.cancel().catch(() => {});
    },
  });
}

Deno.test({
  name: "stdin EOF through the launcher ends the relay with code 0",
  ignore,
  ...sanitize,
  async fn() {
    const i = await installed();
    const f = await FixtureHome.create({ threads: [] });
    const { child, writer, reader, relay } = await startServing(i, f);
    await writer.close();
    const status = await within(child.status, "exit after EOF", SHUTDOWN_BOUND_MS);
    assert.equal(status.code, 0);
    assert.ok(!await alive(relay));
    await reader.cancel().catch(() => {});
  },
});

Deno.test({
  name:
    "a platform binary's package is what runs, and install registers it; without it, the bundle",
  ignore,
  ...sanitize,
  async fn() {
    const i = await installed();
    const key = `linux-${Deno.build.arch === "aarch64" ? "arm64" : "x64"}`;
    const target = launchSpec().binaries[key];
    const dir = `${i.pkg}/node_modules/${target.package}`;
    await Deno.mkdir(`${dir}/bin`, { recursive: true });
    await Deno.writeTextFile(`${dir}/package.json`, JSON.stringify({ name: target.package }));
    // A stand-in for the compiled binary (none can be built here): it says how it was called.
    await Deno.writeTextFile(`${dir}/${target.file}`, '#!/bin/sh\necho "stand-in $*"\nexit 7\n');
    await Deno.chmod(`${dir}/${target.file}`, 0o755);
    const f = await FixtureHome.create({ threads: [] });
    const env = await clientEnv(i, f);
    try {
      const served = await run(i.bin, ["serve", "--allow-turn-start"], env);
      assert.deepEqual([served.code, served.stdout], [7, "stand-in serve --allow-turn-start\n"]);
      const done = await run(i.bin, ["install", "--client", "cursor", "--yes"], env);
      assert.equal(done.code, 0, done.stderr + done.stdout);
      const entry = JSON.parse(await Deno.readTextFile(`${env.HOME}/.cursor/mcp.json`))
        .mcpServers["codex-relay"];
      assert.deepEqual([entry.command, entry.args], [`${dir}/${target.file}`, ["serve"]]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
    const fallback = await run(i.bin, ["--version"], env);
    assert.deepEqual([fallback.code, fallback.stdout.trim()], [
      0,
      `codex-relay ${launchSpec().version}`,
    ]);
  },
});

Deno.test({
  name: "npx -y with the package serves a client",
  ignore,
  ...sanitize,
  async fn() {
    const i = await installed();
    const f = await FixtureHome.create({ threads: [] });
    const relay = await client(
      `${i.path.split(":")[1]}/npx`,
      ["-y", "--package", i.tarball, "codex-relay", "serve", "--codex", i.codex],
      await clientEnv(i, f),
      60_000,
    );
    try {
      const { tools } = await relay.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["codex_list_threads", "codex_queue_message"]);
    } finally {
      await relay.close();
    }
  },
});
