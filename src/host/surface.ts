/**
 * What the texts a model reads (tool descriptions, server instructions,
 * result renderings) may promise: the capability level, and what the
 * backend does with a queued message and a running turn. The backend is read
 * in one place, {@linkcode backendTraits}, so no text compares connection
 * modes itself.
 * @module
 */

import type { Capabilities } from "../core/capabilities.ts";
import type { Connection } from "../connect/connection.ts";

/** What the backend the relay runs on does, as far as texts must tell. */
export interface BackendTraits {
  /**
   * A message queued to a thread the backend holds loaded and idle starts
   * at once (the shared daemon); otherwise it waits for a resume.
   */
  queueStartsIdleThreads: boolean;
  /** Turns `codex_run` starts keep running after codex-relay exits (the daemon). */
  turnsOutliveRelay: boolean;
}

/** The texts' view of a relay: its level and its backend. */
export interface Surface {
  /** The capability flags in force. */
  caps: Capabilities;
  /** What the backend does. */
  backend: BackendTraits;
}

/** The traits of a private app-server per call (spawn mode). */
export const SPAWN_TRAITS: BackendTraits = Object.freeze({
  queueStartsIdleThreads: false,
  turnsOutliveRelay: false,
});

/** The traits of the user's shared app-server daemon. */
export const DAEMON_TRAITS: BackendTraits = Object.freeze({
  queueStartsIdleThreads: true,
  turnsOutliveRelay: true,
});

/**
 * What `connection` does, read from what the backend says it can do: a
 * shared backend (the daemon) holds threads loaded for every client, so a
 * message queued to one of them that is idle starts at once.
 */
export function backendTraits(connection: Pick<Connection, "capabilities">): BackendTraits {
  const { shared } = connection.capabilities;
  return { queueStartsIdleThreads: shared, turnsOutliveRelay: shared };
}

/** The surface of `caps` on a spawn backend (texts rendered without a relay, e.g. docs). */
export function spawnSurface(caps: Capabilities): Surface {
  return { caps, backend: SPAWN_TRAITS };
}
