/**
 * Reading a review's result (src/ops/read_review.ts) over a session answering as Codex 0.169 and
 * 0.171 did (captures 46): the reviewer's answer is the final answer of the turn under R on a
 * `subAgentReview` thread of the review's thread, and nothing else's.
 */
import assert from "assert";
import { readReview, type ReviewRef, unreadReview } from "../../src/ops/read_review.ts";
import { type Method, parseResult } from "../../src/codex/methods.ts";
import type { Session } from "../../src/connect/connection.ts";
import capture from "../../fixtures/captures/46-compact-usage-review-0.171.0.json" with {
  type: "json",
};

const R = "turn-R";
const THREAD = "thread-1";
const RENDERED =
  "Mock review: one blocking issue.\n\nReview comment:\n\n- [P1] Mock finding: division by zero — /w/calc.js:2-2\n  calc() divides by b without checking b != 0.";

type Rec = Record<string, unknown>;
interface Sub {
  id: string;
  parent: string | null;
  /** Its turns: id, rootTurnId, items (raw). */
  turns: { id: string; root: string; items: Rec[] }[];
}

const answerItem = (text: string, phase: string | null = "final_answer"): Rec => ({
  type: "agentMessage",
  id: `msg_${phase}`,
  text,
  phase,
});

/** The reviewer's raw answer of `marker` in the capture. */
function captured(marker: "REVIEW_JSON" | "REVIEW_CLEAN" | "REVIEW_PLAIN"): string {
  const item = capture[marker].subAgentItems.data.find((e) => e.item.type === "agentMessage")!;
  return (item.item as { text: string }).text;
}

/** A session whose answers are Codex's shapes, parsed by the method map; it records every call. */
function session(rendered: string | null, subs: Sub[]) {
  const calls: [Method, unknown][] = [];
  const answer = (method: Method, p: Rec): unknown => {
    if (method === "thread/list") {
      return {
        data: subs.map((s) => ({
          id: s.id,
          name: null,
          status: { type: "notLoaded" },
          updatedAt: 1,
          parentThreadId: s.parent,
          source: { subAgent: "review" },
        })),
        nextCursor: null,
      };
    }
    const sub = subs.find((s) => s.id === p.threadId);
    if (method === "thread/turns/list") {
      return {
        data: sub!.turns.map((t) => ({ id: t.id, status: "completed", rootTurnId: t.root })),
        nextCursor: null,
      };
    }
    if (p.threadId === THREAD) {
      const items = rendered === null
        ? []
        : [{ type: "exitedReviewMode", id: "x", review: rendered }];
      // The review's turn R, and an exitedReviewMode of another turn (never R's).
      const other = { turnId: "other", item: { type: "exitedReviewMode", id: "y", review: "no" } };
      // Newest first, as asked: R's phase-null message repeating the text comes before it.
      const repeat = { type: "agentMessage", id: "m", text: rendered, phase: null };
      const own = rendered === null ? [] : [repeat, ...items];
      return { data: [other, ...own.map((item) => ({ turnId: R, item }))], nextCursor: null };
    }
    // Every item of the sub-agent thread, whatever turn was asked for.
    const data = sub!.turns.flatMap((t) => t.items.map((item) => ({ turnId: t.id, item })));
    return { data, nextCursor: null };
  };
  const s = {
    call: (method: Method, params: unknown) => {
      calls.push([method, params]);
      return Promise.resolve(parseResult(method, answer(method, params as Rec)));
    },
    signal: new AbortController().signal,
    remainingMs: () => 1_000,
  } as unknown as Session;
  return { session: s, calls };
}

const ref = (status: ReviewRef["status"] = "completed"): ReviewRef => ({
  threadId: THREAD,
  clientMessageId: "relay-review-1",
  turnId: R,
  status,
});

const reviewer = (text: string, over: Partial<Sub> = {}): Sub => ({
  id: "sub-1",
  parent: THREAD,
  turns: [{ id: "sub-turn", root: R, items: [answerItem(text)] }],
  ...over,
});

Deno.test("readReview: findings and verdict from the reviewer's captured JSON, asked of its sub-agent thread", async () => {
  const { session: s, calls } = session(RENDERED, [reviewer(captured("REVIEW_JSON"))]);
  const read = await readReview(s, ref());
  assert.equal(read.review?.verdict, "findings");
  assert.equal(read.review?.text, RENDERED);
  assert.deepEqual(read.review?.findings.map((f) => [f.priority, f.title, f.lineStart]), [
    [1, "Mock finding: division by zero", 2],
  ]);
  assert.match(read.review!.findings[0].file, /\$ROOT\/workspace\/calc\.js$/, "the JSON's path");
  assert.deepEqual(calls, [
    ["thread/items/list", { threadId: THREAD, turnId: R, sortDirection: "desc", limit: 100 }],
    ["thread/list", { sourceKinds: ["subAgentReview"], limit: 25 }],
    ["thread/turns/list", { threadId: "sub-1", limit: 5, itemsView: "notLoaded" }],
    [
      "thread/items/list",
      { threadId: "sub-1", turnId: "sub-turn", sortDirection: "desc", limit: 100 },
    ],
  ]);
  assert.deepEqual(
    [read.status, read.threadId, read.clientMessageId, read.turn, read.replies, read.association],
    [
      "observed",
      THREAD,
      "relay-review-1",
      { id: R, status: "completed" },
      [],
      "same_turn_not_exclusive",
    ],
  );
});

