/**
 * End-to-end tests of turns through `serve --app-server daemon` against a real app-server daemon
 * (temp CODEX_HOME, offline with the Responses mock), driven by the MCP SDK client through the
 * real entry point and permission set; a raw WebSocket client of the daemon (`DaemonClient`)
 * stands for the user's own Codex. Covered: a daemon-run turn reads as `running`; a wait
 * wakes on the thread's notifications instead of its fallback poll; a wait never loads a
 * `notLoaded` thread; codex_run runs a thread the daemon holds; its turn survives the relay
 * that started it, a later relay's codex_list_threads lists it (waiting_for_approval, otherRelay),
 * and its codex_wait_reply is offered its pending approval and gets its final answer; the user's own turn's approval is never answered by the relay.
 *
 * Run against another Codex with `CODEX_BIN=/path/to/codex`.
 */

import assert from "node:assert/strict";
import { AppServer } from "../../testing/app_server_client.ts";
import { codexForTests } from "../../testing/codex_bin.ts";
import type { ApprovalSetting, CodexHome } from "../../testing/codex_home.ts";
import { type MockResponses, noEchoAnswer } from "../../testing/mock_responses.ts";
import { DaemonClient, startDaemon, stopDaemon } from "./daemon_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { processesTagged } from "../../testing/process_table.ts";
import { within } from "../../testing/deadline.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import type { ConnectedClient, ElicitParams } from "../../testing/mcp_client.ts";
import type { ElicitResult } from "@modelcontextprotocol/client";
import { callTool, type ToolName, type ToolOutput } from "../../testing/call_tool.ts";

const BIN = codexForTests("tests/e2e/daemon_turns_e2e_test.ts");
const ignore = BIN === null;
type Rec = Record<string, unknown>;

const READ = ["--app-server", "daemon", "--allow-reply-read"];
const RUN = [...READ, "--allow-turn-start"];

interface World {
  home: CodexHome;
  mock: MockResponses;
  relay(
    flags: string[],
    onElicit?: (p: ElicitParams) => ElicitResult | Promise<ElicitResult>,
  ): Promise<ConnectedClient>;
  user(): Promise<DaemonClient>;
}

/** A daemon in a temp home; everything started is closed, and every process reaped, at the end. */
async function withDaemon(
  opts: { approval?: ApprovalSetting },
  fn: (w: World) => Promise<void>,
): Promise<void> {
  await withMockHome({ bin: BIN!.path, approval: opts.approval }, async ({ mock, home, env }) => {
    const closers: { close(): Promise<unknown> }[] = [];
    try {
      await startDaemon(BIN!.path, home);
      await fn({
        home,
        mock,
        async relay(flags, onElicit) {
          const r = await startRelay({ env, flags, protocol: "2026-07-28", onElicit });
          closers.push(r);
          return r;
        },
        async user() {
          const u = await DaemonClient.connect(BIN!.path, home);
          closers.push(u);
          return u;
        },
      });
    } finally {
      for (const c of closers.reverse()) await c.close().catch(() => {});
      await stopDaemon(BIN!.path, home);
    }
  });
}

