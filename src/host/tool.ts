/**
 * The shape every tool module exports, and what a tool call gets to work with.
 * @module
 */

import type { WorktreeDeps } from "../ops/worktree.ts";
import type { ServerContext } from "@modelcontextprotocol/server";
import type { z } from "zod";
import type { Logger } from "../core/log.ts";
import type { Connection } from "../connect/connection.ts";
import type { Capabilities } from "../core/capabilities.ts";
import type { ClientModes, RoundState } from "./input_rounds.ts";
import type { ElicitationRouter } from "../elicit/router.ts";
import type { Clock } from "../core/clock.ts";
import type { TurnRegistry } from "../turn/turn_registry.ts";
import type { TurnStarts } from "../turn/turn_start.ts";
import type { Surface } from "./surface.ts";
import type { QueuedHere } from "../ops/queued_here.ts";
import { type Explained, textOf } from "./next_steps.ts";

/** MCP tool annotations. */
export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Everything a tool call may use. */
export interface CallContext {
  /** The connection to the app-server (the only way to reach Codex). */
  connection: Connection;
  /** The capabilities in force (the server re-checks each call's). */
  caps: Capabilities;
  /** Aborted when the client cancels the call or the server shuts down. */
  signal: AbortSignal;
  /** Sends a progress notification if the client asked for progress. */
  progress(message: string, progress: number, total?: number): Promise<void>;
  /** Logger (stderr; never message text). */
  log: Logger;
  /** The SDK's request context, for tools that run user-input rounds. */
  mcp: ServerContext;
  /** The time source of waits. */
  clock: Clock;
  /** The messages this relay queued (every level). */
  queuedHere: QueuedHere;
  /**
   * The turn runtimes; like {@linkcode starts} and {@linkcode router}, loaded only above the
   * default level (a default-level call that reads them throws).
   */
  turns: TurnRegistry;
  /** Starts turns (used at the turn-start level only). */
  starts: TurnStarts;
  /** The elicitation router (idle below the turn-start level). */
  router: ElicitationRouter;
  /** Which kinds of user input the calling client declared. */
  clientModes(): ClientModes;
  /** Seals a round's state (HMAC, per-process key, TTL). */
  mintRound(state: RoundState): Promise<string>;
  /** Git and the worktrees' folder (`--allow-worktrees` only). */
  worktrees?: WorktreeDeps;
}

/** Annotations of the read tools: read-only, idempotent, closed world. */
export const READ_ANNOTATIONS: Annotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/**
 * Annotations of the tools that run a turn (`codex_run`, `codex_compact`):
 * the turn may change files or a thread's history, and it reaches the model.
 */
export const TURN_ANNOTATIONS: Annotations = Object.freeze({
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
});

/** A tool: schemas, annotations, and a handler returning structured content. */
export interface Tool<I extends z.ZodType, O extends z.ZodType> {
  name: string;
  title: string;
  /**
   * What the model reads; may depend on the level (not pointing at tools that
   * are off) and the backend (what a queued message does).
   */
  description: string | ((surface: Surface) => string);
  inputSchema: I;
  outputSchema: O;
  /**
   * The result's schema advertised at a level, when a field exists at some
   * levels only (default: `outputSchema`, the widest).
   */
  outputSchemaAt?: (caps: Capabilities) => z.ZodType;
  /** The input schema registered at a level, when a field exists at some levels only. */
  inputSchemaAt?: (caps: Capabilities) => z.ZodType;
  annotations: Annotations;
  /** Whether the tool exists at these capabilities (checked at registration and per call, by the server). */
  enabled(caps: Capabilities): boolean;
  /** Runs the call; expected failures are results with a status and reason, not exceptions. */
  run(input: z.output<I>, ctx: CallContext): Promise<z.output<O> | ToolInputRequired>;
  /**
   * The result explained, true at the surface's level and backend (default:
   * the queue level on spawn): what happened (for clients that show text),
   * then what to do next (also the result's `next` field, for clients that
   * give their model only the structured content).
   */
  explain(output: z.output<O>, surface?: Surface): Explained;
  /**
   * A tool of another server's surface (`--compat`): advertised exactly as
   * these JSON Schemas say (no annotations), its result exactly as
   * `result` builds it (no `next`).
   */
  exact?: {
    inputSchema: Record<string, unknown>;
    outputSchema: Record<string, unknown>;
    result(output: z.output<O>): Record<string, unknown>;
  };
}

/**
 * The text content of `tool`'s result `output`: one paragraph, what happened
 * then what to do next.
 *
 * @example
 * ```ts ignore
 * const text = toolText(withdrawMessageTool, out); // "Withdrawn (...) ... "
 * ```
 */
export function toolText<O extends z.ZodType>(
  tool: Pick<Tool<z.ZodType, O>, "explain">,
  output: z.output<O>,
  surface?: Surface,
): string {
  return textOf(tool.explain(output, surface));
}

/** A tool result that asks the client for input (an `inputRequired` round); passed through as is. */
export interface ToolInputRequired {
  inputRequired: unknown;
}

/** The output schema `tool` advertises at `caps`. */
export function outputSchemaAt(
  tool: Pick<Tool<z.ZodType, z.ZodType>, "outputSchema" | "outputSchemaAt">,
  caps: Capabilities,
): z.ZodType {
  return tool.outputSchemaAt?.(caps) ?? tool.outputSchema;
}

/** Thrown by a tool to refuse a call with a clear message (an `isError` result, no stack). */
export class ToolRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ToolRefusal";
  }
}
