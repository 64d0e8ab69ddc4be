/**
 * `--app-server` through the real entry point (`deno run -P mod.ts`), with
 * the fixture standing in for `codex app-server proxy`.
 */

import assert from "assert";
import { type FixtureHome, thread, withFixture } from "../../testing/fixture_home.ts";
import { entryArgs, ROOT, startRelay } from "../../testing/relay.ts";
import { denoChildEnv } from "../../testing/child_env.ts";
import { callTool } from "../../testing/call_tool.ts";

async function run(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: entryArgs(args, { cachedOnly: true, noPrompt: true }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: denoChildEnv(env),
    cwd: ROOT,
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

async function proxies(f: FixtureHome): Promise<number> {
  return (await f.log()).filter((e) => e.event === "proxy").length;
}

const BAD_MODES: [string, RegExp][] = [
  ["ws://127.0.0.1:4500", /spawn, daemon or unix:\/\/\/absolute\/path\.sock/],
  ["unix://relative.sock", /must be absolute/],
  ["unix://", /must be absolute/],
  ["unix:///", /must be absolute/],
  ["Daemon", /spawn, daemon or unix/],
  ["", /spawn, daemon or unix/],
];

for (const [mode, message] of BAD_MODES) {
  Deno.test(`serve --app-server '${mode}' is a usage error: exit 64, nothing on stdout`, async () => {
    const r = await run(
      { PATH: "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/" },
      "serve",
      "--app-server",
      mode,
    );
    assert.equal(r.code, 64, r.stderr);
    assert.equal(r.stdout, "");
    assert.match(r.stderr, message);
    assert.ok(!r.stderr.includes("    at "), "no stack trace");
  });
}

Deno.test("serve --app-server given twice is a usage error", async () => {
  const r = await run(
    { PATH: "/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/" },
    "serve",
    "--app-server",
    "daemon",
    "--app-server",
    "spawn",
  );
  assert.equal(r.code, 64);
  assert.match(r.stderr, /more than once/);
});

Deno.test("serve --app-server daemon: start, initialize and tools/list open nothing; calls share one connection", async () => {
  const t = thread({ name: "alpha" });
  await withFixture({ threads: [t] }, async (f) => {
    const relay = await startRelay({
      fixture: f,
      flags: ["--app-server", "daemon"],
      protocol: "2026-07-28",
    });
    try {
      await relay.client.listTools();
      assert.equal(await proxies(f), 0, "nothing opened before the first tool call");
      for (let i = 0; i < 3; i++) {
        const r = await callTool(relay.client, "codex_list_threads", {});
        const out = r.structuredContent;
        assert.deepEqual((out.threads as { id: string }[]).map((x) => x.id), [t.id]);
      }
      const q =
        (await callTool(relay.client, "codex_queue_message", { threadId: t.id, text: "hi" }))
          .structuredContent;
      assert.equal(q.status, "queued");
      assert.equal(await proxies(f), 1, "one proxy for every call");
    } finally {
      const { code } = await relay.close();
      assert.equal(code, 0);
    }
  });
});

Deno.test("serve --app-server daemon without a daemon: tools answer not_sent / daemon_unavailable", async () => {
  const t = thread({ name: "alpha" });
  await withFixture({ threads: [t], proxy: { noDaemon: true } }, async (f) => {
    const relay = await startRelay({
      fixture: f,
      flags: ["--app-server", "daemon"],
      protocol: "2026-07-28",
    });
    try {
      const q =
        (await callTool(relay.client, "codex_queue_message", { threadId: t.id, text: "hi" }))
          .structuredContent;
      assert.equal(q.status, "not_sent");
      assert.equal(q.reason, "daemon_unavailable");
      assert.match(String(q.message), /codex app-server daemon start/);
      const l = (await callTool(relay.client, "codex_list_threads", {}))
        .structuredContent;
      assert.equal(l.reason, "daemon_unavailable");
      assert.match(String(l.message), /codex app-server daemon start/);
    } finally {
      await relay.close();
    }
  });
});

Deno.test("serve --app-server daemon: a queue write cut off by a lost connection is confirmed on the next connection, never replayed", async () => {
  const t = thread({ name: "alpha" });
  await withFixture({
    threads: [t],
    proxy: { faults: [{ method: "thread/queue/add", action: { loseAnswer: true } }] },
  }, async (f) => {
    const relay = await startRelay({
      fixture: f,
      flags: ["--app-server", "daemon"],
      protocol: "2026-07-28",
    });
    try {
      const q =
        (await callTool(relay.client, "codex_queue_message", { threadId: t.id, text: "hi" }))
          .structuredContent;
      assert.equal(q.status, "queued");
      assert.equal(q.confirmedBy, "queue_list");
      const adds = (await f.requests()).filter((r) => r.method === "thread/queue/add");
      assert.equal(adds.length, 1);
      assert.equal(await proxies(f), 2);
    } finally {
      await relay.close();
    }
  });
});

Deno.test("doctor --app-server daemon: reachable, with the daemon's version (exit 0)", async () => {
  await withFixture({ threads: [thread()] }, async (f) => {
    const r = await run(f.env, "doctor", "--app-server", "daemon");
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(
      r.stdout,
      /ok +the app-server daemon \(of CODEX_HOME\) answered through codex app-server proxy/,
    );
    assert.match(r.stdout, /ok +daemon version: 0\.169\.0/);
    assert.match(r.stdout, /serve --app-server daemon/);
  });
});

Deno.test("doctor --app-server daemon without a daemon: a problem with the command that starts it (exit 1)", async () => {
  await withFixture({ threads: [], proxy: { noDaemon: true } }, async (f) => {
    const r = await run(f.env, "doctor", "--app-server", "daemon");
    assert.equal(r.code, 1);
    assert.match(r.stdout, /problem +the app-server daemon failed \(daemon_unavailable\)/);
    assert.match(r.stdout, /fix: start it with `codex app-server daemon start`/);
  });
});

Deno.test("doctor --app-server unix:///path: nothing at the socket names the path and the forward", async () => {
  await withFixture({ threads: [], proxy: { socketPath: "/fwd/remote.sock" } }, async (f) => {
    const ok = await run(f.env, "doctor", "--app-server", "unix:///fwd/remote.sock");
    assert.equal(ok.code, 0, ok.stdout);
    assert.match(ok.stdout, /socket \/fwd\/remote\.sock/);
    const bad = await run(f.env, "doctor", "--app-server", "unix:///fwd/other.sock");
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /nothing answers at \/fwd\/other\.sock/);
  });
});
