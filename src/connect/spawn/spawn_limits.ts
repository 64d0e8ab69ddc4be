/**
 * The spawn backend's bounds: the ones every backend has, how many helpers
 * (private app-servers of operations) run at once, and how many turns the
 * turn host runs at once.
 * @module
 */

import { type ConnectionLimits, DEFAULT_LIMITS } from "../connection.ts";

/** The spawn backend's bounds: the shared ones, helpers and turns at once. */
export interface SpawnLimits extends ConnectionLimits {
  /** Operations' helpers alive at once (the turn host takes none of them). */
  helpers: number;
  /** Turns (held connections) at once on the one turn host; past it `busy` at once. */
  turns: number;
}

/** The spawn backend's default bounds. */
export const DEFAULT_SPAWN_LIMITS: Readonly<SpawnLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  helpers: 4,
  turns: 8,
});
