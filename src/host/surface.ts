/**
 * What the texts a model reads (tool descriptions, server instructions,
 * result renderings) may promise: the capability level, and what the backend
 * says it can do (`Connection.capabilities`), so no text compares connection
 * modes itself.
 * @module
 */

import type { Capabilities } from "../core/capabilities.ts";
import type { BackendCapabilities, Connection } from "../connect/connection.ts";

/** The texts' view of a relay: its level and its backend. */
export interface Surface {
  /** The capability flags in force. */
  caps: Capabilities;
  /**
   * What the backend can do. A `shared` one (the daemon) holds threads
   * loaded for every client: a message queued to one it holds idle starts at
   * once, and the turns `codex_run` starts keep running after codex-relay exits.
   */
  backend: Readonly<BackendCapabilities>;
}

/**
 * The surface of a relay at level `caps` on `connection`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const caps = { replyRead: true, turnStart: false };
 * assert.equal(surfaceOf(caps, { capabilities: { shared: true } }).backend.shared, true);
 * ```
 */
export function surfaceOf(
  caps: Capabilities,
  connection: Pick<Connection, "capabilities">,
): Surface {
  return { caps, backend: connection.capabilities };
}

/** The surface of `caps` on a private backend (texts rendered without a relay, e.g. docs). */
export function spawnSurface(caps: Capabilities): Surface {
  return { caps, backend: { shared: false } };
}
