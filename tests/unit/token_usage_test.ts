/** Protects: a run's usage from `thread/tokenUsage/updated` (issue 42): parsed, summed per turn, own turn only. */
import assert from "assert";
import { parseTokenUsage } from "../../src/codex/notifications.ts";
import { addTokenUsage } from "../../src/reply/token_usage.ts";
import { TurnEvents } from "../../src/turn/turn_events.ts";
import { MESSAGE_JOB } from "../../src/turn/run_job.ts";

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
  const two = addTokenUsage(one, { ...parseTokenUsage(CAPTURED)!, last: bigger });
  assert.equal(two.totalTokens, 60);
  assert.equal(two.inputTokens, 50);
  assert.equal(two.contextUsed, 45);
});

Deno.test("TurnEvents: only the own turn's (or its inner turn's) usage counts; none told is undefined", () => {
  const run = { threadId: "t1", clientMessageId: "c1", job: MESSAGE_JOB };
  const events = new TurnEvents(run, "own");
  const tell = (threadId: string, turnId: string) =>
    events.notification("thread/tokenUsage/updated", { threadId, turnId, tokenUsage: CAPTURED });
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
