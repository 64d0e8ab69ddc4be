/**
 * End-to-end tests of the relay (`mod.ts serve`, the project's default permission set) against
 * the real `codex app-server`, offline: a temp CODEX_HOME whose model provider is the Responses
 * mock (`mock_responses.ts`), threads created and turns run through the raw driver
 * (`testing/codex_home.ts`), and the relay driven with the MCP SDK v2 `Client` (`tests/_relay.ts`).
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
import { basename } from "node:path";
import { longAnswerText, noEchoAnswer, secondAnswer } from "../../testing/mock_responses.ts";
import { PROTOCOLS } from "../../testing/relay.ts";

import {
  assertNoLeak,
  body,
  BUDGET_BYTES,
  call,
  e2eCodex,
  helpers,
  readReply,
  type Rec,
  runQueued,
  seedThread,
  seqOf,
  structured,
  utf8,
  withWorld,
} from "./_relay_e2e.ts";
import { callTool, withoutNext } from "../../testing/call_tool.ts";

const BIN = e2eCodex("tests/e2e/relay_e2e_test.ts");
const ignore = BIN === null;

// ---------------------------------------------------------------------------------------------
// Queue level
// ---------------------------------------------------------------------------------------------

Deno.test({
  name:
    "e2e relay: the start line install writes for the native Codex (serve --codex, its run grant only) lists real threads",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const d = await w.driver();
      const a = await seedThread(d, w.home, "named codex question");
      await d.close();
      const relay = await w.relay([], { namedCodex: true });
      const listed = structured(await callTool(relay.client, "codex_list_threads", {}));
      const threads = listed.threads as Rec[];
      assert.deepEqual(threads.map((t) => t.id), [a.threadId]);
    }),
});

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
        assert.deepEqual(page1.sources, ["cli", "vscode", "exec", "appServer", "unknown"]);
        assert.ok(typeof page1.next === "string" && page1.next.length > 0, "next says what to do");
        assert.equal((page1.threads as Rec[]).length, 1);
        const t1 = (page1.threads as Rec[])[0];
        assert.deepEqual(Object.keys(t1).sort(), ["folder", "id", "name", "status", "updatedAt"]);
        // The workspace's last segment only, never the full cwd (a secret below).
        assert.equal(t1.folder, basename(w.home.workspace));
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
        assert.equal(t2.folder, basename(w.home.workspace));
        assert.ok(Date.parse(String(t1.updatedAt)) >= Date.parse(String(t2.updatedAt)));
        assertNoLeak(second, secrets);

        const all = structured(await call(relay, "codex_list_threads", {}));
        assert.deepEqual((all.threads as Rec[]).map((t) => t.id), [t1.id, t2.id]);
        assert.equal(all.nextCursor, null);
        assert.equal(
          (await helpers(w.home)).length,
          1,
          "the calls share one warm helper, kept after they return (reaped at exit: withWorld)",
        );
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
      assert.deepEqual(body(before.out), {
        status: "queued",
        threadId: seed.threadId,
        clientMessageId: id1,
        turnRunning: false,
        turn: null,
        replies: [],
        nextCursor: null,
        searchCursor: null,
      });

      // Another Codex process resumes the thread: the queued messages run, in order.
      const runner = await w.driver();
      const turns = await runQueued(runner, seed.threadId, [id1, id2]);
      await runner.close();
      for (const t of turns.values()) assert.equal(t.status, "completed");
      const s1 = seqOf(w.mock, q1);
      const s2 = seqOf(w.mock, q2);

      const a1 = await readReply(relay, { threadId: seed.threadId, clientMessageId: id1 });
      assert.deepEqual(
        body(a1.out),
        observed(seed.threadId, id1, String(turns.get(id1)!.id), [
          { itemId: `msg_${s1}_final`, text: noEchoAnswer(s1), truncated: false },
        ]),
      );
      assertNoLeak(a1.result, [q1, q2, "Looking at", noEchoAnswer(s2), "seed question"]);

      const a2 = await readReply(relay, { threadId: seed.threadId, clientMessageId: id2 });
      assert.deepEqual(
        body(a2.out),
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
        body(a0.out),
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
  name: "e2e relay: codex_read_reply reports not_found, thread_not_found and legacy_history",
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
      // In neither the queue nor the thread (issue 32): not_found, with what to do next.
      assert.match(String(none.out.next), /Check the threadId and clientMessageId/);
      assert.deepEqual(withoutNext(none.out), {
        status: "not_found",
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
        body(second.out),
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
        body(running.out),
        observed(seed.threadId, clientId, turnId, [], { status: "unverified", nextCursor: later }),
      );

      let settled = false;
      const progressed = Promise.withResolvers<void>();
      const waiting = callTool(relay.client, "codex_wait_reply", { ...args, timeoutSeconds: 30 }, {
        onprogress: () => progressed.resolve(),
        timeout: 60_000,
        resetTimeoutOnProgress: true,
      }).finally(() => (settled = true));
      await progressed.promise; // the wait is polling the running turn
      assert.equal(settled, false, "codex_wait_reply waits while the turn runs");
      w.mock.release("w1");
      const turn = await d.waitForTurnCompleted(turnId);
      assert.equal(turn.status, "completed");

      const result = await waiting;
      assert.notEqual(result.isError, true, JSON.stringify(result.content));
      const seq = seqOf(w.mock, text);
      const final = { itemId: `msg_${seq}_final`, text: noEchoAnswer(seq), truncated: false };
      // The wait returns at the final answer: Codex may store it a moment before the turn's end,
      // and then the turn still reads unverified, with a cursor for what may follow.
      const out = body(structured(result));
      const stillRunning = (out.turn as Rec).status === "unverified";
      if (stillRunning) assert.equal(typeof out.nextCursor, "string");
      assert.deepEqual(out, {
        ...observed(seed.threadId, clientId, turnId, [final], {
          ...(stillRunning ? { status: "unverified", nextCursor: out.nextCursor as string } : {}),
        }),
        timedOut: false,
      });
      assertNoLeak(result, [text, "Looking at"]);

      // The cursor taken while the turn ran continues with what came after.
      const resumed = await readReply(relay, { ...args, cursor: String(later) });
      assert.deepEqual(body(resumed.out), observed(seed.threadId, clientId, turnId, [final]));
    }),
});
