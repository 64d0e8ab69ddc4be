/**
 * The daemon backend's bounds: the ones every backend has, and how many
 * operations share its one connection at once, and how many turns it follows.
 * @module
 */

import { type ConnectionLimits, DEFAULT_LIMITS } from "../connection.ts";

/** The daemon backend's bounds: the shared ones, operations and turns at once. */
export interface DaemonLimits extends ConnectionLimits {
  /** Operations in flight at once on the shared connection; more wait in `queue`. */
  inFlight: number;
  /** Turns (held views) this relay follows at once; past it `busy` at once. */
  turns: number;
}

/** The daemon backend's default bounds. */
export const DEFAULT_DAEMON_LIMITS: Readonly<DaemonLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  inFlight: 16,
  turns: 16,
});
