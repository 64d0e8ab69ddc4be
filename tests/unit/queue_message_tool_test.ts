import assert from "assert";
import { LISTED_SOURCE_KINDS } from "../../src/codex/types.ts";
import { scriptedSession } from "../../testing/scripted_session.ts";
import type { Capabilities } from "../../src/core/capabilities.ts";
import { RelayError } from "../../src/core/errors.ts";
import type { Session } from "../../src/connect/connection.ts";
import { z } from "zod";
import { queueMessageTool } from "../../src/host/tools/queue_message_tool.ts";
import { spawnSurface, type Surface, surfaceOf } from "../../src/host/surface.ts";
import { textOf } from "../../src/host/next_steps.ts";
import { openConnection } from "../../src/connect/open.ts";
import { confirmUnknown, queueMessage } from "../../src/ops/queue_message.ts";
import type { Receipt } from "../../src/reply/schemas.ts";
import type { CallContext } from "../../src/host/tool.ts";
import { QueuedHere } from "../../src/ops/queued_here.ts";

const THREAD = "01a22a5c-6698-7df3-813e-7166a248c477";

/** A receipt's text content, as the server renders a result. */
const receiptText = (r: Receipt, surface?: Surface) => textOf(queueMessageTool.explain(r, surface));

/** The surface of a relay at `caps` on the daemon, as `serve --app-server daemon` builds it. */
const daemon = await openConnection({ kind: "daemon" }, { allowlist: new Set(), version: "0.0.0" });
const daemonSurface = (caps: Capabilities) => surfaceOf(caps, daemon);
const CID = "cid-1";

const ack = (clientUserMessageId: string | null, id = "sub-1") => ({
  queuedSubmission: { id, clientUserMessageId, input: [] },
});
const listed = (ids: (string | null)[], nextCursor: string | null = null) => ({
  data: ids.map((c, i) => ({ id: `sub-${i}`, clientUserMessageId: c })),
  nextCursor,
});
const threadEntry = (id: string, name: string | null) => ({
  id,
  name,
  status: { type: "notLoaded" },
  updatedAt: 1,
});
const lost = () => new RelayError("timeout", "No answer within 12000 ms", { written: true });

Deno.test("queueMessage: a matching acknowledgement is queued, confirmed by it, with one exact frame", async () => {
  const s = scriptedSession({ "thread/queue/add": () => ack(CID, "sub-9") });
  const r = await queueMessage(s.session, THREAD, "hello there", CID);
  assert.deepEqual(r, {
    status: "queued",
    queuedSubmissionId: "sub-9",
    confirmedBy: "acknowledgement",
    clientMessageId: CID,
    threadId: THREAD,
  });
  assert.deepEqual(s.calls, [["thread/queue/add", {
    threadId: THREAD,
    clientUserMessageId: CID,
    input: [{ type: "text", text: "hello there", text_elements: [] }],
  }]]);
});

Deno.test("queueMessage: without a clientMessageId it mints a fresh UUID per message", async () => {
  const s = scriptedSession({ "thread/queue/add": (p) => ack(p.clientUserMessageId as string) });
  const a = await queueMessage(s.session, THREAD, "one");
  const b = await queueMessage(s.session, THREAD, "two");
  assert.match(a.clientMessageId, /^[0-9a-f-]{36}$/);
  assert.notEqual(a.clientMessageId, b.clientMessageId);
  assert.equal(a.status, "queued");
});

Deno.test("queueMessage: a refusal before writing, or an error answer, is not_sent", async () => {
  for (
    const error of [
      new RelayError("busy", "All 4 helpers are busy", { written: false }),
      new RelayError("rpc_error", "thread not found", { written: true, rpcCode: -32600 }),
    ]
  ) {
    const s = scriptedSession({
      "thread/queue/add": () => {
        throw error;
      },
    });
    const r = await queueMessage(s.session, THREAD, "x", CID);
    assert.deepEqual(r, {
      status: "not_sent",
      reason: error.reason,
      message: error.message,
      clientMessageId: CID,
      threadId: THREAD,
    });
    assert.deepEqual(s.methods(), ["thread/queue/add"], "nothing is confirmed or retried");
  }
});

