/**
 * End-to-end tests of the relay (`mod.ts serve`, the project's default permission set) against
 * the real `codex app-server`, offline: a temp CODEX_HOME whose model provider is the Responses
 * mock (`mock_responses.ts`), threads created and turns run through the raw driver
 * (`codex_home.ts`), and the relay driven with the MCP SDK v2 `Client` (`tests/_relay.ts`).
 *
 * The relay resolves `codex` on PATH when it starts (`--allow-run=codex`), so each test puts a
 * temp `bin/codex` symlink to the real binary first on the relay's PATH.
 *
 * Run: `deno test -P tests/e2e/relay_e2e_test.ts` with codex in `.codex-npm/` (as `.ci/run`
 * installs it) or `CODEX_BIN=/path/to/codex`. Without a codex binary every test is reported as
 * ignored and a SKIPPED line is printed on stderr.
 *
 * Every test gets its own mock, temp root, relay and app-server processes, and checks the process
 * table when it ends: once its calls have returned the relay holds no helper, and after it exits
 * nothing tagged with the temp root (relay, helpers, MCP servers) survives. Barriers, not sleeps:
 * the mock's `SLOW:<tag>` holds a turn until the test releases it, and the driver's notification
 * waits tell when Codex has done something.
 *
 * The codex_run tests run their steps only when the relay lists `codex_run` (`--allow-turn-start`);
 * otherwise the steps are reported as ignored with a SKIPPED line. The command-approval tests
 * (`approval_policy = "on-request"`, mock `SHELL:`) also read the exact frames between the relay and
 * its helpers: their `bin/codex` is a `tee` wrapper around the real binary (world option `tap`).
 */
import assert from "node:assert/strict";
import {
  type ApprovalSetting,
  AppServer,
  codexForTests,
  type CodexHome,
  createCodexHome,
  linkCodexBin,
  listAllItems,
  processesTagged,
  relayEnv,
} from "../../testing/codex_home.ts";
import {
  longAnswerText,
  type MockResponses,
  noEchoAnswer,
  secondAnswer,
  SHELL_JUSTIFICATION,
  startMockResponses,
} from "../../testing/mock_responses.ts";
import { PROTOCOLS, startRelay } from "../../testing/relay.ts";
import type { ConnectedClient, ElicitParams, McpTestProtocol } from "../../testing/mcp_client.ts";
import type { CallToolResult, ElicitResult } from "@modelcontextprotocol/client";

const BIN = codexForTests("tests/e2e/relay_e2e_test.ts");
const ignore = BIN === null;

type Rec = Record<string, unknown>;
const BUDGET_BYTES = 16 * 1024;
const utf8 = new TextEncoder();

/** One test's world: the mock, the temp root, the relay's environment. */
interface World {
  mock: MockResponses;
  home: CodexHome;
  /** The relay's environment (PATH starts with the temp bin dir holding `codex`). */
  env: Record<string, string>;
  /** Starts a raw app-server driver on this home (closed when the test ends). */
  driver(): Promise<AppServer>;
  /** Starts the relay (closed, and its exit code checked, when the test ends). */
  relay(
    flags: string[],
    opts?: {
      protocol?: McpTestProtocol;
      onElicit?: (p: ElicitParams) => ElicitResult | Promise<ElicitResult>;
    },
  ): Promise<ConnectedClient>;
}

/**
 * Runs `fn` in a fresh world. `tap`: the relay's `codex` is a shell script that records what each
 * helper reads and writes in `<root>/frames/<pid>.in` / `.out` (see {@link tappedFrames}).
 */
async function withWorld(
  opts: { elicitMcp?: boolean; extraMcpArgs?: string[]; approval?: ApprovalSetting; tap?: boolean },
  fn: (w: World) => Promise<void>,
): Promise<void> {
  const mock = await startMockResponses();
  let home: CodexHome | undefined;
  const env: Record<string, string> = {};
  const { tap, ...homeOpts } = opts;
  try {
    home = await createCodexHome({ ...homeOpts, mockUrl: mock.url });
    let binDir: string;
    if (tap) {
      binDir = `${home.root}/bin`;
      await Deno.mkdir(binDir);
      const frames = `${home.root}/frames`;
      await Deno.mkdir(frames);
      // sh waits for the whole pipeline: when the relay closes stdin, tee, codex and tee end, then sh.
      await Deno.writeTextFile(
        `${binDir}/codex`,
        `#!/bin/sh\ntee "${frames}/$$.in" | "${BIN!.path}" "$@" | tee "${frames}/$$.out"\n`,
        { mode: 0o755 },
      );
    } else binDir = await linkCodexBin(home, BIN!.path);
    Object.assign(env, await relayEnv(home, binDir));
    const tmp = Deno.env.get("TMPDIR");
    if (tmp) env.TMPDIR = tmp;
  } catch (error) {
    await mock.close();
    await home?.cleanup();
    throw error;
  }
  await inWorld(mock, home, env, fn);
}