Deno.test("readReview: a clean reviewer JSON reads no_findings; a plain answer failed without findings", async () => {
  const clean = session("Mock review: no issues.", [reviewer(captured("REVIEW_CLEAN"))]);
  const read = await readReview(clean.session, ref());
  assert.deepEqual([read.review?.verdict, read.review?.findings], ["no_findings", []]);
  const spoof = session(RENDERED, [reviewer(RENDERED)]);
  const plain = await readReview(spoof.session, ref());
  assert.deepEqual(
    [plain.review?.verdict, plain.review?.verdictReason, plain.review?.findings],
    ["failed", "unparseable", []],
  );
});

Deno.test("readReview: only the final answer of the turn under R on a reviewer of this thread counts", async () => {
  const clean = captured("REVIEW_CLEAN");
  const cases: [string, Sub[]][] = [
    ["another thread's reviewer", [reviewer(clean, { parent: "thread-2" })]],
    ["a top-level thread", [reviewer(clean, { parent: null })]],
    ["another review's turn", [
      reviewer(clean, { turns: [{ id: "t", root: "R2", items: [answerItem(clean)] }] }),
    ]],
    ["a commentary", [
      reviewer(clean, { turns: [{ id: "t", root: R, items: [answerItem(clean, "commentary")] }] }),
    ]],
    ["no answer", [reviewer(clean, { turns: [{ id: "t", root: R, items: [] }] })]],
    ["a user message", [
      reviewer(clean, {
        turns: [{
          id: "t",
          root: R,
          items: [{ type: "userMessage", id: "u", text: clean, phase: "final_answer" }],
        }],
      }),
    ]],
    ["an answer stored under another turn", [reviewer(clean, {
      turns: [{ id: "t", root: R, items: [] }, {
        id: "t2",
        root: "R2",
        items: [answerItem(clean)],
      }],
    })]],
  ];
  for (const [what, subs] of cases) {
    const { session: s } = session("Mock review: no issues.", subs);
    const read = await readReview(s, ref());
    // Without the answer: never no_findings.
    assert.deepEqual(
      [read.review?.verdict, read.review?.verdictReason],
      ["failed", "unconfirmed"],
      what,
    );
  }
  // The first reviewer of this thread that has a turn under R, among the newest three.
  const other = reviewer(clean, {
    id: "sub-0",
    turns: [{ id: "t0", root: "R0", items: [answerItem("x")] }],
  });
  const mine = reviewer(clean, { id: "sub-1" });
  const found = await readReview(session("ok", [other, mine]).session, ref());
  assert.equal(found.review?.verdict, "no_findings");
  const far = [1, 2, 3].map((n) => reviewer(clean, { id: `s${n}`, turns: [] }));
  const beyond = await readReview(session("ok", [...far, mine]).session, ref());
  assert.equal(beyond.review?.verdictReason, "unconfirmed", "only the newest three are read");
});

Deno.test("readReview: without the reviewer's answer, findings only from Codex's exact rendering", async () => {
  const read = await readReview(session(RENDERED, []).session, ref());
  assert.deepEqual([read.review?.verdict, read.review?.findings.length], ["findings", 1]);
});

Deno.test("readReview: an ended review without a text fails closed; a running one has none yet; the reviewer is asked only of a completed one", async () => {
  const none = session(null, [reviewer(captured("REVIEW_JSON"))]);
  const read = await readReview(none.session, ref());
  assert.deepEqual(read.review, {
    text: "",
    findings: [],
    truncated: false,
    verdict: "failed",
    verdictReason: "no_review",
  });
  assert.deepEqual(none.calls.map(([m]) => m), ["thread/items/list"]);
  const running = await readReview(session(null, []).session, ref("running"));
  assert.equal("review" in running, false);
  assert.equal(running.turn?.status, "running");
  const interrupted = session(RENDERED, [reviewer(captured("REVIEW_JSON"))]);
  const stopped = await readReview(interrupted.session, ref("interrupted"));
  assert.deepEqual([stopped.review?.verdict, stopped.review?.verdictReason], [
    "failed",
    "run_interrupted",
  ]);
  assert.deepEqual(interrupted.calls.map(([m]) => m), ["thread/items/list"]);
  // A running review with its text so far: not ended.
  const partial = await readReview(session(RENDERED, []).session, ref("running"));
  assert.equal(partial.review?.verdictReason, "not_ended");
});

Deno.test("unreadReview: a review that could not be read has no text and fails closed", () => {
  const empty = { text: "", findings: [], truncated: false, verdict: "failed" };
  const scope = { threadId: THREAD, clientMessageId: "relay-review-1" };
  assert.deepEqual(unreadReview({ ...scope, turnId: R, status: "failed" }), {
    status: "observed",
    ...scope,
    association: "same_turn_not_exclusive",
    turn: { id: R, status: "failed" },
    replies: [],
    nextCursor: null,
    searchCursor: null,
    review: { ...empty, verdictReason: "run_failed" },
  });
  const done = unreadReview({ ...scope, turnId: null, status: "completed" });
  assert.deepEqual([done.turn, done.review], [null, { ...empty, verdictReason: "no_review" }]);
});
