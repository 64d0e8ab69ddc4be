/**
 * Waiting for a thread's MCP servers between loading it and queueing a turn
 * there (Codex starts a turn without waiting for them). Watching begins
 * before the load is sent, since Codex reports the statuses right after its
 * answer, often in the same read; the wait itself is {@linkcode McpStartup}'s
 * deadlines on the caller's clock.
 * @module
 */

import type { Clock } from "../core/clock.ts";
import type { HeldConnection, Session } from "../connect/connection.ts";
import type { McpServerMissing } from "../reply/schemas.ts";
import type { McpMemory } from "./mcp_memory.ts";
import { McpStartup, missingText, type StartingServer, STARTUP_STATUS } from "./mcp_startup.ts";

/**
 * What a start keeps of its budget for queueing and starting the turn after
 * the wait: the wait for MCP servers ends this long before the budget does.
 */
export const MCP_WAIT_RESERVE_MS = 5_000;

/** Statuses kept before the thread's id is known (a load reports one or two per server). */
const MAX_EARLY = 1024;

/** A watch begun before a load. */
export interface McpWatch {
  /**
   * Waits until each of `servers` of `threadId` reported `ready`, `failed` or
   * `cancelled`, or its own startup timeout (from the watch's start) passed,
   * at most `budgetMs` and not past `signal`; then stops watching. Resolves
   * with the servers not ready.
   */
  settle(
    threadId: string,
    servers: readonly StartingServer[],
    budgetMs: number,
    signal: AbortSignal,
  ): Promise<McpServerMissing[]>;
  /** Stops watching without waiting (a load that failed, a thread already loaded). */
  stop(): void;
}

/**
 * Starts watching `conn`'s MCP server statuses. A connection that cannot
 * show every notification waits for nothing and reports nothing.
 *
 * @example
 * ```ts ignore
 * const watch = watchMcpStartup(conn, clock);
 * const { threadId } = await session.call("thread/start", { cwd });
 * const missing = await watch.settle(threadId, servers, 15_000, session.signal);
 * ```
 */
export function watchMcpStartup(conn: Pick<HeldConnection, "watch">, clock: Clock): McpWatch {
  const loadedAt = clock.now();
  const early: [string, unknown][] = [];
  let startup: McpStartup | undefined;
  let wake = () => {};
  const stop = conn.watch?.((method, params) => {
    if (method !== STARTUP_STATUS) return;
    if (startup === undefined) {
      if (early.length < MAX_EARLY) early.push([method, params]);
      return;
    }
    startup.note(method, params);
    wake();
  });
  const stopOnce = () => {
    stop?.();
    early.length = 0;
  };
  return {
    async settle(threadId, servers, budgetMs, signal) {
      if (stop === undefined || servers.length === 0) {
        stopOnce();
        return [];
      }
      const current = startup = new McpStartup(threadId, servers, loadedAt);
      for (const [method, params] of early) current.note(method, params);
      const budgetEnd = clock.now() + budgetMs;
      try {
        for (;;) {
          const until = current.waitUntil(clock.now(), budgetEnd);
          if (until === undefined || signal.aborted) break;
          await new Promise<void>((resolve) => {
            const timer = clock.after(until - clock.now(), () => wake());
            wake = () => {
              timer.cancel();
              signal.removeEventListener("abort", wake);
              wake = () => {};
              resolve();
            };
            signal.addEventListener("abort", wake);
          });
        }
      } finally {
        stopOnce();
      }
      return current.missing();
    },
    stop: stopOnce,
  };
}

/**
 * The wait of a turn's start after its load (`thread/start`, `thread/resume`):
 * within the start's budget less {@linkcode MCP_WAIT_RESERVE_MS}; the servers
 * the turn runs without are told to `note` (the run's notes) and returned.
 * With `memory`, servers not up at an earlier start are not waited for, and
 * what this wait saw is learned (unless the call was cancelled meanwhile).
 *
 * @example
 * ```ts ignore
 * const missing = await afterLoadWait(watch, threadId, servers, session, (n) => notes.push(n));
 * ```
 */
export async function afterLoadWait(
  watch: McpWatch,
  threadId: string,
  servers: readonly StartingServer[],
  session: Pick<Session, "remainingMs" | "signal">,
  note: (text: string) => void,
  memory?: McpMemory,
): Promise<McpServerMissing[]> {
  const budgetMs = session.remainingMs() - MCP_WAIT_RESERVE_MS;
  const planned = memory?.plan(servers) ?? servers;
  const missing = await watch.settle(threadId, planned, budgetMs, session.signal);
  if (!session.signal.aborted) memory?.learn(planned, missing);
  if (missing.length > 0) note(missingText(missing));
  return missing;
}