async function inWorld(
  mock: MockResponses,
  home: CodexHome,
  env: Record<string, string>,
  fn: (w: World) => Promise<void>,
): Promise<void> {
  const drivers: AppServer[] = [];
  const relays: ConnectedClient[] = [];
  const world: World = {
    mock,
    home,
    env,
    async driver() {
      const d = await AppServer.start(home, { bin: BIN!.path });
      drivers.push(d);
      return d;
    },
    async relay(flags, o = {}) {
      const r = await startRelay({
        env,
        flags,
        protocol: o.protocol ?? "2026-07-28",
        onElicit: o.onElicit,
      });
      relays.push(r);
      // The process-table check at the end is meaningful only if it sees the relay.
      const seen = await processesTagged(home.root);
      assert.ok(seen.some((p) => p.pid === r.transport.pid), "the ps check finds the relay");
      return r;
    },
  };
  let failure: unknown = null;
  try {
    await fn(world);
  } catch (error) {
    failure = error;
  }
  const problems: string[] = [];
  try {
    for (const d of drivers) await d.close();
    // Once its calls have returned, a relay holds no helper (nor anything the helper started).
    const relayPids = new Set(relays.map((r) => r.transport.pid));
    const held = (await processesTagged(home.root)).filter((p) => !relayPids.has(p.pid));
    if (held.length > 0) {
      problems.push(`held by the relay after its calls: ${JSON.stringify(held)}`);
    }
    for (const r of relays) {
      const { code, stderr } = await r.close();
      if (code !== 0) problems.push(`relay exited ${code}: ${stderr.slice(-2000)}`);
    }
    const left = await processesTagged(home.root);
    if (left.length > 0) problems.push(`processes left behind: ${JSON.stringify(left)}`);
  } finally {
    await mock.close();
    await home.cleanup();
  }
  if (failure) {
    // deno-lint-ignore no-console
    if (problems.length > 0) console.error(`also: ${problems.join("; ")}`);
    throw failure;
  }
  assert.deepEqual(problems, [], "the relay exits 0 and leaves no process behind");
}

/** Live `codex app-server` processes started for this home (helpers and drivers). */
async function helpers(home: CodexHome): Promise<number[]> {
  return (await processesTagged(home.root))
    .filter((p) => / app-server(\s|$)/.test(p.cmdline))
    .map((p) => p.pid);
}

/** Starts a thread in the workspace and runs one turn with a UUID clientUserMessageId. */
async function seedThread(
  d: AppServer,
  home: CodexHome,
  text: string,
): Promise<{ threadId: string; turnId: string; clientId: string }> {
  const thread = await d.startThread({ cwd: home.workspace });
  const clientId = crypto.randomUUID();
  const run = await d.runTurn(thread.id, text, { clientUserMessageId: clientId });
  assert.equal(run.turn.status, "completed");
  return { threadId: thread.id, turnId: run.turnId, clientId };
}

async function call(c: ConnectedClient, name: string, args: Rec): Promise<CallToolResult> {
  const result = await c.client.callTool({ name, arguments: args }) as CallToolResult;
  assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
  return result;
}

function structured(result: CallToolResult): Rec {
  assert.ok(result.structuredContent, "the result has structuredContent");
  return result.structuredContent as Rec;
}

/** The sequence number of the mock request whose latest user text is `text`. */
function seqOf(mock: MockResponses, text: string): number {
  const hits = mock.requests.filter((r) => r.userText === text);
  assert.equal(hits.length, 1, `exactly one model request for ${JSON.stringify(text)}`);
  return hits[0].seq;
}

/** Resumes a stored thread in `d` (its queued messages run) and waits for the turns of `clientIds`. */
async function runQueued(
  d: AppServer,
  threadId: string,
  clientIds: string[],
): Promise<Map<string, Rec>> {
  await d.request("thread/resume", { threadId, excludeTurns: true });
  const turns = new Map<string, Rec>();
  for (const clientId of clientIds) {
    const started = await d.waitForNotification(
      (n) =>
        n.method === "item/completed" && (n.params.item as Rec).type === "userMessage" &&
        (n.params.item as Rec).clientId === clientId,
      `user item ${clientId}`,
    );
    turns.set(clientId, await d.waitForTurnCompleted(String(started.params.turnId)));
  }
  return turns;
}

function assertNoLeak(result: CallToolResult, secrets: string[]): void {
  const all = JSON.stringify(result);
  for (const s of secrets) assert.ok(!all.includes(s), `the result must not contain ${s}`);
}

// ---------------------------------------------------------------------------------------------
// Queue level
// ---------------------------------------------------------------------------------------------

