/**
 * Which server requests of a shared connection (the daemon) belong to a
 * runtime: the daemon sends every subscribed connection every request of the
 * thread, the user's own turns' included, and replays a pending one (same id)
 * when a connection subscribes again. A runtime takes only those of its own
 * turn, each once; the rest it never answers, forwards or declines.
 * @module
 */

import type { RpcId } from "../codex/types.ts";
import type { ServerRequest } from "../connect/connection.ts";

/** The requests one runtime took. */
export class OwnRequests {
  readonly #taken = new Set<RpcId>();

  /**
   * Whether `request` is the runtime's to route: its `params.turnId` is the
   * runtime's turn (known), and it was not taken before.
   */
  take(request: ServerRequest, turnId: string | null): boolean {
    const params = request.params;
    const of = typeof params === "object" && params !== null
      ? (params as { turnId?: unknown }).turnId
      : undefined;
    if (turnId === null || of !== turnId || this.#taken.has(request.id)) return false;
    this.#taken.add(request.id);
    return true;
  }
}
