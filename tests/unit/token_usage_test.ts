/** Protects: a run's usage from `thread/tokenUsage/updated` (issue 42): parsed, summed per turn, own turn only. */
import assert from "assert";
import { parseTokenUsage } from "../../src/codex/notifications.ts";
import { addTokenUsage } from "../../src/reply/token_usage.ts";
import { TurnEvents } from "../../src/turn/turn_events.ts";
import { MESSAGE_JOB, type RunJob } from "../../src/turn/run_job.ts";
import capture169 from "../../fixtures/captures/46-compact-usage-review-0.169.0.json" with {
  type: "json",
};
import capture171 from "../../fixtures/captures/46-compact-usage-review-0.171.0.json" with {
  type: "json",
};

/** Transcript 26's second turn (0.171): total 30, last 15, window 258400. */
const CAPTURED = {
  total: {
    totalTokens: 30,
    inputTokens: 20,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    outputTokens: 10,
    reasoningOutputTokens: 0,
  },
  last: {
    totalTokens: 15,
    inputTokens: 10,
    cachedInputTokens: 0,
    cacheWriteInputTokens: 0,
    outputTokens: 5,
    reasoningOutputTokens: 0,
  },
  modelContextWindow: 258400,
};

Deno.test("parseTokenUsage: the captured notification; malformed parts are refused or zero", () => {
  const u = parseTokenUsage(CAPTURED)!;
  assert.equal(u.total.totalTokens, 30);
  assert.equal(u.last.inputTokens, 10);
  assert.equal(u.modelContextWindow, 258400);
  assert.equal(parseTokenUsage({ total: CAPTURED.total }), undefined, "no last");
  assert.equal(parseTokenUsage(null), undefined);
  const odd = parseTokenUsage({
    ...CAPTURED,
    last: { inputTokens: "x" },
    modelContextWindow: null,
  })!;
  assert.equal(odd.last.inputTokens, 0);
  assert.equal(odd.modelContextWindow, null);
});

Deno.test("addTokenUsage: a turn's requests are summed; context is the last request's; the thread's total is Codex's", () => {
  const one = addTokenUsage(undefined, parseTokenUsage(CAPTURED)!);
  assert.deepEqual(one, {
    inputTokens: 10,
    cachedInputTokens: 0,
    outputTokens: 5,
    reasoningTokens: 0,
    totalTokens: 15,
    contextWindow: 258400,
    contextUsed: 15,
    threadTotal: {
      inputTokens: 20,
      cachedInputTokens: 0,
      outputTokens: 10,
      reasoningTokens: 0,
      totalTokens: 30,
    },
  });
  const bigger = { ...CAPTURED.last, inputTokens: 40, totalTokens: 45 };
  const grown = { ...CAPTURED.total, inputTokens: 60, totalTokens: 75 };
  const two = addTokenUsage(one, { ...parseTokenUsage(CAPTURED)!, total: grown, last: bigger });
  assert.equal(two.totalTokens, 60);
  assert.equal(two.inputTokens, 50);
  assert.equal(two.contextUsed, 45);
});

Deno.test("TurnEvents: only the own turn's (or its inner turn's) usage counts; none told is undefined", () => {
  const run = { threadId: "t1", clientMessageId: "c1", job: MESSAGE_JOB };
  const events = new TurnEvents(run, "own");
  let told = 0;
  const tell = (threadId: string, turnId: string) => {
    // Each model request grows Codex's running total.
    const total = { ...CAPTURED.total, totalTokens: CAPTURED.total.totalTokens + 15 * ++told };
    const tokenUsage = { ...CAPTURED, total };
    return events.notification("thread/tokenUsage/updated", { threadId, turnId, tokenUsage });
  };
  assert.deepEqual(tell("t1", "earlier"), [], "usage tells the client nothing at once");
  tell("t2", "own");
  assert.equal(events.usage, undefined);
  tell("t1", "own");
  assert.equal(events.usage?.totalTokens, 15);
  events.notification("turn/started", { threadId: "t1", turn: { id: "inner", rootTurnId: "own" } });
  tell("t1", "inner");
  assert.equal(events.usage?.totalTokens, 30);
});

