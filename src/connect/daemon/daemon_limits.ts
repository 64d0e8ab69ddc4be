/**
 * The daemon backend's bounds: the ones every backend has, and how many
 * operations share its one connection at once.
 * @module
 */

import { type ConnectionLimits, DEFAULT_LIMITS } from "../connection.ts";

/** The daemon backend's bounds: the shared ones and how many operations run at once. */
export interface DaemonLimits extends ConnectionLimits {
  /** Operations in flight at once on the shared connection; more wait in `queue`. */
  inFlight: number;
}

/** The daemon backend's default bounds. */
export const DEFAULT_DAEMON_LIMITS: Readonly<DaemonLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  inFlight: 16,
});
