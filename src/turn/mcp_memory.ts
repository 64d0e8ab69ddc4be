/**
 * What this relay process knows of MCP servers that were not up at a run's
 * start: a server that failed, or was not ready within its wait, is not
 * waited for again by later starts (spawn mode starts a thread's servers anew
 * with every run's turn host, so each run would wait its whole
 * `startup_timeout_sec` again) until {@linkcode MCP_SKIP_MS} passed or its
 * entry in the config changed (a server is known by the cwd its config was
 * read at, its name and its entry as `config/read` gave it). Codex still
 * starts it: only the relay's wait is skipped, and the run's `mcpServers` says
 * so. A server seen ready is forgotten at once. Bookkeeping on an injected
 * clock, no I/O.
 * @module
 */

import type { Clock } from "../core/clock.ts";
import type { McpServerMissing } from "../reply/schemas.ts";
import type { StartingServer } from "./mcp_startup.ts";

/** How long a server not up at a start is not waited for again. */
export const MCP_SKIP_MS = 5 * 60_000;

/** Servers remembered at most (the oldest are forgotten first). */
export const MCP_KNOWN_MAX = 256;

/** A server not up at a start: when, and how. */
interface NotUp {
  at: number;
  status: McpServerMissing["status"];
  error: string | null;
}

/**
 * The memory of servers not up.
 *
 * @example
 * ```ts
 * import { systemClock } from "../core/clock.ts";
 * const memory = new McpMemory(systemClock);
 * const servers = [{ name: "docs", timeoutMs: 30_000, key: "/repo docs {}" }];
 * memory.learn(servers, [{ name: "docs", status: "failed", error: "exit 1" }]);
 * import assert from "assert";
 * assert.match(memory.plan(servers)[0].skip!, /^not waited for: /);
 * ```
 */
export class McpMemory {
  readonly #clock: Clock;
  readonly #known = new Map<string, NotUp>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * `servers` as a start waits for them: each one known not up within
   * {@linkcode MCP_SKIP_MS} carries `skip`, why it is not waited for.
   */
  plan(servers: readonly StartingServer[]): StartingServer[] {
    const now = this.#clock.now();
    for (const [key, known] of this.#known) {
      if (now - known.at >= MCP_SKIP_MS) this.#known.delete(key);
    }
    return servers.map((s) => {
      const known = s.key === undefined ? undefined : this.#known.get(s.key);
      return known ? { ...s, skip: skipText(known, now) } : s;
    });
  }

  /**
   * Learns from a wait on `servers` (as {@linkcode plan} gave them) that
   * ended with `missing`: one waited for and failed or not ready is
   * remembered, one ready forgotten (a cancelled one teaches nothing).
   */
  learn(servers: readonly StartingServer[], missing: readonly McpServerMissing[]): void {
    const now = this.#clock.now();
    for (const s of servers) {
      if (s.key === undefined) continue;
      const m = missing.find((x) => x.name === s.name);
      if (m === undefined) {
        this.#known.delete(s.key);
      } else if (s.skip === undefined && m.status !== "cancelled") {
        this.#known.delete(s.key);
        this.#known.set(s.key, { at: now, status: m.status, error: m.error });
        if (this.#known.size > MCP_KNOWN_MAX) {
          this.#known.delete(this.#known.keys().next().value!);
        }
      }
    }
  }
}

/**
 * What a run's `mcpServers` says of a server it did not wait for.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(
 *   skipText({ at: 0, status: "failed", error: "exit 1" }, 42_000),
 *   "not waited for: not up at a start 42 s ago in this relay process (failed: exit 1); waited for again 5 min after that or once its config entry changes",
 * );
 * ```
 */
export function skipText(known: NotUp, now: number): string {
  const ago = Math.max(0, Math.round((now - known.at) / 1000));
  const how = `${known.status}${known.error ? `: ${known.error}` : ""}`;
  return `not waited for: not up at a start ${ago} s ago in this relay process (${how}); ` +
    `waited for again ${MCP_SKIP_MS / 60_000} min after that or once its config entry changes`;
}
