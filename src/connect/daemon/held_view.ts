/**
 * A held connection on the shared daemon connection: a view that sees only
 * the thread it follows, answers only the requests it was given, and ends
 * (at once, with the error) when the connection is lost. Releasing it
 * detaches it; the connection stays open for everyone else.
 * @module
 */

import { RelayError } from "../../core/errors.ts";
import { type CallOptions, type HeldConnection, typedCall } from "../connection.ts";
import type { Method } from "../../codex/methods.ts";
import type { RpcConnection } from "../rpc_connection.ts";
import { type DaemonRouting, newView, type View } from "./daemon_routing.ts";

/** What a view is made of. */
export interface ViewDeps {
  /** The shared connection. */
  rpc: RpcConnection;
  /** The views of that connection (this one joins them until it ends). */
  views: Set<View>;
  /** Releases this view's use of the connection (its heartbeat). */
  unuse: () => void;
  /** Routing of frames and answers. */
  routing: DaemonRouting;
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
  const end = (error: RelayError) => {
    if (failure) return;
    failure = error;
    deps.views.delete(view);
    deps.unuse();
    detached.resolve(error);
  };
  void rpc.ended.then(end);
  return {
    follow: (threadId) => {
      view.followed = threadId;
    },
    ended: detached.promise,
    get failure() {
      return failure;
    },
    listen: (listeners) => {
      view.listeners = listeners;
    },
    respond: (id, result) => {
      if (routing.mayAnswer(view, id)) rpc.respond(id, result);
    },
    respondError: (id, code, message) => {
      if (routing.mayAnswer(view, id)) rpc.respondError(id, code, message);
    },
    call: typedCall<CallOptions>((method, params, callOptions = {}) => {
      deps.checkAllowed(method);
      if (failure) {
        return Promise.reject(
          new RelayError(failure.reason, failure.message, { written: false, cause: failure }),
        );
      }
      const timeoutMs = Math.min(callOptions.timeoutMs ?? deps.rpcTimeoutMs, deps.rpcTimeoutMs);
      return rpc.request(method, params, { timeoutMs, signal: callOptions.signal });
    }),
    close: () => {
      end(new RelayError("cancelled", "The held connection was released", { written: true }));
      return Promise.resolve();
    },
  };
}
