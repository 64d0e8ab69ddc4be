/**
 * Issue 32, point 3: some clients (Claude Code) give their model only a
 * result's structured content, so every result of every tool, at every
 * status, carries `next` (what to do next), short, and the text content ends
 * with the same words.
 */

import assert from "assert";
import type { z } from "zod";
import { REASON_CODES } from "../../src/core/errors.ts";
import { NEXT_MAX_CHARS, REASON_NEXT, textOf } from "../../src/host/next_steps.ts";
import { spawnSurface, type Surface } from "../../src/host/surface.ts";
import { toolNames, TOOLS } from "../../src/host/tools/all_tools.ts";
import { capabilitiesOf } from "../../src/core/capabilities.ts";
import { instructionsFor } from "../../src/host/instructions.ts";
import { PROMPTS } from "../../src/host/prompts.ts";
import type { Tool } from "../../src/host/tool.ts";
import {
  INTERRUPT_STATUSES,
  READ_REPLY_STATUSES,
  runOutput,
  STEER_STATUSES,
  WITHDRAW_STATUSES,
} from "../../src/reply/schemas.ts";

/** The turn statuses a run's result may carry, as its schema declares them. */
const RUN_STATUSES = runOutput.shape.turn.unwrap().shape.status.options;

const THREAD = "019df1a2-0000-7000-8000-000000000001";
const CID = "relay-1";
const ids = { threadId: THREAD, clientMessageId: CID };
const receipt = { ...ids, status: "queued" as const, confirmedBy: "acknowledgement" as const };
const turn = (status: string) => ({ id: "t1", status });
const read = (status: string, extra: Record<string, unknown> = {}) => ({
  status,
  ...ids,
  turn: null,
  replies: [],
  nextCursor: null,
  searchCursor: null,
  ...extra,
});

