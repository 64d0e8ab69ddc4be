/**
 * `codex_list_threads`: thread ids, names, statuses and update times; the
 * cwd and this relay's runs (`src/ops/listed_runs.ts`) at the turn-start
 * level only. No preview or message text at any level.
 * @module
 */

import { z } from "zod";
import { asRelayError } from "../../core/errors.ts";
import {
  listThreads,
  type ThreadList,
  threadListSchema,
  threadListWithRunsSchema,
} from "../../ops/list_threads.ts";
import type { ListedRun } from "../../ops/listed_runs.ts";
import { READ_ANNOTATIONS, type Tool } from "../tool.ts";
import { sentences } from "../text.ts";

const input = z.strictObject({
  limit: z.number().int().min(1).max(50).default(20).describe("Page size"),
  cursor: z.string().min(1).max(4096).optional().describe(
    "Last page's nextCursor",
  ),
});

/** The `codex_list_threads` tool. */
export const listThreadsTool: Tool<typeof input, typeof threadListWithRunsSchema> = {
  name: "codex_list_threads",
  title: "List threads",
  description: ({ caps }) =>
    caps.turnStart
      ? "Codex threads, newest first (id, name, status, cwd, updatedAt), and codex-relay's runs. No content."
      : "Local Codex threads, newest first: id, name, status, update time. No conversation content.",
  inputSchema: input,
  outputSchema: threadListWithRunsSchema,
  // The runs field exists at the turn-start level only.
  outputSchemaAt: (caps) => caps.turnStart ? threadListWithRunsSchema : threadListSchema,
  annotations: READ_ANNOTATIONS,
  enabled: () => true,
  async run({ limit, cursor }, ctx): Promise<ThreadList> {
    const { caps, turns, connection } = ctx;
    const running = caps.turnStart ? turns.runningThreads() : undefined;
    const options = {
      limit,
      cursor,
      withCwd: caps.turnStart,
      running,
      // Where the daemon keeps turns of earlier relay processes and their turns can be read.
      earlier: running && caps.replyRead && connection.capabilities.shared
        ? { running, queuedHere: (t: string, m: string) => ctx.starts.queuedHere.has(t, m) }
        : undefined,
    };
    let out: ThreadList;
    try {
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
      };
    }
    // The look is taken after the list, so a run that ended meanwhile is shown ended.
    if (!caps.turnStart) return out;
    const scanned = out.runs ?? [];
    // A lost run the scan found running again is listed as the scan saw it.
    const mine = turns.look().filter((r) =>
      r.state !== "lost" ||
      !scanned.some((x) => x.threadId === r.threadId && x.clientMessageId === r.clientMessageId)
    );
    return { ...out, runs: [...mine, ...scanned] };
  },
  render(out) {
    const runs = out.runs === undefined ? "" : ` ${renderRuns(out.runs)}`;
    if (out.status !== "ok") {
      return `${sentences(`Could not list Codex threads (${out.reason}): ${out.message}`)}${runs}`;
    }
    if (out.threads.length === 0) return `There are no Codex threads.${runs}`;
    const lines = out.threads.map((t) =>
      `${t.id}${t.name ? ` "${t.name}"` : ""}: ${t.status}, updated ${t.updatedAt}${
        t.cwd ? `, in ${t.cwd}` : ""
      }`
    );
    const more = out.nextCursor ? " More threads follow: pass nextCursor as cursor." : "";
    return `${out.threads.length} Codex thread(s), newest first: ${
      lines.join("; ")
    }.${more}${runs}`;
  },
};

function renderRuns(runs: readonly ListedRun[]): string {
  if (runs.length === 0) return "codex-relay runs no turn.";
  const lines = runs.map((r) =>
    `${r.clientMessageId} on ${r.threadId}: ${r.state}${
      r.approvals ? ` (${r.approvals} to answer)` : ""
    }${r.lostAt ? ` since ${r.lostAt} (the connection was lost; the turn may run on)` : ""}${
      r.earlier ? " (an earlier codex-relay's)" : ""
    }`
  );
  return `Runs (follow with codex_wait_reply; ended ones are shown once): ${lines.join("; ")}.`;
}