for (const protocol of PROTOCOLS) {
  Deno.test({
    name: `e2e relay [${protocol}]: codex_list_threads lists real threads without content, paged`,
    ignore,
    fn: () =>
      withWorld({}, async (w) => {
        const d = await w.driver();
        const a = await seedThread(d, w.home, "first thread question");
        const b = await seedThread(d, w.home, "second thread question");
        await d.request("thread/name/set", { threadId: b.threadId, name: "e2e named thread" });
        await d.close();

        const relay = await w.relay([], { protocol });
        const { tools } = await relay.client.listTools();
        assert.deepEqual(tools.map((t) => t.name), [
          "codex_list_threads",
          "codex_queue_message",
        ]);
        assert.deepEqual(await helpers(w.home), [], "starting and listing tools spawn no helper");

        const names = new Map([[a.threadId, null], [b.threadId, "e2e named thread"]]);
        const secrets = [
          "first thread question",
          "second thread question",
          "Looking at",
          "Echo:",
          w.home.workspace,
        ];
        const first = await call(relay, "codex_list_threads", { limit: 1 });
        const page1 = structured(first);
        assert.equal(page1.status, "ok");
        assert.equal((page1.threads as Rec[]).length, 1);
        const t1 = (page1.threads as Rec[])[0];
        assert.deepEqual(Object.keys(t1).sort(), ["id", "name", "status", "updatedAt"]);
        assert.ok(names.has(String(t1.id)));
        assert.equal(t1.name, names.get(String(t1.id)));
        assert.equal(t1.status, "notLoaded");
        assert.ok(!Number.isNaN(Date.parse(String(t1.updatedAt))));
        assert.equal(typeof page1.nextCursor, "string");
        assertNoLeak(first, secrets);

        const second = await call(relay, "codex_list_threads", {
          limit: 1,
          cursor: page1.nextCursor,
        });
        const page2 = structured(second);
        const t2 = (page2.threads as Rec[])[0];
        assert.equal((page2.threads as Rec[]).length, 1);
        assert.notEqual(t2.id, t1.id, "the cursor continues after the first page");
        assert.ok(names.has(String(t2.id)));
        assert.equal(t2.name, names.get(String(t2.id)));
        assert.ok(Date.parse(String(t1.updatedAt)) >= Date.parse(String(t2.updatedAt)));
        assertNoLeak(second, secrets);

        const all = structured(await call(relay, "codex_list_threads", {}));
        assert.deepEqual((all.threads as Rec[]).map((t) => t.id), [t1.id, t2.id]);
        assert.equal(all.nextCursor, null);
        assert.deepEqual(await helpers(w.home), [], "each call's helper is reaped when it returns");
      }),
  });
}

Deno.test({
  name:
    "e2e relay: codex_queue_message lands in the real queue under the receipt's clientMessageId",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const d = await w.driver();
      const seed = await seedThread(d, w.home, "seed question");
      await d.request("thread/name/set", { threadId: seed.threadId, name: "queue target" });
      await d.close(); // the thread is stored and not loaded anywhere

      const relay = await w.relay([]);
      const text1 = "queued by id NOECHO ünïcødé 😀";
      const text2 = "queued by name NOECHO";
      const byId = structured(
        await call(relay, "codex_queue_message", { threadId: seed.threadId, text: text1 }),
      );
      const byName = structured(
        await call(relay, "codex_queue_message", { threadId: "queue target", text: text2 }),
      );
      for (const r of [byId, byName]) {
        assert.equal(r.status, "queued", JSON.stringify(r));
        assert.equal(r.confirmedBy, "acknowledgement");
        assert.equal(r.threadId, seed.threadId);
        assert.match(String(r.clientMessageId), /^[0-9a-f-]{36}$/);
        assert.equal(typeof r.queuedSubmissionId, "string");
      }
      assert.notEqual(byId.clientMessageId, byName.clientMessageId);

      // The real queue, read by another process.
      const check = await w.driver();
      const queue = await check.request("thread/queue/list", { threadId: seed.threadId }) as {
        data: Rec[];
      };
      assert.deepEqual(
        queue.data.map((q) => [q.id, q.clientUserMessageId, q.input]),
        [
          [byId.queuedSubmissionId, byId.clientMessageId, [{
            type: "text",
            text: text1,
            text_elements: [],
          }]],
          [byName.queuedSubmissionId, byName.clientMessageId, [{
            type: "text",
            text: text2,
            text_elements: [],
          }]],
        ],
      );
      // Nothing ran: queued means stored, not processed.
      assert.equal(w.mock.requests.length, 1, "only the seed turn reached the model");

      const stderr = relay.transport.stderr;
      for (const s of [text1, text2]) assert.ok(!stderr.includes(s), "no message text in logs");
    }),
});

Deno.test({
  name: "e2e relay: codex_queue_message to an unknown thread is not_sent thread_not_found",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const relay = await w.relay([]);
      const missing = crypto.randomUUID();
      const r = structured(
        await call(relay, "codex_queue_message", { threadId: missing, text: "hello NOECHO" }),
      );
      assert.equal(r.status, "not_sent", JSON.stringify(r));
      assert.equal(r.reason, "thread_not_found");
      assert.equal(r.threadId, missing);
      const byName = structured(
        await call(relay, "codex_queue_message", { threadId: "no such name", text: "hello" }),
      );
      assert.equal(byName.status, "not_sent");
      assert.equal(byName.reason, "thread_not_found");
      assert.equal(w.mock.requests.length, 0);
    }),
});

// ---------------------------------------------------------------------------------------------
// Reply read (--allow-reply-read)
// ---------------------------------------------------------------------------------------------

const READ = ["--allow-reply-read"];

/** `codex_read_reply` (fails the test on an isError result). */
async function readReply(
  relay: ConnectedClient,
  args: { threadId: string; clientMessageId: string; cursor?: string; refresh?: boolean },
): Promise<{ result: CallToolResult; out: Rec }> {
  const result = await call(relay, "codex_read_reply", args);
  return { result, out: structured(result) };
}

/** The exact `observed` result of a turn whose final answers are `replies`. */
function observed(
  threadId: string,
  clientMessageId: string,
  turnId: string,
  replies: { itemId: string; text: string; truncated: boolean }[],
  extra: { nextCursor?: string | null; status?: string } = {},
): Rec {
  return {
    status: "observed",
    threadId,
    clientMessageId,
    association: "same_turn_not_exclusive",
    turn: { id: turnId, status: extra.status ?? "completed" },
    replies,
    nextCursor: extra.nextCursor ?? null,
    searchCursor: null,
  };
}

