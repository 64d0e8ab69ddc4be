/**
 * What the spawn backend declares without its code: what it can do, and its
 * bounds (the ones every backend has, how many operations the warm helper,
 * the operations' private app-server, runs at once, and how many turns the
 * turn host runs at once). A relay answers these before its first call loads
 * the backend (`../open.ts`).
 * @module
 */

import { type BackendCapabilities, type ConnectionLimits, DEFAULT_LIMITS } from "../connection.ts";

/** Private app-servers: they see only the relay's own turns, which end with the relay. */
export const SPAWN_CAPABILITIES: Readonly<BackendCapabilities> = Object.freeze({ shared: false });

/** The spawn backend's bounds: the shared ones, operations and turns at once. */
export interface SpawnLimits extends ConnectionLimits {
  /** Operations in flight at once on the warm helper (turns take none); more wait in `queue`. */
  inFlight: number;
  /** Turns (held connections) at once on the one turn host; past it `busy` at once. */
  turns: number;
}

/** The spawn backend's default bounds. */
export const DEFAULT_SPAWN_LIMITS: Readonly<SpawnLimits> = Object.freeze({
  ...DEFAULT_LIMITS,
  inFlight: 4,
  turns: 8,
});
