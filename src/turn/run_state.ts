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

/** What an interrupt says of a run it ended before its message was queued. */
export const CANCELLED_START = "codex_interrupt cancelled the run before its message was queued";

/** How a run's turn ended. */
export type RunEnd = "completed" | "failed" | "interrupted";

/** A run's state. */
export type RunState =
  | { kind: "starting"; writing: boolean }
  | { kind: "queued" }
  | { kind: "running" }
  | { kind: "ended"; end: RunEnd }
  | { kind: "lost"; since: number };

/** What moves a run. */
export type RunEvent =
  /** The start sends its message to the queue. */
  | { kind: "writing" }
  /** Its message was stored in the thread's queue. */
  | { kind: "queued" }
  /** Its own turn started. */
  | { kind: "turnStarted" }
  /** Its turn ended (or its start was cancelled: `interrupted`). */
  | { kind: "ended"; end: RunEnd }
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
 * advance({ kind: "queued" }, { kind: "turnStarted" }); // { kind: "running" }
 * advance({ kind: "ended", end: "failed" }, { kind: "turnStarted" }); // unchanged
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
      return { kind: "running" };
    case "ended":
      return { kind: "ended", end: event.end };
    case "lost":
      return state.kind === "starting" ? state : { kind: "lost", since: event.at };
  }
}

/** Whether nothing moves the run any more (`ended`, `lost`). */
export function isFinal(state: RunState): boolean {
  return state.kind === "ended" || state.kind === "lost";
}

/** Where the run is, as results and lists name it. */
export type RunPhase = "queued" | "running" | RunEnd;

/**
 * The phase results report: a run still starting counts as `queued` (its
 * message is on its way to the queue); a lost one as `running` (its turn may
 * run on).
 *
 * @example
 * ```ts
 * phaseOf({ kind: "starting", writing: false }); // "queued"
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
