/**
 * A held connection that is a view of one connection carrying several
 * threads (the daemon's shared connection; the spawn backend's turn host): it
 * sees only the thread it follows, answers only the requests it was given, and
 * ends (at once, with the error) when the connection is lost. Releasing it
 * detaches it; what becomes of the connection is the backend's (the daemon's
 * stays open for everyone else; the turn host is reaped with its last view).
 * Used by both backends.
 * @module
 */

import { RelayError } from "../core/errors.ts";
import { type CallOptions, type HeldConnection, typedCall } from "./connection.ts";
import type { Method } from "../codex/methods.ts";
import type { RpcConnection } from "./rpc_connection.ts";
import { newView, type ThreadRouting, type View } from "./thread_routing.ts";

/** What a view is made of. */
export interface ViewDeps {
  /** The connection carrying several threads. */
  rpc: RpcConnection;
  /** The views of that connection (this one joins them until it ends). */
  views: Set<View>;
  /**
   * Releases this view's use of the connection (the daemon's heartbeat; the
   * turn host's seat, reaping it with the last view). Called once, when the
   * view ends; `close()` waits for what it returns.
   */
  unuse: () => Promise<void> | void;
  /** Routing of frames and answers. */
  routing: ThreadRouting;
  /** Throws `not_allowed` for a method outside the allowlist. */
  checkAllowed: (method: Method) => void;
  /** The per-RPC timeout (calls may ask for less). */
  rpcTimeoutMs: number;
}

/** A new view joined to `deps.views`. */
export function heldView(deps: ViewDeps): HeldConnection {
  const { rpc, routing } = deps;
  const view = newView();
  deps.views.add(view);
  const detached = Promise.withResolvers<RelayError>();
  let failure: RelayError | undefined;
  let released: Promise<void> = Promise.resolve();
  const end = (error: RelayError) => {
    if (failure) return;
    failure = error;
    deps.views.delete(view);
    released = Promise.resolve(deps.unuse());
    detached.resolve(error);
  };
  void rpc.ended.then(end);
  return {
    follow: (threadId) => {
      view.followed = threadId;
    },
    ended: detached.promise,
    get failure() {
      // The connection's own failure shows at once (its `ended` settles a moment later).
      return failure ?? rpc.failure;
    },
    listen: (listeners) => {
      view.listeners = listeners;
    },
    watch: (onNotification) => routing.watchAll(onNotification),
    respond: (id, result) => {
      if (routing.mayAnswer(view, id)) rpc.respond(id, result);
    },
    respondError: (id, code, message) => {
      if (routing.mayAnswer(view, id)) rpc.respondError(id, code, message);
    },
    call: typedCall<CallOptions>((method, params, callOptions = {}) => {
      deps.checkAllowed(method);
      const gone = failure ?? rpc.failure;
      if (gone) {
        return Promise.reject(
          new RelayError(gone.reason, gone.message, { written: false, cause: gone }),
        );
      }
      const timeoutMs = Math.min(callOptions.timeoutMs ?? deps.rpcTimeoutMs, deps.rpcTimeoutMs);
      return rpc.request(method, params, { timeoutMs, signal: callOptions.signal });
    }),
    close: () => {
      end(new RelayError("cancelled", "The held connection was released", { written: true }));
      return released;
    },
  };
}
