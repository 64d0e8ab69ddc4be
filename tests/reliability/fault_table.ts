/**
 * The fault matrix's expectation table: every fixture fault, how it is
 * provoked, and what each tool's caller sees. `fault_matrix_test.ts` runs it
 * and the README's "Faults" table is printed from it
 * (`deno run scripts/fault_table.ts`), so the two cannot drift: the test
 * asserts that the README holds exactly {@linkcode faultTableMarkdown}.
 * @module
 */

import type { Fault, FaultAction, Startup } from "../../fixtures/scenario.ts";

/** Every tool the matrix calls, in column order. */
export const MATRIX_TOOLS = [
  "codex_list_threads",
  "codex_queue_message",
  "codex_read_reply",
  "codex_wait_reply",
] as const;

/** A tool of the matrix. */
export type MatrixTool = (typeof MATRIX_TOOLS)[number];

/** What the caller sees: the result's `status`, `reason`, and for receipts `confirmedBy`. */
export interface Seen {
  status: string;
  reason?: string;
  confirmedBy?: "acknowledgement" | "queue_list";
}

/** How a fault is provoked. */
export type Provoke =
  /** The first app-server request of the call (after `initialize`) gets this action, once. */
  | { kind: "request"; action: FaultAction }
  /** Every fixture process behaves so from its start. */
  | { kind: "startup"; startup: Startup }
  /** `codex` on PATH is a file that is not a program. */
  | { kind: "not_a_program" }
  /** No `codex` on PATH when the relay starts. */
  | { kind: "missing" };

/** One row of the matrix. */
export interface FaultCase {
  /** Stable id (test names). */
  id: string;
  /** The fault, for the README. */
  fault: string;
  provoke: Provoke;
  /** What each tool's caller sees. */
  seen: Record<MatrixTool, Seen>;
  /** A note for the README (e.g. where a timeout is tested). */
  note?: string;
}

const ok = (queue: Seen = { status: "queued", confirmedBy: "acknowledgement" }) => ({
  codex_list_threads: { status: "ok" },
  codex_queue_message: queue,
  codex_read_reply: { status: "observed" },
  codex_wait_reply: { status: "observed" },
});

/** Every tool sees `reason`; the receipt says `queue` (default: `not_sent`, nothing stored). */
const failing = (reason: string, queue: Seen = { status: "not_sent", reason }) => ({
  codex_list_threads: { status: "unavailable", reason },
  codex_queue_message: queue,
  codex_read_reply: { status: "unavailable", reason },
  codex_wait_reply: { status: "unavailable", reason },
});

/** The message was stored before the fault: the receipt is confirmed by `thread/queue/list`. */
const STORED_THEN_CONFIRMED: Seen = { status: "queued", confirmedBy: "queue_list" };

const MIB = 1024 * 1024;