Deno.test({
  name: "e2e relay: codex_read_reply returns exactly the final answer of each queued message",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const d = await w.driver();
      const seed = await seedThread(d, w.home, "seed question");
      await d.close();

      const relay = await w.relay(READ);
      const q1 = "first question NOECHO";
      const q2 = "second question NOECHO";
      const r1 = structured(
        await call(relay, "codex_queue_message", { threadId: seed.threadId, text: q1 }),
      );
      const r2 = structured(
        await call(relay, "codex_queue_message", { threadId: seed.threadId, text: q2 }),
      );
      assert.equal(r1.status, "queued");
      assert.equal(r2.status, "queued");
      const id1 = String(r1.clientMessageId);
      const id2 = String(r2.clientMessageId);

      // Not run yet: the message is stored in the queue, not in the thread.
      const before = await readReply(relay, { threadId: seed.threadId, clientMessageId: id1 });
      assert.equal(before.out.status, "no_match");
      assert.deepEqual(before.out.replies, []);

      // Another Codex process resumes the thread: the queued messages run, in order.
      const runner = await w.driver();
      const turns = await runQueued(runner, seed.threadId, [id1, id2]);
      await runner.close();
      for (const t of turns.values()) assert.equal(t.status, "completed");
      const s1 = seqOf(w.mock, q1);
      const s2 = seqOf(w.mock, q2);

      const a1 = await readReply(relay, { threadId: seed.threadId, clientMessageId: id1 });
      assert.deepEqual(
        a1.out,
        observed(seed.threadId, id1, String(turns.get(id1)!.id), [
          { itemId: `msg_${s1}_final`, text: noEchoAnswer(s1), truncated: false },
        ]),
      );
      assertNoLeak(a1.result, [q1, q2, "Looking at", noEchoAnswer(s2), "seed question"]);

      const a2 = await readReply(relay, { threadId: seed.threadId, clientMessageId: id2 });
      assert.deepEqual(
        a2.out,
        observed(seed.threadId, id2, String(turns.get(id2)!.id), [
          { itemId: `msg_${s2}_final`, text: noEchoAnswer(s2), truncated: false },
        ]),
      );
      assertNoLeak(a2.result, [q1, q2, "Looking at", noEchoAnswer(s1)]);

      // The seed turn (started with turn/start and a clientUserMessageId) correlates too.
      const a0 = await readReply(relay, {
        threadId: seed.threadId,
        clientMessageId: seed.clientId,
      });
      assert.deepEqual(
        a0.out,
        observed(seed.threadId, seed.clientId, seed.turnId, [
          {
            itemId: `msg_${seqOf(w.mock, "seed question")}_final`,
            text: "Echo: seed question",
            truncated: false,
          },
        ]),
      );

      const stderr = relay.transport.stderr;
      for (const s of [q1, q2, noEchoAnswer(s1), noEchoAnswer(s2)]) {
        assert.ok(!stderr.includes(s), "no message or reply text in the relay's logs");
      }
    }),
});

Deno.test({
  name: "e2e relay: codex_read_reply reports no_match, thread_not_found and legacy_history",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const d = await w.driver();
      const seed = await seedThread(d, w.home, "plain NOECHO");
      const legacy = await d.startLegacyThread({ cwd: w.home.workspace });
      const legacyClientId = crypto.randomUUID();
      const run = await d.runTurn(legacy.id, "legacy NOECHO", {
        clientUserMessageId: legacyClientId,
      });
      assert.equal(run.turn.status, "completed");
      await d.close();

      const relay = await w.relay(READ);
      const unknownId = crypto.randomUUID();
      const none = await readReply(relay, { threadId: seed.threadId, clientMessageId: unknownId });
      assert.deepEqual(none.out, {
        status: "no_match",
        threadId: seed.threadId,
        clientMessageId: unknownId,
        turn: null,
        replies: [],
        nextCursor: null,
        searchCursor: null,
      });

      const missing = crypto.randomUUID();
      const gone = await readReply(relay, { threadId: missing, clientMessageId: seed.clientId });
      assert.equal(gone.out.status, "unavailable");
      assert.equal(gone.out.reason, "thread_not_found");
      assert.deepEqual(gone.out.replies, []);

      const old = await readReply(relay, { threadId: legacy.id, clientMessageId: legacyClientId });
      assert.equal(old.out.status, "unavailable");
      assert.equal(old.out.reason, "legacy_history");
      assert.deepEqual(old.out.replies, []);
      assertNoLeak(old.result, ["legacy NOECHO", noEchoAnswer(seqOf(w.mock, "legacy NOECHO"))]);
    }),
});

