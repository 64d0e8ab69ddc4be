/**
 * The one-file bundle (`deno task bundle`) as the stand-in for the compiled
 * binary: built into a temp folder, started with
 * `deno run --no-remote --cached-only <flags derived from permissions.default>`,
 * it serves the fixture app-server; a probe run with the very same flags
 * cannot spawn `sh`, open a socket or write a file.
 */

import assert from "assert";
import { INITIALIZED, initializeRequest, toolCall } from "../../testing/raw_relay.ts";
import { buildBundle } from "../../scripts/bundle.ts";
import { bundleServeCommand, RELAY_V8_FLAGS, relayFlags } from "../../src/install/launch.ts";
import { RELAY_PERMISSIONS } from "../../src/core/permissions.ts";
import { normalizePermissionSet, permissionSetOfFlags } from "../../testing/permission_flags.ts";
import { connectClient } from "../../testing/mcp_client.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { EXPECTED_OUTCOMES, PROBE, runProbe } from "./_probe.ts";
import denoJson from "../../deno.json" with { type: "json" };
import { denoChildEnv } from "../../testing/child_env.ts";
import { callTool } from "../../testing/call_tool.ts";

let built: Promise<{ dir: string; bundle: string }> | undefined;

/** Builds the bundle once for this file's tests. */
function bundle(): Promise<{ dir: string; bundle: string }> {
  built ??= (async () => {
    const dir = await Deno.makeTempDir({ prefix: "codex-relay-bundle-" });
    const file = `${dir}/codex-relay.js`;
    await buildBundle(file, Deno.execPath());
    return { dir, bundle: file };
  })();
  return built;
}

const sanitize = { sanitizeResources: false, sanitizeOps: false };

Deno.test("the derived serve flags grant exactly permissions.default of deno.json", () => {
  const flags = relayFlags();
  assert.deepEqual(permissionSetOfFlags(flags), normalizePermissionSet(RELAY_PERMISSIONS));
  assert.deepEqual(RELAY_PERMISSIONS, denoJson.permissions.default);
  assert.deepEqual(flags, [
    "--allow-run=codex,/bin/kill",
    `--allow-env=${denoJson.permissions.default.env.join(",")}`,
  ]);
  const cmd = bundleServeCommand("/x/codex-relay.js");
  assert.deepEqual(cmd.slice(0, 7), [
    "deno",
    "run",
    "--no-prompt",
    "--quiet",
    "--no-remote",
    "--cached-only",
    RELAY_V8_FLAGS,
  ]);
  assert.deepEqual(cmd.slice(7, -2), flags, "the bundle runs with exactly the derived flags");
  assert.ok(!cmd.some((a) => a === "-A" || a.startsWith("--allow-all")));
});

Deno.test({
  name: "the bundle serves the fixture under the derived flags: lists tools, queues a message",
  ...sanitize,
  async fn() {
    const { dir, bundle: file } = await bundle();
    const t = thread({ name: "alpha" });
    const f = await FixtureHome.create({ threads: [t] });
    const [, ...args] = bundleServeCommand(file);
    const relay = await connectClient({
      command: Deno.execPath(),
      args, // --quiet included: the command as printed
      env: f.env,
      clearEnv: true,
      cwd: dir,
      protocol: "2026-07-28",
      timeoutMs: 20_000,
    });
    try {
      const { tools } = await relay.client.listTools();
      assert.deepEqual(tools.map((x) => x.name), [
        "codex_list_threads",
        "codex_queue_message",
      ]);
      const result = await callTool(relay.client, "codex_queue_message", {
        threadId: t.id,
        text: "hello from the bundle",
      });
      const r = result.structuredContent;
      assert.equal(r.status, "queued", JSON.stringify(result));
      assert.equal(r.threadId, t.id);
      const methods = (await f.requests()).map((x) => x.method);
      assert.ok(methods.includes("thread/queue/add"), methods.join(","));
    } catch (error) {
      await relay.close().catch(() => {});
      await f.dispose();
      throw error;
    }
    const closed = await relay.close().catch((error: Error) => error);
    const left = f.alive();
    await f.dispose();
    if (closed instanceof Error) throw closed;
    assert.equal(closed.code, 0);
    assert.deepEqual(left, []);
  },
});

Deno.test({
  name: "the bundle prints its version offline (--no-remote --cached-only, no config)",
  ...sanitize,
  async fn() {
    const { dir, bundle: file } = await bundle();
    const [, ...args] = bundleServeCommand(file);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [...args.slice(0, -1), "--version"],
      cwd: dir,
      env: denoChildEnv({ PATH: Deno.env.get("PATH") ?? "", HOME: dir }),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(new TextDecoder().decode(out.stdout).trim(), `codex-relay ${denoJson.version}`);
  },
});

Deno.test({
  name: "a probe run with the bundle's exact flags cannot spawn sh, open a socket or write a file",
  ...sanitize,
  async fn() {
    const { dir, bundle: file } = await bundle();
    const f = await FixtureHome.create({ threads: [] });
    try {
      const [, , ...rest] = bundleServeCommand(file);
      const flags = rest.slice(0, rest.indexOf(file)); // --no-remote --cached-only + derived flags
      const probe = `${dir}/probe.ts`;
      await Deno.copyFile(PROBE, probe);
      const target = `${dir}/written-by-probe`;
      const outcomes = await runProbe(flags, f.env, target, { cwd: dir, probe });
      assert.deepEqual(outcomes, EXPECTED_OUTCOMES);
      await assert.rejects(Deno.stat(target), Deno.errors.NotFound);
    } finally {
      await f.dispose();
    }
  },
});

Deno.test({
  name: "the bundle answers every request read before stdin EOF (initialize, tools/list, a call)",
  ...sanitize,
  async fn() {
    const { dir, bundle: file } = await bundle();
    const f = await FixtureHome.create({ threads: [thread({ name: "alpha" })] });
    try {
      const [, ...args] = bundleServeCommand(file);
      const child = new Deno.Command(Deno.execPath(), {
        args,
        cwd: dir,
        env: f.env,
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const lines = [
        initializeRequest(1),
        INITIALIZED,
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        toolCall(3, "codex_list_threads"),
      ];
      const writer = child.stdin.getWriter();
      await writer.write(
        new TextEncoder().encode(lines.map((l) => JSON.stringify(l) + "\n").join("")),
      );
      await writer.close();
      const out = await child.output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const answers = new TextDecoder().decode(out.stdout).trim().split("\n").map((l) =>
        JSON.parse(l)
      );
      assert.deepEqual(answers.map((a) => a.id), [1, 2, 3]);
      assert.equal(answers[2].result?.structuredContent?.status, "ok", JSON.stringify(answers[2]));
      assert.deepEqual(f.alive(), []);
    } finally {
      await f.dispose();
    }
  },
});

Deno.test({
  name: "zz: remove the built bundle",
  ...sanitize,
  async fn() {
    if (built) await Deno.remove((await built).dir, { recursive: true });
  },
});