/** The matrix. */
export const FAULT_CASES: readonly FaultCase[] = [
  {
    id: "not_a_program",
    fault: "`codex` on PATH is not a program (spawn failure)",
    provoke: { kind: "not_a_program" },
    seen: failing("spawn_failed"),
  },
  {
    id: "missing",
    fault: "no `codex` on PATH",
    provoke: { kind: "missing" },
    seen: failing("codex_missing"),
    note: "installed later: restart the relay",
  },
  {
    id: "exit_at_start",
    fault: "exits at start",
    provoke: { kind: "startup", startup: { exitAtStart: 3 } },
    seen: failing("spawn_failed"),
  },
  {
    id: "exit_on_initialize",
    fault: "exits before answering `initialize`",
    provoke: { kind: "startup", startup: { exitOnInitialize: 7 } },
    seen: failing("spawn_failed"),
  },
  {
    id: "exit_before_acting",
    fault: "exits after reading the request, before acting on it",
    provoke: { kind: "request", action: { exit: 0 } },
    seen: failing("protocol_error", { status: "unknown", reason: "protocol_error" }),
  },
  {
    id: "lost_answer",
    fault: "acts on the request, then exits without answering",
    provoke: { kind: "request", action: { loseAnswer: 0 } },
    seen: failing("protocol_error", STORED_THEN_CONFIRMED),
  },
  {
    id: "exit_mid_frame",
    fault: "exits in the middle of the answer frame",
    provoke: { kind: "request", action: { exitMidFrame: true } },
    seen: failing("protocol_error", STORED_THEN_CONFIRMED),
  },
  {
    id: "wrong_id",
    fault: "answers under another id",
    provoke: { kind: "request", action: { wrongId: true } },
    seen: failing("protocol_error", STORED_THEN_CONFIRMED),
  },
  {
    id: "garbage_line",
    fault: "writes a line that is not JSON before the answer",
    provoke: { kind: "request", action: { garbage: true } },
    seen: failing("protocol_error", STORED_THEN_CONFIRMED),
  },
  {
    id: "frame_at_limit",
    fault: "answer frame of exactly 1 MiB",
    provoke: { kind: "request", action: { frameBytes: MIB } },
    seen: ok(),
  },
  {
    id: "frame_over_limit",
    fault: "answer frame of 1 MiB + 1 byte",
    provoke: { kind: "request", action: { frameBytes: MIB + 1 } },
    seen: failing("output_limit", STORED_THEN_CONFIRMED),
  },
  {
    id: "stderr_flood",
    fault: "floods stderr (4 MiB before reading anything)",
    provoke: { kind: "startup", startup: { stderrFlood: 4 * MIB } },
    seen: ok(),
  },
  {
    id: "never_answers",
    fault: "never answers",
    provoke: { kind: "request", action: { never: true } },
    seen: failing("timeout", { status: "unknown", reason: "timeout" }),
    note: "12 s per RPC; a wait: its time + 4 s",
  },
  {
    id: "ignores_sigterm",
    fault: "ignores stdin EOF and SIGTERM",
    provoke: { kind: "startup", startup: { stubborn: true } },
    seen: ok(),
    note: "SIGKILL after 1.5 s",
  },
  {
    id: "rpc_32600",
    fault: "answers error -32600 (invalid request)",
    provoke: {
      kind: "request",
      action: { error: { code: -32600, message: "Invalid request: rejected by the fixture" } },
    },
    seen: failing("rpc_error"),
  },
  {
    id: "rpc_32601",
    fault: "answers error -32601 (method not found)",
    provoke: { kind: "request", action: { error: { code: -32601, message: "Method not found" } } },
    seen: failing("rpc_error"),
  },
  {
    id: "rpc_32603",
    fault: "answers error -32603 (internal error)",
    provoke: { kind: "request", action: { error: { code: -32603, message: "Internal error" } } },
    seen: failing("rpc_error"),
  },
  {
    id: "rpc_32001",
    fault: "answers error -32001 (overloaded)",
    provoke: {
      kind: "request",
      action: { error: { code: -32001, message: "Server overloaded; retry later" } },
    },
    seen: failing("busy"),
  },
];

/** The app-server methods a tool's first request may use; a request fault matches all of them. */
export const FAULTED_METHODS = [
  "thread/list",
  "thread/queue/add",
  "thread/queue/list",
  "thread/items/list",
  "thread/items/read",
  "thread/turns/list",
] as const;

/**
 * The fixture faults of a request fault: the first request of any method the
 * tools use claims the `once` token, so exactly one request (the call's
 * first after `initialize`) is faulted and everything after it is normal.
 */
export function requestFaults(action: FaultAction, token: string, barrier?: string): Fault[] {
  return FAULTED_METHODS.map((method) => ({ method, once: token, action, barrier }));
}

function cell(seen: Seen): string {
  const parts = [`\`${seen.status}\``];
  if (seen.reason) parts.push(`\`${seen.reason}\``);
  const shown = parts.join(", ");
  return seen.confirmedBy === "queue_list" ? `${shown} (found by \`thread/queue/list\`)` : shown;
}

/** The README table: one row per fault, one column per tool. */
export function faultTableMarkdown(): string {
  const header = ["fault (fixture app-server)", ...MATRIX_TOOLS.map((t) => `\`${t}\``), "note"];
  const rows = FAULT_CASES.map((c) => [
    c.fault,
    ...MATRIX_TOOLS.map((t) => cell(c.seen[t])),
    c.note ?? "",
  ]);
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
}

/** The rows of the first markdown table in `text`, cells trimmed (formatting-insensitive). */
export function tableRows(text: string): string[][] {
  const rows: string[][] = [];
  for (const raw of text.split("\n")) {
    const l = raw.trim();
    if (!l.startsWith("|")) {
      if (rows.length > 0) break;
      continue;
    }
    const cells = l.slice(1, l.endsWith("|") ? -1 : undefined).split("|").map((c) => c.trim());
    rows.push(cells.every((c) => /^:?-+:?$/.test(c)) ? cells.map(() => "---") : cells);
  }
  return rows;
}

/** Marks the generated table in the README. */
export const README_MARKERS = {
  start: "<!-- fault-table:start (deno run scripts/fault_table.ts) -->",
  end: "<!-- fault-table:end -->",
} as const;
