/**
 * Issue 20, item 1: codex_run's sandbox and approval policy may only tighten
 * what the thread really runs with: its cwd's config layers (a trusted
 * project's `.codex/config.toml` over the user's), not the user layer alone.
 * Through `mod.ts serve`, in spawn mode and in daemon mode (the fixture
 * proxy in front of the fixture app-server).
 */

import assert from "assert";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { callTool, type ToolOutput } from "../../testing/call_tool.ts";

type Structured = Record<string, unknown>;

const PROJECT = "/work/project";
const MODES = [
  { name: "spawn", flags: [] as string[] },
  { name: "daemon", flags: ["--app-server", "daemon"] },
];

/** The user layer is loose; the trusted project's layer is tight (the setup). */
function layered(): { s: Scenario; inProject: string; elsewhere: string } {
  const inProject = thread({ cwd: PROJECT, scripts: [[{ end: "completed" }]] });
  const elsewhere = thread({ cwd: "/work/other", scripts: [[{ end: "completed" }]] });
  return {
    inProject: inProject.id,
    elsewhere: elsewhere.id,
    s: {
      threads: [inProject, elsewhere],
      config: { sandbox_mode: "danger-full-access", approval_policy: "never" },
      projects: { [PROJECT]: { sandbox_mode: "read-only", approval_policy: "on-request" } },
      newThreadScripts: [[{ end: "completed" }]],
    },
  };
}

async function withRelay(
  s: Scenario,
  flags: string[],
  fn: (
    run: (args: Structured) => Promise<{ out: ToolOutput<"codex_run">; text: string }>,
    f: FixtureHome,
  ) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create(s);
  const relay = await startRelay({
    fixture: f,
    flags: ["--allow-reply-read", "--allow-turn-start", ...flags],
    protocol: "2026-07-28",
  });
  try {
    await fn(async (args) => {
      const r = await callTool(relay.client, "codex_run", { text: "go", ...args }, {
        timeout: 60_000,
      });
      return {
        out: r.structuredContent,
        text: (r.content as { text: string }[])[0].text,
      };
    }, f);
  } finally {
    const { code } = await relay.close();
    assert.equal(code, 0, "the relay exits 0 on stdin EOF");
    await f.dispose();
  }
}

/** The methods the fixture received that store or start something. */
async function sentWork(f: FixtureHome): Promise<string[]> {
  const acting = new Set([
    "thread/queue/add",
    "thread/resume",
    "thread/start",
    "thread/queue/start",
  ]);
  return (await f.requests()).map((r) => r.method).filter((m) => acting.has(m));
}