async function call<N extends ToolName>(
  c: ConnectedClient,
  name: N,
  args: Rec,
): Promise<ToolOutput<N>> {
  const result = await callTool(c.client, name, args, { timeout: 90_000 });
  assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

/** A stored thread with one completed turn (through a stdio helper: the daemon does not load it). */
async function seedThread(home: CodexHome): Promise<string> {
  const d = await AppServer.start(home, { bin: BIN!.path });
  try {
    const thread = await d.startThread({ cwd: home.workspace });
    const run = await d.runTurn(thread.id, "seed question", {
      clientUserMessageId: crypto.randomUUID(),
    });
    assert.equal(run.turn.status, "completed");
    return thread.id;
  } finally {
    await d.close();
  }
}

async function threadStatus(user: DaemonClient, threadId: string): Promise<string> {
  const list = await user.request("thread/list", { limit: 100 }) as {
    data: { id: string; status: { type: string } }[];
  };
  return list.data.find((t) => t.id === threadId)?.status.type ?? "absent";
}

const isApproval = (threadId: string) => (m: Rec) =>
  m.method === "item/commandExecution/requestApproval" && (m.params as Rec).threadId === threadId;
const resolvedOf = (id: unknown) => (m: Rec) =>
  m.method === "serverRequest/resolved" && (m.params as Rec).requestId === id;

Deno.test({
  name:
    "e2e daemon turns: a daemon-run turn reads as running, and a wait wakes on its end, not on its fallback poll",
  ignore,
  fn: () =>
    withDaemon({}, async (w) => {
      const hot = await seedThread(w.home);
      const user = await w.user();
      await user.request("thread/resume", { threadId: hot, excludeTurns: true });
      const relay = await w.relay(READ);
      const text = "SLOW:w1 NOECHO daemon wait";
      const receipt = await call(relay, "codex_queue_message", { threadId: hot, text });
      assert.equal(receipt.status, "queued", JSON.stringify(receipt));
      await w.mock.held("w1"); // The daemon runs it at once: the thread is loaded and idle there.
      const args = { threadId: hot, clientMessageId: receipt.clientMessageId };
      const read = await call(relay, "codex_read_reply", args);
      assert.equal(read.status, "observed", JSON.stringify(read));
      assert.equal(
        (read.turn as Rec).status,
        "running",
        "running in the daemon, not unverified",
      );

      // Release the turn only once the wait's fallback pause has grown to 2 s (after read 5 at
      // 3.75 s the next fallback read is at 5.75 s): returning sooner proves the wake.
      let releasedAt = 0;
      const result = await callTool(relay.client, "codex_wait_reply", {
        ...args,
        timeoutSeconds: 30,
      }, {
        timeout: 60_000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => {
          if (p.progress >= 5 && releasedAt === 0) {
            releasedAt = performance.now();
            w.mock.release("w1");
          }
        },
      });
      const lag = performance.now() - releasedAt;
      assert.ok(releasedAt > 0, "the wait reported progress while the turn ran");
      const out = result.structuredContent;
      assert.equal(out.status, "observed", JSON.stringify(out));
      const seq = w.mock.requests.find((r) => r.userText === text)!.seq;
      assert.deepEqual((out.replies as Rec[]).map((r) => r.text), [noEchoAnswer(seq)]);
      assert.ok(lag < 1500, `the wait returned ${Math.round(lag)} ms after the release`);
      // deno-lint-ignore no-console
      console.error(`daemon wait: returned ${Math.round(lag)} ms after the mock's release`);
    }),
});

Deno.test({
  name:
    "e2e daemon turns: a wait at the turn-start level never loads a notLoaded thread into the daemon",
  ignore,
  fn: () =>
    withDaemon({}, async (w) => {
      const cold = await seedThread(w.home);
      const user = await w.user();
      assert.equal(await threadStatus(user, cold), "notLoaded");
      const relay = await w.relay(RUN);
      const receipt = await call(relay, "codex_queue_message", { threadId: cold, text: "cold" });
      assert.equal(receipt.status, "queued");
      const waited = await call(relay, "codex_wait_reply", {
        threadId: cold,
        clientMessageId: receipt.clientMessageId,
        timeoutSeconds: 2,
      });
      // Still in the thread's queue, no turn runs: a daemon may start it, so the wait waits.
      assert.equal(waited.status, "queued", JSON.stringify(waited));
      assert.equal(waited.turnRunning, false);
      assert.equal(waited.timedOut, true);
      assert.equal(await threadStatus(user, cold), "notLoaded", "the wait loaded nothing");
    }),
});

Deno.test({
  name:
    "e2e daemon turns: codex_run on a thread the daemon holds; relay A exits with an approval pending, relay B is offered it, answers it and gets the final answer",
  ignore,
  fn: () =>
    withDaemon({ approval: "on-request" }, async (w) => {
      const hot = await seedThread(w.home);
      // The user's Codex has the thread open in the daemon and watches it.
      const user = await w.user();
      await user.request("thread/resume", { threadId: hot, excludeTurns: true });
      const askedA: ElicitParams[] = [];
      const relayA = await w.relay(RUN, (p) => {
        askedA.push(p);
        return { action: "decline" };
      });
      const text = "SLOW:a SHELL: echo survived-relay-a";
      const ran = await call(relayA, "codex_run", { threadId: hot, text, waitSeconds: 2 });
      assert.equal((ran.receipt as Rec).status, "queued", JSON.stringify(ran));
      assert.equal(ran.reason, undefined, "no held_elsewhere for a thread the daemon holds");
      assert.equal((ran.turn as Rec).status, "running", JSON.stringify(ran));
      const clientMessageId = (ran.receipt as Rec).clientMessageId;

      w.mock.release("a");
      const approval = await user.waitFor(isApproval(hot));
      await relayA.close(); // stdin EOF: relay A shuts down with the approval pending.

      const turns = await user.request("thread/turns/list", {
        threadId: hot,
        limit: 5,
        itemsView: "notLoaded",
      }) as { data: { id: string; status: string }[] };
      const turnId = (approval.params as Rec).turnId;
      assert.equal(turns.data.find((t) => t.id === turnId)?.status, "inProgress", "it survived");
      assert.equal(askedA.length, 0, "relay A had no call following the turn to ask");
      assert.equal(
        user.notifications.some(resolvedOf(approval.id)),
        false,
        "relay A neither declined nor answered the approval when it exited",
      );

      const askedB: ElicitParams[] = [];
      const relayB = await w.relay(RUN, (p) => {
        askedB.push(p);
        return { action: "accept", content: { decision: "accept" } };
      });
      // Relay B's one look lists relay A's turn (the daemon flags the thread waitingOnApproval).
      const look = await call(relayB, "codex_list_threads", {});
      const listed = (look.runs as Rec[]).map((
        r,
      ) => [r.threadId, r.clientMessageId, r.state, r.otherRelay]);
      assert.deepEqual(
        listed,
        [[hot, clientMessageId, "waiting_for_approval", true]],
        JSON.stringify(look),
      );
      const waited = await call(relayB, "codex_wait_reply", {
        threadId: hot,
        clientMessageId,
        timeoutSeconds: 30,
      });
      assert.equal(askedB.length, 1, "relay B was offered the pending approval");
      assert.match(String(askedB[0].message), /echo survived-relay-a/);
      assert.equal(waited.status, "observed", JSON.stringify(waited));
      assert.equal(waited.timedOut, false);
      const [call1] = w.mock.requests.filter((r) => r.userText === text);
      const replies = waited.replies as { text: string }[];
      assert.equal(replies.length, 1, JSON.stringify(replies));
      assert.match(
        replies[0].text,
        new RegExp(
          `^Tool call call_sh_${call1.seq} returned: .*Output:\\nsurvived-relay-a\\n$`,
          "s",
        ),
      );
      await user.waitFor(resolvedOf(approval.id));
      // Relay B followed it to its end: its next look lists it completed, once.
      const after = (await call(relayB, "codex_list_threads", {})).runs as Rec[];
      assert.deepEqual(after.map((r) => [r.clientMessageId, r.state]), [[
        clientMessageId,
        "completed",
      ]]);
      assert.deepEqual((await call(relayB, "codex_list_threads", {})).runs, []);
    }),
});

Deno.test({
  name:
    "e2e daemon turns: the user's own turn's approval is never answered or forwarded by a relay subscribed to the thread",
  ignore,
  fn: () =>
    withDaemon({ approval: "on-request" }, async (w) => {
      const hot = await seedThread(w.home);
      const user = await w.user();
      await user.request("thread/resume", { threadId: hot, excludeTurns: true });
      await user.request("turn/start", {
        threadId: hot,
        clientUserMessageId: "users-own",
        input: [{ type: "text", text: "SHELL: echo users-own", text_elements: [] }],
      });
      const approval = await user.waitFor(isApproval(hot));
      const asked: ElicitParams[] = [];
      const relay = await w.relay(RUN, (p) => {
        asked.push(p);
        return { action: "accept", content: { decision: "accept" } };
      });
      // The relay subscribes to the thread (the daemon replays the user's pending approval to it)
      // and queues its message behind the user's turn.
      const text = "NOECHO after the user's turn";
      const ran = await call(relay, "codex_run", { threadId: hot, text, waitSeconds: 3 });
      assert.equal((ran.turn as Rec).status, "running", JSON.stringify(ran));
      assert.equal(ran.pendingRequests, undefined, JSON.stringify(ran));
      assert.equal(asked.length, 0, "the user's approval was not forwarded");
      assert.equal(user.notifications.some(resolvedOf(approval.id)), false, "nor answered");

      user.respond(approval.id as number, { decision: "accept" });
      await user.waitFor(resolvedOf(approval.id));
      const waited = await call(relay, "codex_wait_reply", {
        threadId: hot,
        clientMessageId: (ran.receipt as Rec).clientMessageId,
        timeoutSeconds: 30,
      });
      assert.equal(waited.status, "observed", JSON.stringify(waited));
      const seq = w.mock.requests.find((r) => r.userText === text)!.seq;
      assert.deepEqual((waited.replies as Rec[]).map((r) => r.text), [noEchoAnswer(seq)]);
      assert.equal(asked.length, 0);
      const users = w.mock.requests.filter((r) => r.userText === "SHELL: echo users-own");
      assert.deepEqual(users.map((r) => r.kind), ["shell_call", "shell_answer"], "the user's ran");
    }),
});

Deno.test({
  name:
    "e2e daemon turns: codex_interrupt stops a turn codex_run runs in the daemon; codex_withdraw_message takes back a message still queued",
  ignore,
  fn: () =>
    withDaemon({}, async (w) => {
      const hot = await seedThread(w.home);
      const cold = await seedThread(w.home);
      const user = await w.user();
      await user.request("thread/resume", { threadId: hot, excludeTurns: true });
      const relay = await w.relay(RUN);

      const text = "SLOW:i NOECHO interrupt me";
      const ran = await call(relay, "codex_run", { threadId: hot, text, waitSeconds: 1 });
      assert.equal((ran.turn as Rec).status, "running", JSON.stringify(ran));
      await w.mock.held("i");
      const stopped = await call(relay, "codex_interrupt", { threadId: hot });
      w.mock.release("i");
      assert.equal(stopped.status, "interrupted", JSON.stringify(stopped));
      assert.equal((stopped.turn as Rec).status, "interrupted");
      const again = await call(relay, "codex_interrupt", { threadId: hot });
      assert.equal(again.status, "not_running", "nothing is left to interrupt");

      // A stored thread the daemon has not loaded keeps a queued message queued.
      const queued = await call(relay, "codex_queue_message", { threadId: cold, text: "later" });
      assert.equal(queued.status, "queued", JSON.stringify(queued));
      const scope = { threadId: cold, clientMessageId: queued.clientMessageId };
      const withdrawn = await call(relay, "codex_withdraw_message", scope);
      assert.equal(withdrawn.status, "withdrawn", JSON.stringify(withdrawn));
      const list = await user.request("thread/queue/list", { threadId: cold }) as {
        data: { clientUserMessageId: string }[];
      };
      assert.ok(
        !list.data.some((q) => q.clientUserMessageId === queued.clientMessageId),
        "the daemon's queue no longer holds it",
      );
      const twice = await call(relay, "codex_withdraw_message", scope);
      assert.notEqual(twice.status, "withdrawn", JSON.stringify(twice));
      assert.equal(await threadStatus(user, cold), "notLoaded", "the relay did not load it");
    }),
});

Deno.test({
  name:
    "e2e daemon turns: a compaction lost with its connection (the relay's proxy killed, the daemon on) is followed again by its id: attached, completed with its usage; codex_read_reply is never not_found",
  ignore,
  fn: () =>
    withDaemon({}, async (w) => {
      const relay = await w.relay(RUN);
      const run = await call(relay, "codex_run", {
        cwd: w.home.workspace,
        text: "work COMPACT_SLOW:lc",
      });
      assert.equal(run.turn?.status, "completed", JSON.stringify(run));
      const started = await call(relay, "codex_compact", {
        threadId: run.threadId,
        waitSeconds: 1,
      });
      assert.equal(started.turn?.status, "running", JSON.stringify(started));
      await w.mock.held("lc");
      const ref = { threadId: run.threadId, clientMessageId: started.receipt!.clientMessageId };
      const followingNow = Promise.withResolvers<void>();
      const following = callTool(relay.client, "codex_wait_reply", {
        ...ref,
        timeoutSeconds: 30,
      }, { timeout: 60_000, onprogress: () => followingNow.resolve() });
      await followingNow.promise;
      // The connection lost, not the daemon: the relay's proxy is killed (by pid), the
      // compaction runs on in the daemon, its model request still held.
      const proxies = (await processesTagged(w.home.root))
        .filter((p) => / app-server proxy/.test(p.cmdline));
      assert.ok(proxies.length > 0, "the relay's proxy");
      for (const p of proxies) Deno.kill(p.pid, "SIGKILL");
      const lost = (await following).structuredContent;
      assert.equal(lost.reason, "connection_lost", JSON.stringify(lost));
      const listed = await call(relay, "codex_list_threads", {});
      const compaction = listed.runs?.find((r) => r.clientMessageId === ref.clientMessageId);
      assert.equal(compaction?.state, "lost", JSON.stringify(listed.runs));
      // The next wait redials, attaches to the compaction's turn and follows it to its end; the
      // model request is released once the run is listed running again (attached: the only sign).
      const waiting = callTool(relay.client, "codex_wait_reply", { ...ref, timeoutSeconds: 50 }, {
        timeout: 90_000,
      });
      const stateNow = async () =>
        (await call(relay, "codex_list_threads", {})).runs
          ?.find((r) => r.clientMessageId === ref.clientMessageId)?.state;
      await within(
        (async () => {
          while (await stateNow() !== "running");
        })(),
        "the wait attaching to the compaction's turn",
        30_000,
      );
      w.mock.release("lc");
      const waited = (await waiting).structuredContent;
      assert.equal(waited.status, "observed", JSON.stringify(waited));
      assert.deepEqual(waited.turn, { id: started.turn!.id, status: "completed" });
      const u = waited.usage;
      assert.deepEqual([u?.inputTokens, u?.outputTokens, u?.totalTokens], [10, 5, 15]);
      const read = await call(relay, "codex_read_reply", ref);
      assert.equal(read.status, "observed", JSON.stringify(read));
      assert.deepEqual(read.turn, { id: started.turn!.id, status: "completed" });
    }),
});
