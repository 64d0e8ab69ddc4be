/**
 * `codex_list_threads`: thread ids, names, statuses and update times; the
 * cwd and this relay's runs (`src/ops/listed_runs.ts`) at the turn-start
 * level only. No preview or message text at any level.
 * @module
 */

import { z } from "zod";
import { asRelayError } from "../../core/errors.ts";
import {
  type ListedRun,
  type ThreadList,
  threadListSchema,
  threadListWithRunsSchema,
  threadListWorktreeSchema,
} from "../../reply/thread_schemas.ts";
import { LISTED_SOURCE_KINDS } from "../../codex/types.ts";
import { READ_ANNOTATIONS, type Tool } from "../tool.ts";
import { sentences } from "../text.ts";
import { reasonNext } from "../next_steps.ts";

const input = z.strictObject({
  limit: z.number().int().min(1).max(50).default(20).describe("Page size"),
  cursor: z.string().min(1).max(4096).optional().describe(
    "Last page's nextCursor",
  ),
  search: z.string().min(1).max(200).optional().describe(
    "Title filter",
  ),
});

/** The `codex_list_threads` tool. */
export const listThreadsTool: Tool<typeof input, typeof threadListWorktreeSchema> = {
  name: "codex_list_threads",
  title: "List threads",
  description: ({ caps }) =>
    `Codex threads (interactive, codex exec), newest first: id, name, status, folder${
      caps.turnStart ? ", cwd" : ""
    }, updatedAt${caps.turnStart ? "; codex-relay's runs" : ""}. search: by title. No content.`,
  inputSchema: input,
  outputSchema: threadListWorktreeSchema,
  // The runs field exists at the turn-start level only.
  outputSchemaAt: (caps) =>
    caps.worktrees
      ? threadListWorktreeSchema
      : caps.turnStart
      ? threadListWithRunsSchema
      : threadListSchema,
  annotations: READ_ANNOTATIONS,
  enabled: () => true,
  async run({ limit, cursor, search }, ctx): Promise<ThreadList> {
    const { caps, connection } = ctx;
    const running = caps.turnStart ? ctx.turns.runningThreads() : undefined;
    const options = {
      limit,
      cursor,
      search,
      withCwd: caps.turnStart,
      running,
      // Where the daemon keeps turns of other relay processes and their turns can be read.
      otherRelays: running && caps.replyRead && connection.capabilities.shared
        ? { running, queuedHere: (t: string, m: string) => ctx.queuedHere.has(t, m) }
        : undefined,
    };
    let out: ThreadList;
    try {
      // The listing's code loads with the first call (docs/reliability.md, "Start-up").
      const { listThreads } = await import("../../ops/list_threads.ts");
      out = await connection.operation((s) => listThreads(s, options), {
        signal: ctx.signal,
        label: "list",
      });
    } catch (error) {
      const e = asRelayError(error);
      out = {
        status: "unavailable",
        reason: e.reason,
        message: e.message,
        threads: [],
        nextCursor: null,
        sources: [...LISTED_SOURCE_KINDS],
      };
    }
    // The look is taken after the list, so a run that ended meanwhile is shown ended.
    if (!caps.turnStart) return out;
    const scanned = out.runs ?? [];
    // A lost run the scan found running again is listed as the scan saw it.
    const mine = ctx.turns.look().filter((r) =>
      r.state !== "lost" ||
      !scanned.some((x) => x.threadId === r.threadId && x.clientMessageId === r.clientMessageId)
    );
    return { ...out, runs: [...mine, ...scanned] };
  },
  explain(out, surface) {
    const turnStart = surface?.caps.turnStart ?? out.runs !== undefined;
    const runs = out.runs === undefined ? "" : renderRuns(out.runs);
    const live = ["queued", "running", "waiting_for_approval"];
    const runsNext = !out.runs?.some((r) => live.includes(r.state))
      ? ""
      : surface?.caps.replyRead
      ? "Follow a run with codex_wait_reply"
      : "Stop a run with codex_interrupt";
    if (out.status !== "ok") {
      return {
        said: sentences(`Could not list Codex threads (${out.reason}): ${out.message}`, runs),
        next: sentences(reasonNext(out.reason), runsNext),
      };
    }
    if (out.threads.length === 0) {
      return {
        said: sentences(
          `There are no Codex threads to list (sources listed: ${out.sources.join(", ")})`,
          runs,
        ),
        next: sentences(
          turnStart
            ? "Start one with codex_run and a cwd"
            : "Start one in Codex (codex or codex exec), then list again",
          runsNext,
        ),
      };
    }
    const lines = out.threads.map((t) =>
      `${t.id}${t.name ? ` "${t.name}"` : ""}: ${t.status}, updated ${t.updatedAt}${
        t.cwd ? `, in ${t.cwd}` : t.folder ? `, in folder ${t.folder}` : ""
      }`
    );
    return {
      said: sentences(
        `${out.threads.length} Codex thread(s), newest first: ${lines.join("; ")}`,
        runs,
      ),
      next: sentences(
        `Pass a thread's id (or its exact name) as threadId to ${
          turnStart ? "codex_run or codex_queue_message" : "codex_queue_message"
        }`,
        out.nextCursor ? "More threads follow: pass nextCursor as cursor" : "",
        runsNext,
      ),
    };
  },
};

function renderRuns(runs: readonly ListedRun[]): string {
  if (runs.length === 0) return "codex-relay runs no turn.";
  const lines = runs.map((r) =>
    `${r.clientMessageId} on ${r.threadId}: ${r.state}${
      r.pendingRequests ? ` (${r.pendingRequests} request(s) to answer)` : ""
    }${r.lostAt ? ` since ${r.lostAt} (the connection was lost; the turn may run on)` : ""}${
      r.otherRelay ? " (another codex-relay's)" : ""
    }`
  );
  return `Runs (ended ones are shown once): ${lines.join("; ")}.`;
}
