/**
 * Issue 39, item 5: a run cancelled while it starts (by codex_interrupt, or by
 * the client's cancel of its call) ends interrupted and is listed once
 * (`TurnRegistry.drop`); a start that failed otherwise is no run. In process,
 * on a manual clock.
 */

import assert from "assert";
import { silentLogger } from "../../src/core/log.ts";
import type { ElicitationRouter } from "../../src/elicit/router.ts";
import {
  CANCELLED_START,
  CLIENT_CANCELLED_START,
  TurnRegistry,
} from "../../src/turn/turn_registry.ts";
import { DEFAULT_TURN_LIMITS } from "../../src/turn/turn_watchdog.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

const THREAD = "01a22a5b-0000-7000-8000-000000000002";

function registry(): TurnRegistry {
  return new TurnRegistry({
    router: {} as ElicitationRouter,
    clock: new ManualClock(),
    log: silentLogger,
    limits: DEFAULT_TURN_LIMITS,
    shared: false,
    readsReplies: false,
  });
}

const states = (r: TurnRegistry) => r.look().map((x) => [x.clientMessageId, x.state]);

Deno.test("drop(run, byClient): a start the client cancelled ends interrupted, settles with a note and is listed once", async () => {
  const r = registry();
  const run = r.begin(THREAD, "m1")!;
  r.drop(run, true);
  const settled = await run.settled;
  assert.equal(settled.snapshot.phase, "interrupted");
  assert.equal(settled.snapshot.turnId, null);
  assert.deepEqual(settled.snapshot.notes, [CLIENT_CANCELLED_START]);
  assert.deepEqual(states(r), [["m1", "interrupted"]]);
  assert.deepEqual(states(r), [], "by one look only");
  assert.ok(r.begin(THREAD, "m2"), "the thread is free");
});

Deno.test("drop(run) after codex_interrupt cancelled the start: listed once, interrupted; the interrupt resolves with its end", async () => {
  const r = registry();
  const run = r.begin(THREAD, "m1")!;
  const interrupted = r.interrupt(THREAD);
  assert.ok(run.cancel.signal.aborted, "the start's reads are aborted");
  r.drop(run);
  assert.deepEqual((await interrupted)?.snapshot.notes, [CANCELLED_START]);
  assert.deepEqual(states(r), [["m1", "interrupted"]]);
  assert.deepEqual(states(r), []);
});

Deno.test("drop(run): a start that failed, or a run past its start, is no run and is never listed", () => {
  const r = registry();
  r.drop(r.begin(THREAD, "failed")!);
  assert.deepEqual(states(r), []);
  const queued = r.begin(THREAD, "queued")!;
  queued.move({ kind: "queued" });
  r.drop(queued, true);
  assert.deepEqual(states(r), [], "only a run still starting ends by the client's cancel");
});