Deno.test("TurnEvents: usage without a turn id, before the own turn is known, is no one's", () => {
  const events = new TurnEvents({ threadId: "t1", clientMessageId: "c1", job: MESSAGE_JOB }, null);
  events.notification("thread/tokenUsage/updated", { threadId: "t1", tokenUsage: CAPTURED });
  assert.equal(events.usage, undefined);
});

for (const capture of [capture169, capture171]) {
  Deno.test(`usage of a compaction (${capture.codexVersion}): each model request once, total = in + out`, () => {
    const { compaction } = capture;
    const job: RunJob = { kind: "compact" };
    const events = new TurnEvents({
      threadId: compaction.compactionUsage[0].threadId,
      clientMessageId: "c1",
      job,
    }, compaction.compactionTurnId);
    for (const params of compaction.compactionUsage) {
      events.notification("thread/tokenUsage/updated", params);
    }
    const u = events.usage!;
    // Codex's three: the repeat (total 15 as before), the request (total 30), the estimate.
    assert.equal(compaction.compactionUsage.length, 3);
    assert.deepEqual(
      [u.inputTokens, u.outputTokens, u.totalTokens],
      [10, 5, 15],
      JSON.stringify(u),
    );
    assert.equal(u.totalTokens, u.inputTokens + u.outputTokens);
    assert.equal(u.threadTotal.totalTokens, 30, "Codex's running total of the thread");
    assert.equal(u.contextUsed, 6176, "the compacted context, as Codex estimates it");
    // The turn before and the turn after: one request each, counted once.
    for (const turn of [compaction.firstTurnUsage, compaction.nextTurnUsage]) {
      const run = new TurnEvents({
        threadId: turn[0].threadId,
        clientMessageId: "c2",
        job: MESSAGE_JOB,
      }, turn[0].turnId);
      for (const params of turn) run.notification("thread/tokenUsage/updated", params);
      assert.deepEqual([run.usage!.inputTokens, run.usage!.outputTokens, run.usage!.totalTokens], [
        10,
        5,
        15,
      ]);
    }
  });
}

Deno.test("addTokenUsage: a notification whose running total did not change counts nothing; a compaction's first is a repeat", () => {
  const usage = parseTokenUsage(CAPTURED)!;
  const repeat = addTokenUsage(undefined, usage, true);
  assert.deepEqual(
    [
      repeat.inputTokens,
      repeat.cachedInputTokens,
      repeat.outputTokens,
      repeat.reasoningTokens,
      repeat.totalTokens,
    ],
    [0, 0, 0, 0, 0],
  );
  assert.equal(repeat.threadTotal.totalTokens, 30);
  assert.equal(repeat.contextUsed, 15);
  const full = { ...usage.last, cachedInputTokens: 3, reasoningOutputTokens: 2 };
  const grown = { ...usage.total, totalTokens: 45 };
  const request = addTokenUsage(repeat, { ...usage, total: grown, last: full });
  assert.deepEqual(
    [
      request.inputTokens,
      request.cachedInputTokens,
      request.outputTokens,
      request.reasoningTokens,
      request.totalTokens,
    ],
    [10, 3, 5, 2, 15],
  );
  const estimate = addTokenUsage(request, {
    ...usage,
    total: grown,
    last: { ...full, totalTokens: 900 },
  });
  assert.equal(estimate.totalTokens, 15, "an estimate is not a request");
  assert.equal(estimate.contextUsed, 900);
});

Deno.test("addTokenUsage: the context window is the last one Codex told, null until told", () => {
  const usage = { ...parseTokenUsage(CAPTURED)!, modelContextWindow: null };
  const first = addTokenUsage(undefined, usage);
  assert.equal(first.contextWindow, null);
  const told = addTokenUsage(first, { ...usage, modelContextWindow: 1000 });
  assert.equal(told.contextWindow, 1000);
  assert.equal(addTokenUsage(told, usage).contextWindow, 1000);
});