/** Outputs of each tool covering every status it can return (checked against its schema below). */
const SAMPLES: Record<string, Record<string, unknown>[]> = {
  codex_list_threads: [
    {
      status: "ok",
      threads: [{
        id: THREAD,
        name: null,
        status: "idle",
        updatedAt: "2026-01-01T00:00:00Z",
        folder: "api",
      }],
      nextCursor: "c",
      sources: ["cli"],
    },
    { status: "ok", threads: [], nextCursor: null, runs: [], sources: ["cli"] },
    {
      status: "unavailable",
      reason: "busy",
      message: "All busy",
      threads: [],
      nextCursor: null,
      sources: ["cli"],
    },
  ],
  codex_queue_message: [
    receipt,
    { ...receipt, confirmedBy: "queue_list" },
    { ...ids, status: "not_sent", reason: "thread_not_found", message: "No thread" },
    { ...ids, status: "unknown", reason: "timeout", message: "No answer" },
  ],
  codex_read_reply: [
    read("observed", {
      turn: turn("completed"),
      replies: [{ itemId: "a", text: "x", truncated: false }],
    }),
    read("observed", {
      association: "same_turn_not_exclusive",
      turn: turn("running"),
      replies: [{ itemId: "a", text: "x", truncated: false }],
    }),
    read("observed", { turn: turn("running") }),
    read("observed", { turn: turn("failed") }),
    read("no_match", { searchCursor: "s" }),
    read("no_match"),
    read("queued", { turnRunning: false }),
    read("queued", { turnRunning: true }),
    read("not_found"),
    read("ambiguous"),
    read("unavailable", { reason: "legacy_history" }),
  ],
  codex_wait_reply: [
    { ...read("observed", { turn: turn("running") }), timedOut: true },
    { ...read("no_match"), timedOut: true },
    { ...read("queued", { turnRunning: true }), timedOut: true },
    { ...read("queued", { turnRunning: false }), timedOut: false },
    { ...read("not_found"), timedOut: false },
    {
      ...read("observed", { turn: turn("running") }),
      timedOut: false,
      pendingRequests: [{ method: "item/commandExecution/requestApproval", summary: "run ls" }],
    },
    { ...read("unavailable", { reason: "busy" }), timedOut: false },
    { ...read("ambiguous"), timedOut: false },
    {
      until: "any",
      done: 1,
      messages: [
        { ...read("observed", { turn: turn("completed") }), timedOut: false },
        { ...read("no_match"), timedOut: true },
      ],
    },
  ],
  codex_run: [
    {
      receipt: { ...ids, status: "not_sent", reason: "cwd_not_found" },
      threadId: THREAD,
      turn: null,
      reason: "cwd_not_found",
      message: "/x does not exist",
    },
    { receipt, threadId: THREAD, turn: turn("running") },
    { receipt, threadId: THREAD, turn: turn("completed"), replies: [] },
    { receipt, threadId: THREAD, turn: turn("failed"), failureClass: "capacity", retryable: true },
    { receipt, threadId: THREAD, turn: turn("interrupted") },
    {
      receipt,
      threadId: THREAD,
      turn: turn("completed"),
      replies: [],
      structured: { valid: true, value: { ok: 1 } },
    },
    {
      receipt,
      threadId: THREAD,
      turn: turn("completed"),
      replies: [],
      structured: { valid: false, error: "the turn has no final answer" },
    },
  ],
  codex_review: [
    {
      receipt: { ...ids, status: "not_sent", reason: "turn_running" },
      threadId: THREAD,
      turn: null,
      reason: "turn_running",
      message: "A turn runs on this thread",
    },
    { receipt, threadId: THREAD, turn: turn("running") },
    {
      receipt,
      threadId: THREAD,
      turn: turn("completed"),
      replies: [],
      review: {
        text: "Looks fine.",
        findings: [{
          priority: 1,
          title: "Off by one",
          file: "/w/a.ts",
          lineStart: 1,
          lineEnd: 2,
          body: "b",
        }],
        truncated: false,
      },
    },
    { receipt, threadId: THREAD, turn: turn("failed"), failureClass: "capacity", retryable: true },
    { receipt, threadId: THREAD, turn: turn("interrupted") },
  ],
  codex_steer: STEER_STATUSES.map((status) => ({
    status,
    threadId: THREAD,
    ...(status === "steered" ? { clientMessageId: CID, turnId: "t1" } : { message: "Not now" }),
    ...(status === "unavailable" || status === "unknown" ? { reason: "timeout" } : {}),
  })),
  codex_interrupt: INTERRUPT_STATUSES.map((status) => ({
    status,
    threadId: THREAD,
    turn: status === "ended" ? turn("completed") : null,
    ...(status === "unavailable" || status === "unknown"
      ? { reason: "timeout", message: "No answer" }
      : {}),
  })),
  codex_withdraw_message: WITHDRAW_STATUSES.map((status) => ({
    status,
    ...ids,
    ...(status === "unavailable" || status === "unknown"
      ? { reason: "timeout", message: "No answer" }
      : { message: "Gone" }),
  })),
  codex_worktree: [
    { status: "listed", worktrees: [] },
    {
      status: "listed",
      worktrees: [{
        name: "a",
        repository: "/repo",
        path: "/w/a",
        branch: "codex/a",
        base: "abc",
        active: true,
        uncommittedChanges: true,
      }],
    },
    {
      status: "removed",
      removed: { name: "a", path: "/w/a", branch: "codex/a", branchDeleted: false },
    },
    { status: "refused", reason: "worktree_dirty", message: "/w/a has uncommitted changes" },
  ],
  codex_usage: [
    {
      status: "available",
      primary: { usedPercent: 42, windowMinutes: 300, resetsAt: "2026-12-03T18:00:00.000Z" },
      secondary: null,
      planType: "plus",
      thread: { threadId: "t", status: "available", estimatedUsd: 0.5, estimatedCredits: null },
    },
    {
      status: "unavailable",
      reason: "account_required",
      message: "ChatGPT login only",
      thread: { threadId: "t", status: "unavailable", reason: "account_required", message: "x" },
    },
  ],
  codex_fork: [
    { status: "forked", threadId: "a", newThreadId: "b", cwd: "/w", name: "n", notes: ["x"] },
    { status: "not_forked", reason: "turn_running", message: "A turn runs", threadId: "a" },
  ],
  codex_compact: RUN_STATUSES.map((status) => ({
    receipt: { status: "queued", clientMessageId: "c", threadId: "t" },
    threadId: "t",
    turn: { id: "u", status },
  })),
};

/** Every status each tool's schema declares (a new status without a sample fails the test). */
const STATUSES: Record<string, readonly string[]> = {
  codex_list_threads: ["ok", "unavailable"],
  codex_queue_message: ["queued", "not_sent", "unknown"],
  codex_read_reply: READ_REPLY_STATUSES,
  codex_wait_reply: READ_REPLY_STATUSES,
  codex_run: RUN_STATUSES,
  codex_review: RUN_STATUSES,
  codex_steer: STEER_STATUSES,
  codex_interrupt: INTERRUPT_STATUSES,
  codex_withdraw_message: WITHDRAW_STATUSES,
  codex_worktree: ["listed", "removed", "refused"],
  codex_usage: ["available", "unavailable"],
  codex_fork: ["forked", "not_forked"],
  codex_compact: RUN_STATUSES,
};

function statusOf(name: string, out: Record<string, unknown>): string | undefined {
  if (name === "codex_run" || name === "codex_review" || name === "codex_compact") {
    return (out.turn as { status?: string } | null)?.status;
  }
  return out.status as string | undefined;
}