Deno.test("queueMessage: a lost acknowledgement is unknown when the queue does not list the id", async () => {
  const s = scriptedSession({
    "thread/queue/add": () => {
      throw lost();
    },
    "thread/queue/list": () => listed(["someone-else", null]),
  });
  const r = await queueMessage(s.session, THREAD, "x", CID);
  assert.deepEqual(r, {
    status: "unknown",
    reason: "timeout",
    message: "No answer within 12000 ms",
    clientMessageId: CID,
    threadId: THREAD,
  });
  assert.deepEqual(s.calls.map(([m, p]) => [m, p]), [
    ["thread/queue/add", s.calls[0][1]],
    ["thread/queue/list", { threadId: THREAD }],
  ]);
  assert.equal(s.calls.filter(([m]) => m === "thread/queue/add").length, 1, "never replayed");
});

Deno.test("queueMessage: a lost acknowledgement is queued (by the queue list) when the id is listed on a later page", async () => {
  const s = scriptedSession({
    "thread/queue/add": () => {
      throw lost();
    },
    "thread/queue/list": (p, n) =>
      n === 1 ? listed(["other"], "page-2") : (assert.equal(p.cursor, "page-2"), listed([CID])),
  });
  const r = await queueMessage(s.session, THREAD, "x", CID);
  assert.deepEqual(r, {
    status: "queued",
    clientMessageId: CID,
    threadId: THREAD,
    queuedSubmissionId: "sub-0",
    confirmedBy: "queue_list",
  });
  assert.deepEqual(s.calls.slice(1).map(([, p]) => p), [
    { threadId: THREAD },
    { threadId: THREAD, cursor: "page-2" },
  ]);
});

Deno.test("queueMessage: the queue check reads at most 5 pages", async () => {
  const s = scriptedSession({
    "thread/queue/add": () => {
      throw lost();
    },
    "thread/queue/list": (_p, n) => listed(["other"], `page-${n + 1}`),
  });
  const r = await queueMessage(s.session, THREAD, "x", CID);
  assert.equal(r.status, "unknown");
  assert.equal(s.methods().filter((m) => m === "thread/queue/list").length, 5);
});

Deno.test("queueMessage: a failing queue check leaves the receipt unknown", async () => {
  const s = scriptedSession({
    "thread/queue/add": () => {
      throw lost();
    },
    "thread/queue/list": () => {
      throw new RelayError("protocol_error", "The app-server exited", { written: true });
    },
  });
  const r = await queueMessage(s.session, THREAD, "x", CID);
  assert.deepEqual([r.status, r.reason], ["unknown", "timeout"]);
});

Deno.test("queueMessage: an acknowledgement naming another message is unknown (protocol_error), then checked", async () => {
  const s = scriptedSession({
    "thread/queue/add": () => ack("another-message"),
    "thread/queue/list": () => listed([]),
  });
  const r = await queueMessage(s.session, THREAD, "x", CID);
  assert.deepEqual(r, {
    status: "unknown",
    reason: "protocol_error",
    message: "The acknowledgement names another message",
    clientMessageId: CID,
    threadId: THREAD,
  });
  assert.deepEqual(s.methods(), ["thread/queue/add", "thread/queue/list"]);
});

Deno.test("queueMessage: a malformed acknowledgement is unknown (it may be stored)", async () => {
  const s = scriptedSession({
    "thread/queue/add": () => ({ queuedSubmission: { id: 7 } }),
    "thread/queue/list": () => listed([]),
  });
  const r = await queueMessage(s.session, THREAD, "x", CID);
  assert.equal(r.status, "unknown");
  assert.equal(r.reason, "protocol_error");
  assert.match(r.message ?? "", /queuedSubmission\.id/);
});