Deno.test({
  name: "e2e relay: a long reply is cut at 16 KiB on a character boundary and the cursor continues",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const d = await w.driver();
      const seed = await seedThread(d, w.home, "please LONG MORE");
      await d.close();
      const seq = seqOf(w.mock, "please LONG MORE");
      const long = longAnswerText();
      assert.ok(utf8.encode(long).length > BUDGET_BYTES);

      const relay = await w.relay(READ);
      const args = { threadId: seed.threadId, clientMessageId: seed.clientId };
      const first = await readReply(relay, args);
      assert.equal(first.out.status, "observed");
      assert.deepEqual(first.out.turn, { id: seed.turnId, status: "completed" });
      const replies = first.out.replies as { itemId: string; text: string; truncated: boolean }[];
      assert.equal(replies.length, 1, "the long answer fills the page");
      const [cut] = replies;
      assert.equal(cut.itemId, `msg_${seq}_final`);
      assert.equal(cut.truncated, true);
      assert.ok(cut.text.isWellFormed(), "no split surrogate pair");
      assert.ok(long.startsWith(cut.text), "the text is a prefix of the answer");
      const bytes = utf8.encode(cut.text).length;
      assert.ok(bytes <= BUDGET_BYTES, `${bytes} bytes fit the budget`);
      const next = Array.from(long.slice(cut.text.length))[0];
      assert.ok(bytes + utf8.encode(next).length > BUDGET_BYTES, "the cut is at the budget");
      assert.equal(next, "😀", "the answer's layout puts a 4-byte character across the cut");
      assert.equal(bytes, BUDGET_BYTES - 2);
      assert.equal(typeof first.out.nextCursor, "string");
      assertNoLeak(first.result, ["Looking at", "please LONG MORE"]);

      const second = await readReply(relay, { ...args, cursor: String(first.out.nextCursor) });
      assert.deepEqual(
        second.out,
        observed(seed.threadId, seed.clientId, seed.turnId, [
          { itemId: `msg_${seq}_final2`, text: secondAnswer(seq), truncated: false },
        ]),
      );
    }),
});

Deno.test({
  name: "e2e relay: a running turn reads as unverified and codex_wait_reply returns once it ends",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      // The driver holds the thread and runs a turn the mock keeps open (SLOW barrier).
      const d = await w.driver();
      const seed = await seedThread(d, w.home, "seed NOECHO");
      const clientId = crypto.randomUUID();
      const text = "hold on SLOW:w1 NOECHO";
      const { turnId } = await d.startTurn(seed.threadId, text, clientId);
      await w.mock.held("w1");
      await d.waitForNotification(
        (n) => n.method === "item/completed" && (n.params.item as Rec).clientId === clientId,
        "the user item of the held turn",
      );

      const relay = await w.relay(READ);
      const args = { threadId: seed.threadId, clientMessageId: clientId };
      // Another process's running turn reads as interrupted without completedAt: not finished.
      const running = await readReply(relay, args);
      const later = running.out.nextCursor as string;
      assert.equal(typeof later, "string", "an unfinished turn may get more replies");
      assert.deepEqual(
        running.out,
        observed(seed.threadId, clientId, turnId, [], { status: "unverified", nextCursor: later }),
      );

      let settled = false;
      const progressed = Promise.withResolvers<void>();
      const waiting = relay.client.callTool(
        { name: "codex_wait_reply", arguments: { ...args, timeoutSeconds: 30 } },
        { onprogress: () => progressed.resolve(), timeout: 60_000, resetTimeoutOnProgress: true },
      ).finally(() => (settled = true));
      await progressed.promise; // the wait is polling the running turn
      assert.equal(settled, false, "codex_wait_reply waits while the turn runs");
      w.mock.release("w1");
      const turn = await d.waitForTurnCompleted(turnId);
      assert.equal(turn.status, "completed");

      const result = await waiting as CallToolResult;
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      const seq = seqOf(w.mock, text);
      const final = { itemId: `msg_${seq}_final`, text: noEchoAnswer(seq), truncated: false };
      assert.deepEqual(structured(result), {
        ...observed(seed.threadId, clientId, turnId, [final]),
        timedOut: false,
      });
      assertNoLeak(result, [text, "Looking at"]);

      // The cursor taken while the turn ran continues with what came after.
      const resumed = await readReply(relay, { ...args, cursor: String(later) });
      assert.deepEqual(resumed.out, observed(seed.threadId, clientId, turnId, [final]));
    }),
});

// ---------------------------------------------------------------------------------------------
// Turn start (--allow-turn-start): codex_run with an elicitation answered by the MCP client
// ---------------------------------------------------------------------------------------------

const RUN = ["--allow-turn-start", "--allow-reply-read"];

/**
 * Runs `step` as a test step; the relay started with `--allow-turn-start` must list
 * `codex_run` (a missing tool fails the step, it is never skipped).
 */
async function turnStep(
  t: Deno.TestContext,
  relay: ConnectedClient,
  step: { name: string; fn: () => Promise<void> },
): Promise<void> {
  const { tools } = await relay.client.listTools();
  await t.step({
    ...step,
    fn: async () => {
      assert.ok(
        tools.some((tool) => tool.name === "codex_run"),
        `codex_run is listed at --allow-turn-start (got ${tools.map((x) => x.name).join(", ")})`,
      );
      await step.fn();
    },
  });
}

/** `codex_run` (fails the test on an isError result). */
async function run(
  relay: ConnectedClient,
  args: Rec,
): Promise<{ result: CallToolResult; out: Rec }> {
  const result = await relay.client.callTool(
    { name: "codex_run", arguments: args },
    { timeout: 60_000, resetTimeoutOnProgress: true },
  ) as CallToolResult;
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return { result, out: structured(result) };
}

