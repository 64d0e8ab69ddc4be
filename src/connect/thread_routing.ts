/**
 * Who on the relay side gets what one connection carrying several threads
 * delivers (the shared daemon's, which sends every subscribed connection every
 * thread's events and server requests; the spawn backend's turn host, which
 * runs every turn of the relay): held views see only the thread they follow;
 * operations' watchers see the notifications of the thread they watch; a
 * server request no view follows is not delivered (the backend decides whether
 * to answer it), and a view answers only what it was given.
 * Used by both backends.
 * @module
 */

import type { RpcId } from "../codex/types.ts";
import type { Logger } from "../core/log.ts";
import type { ConnectionListeners, ServerRequest } from "./connection.ts";

/** A held connection's view of a connection that carries several threads. */
export interface View {
  /** The thread it follows (none yet: only thread-less notifications reach it). */
  followed: string | undefined;
  /** Its listeners. */
  listeners: ConnectionListeners;
  /** Server request ids delivered to this view and not yet answered. */
  asked: Set<RpcId>;
}

/** A new view, following nothing yet. */
export function newView(): View {
  return { followed: undefined, listeners: {}, asked: new Set() };
}

type Watcher = (method: string, params: unknown) => void;

/** The watchers of operations, by thread, and the routing of frames to views and watchers. */
export class ThreadRouting {
  readonly #watchers = new Map<string, Set<Watcher>>();
  readonly #all = new Set<Watcher>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  /** Observes one thread's notifications until the returned function is called. */
  watch(threadId: string, onNotification: Watcher): () => void {
    const set = this.#watchers.get(threadId) ?? new Set<Watcher>();
    this.#watchers.set(threadId, set);
    const watcher: Watcher = (method, params) => onNotification(method, params);
    set.add(watcher);
    return () => {
      set.delete(watcher);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty set left in the map routes nothing (and is reused by the next watch)
      if (set.size === 0 && this.#watchers.get(threadId) === set) this.#watchers.delete(threadId);
    };
  }

  /**
   * Observes every notification the connection carries, whatever its thread,
   * until the returned function is called (a load's MCP server statuses,
   * sent before the loader knows the new thread's id).
   */
  watchAll(onNotification: Watcher): () => void {
    const watcher: Watcher = (method, params) => onNotification(method, params);
    this.#all.add(watcher);
    return () => void this.#all.delete(watcher);
  }

  /**
   * A notification: to the views following its thread (or all, without one)
   * and its watchers. With `activity`, each view it reaches hears it as
   * activity first (a connection whose other threads' frames must not keep a
   * stalled turn's watchdog quiet).
   */
  notification(views: Iterable<View>, method: string, params: unknown, activity = false): void {
    const threadId = threadOf(params);
    for (const view of views) {
      if (threadId === undefined ? true : view.followed === threadId) {
        if (activity) view.listeners.onActivity?.();
        view.listeners.onNotification?.(method, params);
      }
    }
    for (const watcher of [...this.#all]) watcher(method, params);
    // Stryker disable next-line ConditionalExpression: there are no watchers of thread undefined
    if (threadId === undefined) return;
    for (const watcher of [...(this.#watchers.get(threadId) ?? [])]) watcher(method, params);
  }

  /**
   * Delivered only to views following the request's thread (with `activity`,
   * heard as activity first); never answered here. Returns whether a view got
   * it.
   */
  serverRequest(views: Iterable<View>, request: ServerRequest, activity = false): boolean {
    const threadId = threadOf(request.params);
    if (threadId === undefined) return false;
    let delivered = false;
    for (const view of views) {
      if (view.followed !== threadId || !view.listeners.onServerRequest) continue;
      view.asked.add(request.id);
      if (activity) view.listeners.onActivity?.();
      view.listeners.onServerRequest(request);
      delivered = true;
    }
    return delivered;
  }

  /** Whether `view` may answer request `id` (it was given it and has not answered yet). */
  mayAnswer(view: View, id: RpcId): boolean {
    if (view.asked.delete(id)) return true;
    this.#log.warn("refused answer", { id: String(id) });
    return false;
  }
}

/** The thread a notification or request is about: `params.threadId` or `params.thread.id`. */
export function threadOf(params: unknown): string | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  const p = params as Record<string, unknown>;
  if (typeof p.threadId === "string") return p.threadId;
  const thread = p.thread;
  if (typeof thread === "object" && thread !== null) {
    const id = (thread as Record<string, unknown>).id;
    if (typeof id === "string") return id;
  }
  return undefined;
}
