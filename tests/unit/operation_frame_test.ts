import assert from "assert";
import { RelayError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/log.ts";
import { DEFAULT_LIMITS } from "../../src/connect/connection.ts";
import type { Method } from "../../src/codex/methods.ts";
import {
  checkAllowed,
  holdBudgetMs,
  operationBudgetMs,
  OperationFrame,
} from "../../src/connect/operation_frame.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

Deno.test("operation budget: 20 s unless asked; asked up to 60 s, never beyond", () => {
  assert.equal(operationBudgetMs(DEFAULT_LIMITS), 20_000);
  assert.equal(operationBudgetMs(DEFAULT_LIMITS, 5_000), 5_000);
  assert.equal(operationBudgetMs(DEFAULT_LIMITS, 45_000), 45_000);
  assert.equal(operationBudgetMs(DEFAULT_LIMITS, 90_000), 60_000);
});

Deno.test("hold budget: what is asked, at most one operation's 20 s", () => {
  assert.equal(holdBudgetMs(DEFAULT_LIMITS), 20_000);
  assert.equal(holdBudgetMs(DEFAULT_LIMITS, 12_000), 12_000);
  assert.equal(holdBudgetMs(DEFAULT_LIMITS, 45_000), 20_000);
});

Deno.test("a frame aborts with its spent error when the budget runs out, and says so", () => {
  const clock = new ManualClock();
  const spent = new RelayError("timeout", "not ready within 2 s");
  const frame = new OperationFrame(2_000, clock, { shutdown: new AbortController().signal }, spent);
  clock.advance(1_500);
  assert.equal(frame.remainingMs(), 500);
  assert.equal(frame.signal.aborted, false);
  clock.advance(500);
  assert.equal(frame.signal.reason, spent);
  assert.equal(frame.spent, true);
  assert.equal(frame.remainingMs(), 0);
});

Deno.test("a frame aborts with the caller's or the shutdown's reason, which is not a spent budget", () => {
  const clock = new ManualClock();
  const caller = new AbortController();
  const shutdown = new AbortController();
  const a = new OperationFrame(1_000, clock, { caller: caller.signal, shutdown: shutdown.signal });
  caller.abort("client cancelled");
  assert.equal(a.signal.reason, "client cancelled");
  assert.equal(a.spent, false);
  const b = new OperationFrame(1_000, clock, { shutdown: shutdown.signal });
  shutdown.abort("shutting down");
  assert.equal(b.signal.reason, "shutting down");
  assert.equal(b.spent, false);
});

Deno.test("an ended frame's budget no longer runs out", () => {
  const clock = new ManualClock();
  const frame = new OperationFrame(1_000, clock, { shutdown: new AbortController().signal });
  frame.end();
  clock.advance(5_000);
  assert.equal(frame.signal.aborted, false);
});

Deno.test("checkAllowed refuses a method outside the allowlist (not_allowed, not written)", () => {
  const allow = new Set<Method>(["thread/list"]);
  checkAllowed(allow, "thread/list", silentLogger);
  assert.throws(
    () => checkAllowed(allow, "thread/start", silentLogger),
    (e: unknown) =>
      e instanceof RelayError && e.reason === "not_allowed" && e.written === false &&
      /thread\/start is not allowed/.test(e.message),
  );
});