for (const protocol of PROTOCOLS) {
  Deno.test({
    name: `e2e relay [${protocol}]: codex_run forwards an MCP elicitation and the client's answer`,
    ignore,
    fn: (t) =>
      withWorld({ elicitMcp: true }, async (w) => {
        const d = await w.driver();
        const seed = await seedThread(d, w.home, "seed NOECHO");
        await d.close();

        const asked: ElicitParams[] = [];
        const relay = await w.relay(RUN, {
          protocol,
          onElicit: (p) => {
            asked.push(p);
            return { action: "accept", content: { colour: "blue", sure: true } };
          },
        });
        await turnStep(t, relay, {
          name: "codex_run completes the turn with the answered elicitation",
          fn: async () => {
            const text = "please MCP_ELICIT";
            const { result, out } = await run(relay, {
              threadId: seed.threadId,
              text,
              waitSeconds: 30,
            });
            const receipt = out.receipt as Rec;
            assert.equal(receipt.status, "queued", JSON.stringify(out));
            assert.equal(receipt.threadId, seed.threadId);
            assert.equal((out.turn as Rec).status, "completed", JSON.stringify(out));

            assert.equal(asked.length, 1, "one elicitation reached the client");
            assert.equal(asked[0].mode ?? "form", "form");
            // The relay names the asking MCP server in front of its question.
            assert.equal(asked[0].message, "[elicitor] What is your favourite colour?");
            const schema = (asked[0] as { requestedSchema: { properties: Record<string, Rec> } })
              .requestedSchema;
            assert.deepEqual(schema.properties.colour.enum, ["red", "green", "blue"]);

            const log = await w.home.readMcpLog();
            assert.deepEqual(log.find((e) => e.ev === "elicitResult")?.result, {
              action: "accept",
              content: { colour: "blue", sure: true },
            });

            // The turn's final answer carries the tool output; the user text and commentary do not
            // come back.
            const [call1, answer] = w.mock.requests.filter((r) => r.userText === text);
            assert.deepEqual([call1.kind, answer.kind], ["mcp_call", "mcp_answer"]);
            const replies = out.replies as { itemId: string; text: string; truncated: boolean }[];
            assert.equal(replies.length, 1, JSON.stringify(replies));
            assert.equal(replies[0].itemId, `msg_${answer.seq}_final`);
            assert.equal(replies[0].truncated, false);
            assert.match(replies[0].text, new RegExp(`^Tool call call_mcp_${call1.seq} returned:`));
            assert.ok(
              replies[0].text.includes(
                `elicitation result: {"action":"accept","content":{"colour":"blue","sure":true}}`,
              ),
            );
            assertNoLeak(result, ["Calling the MCP tool", "seed NOECHO"]);

            // The reply is readable afterwards by the receipt's clientMessageId.
            const again = await readReply(relay, {
              threadId: seed.threadId,
              clientMessageId: String(receipt.clientMessageId),
            });
            assert.equal(again.out.status, "observed");
            assert.deepEqual(again.out.replies, replies);
          },
        });
      }),
  });
}

/** Runs `please MCP_ELICIT` with codex_run and checks the elicitor was disabled in that turn. */
async function assertElicitorDisabled(
  w: World,
  relay: ConnectedClient,
  threadId: string,
  asked: ElicitParams[],
): Promise<void> {
  const text = "please MCP_ELICIT";
  const { out } = await run(relay, { threadId, text, waitSeconds: 30 });
  assert.equal((out.turn as Rec).status, "completed", JSON.stringify(out));
  assert.deepEqual(asked, [], "no elicitation: the server was not loaded for this turn");
  const [call1, answer] = w.mock.requests.filter((r) => r.userText === text);
  const tools = (call1.body as { tools?: Rec[] }).tools ?? [];
  assert.ok(!tools.some((tool) => tool.name === "mcp__elicitor"), "the model saw no elicitor");
  assert.deepEqual(out.replies, [{
    itemId: `msg_${answer.seq}_final`,
    text: `Tool call call_mcp_${call1.seq} returned: unsupported call: mcp__elicitorelicit_colour`,
    truncated: false,
  }]);
  const log = await w.home.readMcpLog();
  assert.ok(!log.some((e) => e.ev === "callTool"), "the MCP server ran no tool");
}

Deno.test({
  name: "e2e relay: codex_run disables a Codex MCP server entry that runs codex-relay",
  ignore,
  fn: (t) =>
    withWorld({ elicitMcp: true, extraMcpArgs: ["--label=codex-relay"] }, async (w) => {
      const d = await w.driver();
      const seed = await seedThread(d, w.home, "seed NOECHO");
      await d.close();
      const asked: ElicitParams[] = [];
      const relay = await w.relay(RUN, {
        onElicit: (p) => {
          asked.push(p);
          return { action: "decline" };
        },
      });
      await turnStep(t, relay, {
        name: "the recursion guard found the entry in config/read",
        fn: () => assertElicitorDisabled(w, relay, seed.threadId, asked),
      });
    }),
});

Deno.test({
  name: "e2e relay: codex_run disables the MCP servers named by --disable-codex-mcp-server",
  ignore,
  fn: (t) =>
    withWorld({ elicitMcp: true }, async (w) => {
      const d = await w.driver();
      const seed = await seedThread(d, w.home, "seed NOECHO");
      await d.close();
      const asked: ElicitParams[] = [];
      const relay = await w.relay([...RUN, "--disable-codex-mcp-server", "elicitor"], {
        onElicit: (p) => {
          asked.push(p);
          return { action: "decline" };
        },
      });
      await turnStep(t, relay, {
        name: "the named server is disabled",
        fn: () => assertElicitorDisabled(w, relay, seed.threadId, asked),
      });
    }),
});

