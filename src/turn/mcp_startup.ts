/**
 * Which of a thread's MCP servers a turn still waits for. Codex starts a
 * thread's MCP servers when a process loads the thread and reports each with
 * `mcpServer/startupStatus/updated {threadId, name, status, error}`
 * (`starting`, then `ready`, `failed` or `cancelled`), but `turn/start` and
 * `thread/queue/start` do not wait for them: a turn started earlier runs
 * without a slow server's tools. Pure: the servers come from the config, the
 * statuses from the notifications seen, the time from the caller's clock.
 * @module
 */

import type { McpServerMissing } from "../reply/schemas.ts";

/**
 * Codex's own bound on one server's start when its entry sets no
 * `startup_timeout_sec` (observed with Codex 0.169: "MCP client for `x` timed
 * out after 30 seconds").
 */
export const CODEX_STARTUP_TIMEOUT_SEC = 30;

/** A server a load of the thread starts, and how long Codex gives it. */
export interface StartingServer {
  /** Its name (the key under `mcp_servers`). */
  name: string;
  /** Its `startup_timeout_sec` in milliseconds (Codex's default when unset). */
  timeoutMs: number;
  /** Who it is for `mcp_memory.ts`: the config's scope (its cwd), its name and its entry. */
  key?: string;
  /** Why a start does not wait for it (`mcp_memory.ts`: it was not up at an earlier start). */
  skip?: string;
}

/** The notification Codex reports a server's start with. */
export const STARTUP_STATUS = "mcpServer/startupStatus/updated";

type Settled = { status: "ready" | "failed" | "cancelled"; error: string | null };

/**
 * The servers a load with `overrides` starts: the config's `mcp_servers`
 * entries that are not disabled there (`enabled = false`) nor by the
 * overrides (`mcp_servers.<name>.enabled = false`, the recursion guard's).
 * With `scope` (the cwd the config was read at) each has its `key`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const servers = serversToStart(
 *   { mcp_servers: { docs: { command: "npx" }, off: { command: "x", enabled: false } } },
 *   {},
 * );
 * assert.deepEqual(servers, [{ name: "docs", timeoutMs: 30_000 }]);
 * ```
 */
export function serversToStart(
  config: Record<string, unknown>,
  overrides: Record<string, unknown>,
  scope?: string,
): StartingServer[] {
  const servers = config.mcp_servers;
  if (typeof servers !== "object" || servers === null) return [];
  const out: StartingServer[] = [];
  for (const [name, entry] of Object.entries(servers as Record<string, unknown>)) {
    if (typeof entry !== "object" || entry === null) continue;
    const e = entry as Record<string, unknown>;
    if (e.enabled === false || overrides[`mcp_servers.${name}.enabled`] === false) continue;
    const sec = e.startup_timeout_sec;
    const seconds = typeof sec === "number" && Number.isFinite(sec) && sec > 0
      ? sec
      : CODEX_STARTUP_TIMEOUT_SEC;
    const key = scope === undefined ? {} : { key: JSON.stringify([scope, name, entry]) };
    out.push({ name, timeoutMs: seconds * 1000, ...key });
  }
  return out;
}

/**
 * The start of one thread's servers, from the load (at `loadedAt` on the
 * caller's clock): what is settled, what is still awaited, until when.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const start = new McpStartup("t1", [{ name: "docs", timeoutMs: 10_000 }], 0);
 * start.note(STARTUP_STATUS, { threadId: "t1", name: "docs", status: "ready", error: null });
 * assert.equal(start.waitUntil(0, 20_000), undefined); // nothing to wait for
 * ```
 */
export class McpStartup {
  readonly #threadId: string;
  readonly #servers: readonly StartingServer[];
  readonly #loadedAt: number;
  readonly #settled = new Map<string, Settled>();

  constructor(threadId: string, servers: readonly StartingServer[], loadedAt: number) {
    this.#threadId = threadId;
    this.#servers = servers;
    this.#loadedAt = loadedAt;
  }

  /** Takes one notification (others' threads, other methods and `starting` change nothing). */
  note(method: string, params: unknown): void {
    if (method !== STARTUP_STATUS || typeof params !== "object" || params === null) return;
    const p = params as Record<string, unknown>;
    if (p.threadId !== this.#threadId || typeof p.name !== "string") return;
    if (p.status !== "ready" && p.status !== "failed" && p.status !== "cancelled") return;
    if (this.#settled.has(p.name)) return;
    this.#settled.set(p.name, {
      status: p.status,
      error: typeof p.error === "string" ? p.error : null,
    });
  }

  /**
   * When the wait for the servers still starting at `now` ends: the last of
   * their own deadlines (load + `startup_timeout_sec`), but not after
   * `budgetEnd`; undefined when there is nothing to wait for (servers with
   * `skip` are not waited for).
   */
  waitUntil(now: number, budgetEnd: number): number | undefined {
    const pending = this.#servers.filter((s) =>
      s.skip === undefined && !this.#settled.has(s.name) && this.#loadedAt + s.timeoutMs > now
    );
    if (pending.length === 0 || budgetEnd <= now) return undefined;
    return Math.min(budgetEnd, Math.max(...pending.map((s) => this.#loadedAt + s.timeoutMs)));
  }

  /** The servers not ready (failed, cancelled, or still starting), in config order. */
  missing(): McpServerMissing[] {
    const out: McpServerMissing[] = [];
    for (const s of this.#servers) {
      const settled = this.#settled.get(s.name);
      if (settled?.status === "ready") continue;
      out.push(
        settled ? { name: s.name, status: settled.status, error: settled.error } : {
          name: s.name,
          status: "starting",
          error: s.skip ??
            `not ready when the turn started (Codex gives it ${s.timeoutMs / 1000} s)`,
        },
      );
    }
    return out;
  }
}

/**
 * The line a run's result adds for the servers it runs without; empty when none.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(
 *   missingText([{ name: "docs", status: "failed", error: "exit 1" }]),
 *   "The turn runs without the tools of MCP server docs (failed: exit 1)",
 * );
 * ```
 */
export function missingText(missing: readonly McpServerMissing[]): string {
  if (missing.length === 0) return "";
  const list = missing.map((m) => `${m.name} (${m.status}${m.error ? `: ${m.error}` : ""})`);
  return `The turn runs without the tools of MCP server${missing.length > 1 ? "s" : ""} ${
    list.join(", ")
  }`;
}