Deno.test("queueMessage: a cancelled call is unknown and not checked (nothing more is sent)", async () => {
  const s = scriptedSession({
    "thread/queue/add": () => {
      throw new RelayError("cancelled", "The operation was cancelled", { written: true });
    },
  });
  const r = await queueMessage(s.session, THREAD, "x", CID);
  assert.deepEqual([r.status, r.reason], ["unknown", "cancelled"]);
  assert.deepEqual(s.methods(), ["thread/queue/add"]);
});

Deno.test("confirmUnknown: an aborted operation sends nothing; a receipt that is not unknown is returned as is", async () => {
  const aborted = new AbortController();
  aborted.abort();
  const s = scriptedSession({ "thread/queue/list": () => listed([CID]) }, aborted.signal);
  const unknown: Receipt = {
    status: "unknown",
    reason: "timeout",
    message: "m",
    clientMessageId: CID,
    threadId: THREAD,
  };
  assert.deepEqual(await confirmUnknown(s.session, unknown), unknown);
  const live = scriptedSession({ "thread/queue/list": () => listed([CID]) });
  const notSent: Receipt = { ...unknown, status: "not_sent" };
  assert.deepEqual(await confirmUnknown(live.session, notSent), notSent);
  assert.deepEqual([...s.calls, ...live.calls], []);
  assert.equal((await confirmUnknown(live.session, unknown)).status, "queued");
});

Deno.test("queueMessage: a unique exact thread name resolves to its id, across thread/list pages", async () => {
  const other = "01a22a5c-0000-7000-8000-000000000001";
  const s = scriptedSession({
    "thread/list": (p, n) =>
      n === 1
        ? { data: [threadEntry(other, "docs"), threadEntry(other, null)], nextCursor: "c2" }
        : (assert.equal(p.cursor, "c2"),
          { data: [threadEntry(THREAD, "my thread")], nextCursor: null }),
    "thread/queue/add": () => ack(CID),
  });
  const r = await queueMessage(s.session, "my thread", "x", CID);
  assert.equal(r.status, "queued");
  assert.equal(r.threadId, THREAD);
  assert.deepEqual(s.calls.map(([, p]) => p).slice(0, 2), [
    { limit: 100, sourceKinds: LISTED_SOURCE_KINDS },
    { limit: 100, cursor: "c2", sourceKinds: LISTED_SOURCE_KINDS },
  ]);
  assert.equal(s.calls[2][1].threadId, THREAD);
});

Deno.test("queueMessage: a name two threads share is ambiguous_name and nothing is queued", async () => {
  const other = "01a22a5c-0000-7000-8000-000000000001";
  const s = scriptedSession({
    "thread/list": () => ({
      data: [threadEntry(THREAD, "twin"), threadEntry(other, "twin")],
      nextCursor: "more",
    }),
  });
  const r = await queueMessage(s.session, "twin", "x", CID);
  assert.deepEqual(r, {
    status: "not_sent",
    reason: "ambiguous_name",
    message: "Several threads have this name. Give the thread's id (codex_list_threads lists them)",
    clientMessageId: CID,
    threadId: "twin",
  });
  assert.deepEqual(s.methods(), ["thread/list"], "it stops at the second match");
});

Deno.test("queueMessage: an unknown name is thread_not_found; past 20 pages the message says where it looked", async () => {
  const one = scriptedSession({ "thread/list": () => ({ data: [], nextCursor: null }) });
  const r1 = await queueMessage(one.session, "nowhere", "x", CID);
  assert.deepEqual([r1.status, r1.reason, r1.message], [
    "not_sent",
    "thread_not_found",
    "No thread has exactly this name. Give the thread's id (codex_list_threads lists them)",
  ]);
  const many = scriptedSession({
    "thread/list": (_p, n) => ({ data: [threadEntry(THREAD, "x")], nextCursor: `c${n}` }),
  });
  const r2 = await queueMessage(many.session, "nowhere", "x", CID);
  assert.equal(
    r2.message,
    "No thread has exactly this name in the 2000 most recent threads. Give the thread's id (codex_list_threads lists them)",
  );
  assert.equal(many.calls.length, 20, "20 pages of 100");
});

