/**
 * The types and bounds of turn runtimes (`turn_runtime.ts`).
 * @module
 */

import type { QueuedAhead } from "../reply/schemas.ts";
import type { DeclinedRequest, ElicitationRouter } from "../elicit/router.ts";
import type { Logger } from "../core/log.ts";
import type { Clock } from "../core/clock.ts";
import type { Failure } from "./classify_failure.ts";
import type { RunJob } from "./run_job.ts";

/** Watchdog bounds. */
export interface TurnLimits {
  /** Silence after which a turn counts as stalled. */
  stallMs: number;
  /** Silence allowed while an MCP tool call is in flight. */
  toolCallStallMs: number;
  /** The longest a turn may run under the relay. */
  backstopMs: number;
  /** How long to wait for Codex to confirm an interrupt before reaping. */
  interruptGraceMs: number;
}

/** Default watchdog bounds. */
export const DEFAULT_TURN_LIMITS: Readonly<TurnLimits> = Object.freeze({
  stallMs: 120_000,
  toolCallStallMs: 600_000,
  backstopMs: 30 * 60_000,
  interruptGraceMs: 10_000,
});

export type { RunPhase } from "./run_state.ts";
import type { RunPhase } from "./run_state.ts";
import type { RunEvent, RunState } from "./run_state.ts";

/** What the runtime reports about its turn. */
export interface RunSnapshot {
  threadId: string;
  clientMessageId: string;
  turnId: string | null;
  phase: RunPhase;
  failure?: Failure;
  error?: string;
  itemsCompleted: number;
  /** Requests of Codex the relay declined at once because it cannot forward them (newest 20). */
  declinedRequests: DeclinedRequest[];
  /** Messages queued ahead of the run's own whose turns its start also started (ids, never text). */
  queuedAhead: QueuedAhead[];
  /** What the client should know about the run (an answer that counted as a decline, a name not set). */
  notes: string[];
}

/** How many declined requests a runtime remembers. */
export const MAX_DECLINED_KEPT = 20;

/** What a runtime is built from. */
export interface RuntimeDeps {
  /** Its run's id (the runtime's id; default a new one). */
  id?: string;
  /**
   * Its run's state, as the run book keeps it, and how to move it (both or
   * neither; default: a state of its own, for a runtime outside a registry).
   */
  run?: { state: () => RunState; move: (event: RunEvent) => void };
  /** Wall-clock ms (when a lost run was lost; default `Date.now`). */
  wallNow?: () => number;
  router: ElicitationRouter;
  clock: Clock;
  log: Logger;
  limits: TurnLimits;
  /** The connection is shared (the daemon): follow only this message's turn. */
  shared?: boolean;
  /** The turn's id when the runtime attaches to a turn that already runs. */
  turnId?: string;
  /** What the run does (default: a message queued and started). */
  job?: RunJob;
}

/** How {@linkcode TurnRuntime.begin} watches the turn. */
export interface BeginOptions {
  /** Run the stall watchdog and the backstop (default true; false for an attached follower). */
  watchdog?: boolean;
  /** Called when a shared connection is lost before the turn ended (the turn lives on). */
  onLost?: () => void;
}
