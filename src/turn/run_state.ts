/**
 * A run's state: one discriminated union and its transitions, pure. A run is
 * one `codex_run` of this relay (or a turn `codex_wait_reply` attached to), from
 * its first step to its end:
 *
 * | state      | what is true                                                                 | next                          |
 * | ---------- | ---------------------------------------------------------------------------- | ----------------------------- |
 * | `starting` | registered on its thread; reading (account, thread, config), then loading     | queued, running, ended        |
 * | `queued`   | its message is stored in the thread's queue; its turn has not started         | running, ended, lost          |
 * | `running`  | its turn runs (waiting for approval: the same, with requests pending)         | ended, lost                   |
 * | `ended`    | its turn completed, failed or was interrupted (or the start was cancelled)    | (final)                       |
 * | `lost`     | the shared connection was lost; the turn may run on in the daemon             | (final for this relay)        |
 *
 * `writing` tells a start whose message is on its way to the queue
 * (`thread/queue/add` sent): an interrupt then waits for the answer and
 * withdraws or interrupts the run as it would a queued one; before that it
 * cancels the start (nothing is queued).
 * @module
 */

import type { Failure } from "./classify_failure.ts";

/** What an interrupt says of a run it ended before its message was queued. */
export const CANCELLED_START = "codex_interrupt cancelled the run before its message was queued";

/** How a run's turn ended. */
export type TurnEnd = "completed" | "failed" | "interrupted";

/** A run's state. `stalled`: the watchdog found its turn stalled (it is being interrupted). */
export type RunState =
  | { kind: "starting"; writing: boolean }
  | { kind: "queued"; stalled?: Failure }
  | { kind: "running"; stalled?: Failure }
  | { kind: "ended"; end: TurnEnd; error?: string; failure?: Failure }
  | { kind: "lost"; since: number; stalled?: Failure };

/** What moves a run. */
export type RunEvent =
  /** The start sends its message to the queue. */
  | { kind: "writing" }
  /** Its message was stored in the thread's queue. */
  | { kind: "queued" }
  /** Its own turn started. */
  | { kind: "turnStarted" }
  /** The watchdog found it stalled: the failure it ends with when interrupted so. */
  | { kind: "stalled"; failure: Failure }
  /** Its turn ended (or its start was cancelled: `interrupted`), with why it failed. */
  | { kind: "ended"; end: TurnEnd; error?: string; failure?: Failure }
  /** The connection that carried it was lost while its turn may run on (wall-clock ms). */
  | { kind: "lost"; at: number };

/** The state a run starts in. */
export const STARTING: RunState = Object.freeze({ kind: "starting", writing: false });

/**
 * The state after `event`; an event a state does not take leaves it as it is
 * (an ended or lost run is final; a late `queued` never moves a running turn back).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(advance({ kind: "queued" }, { kind: "turnStarted" }), { kind: "running" });
 * const ended = { kind: "ended", end: "failed" } as const;
 * assert.deepEqual(advance(ended, { kind: "turnStarted" }), ended); // Unchanged.
 * ```
 */
export function advance(state: RunState, event: RunEvent): RunState {
  if (isFinal(state)) return state;
  switch (event.kind) {
    case "writing":
      return state.kind === "starting" ? { kind: "starting", writing: true } : state;
    case "queued":
      return state.kind === "starting" ? { kind: "queued" } : state;
    case "turnStarted":
      return { kind: "running", ...stalled(state) };
    case "stalled":
      return state.kind === "starting" || state.stalled
        ? state
        : { ...state, stalled: event.failure };
    case "ended":
      return event;
    case "lost":
      return state.kind === "starting"
        ? state
        : { kind: "lost", since: event.at, ...stalled(state) };
  }
}

function stalled(state: RunState): { stalled?: Failure } {
  return "stalled" in state ? { stalled: state.stalled } : {};
}

/**
 * How the run failed as of now: an ended run's failure, else the stall being
 * interrupted, if any.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const failure = { failureClass: "stalled", retryable: true } as const;
 * assert.equal(failureOf({ kind: "running", stalled: failure }), failure);
 * assert.equal(failureOf({ kind: "ended", end: "completed" }), undefined);
 * ```
 */
export function failureOf(state: RunState): Failure | undefined {
  return state.kind === "ended" ? state.failure : "stalled" in state ? state.stalled : undefined;
}

/** Whether nothing moves the run any more (`ended`, `lost`). */
export function isFinal(state: RunState): state is Extract<RunState, { kind: "ended" | "lost" }> {
  return state.kind === "ended" || state.kind === "lost";
}

/** Where the run is, as results and lists name it. */
export type RunPhase = "queued" | "running" | TurnEnd;

/**
 * The phase results report: a run still starting counts as `queued` (its
 * message is on its way to the queue); a lost one as `running` (its turn may
 * run on).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(phaseOf({ kind: "starting", writing: false }), "queued");
 * ```
 */
export function phaseOf(state: RunState): RunPhase {
  switch (state.kind) {
    case "starting":
    case "queued":
      return "queued";
    case "running":
    case "lost":
      return "running";
    case "ended":
      return state.end;
  }
}