const SURFACES: Surface[] = [
  spawnSurface({ replyRead: false, turnStart: false }),
  spawnSurface({ replyRead: true, turnStart: true }),
];

Deno.test("every tool's result carries a short next step at every status, and the text ends with it", () => {
  for (const tool of TOOLS as readonly Tool<z.ZodType, z.ZodType>[]) {
    const samples = SAMPLES[tool.name];
    assert.ok(samples, `${tool.name}: samples`);
    const seen = new Set(samples.map((s) => statusOf(tool.name, s)).filter(Boolean));
    for (const status of STATUSES[tool.name]) {
      assert.ok(seen.has(status), `${tool.name}: a sample with status ${status}`);
    }
    for (const sample of samples) {
      const out = tool.outputSchema.parse(sample);
      for (const surface of SURFACES) {
        const e = tool.explain(out, surface);
        const label = `${tool.name} ${JSON.stringify(sample).slice(0, 80)}`;
        assert.ok(e.next.trim().length > 0, `${label}: next is empty`);
        assert.ok(e.next.length <= NEXT_MAX_CHARS, `${label}: next is ${e.next.length} chars`);
        assert.match(e.next, /[.!?]$/, `${label}: next is sentences: ${e.next}`);
        assert.ok(textOf(e).endsWith(e.next), `${label}: the text ends with next`);
      }
    }
  }
});

Deno.test("every reason code has its next step", () => {
  assert.deepEqual(Object.keys(REASON_NEXT).sort(), [...REASON_CODES].sort());
  for (const [reason, next] of Object.entries(REASON_NEXT)) {
    assert.match(next, /[.!?]$/, reason);
  }
});

/** The tools a text names (of every tool: reason codes such as codex_missing are not tools). */
const namedTools = (text: string) =>
  new Set((text.match(/\bcodex_[a-z_]+/g) ?? []).filter((n) => TOOLS.some((t) => t.name === n)));

Deno.test("at every level no tool description, instruction, prompt or result names a tool that level does not register (issue 38)", () => {
  for (const allowReplyRead of [false, true]) {
    for (const allowTurnStart of [false, true]) {
      const caps = capabilitiesOf({ allowReplyRead, allowTurnStart });
      const registered = new Set(toolNames(caps));
      for (const backend of [{ shared: false }, { shared: true }]) {
        const surface: Surface = { caps, backend };
        const texts: [string, string][] = [["instructions", instructionsFor(surface)]];
        for (const tool of TOOLS as readonly Tool<z.ZodType, z.ZodType>[]) {
          if (!registered.has(tool.name)) continue;
          const description = typeof tool.description === "string"
            ? tool.description
            : tool.description(surface);
          texts.push([`${tool.name}'s description`, description]);
          for (const sample of SAMPLES[tool.name]) {
            const e = tool.explain(tool.outputSchema.parse(sample), surface);
            texts.push([`${tool.name}'s result ${JSON.stringify(sample).slice(0, 60)}`, textOf(e)]);
          }
        }
        for (const prompt of PROMPTS.filter((p) => p.enabled(caps))) {
          const text = prompt.text({ cwd: "/w", task: "t", target: "base", detail: "main" });
          texts.push([`prompt ${prompt.name}`, `${prompt.description} ${text}`]);
        }
        for (const [reason, next] of Object.entries(REASON_NEXT)) texts.push([reason, next]);
        const level = JSON.stringify(caps);
        for (const [where, text] of texts) {
          for (const name of namedTools(text)) {
            assert.ok(registered.has(name), `${level}: ${where} names ${name}, not registered`);
          }
        }
      }
    }
  }
});

Deno.test("no_match and association are explained where the agent meets them: the descriptions, and next of no_match (issue 38)", () => {
  const surface = spawnSurface(capabilitiesOf({ allowReplyRead: true, allowTurnStart: false }));
  const read = TOOLS.find((t) => t.name === "codex_read_reply")!;
  const description = typeof read.description === "string"
    ? read.description
    : read.description(surface);
  assert.match(description, /\(association: its later input's too\)/);
  assert.match(description, /no_match: not queued nor in the newest 100 items/);
  let checked = 0;
  for (const name of ["codex_read_reply", "codex_wait_reply"]) {
    const tool = TOOLS.find((t) => t.name === name) as Tool<z.ZodType, z.ZodType>;
    for (const sample of SAMPLES[name]) {
      const out = tool.outputSchema.parse(sample) as { status?: string };
      if (out.status !== "no_match") continue;
      checked++;
      assert.match(
        tool.explain(out, surface).next,
        /^no_match: no user message with your clientMessageId is in the thread's queue or among the items searched/,
        `${name} ${JSON.stringify(sample).slice(0, 80)}`,
      );
    }
  }
  assert.ok(checked >= 3, `no_match results checked: ${checked}`);
});