for (const mode of MODES) {
  Deno.test(`${mode.name}: codex_run on a thread may not loosen its project's sandbox or approvals; nothing is sent`, async () => {
    const { s, inProject } = layered();
    await withRelay(s, mode.flags, async (run, f) => {
      const loose = await run({
        threadId: inProject,
        sandbox: "danger-full-access",
        approvalPolicy: "never",
      });
      assert.equal(loose.out.reason, "not_allowed", loose.text);
      assert.equal(loose.out.turn, null);
      assert.equal(loose.out.receipt.status, "not_sent");
      assert.match(loose.text, /sandbox danger-full-access is looser than the thread's read-only/);
      assert.match(loose.text, /approvalPolicy never is looser than the thread's on-request/);
      assert.deepEqual(await sentWork(f), [], "nothing queued, resumed or started");
      const reads = (await f.requests()).filter((r) => r.method === "config/read");
      assert.deepEqual(reads.map((r) => r.params), [{ cwd: PROJECT }], "read at the thread's cwd");

      const loosened = await run({ threadId: inProject, sandbox: "workspace-write" });
      assert.equal(loosened.out.reason, "not_allowed", "one step looser is looser too");

      // The project's own level (and anything tighter) is accepted and passed on.
      const tight = await run({
        threadId: inProject,
        sandbox: "read-only",
        approvalPolicy: "untrusted",
      });
      assert.equal(tight.out.turn?.status, "completed", tight.text);
      const resume = (await f.requests()).find((r) => r.method === "thread/resume")!;
      const params = resume.params;
      assert.equal(params.sandbox, "read-only");
      assert.equal(params.approvalPolicy, "untrusted");
    });
  });

  Deno.test(`${mode.name}: a thread outside the project gets the user layer; a new thread in the project its layer`, async () => {
    const { s, elsewhere } = layered();
    await withRelay(s, mode.flags, async (run, f) => {
      const outside = await run({
        threadId: elsewhere,
        sandbox: "danger-full-access",
        approvalPolicy: "never",
      });
      assert.equal(outside.out.turn?.status, "completed", outside.text);

      const before = (await sentWork(f)).length;
      const fresh = await run({ cwd: PROJECT, sandbox: "danger-full-access" });
      assert.equal(fresh.out.reason, "not_allowed", fresh.text);
      assert.match(fresh.text, /sandbox danger-full-access is looser than the thread's read-only/);
      assert.equal((await sentWork(f)).length, before, "no thread was started");

      const freshTight = await run({ cwd: PROJECT, approvalPolicy: "on-request" });
      assert.equal(freshTight.out.turn?.status, "completed", freshTight.text);
      const start = (await f.requests()).find((r) => r.method === "thread/start")!;
      assert.equal(start.params.approvalPolicy, "on-request");
      assert.equal(start.params.cwd, PROJECT);
    });
  });

  Deno.test(`${mode.name}: what a tighter run left with a thread, a later codex_run may not loosen`, async () => {
    const t = thread({ cwd: "/work/other", scripts: [[{ end: "completed" }]] });
    const s: Scenario = {
      threads: [t],
      config: { sandbox_mode: "workspace-write", approval_policy: "on-request" },
    };
    await withRelay(s, mode.flags, async (run, f) => {
      const tight = await run({ threadId: t.id, sandbox: "read-only" });
      assert.equal(tight.out.turn?.status, "completed", tight.text);
      const resumes = () => f.requests().then((r) => r.filter((x) => x.method === "thread/resume"));
      const before = (await resumes()).length;
      const back = await run({ threadId: t.id, sandbox: "workspace-write" });
      assert.equal(back.out.reason, "not_allowed", back.text);
      assert.match(back.text, /read-only \(left by an earlier codex_run of this relay\)/);
      assert.equal((await resumes()).length, before, "nothing was sent");
      const plain = await run({ threadId: t.id, approvalPolicy: "on-request" });
      assert.equal(plain.out.turn?.status, "completed", "other options still pass");
    });
  });
}

Deno.test("daemon: a thread the daemon has loaded keeps its settings; codex_run's tighter option is not_allowed, nothing queued", async () => {
  const t = thread({
    cwd: "/work/other",
    loadedWith: { sandbox: "workspace-write", approvalPolicy: "on-request" },
    scripts: [[{ end: "completed" }]],
  });
  const s: Scenario = {
    threads: [t],
    config: { sandbox_mode: "workspace-write", approval_policy: "on-request" },
  };
  await withRelay(s, ["--app-server", "daemon"], async (run, f) => {
    const tight = await run({ threadId: t.id, sandbox: "read-only", approvalPolicy: "on-request" });
    assert.equal(tight.out.reason, "not_allowed", tight.text);
    assert.equal(tight.out.receipt.status, "not_sent");
    assert.match(tight.text, /already has this thread loaded/);
    assert.match(tight.text, /sandbox workspace-write \(not read-only\)/);
    const methods = (await f.requests()).map((r) => r.method);
    assert.ok(!methods.includes("thread/queue/add"), "nothing was queued");

    const asItIs = await run({ threadId: t.id, sandbox: "workspace-write" });
    assert.equal(asItIs.out.turn?.status, "completed", asItIs.text);
  });
});
