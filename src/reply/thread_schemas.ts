/**
 * The results of the default surface's two tools, `codex_queue_message`'s
 * receipt and `codex_list_threads`' list (with this relay's runs and their
 * worktrees at the levels that have them): a relay's start builds these and
 * not the rest (`schemas.ts`, which re-exports them: read them there).
 * @module
 */

import { z } from "zod";
import { reasonSchema } from "../core/errors.ts";
import { THREAD_STATUSES } from "../codex/types.ts";
import { worktreeSchema } from "./files_schema.ts";

/** The `codex_queue_message` receipt (and a `codex_run`'s `receipt`). */
export const receiptSchema = z.object({
  status: z.enum(["queued", "not_sent", "unknown"]),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  clientMessageId: z.string().describe("The id to read the reply with (codex_read_reply)"),
  threadId: z.string(),
  queuedSubmissionId: z.string().optional(),
  confirmedBy: z.enum(["acknowledgement", "queue_list"]).optional(),
});

/** A queue receipt. */
export type Receipt = z.output<typeof receiptSchema>;

/** The states of a run `codex_list_threads` lists (a run, not a turn: it may not have one yet). */
export const RUN_STATES = [
  "queued",
  "running",
  "waiting_for_approval",
  "completed",
  "failed",
  "interrupted",
  "lost",
] as const;

/** One run as `codex_list_threads` shows it. */
export const listedRunSchema = z.object({
  threadId: z.string(),
  clientMessageId: z.string(),
  state: z.enum(RUN_STATES),
  /** How many of Codex's requests wait for the client's answer (this relay's runs). */
  pendingRequests: z.number().int().min(1).optional(),
  startedAt: z.string().nullable(),
  /** A `lost` run: when the connection that carried it was lost (its turn may run on). */
  lostAt: z.string().optional(),
  /** Started by another codex-relay process (an earlier one; the daemon still runs it). */
  otherRelay: z.literal(true).optional(),
});

/** One listed run. */
export type ListedRun = z.output<typeof listedRunSchema>;

/** One listed thread. */
export const listedThreadSchema = z.object({
  id: z.string(),
  name: z.string().nullable(),
  status: z.enum(THREAD_STATUSES),
  updatedAt: z.string(),
  /** The last segment of the thread's working directory (every level): tells projects apart. */
  folder: z.string().nullable(),
  /** Turn-start level only (there the client already chooses cwds). */
  cwd: z.string().nullable().optional(),
});

/** The `codex_list_threads` result. */
export const threadListSchema = z.object({
  status: z.enum(["ok", "unavailable"]),
  reason: reasonSchema.optional(),
  message: z.string().optional(),
  threads: z.array(listedThreadSchema),
  nextCursor: z.string().nullable(),
  /** The thread sources listed (Codex's source kinds): interactive and scripted, no sub-agents. */
  sources: z.array(z.string()),
});

/** The `codex_list_threads` result at the turn-start level: with this relay's runs. */
export const threadListWithRunsSchema = threadListSchema.extend({
  runs: z.array(listedRunSchema).optional(),
});

/** The `codex_list_threads` result (`runs` at the turn-start level only). */
export type ThreadList = z.output<typeof threadListWithRunsSchema>;

/** The field a result of a run with `--allow-worktrees` adds: the worktree it works in. */
export const withWorktree = { worktree: worktreeSchema.optional() };

/** `codex_list_threads`' result with `--allow-worktrees`: each run's worktree too. */
export const threadListWorktreeSchema = threadListWithRunsSchema.extend({
  runs: z.array(listedRunSchema.extend(withWorktree)).optional(),
});
