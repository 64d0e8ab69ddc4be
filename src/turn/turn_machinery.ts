/**
 * The turn machinery as `serve` wires it: one elicitation router, the
 * registry of turn runtimes, and what starts turns, on one connection and
 * one clock.
 * @module
 */

import type { Clock } from "../core/clock.ts";
import type { Logger } from "../core/log.ts";
import type { Connection } from "../connect/connection.ts";
import { ElicitationRouter } from "../elicit/router.ts";
import { TurnRegistry } from "./turn_registry.ts";
import { DEFAULT_TURN_LIMITS, type TurnLimits } from "./turn_watchdog.ts";
import { TurnStarts } from "./turn_start.ts";
import type { QueuedHere } from "../ops/queued_here.ts";

/** What the machinery is built from. */
export interface MachineryOptions {
  connection: Connection;
  clock: Clock;
  log: Logger;
  /** Whether finished runs read their replies (the reply-read level). */
  readsReplies: boolean;
  /** Auto-accepts MCP tool-call approvals (`--auto-approve-mcp-tools`). */
  autoApproveMcpTools?: boolean;
  /** MCP server names to disable in relay-run turns (`--disable-codex-mcp-server`). */
  disabledMcpServers?: readonly string[];
  /** The messages this relay queued (shared with `codex_queue_message`). */
  queuedHere?: QueuedHere;
  /** Watchdog bounds (default {@linkcode DEFAULT_TURN_LIMITS}). */
  limits?: TurnLimits;
}

/** The wired machinery. */
export interface TurnMachinery {
  router: ElicitationRouter;
  turns: TurnRegistry;
  starts: TurnStarts;
}

/** Wires the router, the registry and the starts. Building it has no side effects. */
export function turnMachinery(options: MachineryOptions): TurnMachinery {
  const { connection, clock, log } = options;
  const router = new ElicitationRouter({
    clock,
    log,
    autoApproveMcpTools: options.autoApproveMcpTools ?? false,
  });
  const turns = new TurnRegistry({
    router,
    clock,
    log,
    limits: options.limits ?? DEFAULT_TURN_LIMITS,
    readsReplies: options.readsReplies,
    shared: connection.capabilities.shared,
  });
  const starts = new TurnStarts({
    connection,
    registry: turns,
    clock,
    log,
    disabledMcpServers: options.disabledMcpServers ?? [],
    queuedHere: options.queuedHere,
  });
  return { router, turns, starts };
}