Deno.test("queueMessage: a failing name lookup is not_sent with its reason", async () => {
  const s = scriptedSession({
    "thread/list": () => {
      throw new RelayError("spawn_failed", "Could not start 'codex'", { written: false });
    },
  });
  const r = await queueMessage(s.session, "named", "x", CID);
  assert.deepEqual([r.status, r.reason, r.message], [
    "not_sent",
    "spawn_failed",
    "Could not start 'codex'",
  ]);
});

Deno.test("a receipt's text: each status says what it means, with the ids, and the next step the level offers", () => {
  const base = { clientMessageId: CID, threadId: THREAD };
  const ids = `clientMessageId ${CID}, thread ${THREAD}`;
  const runs =
    "Stored, not processed yet: it runs when a Codex process next resumes the thread (a process that has the thread open runs it after its next turn).";
  // The default level offers no next tool: nothing reads or takes back the message.
  assert.equal(
    receiptText({ ...base, status: "queued", confirmedBy: "acknowledgement" }),
    `Queued (${ids}). ${runs}`,
  );
  assert.equal(
    receiptText(
      { ...base, status: "queued", confirmedBy: "acknowledgement" },
      spawnSurface({ replyRead: true, turnStart: false }),
    ),
    `Queued (${ids}). ${runs} Read the reply with codex_read_reply or codex_wait_reply.`,
  );
  assert.equal(
    receiptText(
      { ...base, status: "queued", confirmedBy: "acknowledgement" },
      spawnSurface({ replyRead: false, turnStart: true }),
    ),
    `Queued (${ids}). ${runs} codex_withdraw_message takes it back while it is still queued.`,
  );
  assert.match(
    receiptText({ ...base, status: "queued", confirmedBy: "queue_list" }),
    /^Queued \(.*\)\. The acknowledgement was lost, but the thread's queue lists it\. Stored, not processed yet: /,
  );
  assert.equal(
    receiptText({ ...base, status: "not_sent", reason: "busy", message: "All busy." }),
    `Not sent (busy): All busy. Nothing was stored (${ids}). Try again in a few seconds. Sending it again is safe: nothing was stored.`,
  );
  assert.equal(
    receiptText({ ...base, status: "unknown", reason: "timeout", message: "No answer." }),
    `Unknown (timeout): No answer. The message may have been stored (${ids}) and was not sent again. It may have been stored: check the thread before sending it once more.`,
  );
});

Deno.test("a receipt's text on the daemon: a thread the daemon holds idle starts the message at once (never 'not processed yet')", () => {
  const out = receiptText(
    { clientMessageId: CID, threadId: THREAD, status: "queued", confirmedBy: "acknowledgement" },
    daemonSurface({ replyRead: false, turnStart: true }),
  );
  assert.match(out, /a thread the daemon holds idle starts it at once/);
  assert.match(out, /a thread it has not loaded when a Codex process next resumes it/);
  assert.doesNotMatch(out, /not processed yet/);
  // The spawn text never promises an immediate start.
  const spawn = receiptText(
    { clientMessageId: CID, threadId: THREAD, status: "queued", confirmedBy: "acknowledgement" },
    spawnSurface({ replyRead: false, turnStart: true }),
  );
  assert.doesNotMatch(spawn, /at once/);
});

Deno.test("queueMessage: a twin name on a later page is still ambiguous (the search goes on after one match)", async () => {
  const other = "01a22a5c-0000-7000-8000-000000000001";
  const s = scriptedSession({
    "thread/list": (_p, n) =>
      n === 1
        ? { data: [threadEntry(THREAD, "twin")], nextCursor: "c2" }
        : { data: [threadEntry(other, "twin")], nextCursor: null },
  });
  const r = await queueMessage(s.session, "twin", "x", CID);
  assert.equal(r.reason, "ambiguous_name");
  assert.deepEqual(s.methods(), ["thread/list", "thread/list"]);
});