Deno.test({
  name: "e2e relay: codex_run starts a new thread in a cwd, and reports a thread held elsewhere",
  ignore,
  fn: (t) =>
    withWorld({}, async (w) => {
      const relay = await w.relay(RUN);
      await turnStep(t, relay, {
        name: "a new thread in the workspace",
        fn: async () => {
          const text = "new thread NOECHO";
          const { result, out } = await run(relay, { cwd: w.home.workspace, text });
          const receipt = out.receipt as Rec;
          assert.equal(receipt.status, "queued");
          assert.equal(out.threadId, receipt.threadId);
          assert.equal((out.turn as Rec).status, "completed");
          const seq = seqOf(w.mock, text);
          assert.deepEqual(out.replies, [
            { itemId: `msg_${seq}_final`, text: noEchoAnswer(seq), truncated: false },
          ]);
          assertNoLeak(result, [text, "Looking at"]);
          const listed = structured(await call(relay, "codex_list_threads", {}));
          assert.deepEqual((listed.threads as Rec[]).map((x) => x.id), [out.threadId]);
        },
      });
      await turnStep(t, relay, {
        name: "a thread another Codex process has open is held_elsewhere; the message stays queued",
        fn: async () => {
          const d = await w.driver();
          const seed = await seedThread(d, w.home, "seed NOECHO"); // d holds the thread
          const text = "while held NOECHO";
          const { out } = await run(relay, { threadId: seed.threadId, text });
          assert.equal(out.reason, "held_elsewhere", JSON.stringify(out));
          const receipt = out.receipt as Rec;
          assert.equal(receipt.status, "queued");
          assert.ok(!w.mock.requests.some((r) => r.userText === text), "it did not run");
          // The holder runs it after its own next turn.
          await d.runTurn(seed.threadId, "next NOECHO");
          const ran = await d.waitForNotification(
            (n) =>
              n.method === "item/completed" &&
              (n.params.item as Rec).clientId === receipt.clientMessageId,
            "the queued message's user item",
          );
          await d.waitForTurnCompleted(String(ran.params.turnId));
          assert.ok(w.mock.requests.some((r) => r.userText === text), "the holder ran it");
        },
      });
    }),
});

// ---------------------------------------------------------------------------------------------
// Command approval (approval_policy "on-request"), as a new user tries it: codex_run in a scratch
// directory, the mock's `SHELL:` asks for an escalated command, and Codex asks the client.
// ---------------------------------------------------------------------------------------------

/** One line a tapped helper read (`in`, from the relay) or wrote (`out`, to the relay). */
interface TappedFrame {
  pid: number;
  dir: "in" | "out";
  msg: Rec;
}

/** Every frame the tapped helpers of this world exchanged with the relay (world option `tap`). */
async function tappedFrames(home: CodexHome): Promise<TappedFrame[]> {
  const frames: TappedFrame[] = [];
  for await (const entry of Deno.readDir(`${home.root}/frames`)) {
    const [pid, dir] = entry.name.split(".");
    const text = await Deno.readTextFile(`${home.root}/frames/${entry.name}`);
    for (const line of text.split("\n")) {
      if (line.trim()) {
        frames.push({ pid: Number(pid), dir: dir as "in" | "out", msg: JSON.parse(line) });
      }
    }
  }
  return frames;
}

/** The command approval Codex sent in `threadId`, and the one answer the relay wrote back. */
async function approvalExchange(
  home: CodexHome,
  threadId: string,
): Promise<{ request: Rec; answer: Rec }> {
  const frames = await tappedFrames(home);
  const asks = frames.filter((f) =>
    f.dir === "out" && f.msg.method === "item/commandExecution/requestApproval" &&
    (f.msg.params as Rec).threadId === threadId
  );
  assert.equal(asks.length, 1, "Codex asked once");
  const [ask] = asks;
  const answers = frames.filter((f) =>
    f.pid === ask.pid && f.dir === "in" && !("method" in f.msg) && f.msg.id === ask.msg.id
  );
  assert.equal(answers.length, 1, "the relay answered the request exactly once");
  return { request: ask.msg, answer: answers[0].msg };
}

const APPROVED = "approved-by-relay-e2e";
/** What exec_command returns to the model when the user declines (capture 09). */
const REJECTED =
  `exec_command failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }`;

/** Checks that the approval Codex sent has the shape of capture 09, for `command` in `scratch`. */
function assertApprovalShape(request: Rec, scratch: string, command: string): void {
  const params = request.params as Rec;
  assert.deepEqual(Object.keys(params).sort(), [
    "availableDecisions",
    "command",
    "commandActions",
    "cwd",
    "environmentId",
    "itemId",
    "kind",
    "proposedExecpolicyAmendment",
    "reason",
    "startedAtMs",
    "threadId",
    "turnId",
  ]);
  assert.equal(params.command, `/bin/bash -lc '${command}'`);
  assert.equal(params.cwd, scratch);
  assert.equal(params.reason, SHELL_JUSTIFICATION);
  const available = params.availableDecisions as unknown[];
  assert.deepEqual([available[0], Object.keys(available[1] as Rec), available[2]], [
    "accept",
    ["acceptWithExecpolicyAmendment"],
    "cancel",
  ]);
}

