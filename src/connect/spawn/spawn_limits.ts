/**
 * The spawn backend's bounds: the ones every backend has, and how many
 * helpers (private app-servers) run at once.
 * @module
 */

import { type ConnectionLimits, DEFAULT_LIMITS } from "../connection.ts";

/** The spawn backend's bounds: the shared ones and how many helpers run at once. */
export interface SpawnLimits extends ConnectionLimits {
  /** Helpers alive at once (operations' and turns'). */
  helpers: number;
}

/** The spawn backend's default bounds. */
export const DEFAULT_SPAWN_LIMITS: Readonly<SpawnLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  helpers: 4,
});