Deno.test("codex_queue_message: name, annotations and schemas as clients see them", () => {
  assert.equal(queueMessageTool.name, "codex_queue_message");
  assert.equal(queueMessageTool.title, "Queue a message");
  const description = queueMessageTool.description as (surface: Surface) => string;
  const describe = (caps: Capabilities) => description(spawnSurface(caps));
  const queueLevel = describe({ replyRead: false, turnStart: false });
  assert.match(queueLevel, /^Stores a message in a thread's queue/);
  assert.match(queueLevel, /unknown \(may be stored: check before resending\)/);
  assert.doesNotMatch(queueLevel, /codex_read_reply/, "the queue level names no tool it lacks");
  assert.match(describe({ replyRead: true, turnStart: false }), /codex_read_reply/);
  assert.match(queueLevel, /when a Codex process next resumes the thread/);
  const daemon = description(daemonSurface({ replyRead: false, turnStart: false }));
  assert.match(daemon, /A thread the Codex daemon holds idle starts it at once/);
  assert.deepEqual(queueMessageTool.annotations, {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  });
  assert.equal(queueMessageTool.enabled({ replyRead: false, turnStart: false }), true);
  const input = queueMessageTool.inputSchema;
  assert.deepEqual(input.parse({ threadId: THREAD, text: "hi" }), { threadId: THREAD, text: "hi" });
  assert.equal(input.safeParse({ threadId: THREAD, text: "hi", extra: 1 }).success, false);
  assert.equal(input.safeParse({ threadId: THREAD }).success, false);
  assert.deepEqual((z.toJSONSchema(input) as { required?: string[] }).required, [
    "threadId",
    "text",
  ]);
  const out = queueMessageTool.outputSchema;
  const ok = { status: "queued", clientMessageId: CID, threadId: THREAD };
  for (const status of ["queued", "not_sent", "unknown"]) {
    assert.equal(out.safeParse({ ...ok, status }).success, true, status);
  }
  assert.equal(out.safeParse({ ...ok, status: "sent" }).success, false);
  for (const confirmedBy of ["acknowledgement", "queue_list"]) {
    assert.equal(out.safeParse({ ...ok, confirmedBy }).success, true, confirmedBy);
  }
  assert.equal(out.safeParse({ ...ok, confirmedBy: "guess" }).success, false);
  assert.equal(out.safeParse({ status: "queued", threadId: THREAD }).success, false);
  assert.ok(
    ((z.toJSONSchema(out) as { required?: string[] }).required ?? []).includes("clientMessageId"),
    "every receipt carries its clientMessageId",
  );
});

Deno.test("codex_queue_message runs one connection operation labelled queue, with the call's signal", async () => {
  const seen: { label?: string; signal?: AbortSignal }[] = [];
  const signal = new AbortController().signal;
  const s = scriptedSession({ "thread/queue/add": (p) => ack(p.clientUserMessageId as string) });
  const queuedHere = new QueuedHere();
  const ctx = {
    signal,
    queuedHere,
    connection: {
      operation: (
        fn: (s: Session) => Promise<unknown>,
        options: { label?: string; signal?: AbortSignal },
      ) => {
        seen.push(options);
        return fn(s.session);
      },
    },
  } as unknown as CallContext;
  const r = await queueMessageTool.run({ threadId: THREAD, text: "hi" }, ctx) as Receipt;
  assert.equal(r.status, "queued");
  assert.deepEqual(seen, [{ label: "queue", signal }]);
  assert.equal(s.calls[0][1].threadId, THREAD);
  assert.deepEqual(s.calls[0][1].input, [{ type: "text", text: "hi", text_elements: [] }]);
  assert.ok(queuedHere.has(THREAD, r.clientMessageId), "recorded as this relay's message");
});

Deno.test("the receipt's output schema tells an agent what clientMessageId is for", () => {
  const shape = z.toJSONSchema(queueMessageTool.outputSchema) as {
    properties: Record<string, { description?: string }>;
  };
  assert.match(shape.properties.clientMessageId.description ?? "", /codex_read_reply/);
});
