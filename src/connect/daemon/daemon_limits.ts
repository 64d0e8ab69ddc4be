/**
 * What the daemon backend declares without its code: what it can do, and its
 * bounds (the ones every backend has, how many operations share its one
 * connection at once, and how many turns it follows). A relay answers these
 * before its first call loads the backend (`../open.ts`).
 * @module
 */

import { type BackendCapabilities, type ConnectionLimits, DEFAULT_LIMITS } from "../connection.ts";

/**
 * The user's daemon: shared with Codex's TUI and other relays, it outlives
 * the relay (what that means: {@linkcode BackendCapabilities.shared}).
 */
export const DAEMON_CAPABILITIES: Readonly<BackendCapabilities> = Object.freeze({ shared: true });

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