/** The form the relay shows for a command approval. */
function assertApprovalForm(asked: ElicitParams, scratch: string, command: string): void {
  assert.equal(asked.mode ?? "form", "form");
  assert.equal(
    asked.message,
    `Codex asks to run a command (reason: ${SHELL_JUSTIFICATION}).\nCommand: /bin/bash -lc '${command}'\nIn: ${scratch}`,
  );
  const schema = (asked as { requestedSchema: { properties: Rec; required: string[] } })
    .requestedSchema;
  assert.deepEqual(Object.keys(schema.properties), ["decision"]);
  assert.deepEqual(schema.required, ["decision"]);
  const choices = (schema.properties.decision as { oneOf: { const: string }[] }).oneOf;
  assert.deepEqual(choices.map((c) => c.const), [
    "accept",
    "acceptWithExecpolicyAmendment",
    "cancel",
  ]);
}

/** Checks a `SHELL:` turn that Codex declined: the model got the rejection, nothing ran. */
async function assertDeclined(
  w: World,
  out: Rec,
  text: string,
  marker: string,
): Promise<void> {
  assert.equal((out.turn as Rec).status, "completed", JSON.stringify(out));
  const [ask, answer] = w.mock.requests.filter((r) => r.userText === text);
  assert.deepEqual([ask.kind, answer.kind], ["shell_call", "shell_answer"]);
  assert.deepEqual(out.replies, [{
    itemId: `msg_${answer.seq}_final`,
    text: `Tool call call_sh_${ask.seq} returned: ${REJECTED}`,
    truncated: false,
  }]);
  const exchange = await approvalExchange(w.home, String(out.threadId));
  assert.deepEqual(exchange.answer.result, { decision: "decline" });
  assert.equal(
    await Deno.stat(marker).then(() => true, () => false),
    false,
    "the declined command did not run",
  );
}

for (const protocol of PROTOCOLS) {
  Deno.test({
    name:
      `e2e relay [${protocol}]: codex_run in a scratch dir forwards a command approval and Codex acts on the answer`,
    ignore,
    fn: (t) =>
      withWorld({ approval: "on-request", tap: true }, async (w) => {
        const asked: ElicitParams[] = [];
        let answer: ElicitResult = { action: "accept", content: { decision: "accept" } };
        const relay = await w.relay(RUN, {
          protocol,
          onElicit: (p) => {
            asked.push(p);
            return answer;
          },
        });
        await turnStep(t, relay, {
          name: "accept: the command runs and the final answer carries its output",
          fn: async () => {
            const scratch = await Deno.makeTempDir({ dir: w.home.root, prefix: "scratch-" });
            const command = `echo ${APPROVED}`;
            const text = `SHELL: ${command}`;
            const { result, out } = await run(relay, { cwd: scratch, text, waitSeconds: 30 });
            assert.equal((out.receipt as Rec).status, "queued", JSON.stringify(out));
            assert.equal((out.turn as Rec).status, "completed", JSON.stringify(out));

            assert.equal(asked.length, 1, "one approval reached the client");
            assertApprovalForm(asked[0], scratch, command);
            const exchange = await approvalExchange(w.home, String(out.threadId));
            assertApprovalShape(exchange.request, scratch, command);
            assert.deepEqual(exchange.answer.result, { decision: "accept" });

            const [ask, followUp] = w.mock.requests.filter((r) => r.userText === text);
            assert.deepEqual([ask.kind, followUp.kind], ["shell_call", "shell_answer"]);
            const replies = out.replies as { itemId: string; text: string; truncated: boolean }[];
            assert.equal(replies.length, 1, JSON.stringify(replies));
            assert.equal(replies[0].itemId, `msg_${followUp.seq}_final`);
            assert.match(
              replies[0].text,
              new RegExp(
                `^Tool call call_sh_${ask.seq} returned: .*Process exited with code 0\\n.*Output:\\n${APPROVED}\\n$`,
                "s",
              ),
            );
            assertNoLeak(result, ["Running a command", text]);

            // Codex stored the command as run, in the scratch directory.
            const d = await w.driver();
            const items = await listAllItems(d, String(out.threadId));
            const runs = items.map((i) => i.item).filter((i) => i.type === "commandExecution");
            assert.deepEqual(
              runs.map((i) => [i.id, i.status, i.cwd, i.exitCode, i.aggregatedOutput]),
              [[`call_sh_${ask.seq}`, "completed", scratch, 0, `${APPROVED}\n`]],
            );
            await d.close();
          },
        });
        await turnStep(t, relay, {
          name: "decline: the command does not run and the turn still completes",
          fn: async () => {
            answer = { action: "decline" };
            const scratch = await Deno.makeTempDir({ dir: w.home.root, prefix: "scratch-" });
            const marker = `${scratch}/ran-although-declined`;
            const command = `touch ${marker}`;
            const text = `SHELL: ${command}`;
            const { out } = await run(relay, { cwd: scratch, text, waitSeconds: 30 });
            assert.equal(asked.length, 2, "the second approval reached the client");
            assertApprovalForm(asked[1], scratch, command);
            await assertDeclined(w, out, text, marker);
          },
        });
        // A client that declares no elicitation capability cannot be asked.
        const mute = await w.relay(RUN, { protocol });
        await turnStep(t, mute, {
          name: "no elicitation capability: the relay declines by itself and the turn completes",
          fn: async () => {
            const scratch = await Deno.makeTempDir({ dir: w.home.root, prefix: "scratch-" });
            const marker = `${scratch}/ran-without-a-client`;
            const text = `SHELL: touch ${marker}`;
            const { out } = await run(mute, { cwd: scratch, text, waitSeconds: 30 });
            assert.equal(asked.length, 2, "nothing reached the other client");
            await assertDeclined(w, out, text, marker);
          },
        });
      }),
  });
}
