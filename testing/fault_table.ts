/**
 * The fault matrix's expectation table: every fixture fault, how it is
 * provoked, and what each tool's caller sees, at the queue and reply-read
 * levels and at the turn-start level (`codex_run` with the fault at each step
 * of starting a turn, `codex_interrupt` with it at `turn/interrupt`), and for
 * Codex's own jobs (`codex_review` with the fault at each of its steps,
 * `codex_steer` with it at `turn/steer`), and in daemon mode
 * (`fault_table_daemon.ts`: review, steer, structured run).
 * `fault_matrix_test.ts` runs it and the "Faults" tables of
 * `docs/reliability.md` ({@linkcode FAULT_DOC}) are printed from it
 * (`deno run scripts/fault_table.ts`), so the two cannot drift: the test
 * asserts that the document holds exactly {@linkcode faultTableMarkdown}.
 * @module
 */

import type { Fault, FaultAction, Startup } from "../fixtures/scenario.ts";
import { DAEMON_TABLE_CAPTION, daemonTableMarkdown } from "./fault_table_daemon.ts";
import { markdownTable } from "./markdown.ts";

/** Every tool the matrix calls, in column order. */
export const MATRIX_TOOLS = [
  "codex_list_threads",
  "codex_queue_message",
  "codex_withdraw_message",
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

/** The steps of `codex_run` (thread by id) a request fault is put on, in the order it takes them. */
export const RUN_SITES = [
  "config/read",
  "thread/resume",
  "thread/queue/add",
  "thread/queue/start",
] as const;

/** A step of `codex_run`. */
export type RunSite = (typeof RUN_SITES)[number];

/** What a `codex_run` caller sees. */
export interface RunSeen {
  /** The receipt of the message. */
  receipt: Seen;
  /** The turn's status, or null when it did not start. */
  turn: "completed" | "failed" | "interrupted" | null;
  /** Why the turn did not start (the result's `reason`). */
  reason?: string;
  /** The failed turn's class. */
  failureClass?: string;
}

/** The steps of `codex_review` (inline, on an idle thread by id) a request fault is put on, in order. */
export const REVIEW_SITES = ["config/read", "thread/resume", "review/start"] as const;

/** A step of `codex_review`. */
export type ReviewSite = (typeof REVIEW_SITES)[number];

/** What a `codex_steer` caller sees (the fault is put on `turn/steer` of a running turn). */
export interface SteerSeen {
  status: "steered" | "unknown" | "unavailable" | "not_running";
  reason?: string;
}

/** What a `codex_interrupt` caller sees (the fault is put on `turn/interrupt` of a running turn). */
export interface InterruptSeen {
  status: "interrupted" | "ended" | "not_running";
  /** The turn's status when it ended otherwise than by the interrupt. */
  turn?: "completed" | "failed";
  failureClass?: string;
}

/** The turn-start level's columns of a row. */
export interface TurnStartSeen {
  codex_run: Record<RunSite, RunSeen>;
  codex_interrupt: InterruptSeen;
  /** `codex_review` (the result is `codex_run`'s). */
  codex_review: Record<ReviewSite, RunSeen>;
  codex_steer: SteerSeen;
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
  /** What the turn-start tools' callers see. */
  turnStart: TurnStartSeen;
  /** A note for the README (e.g. where a timeout is tested). */
  note?: string;
  /** A note for the README's turn-start table. */
  turnNote?: string;
}

const ok = (queue: Seen = { status: "queued", confirmedBy: "acknowledgement" }) => ({
  codex_list_threads: { status: "ok" },
  codex_queue_message: queue,
  // The matrix withdraws the message its reads look for: a turn took it long ago.
  codex_withdraw_message: { status: "already_taken" },
  codex_read_reply: { status: "observed" },
  codex_wait_reply: { status: "observed" },
});

/** Every tool sees `reason`; the receipt says `queue` (default: `not_sent`, nothing stored). */
const failing = (reason: string, queue: Seen = { status: "not_sent", reason }) => ({
  codex_list_threads: { status: "unavailable", reason },
  codex_queue_message: queue,
  // Its first request is thread/queue/list: nothing was deleted.
  codex_withdraw_message: { status: "unavailable", reason },
  codex_read_reply: { status: "unavailable", reason },
  codex_wait_reply: { status: "unavailable", reason },
});

/** The message was stored before the fault: the receipt is confirmed by `thread/queue/list`. */
const STORED_THEN_CONFIRMED: Seen = { status: "queued", confirmedBy: "queue_list" };

const QUEUED: Seen = { status: "queued", confirmedBy: "acknowledgement" };
/** Nothing was queued: the receipt says why, and no turn started. */
const runNotSent = (reason: string): RunSeen => ({
  receipt: { status: "not_sent", reason },
  turn: null,
  reason,
});
/** The message is queued (or may be), but the turn did not start, for `reason`. */
const runNotStarted = (reason: string, receipt: Seen = QUEUED): RunSeen => ({
  receipt,
  turn: null,
  reason,
});
/** The turn ran and ended so. */
const runEnded = (turn: "completed" | "failed", failureClass?: string): RunSeen => ({
  receipt: QUEUED,
  turn,
  ...(failureClass ? { failureClass } : {}),
});
/** The helper died or broke while the turn ran: the turn failed as `internal`. */
const DIED_MID_TURN = runEnded("failed", "internal");

/** A review with `started` when the fault hits `review/start`, and nothing sent when it hits a step before. */
const review = (reason: string, started: RunSeen): Record<ReviewSite, RunSeen> => ({
  "config/read": runNotSent(reason),
  "thread/resume": runNotSent(reason),
  "review/start": started,
});

/** No helper can start: nothing is queued, and no turn runs that could be interrupted or steered. */
const turnCannotStart = (reason: string): TurnStartSeen => ({
  codex_run: {
    "config/read": runNotSent(reason),
    "thread/resume": runNotSent(reason),
    "thread/queue/add": runNotSent(reason),
    "thread/queue/start": runNotSent(reason),
  },
  codex_interrupt: { status: "not_running" },
  codex_review: review(reason, runNotSent(reason)),
  codex_steer: { status: "not_running" },
});
const TURN_OK: TurnStartSeen = {
  codex_run: {
    "config/read": runEnded("completed"),
    "thread/resume": runEnded("completed"),
    "thread/queue/add": runEnded("completed"),
    "thread/queue/start": runEnded("completed"),
  },
  codex_interrupt: { status: "interrupted" },
  codex_review: {
    "config/read": runEnded("completed"),
    "thread/resume": runEnded("completed"),
    "review/start": runEnded("completed"),
  },
  codex_steer: { status: "steered" },
};
/**
 * The connection breaks after the app-server acted on the request: the config
 * cannot be trusted (nothing queued); a resumed thread is not followed (nothing
 * queued); a message stored in the loaded thread was started at once, so
 * `thread/queue/list` on a fresh helper cannot find it (`unknown`); a running
 * turn fails; an interrupt already took effect. A review that Codex started
 * dies with its helper, unconfirmed (`unknown`); so may a steer's input.
 */
const turnBrokenAfterActing = (reason: string): TurnStartSeen => ({
  codex_run: {
    "config/read": runNotSent(reason),
    "thread/resume": runNotSent(reason),
    "thread/queue/add": runNotStarted(reason, { status: "unknown", reason }),
    "thread/queue/start": DIED_MID_TURN,
  },
  codex_interrupt: { status: "interrupted" },
  codex_review: review(reason, runNotStarted(reason, { status: "unknown", reason })),
  codex_steer: { status: "unknown", reason },
});
/**
 * An answer over the frame bound, skipped unread: its request fails as when the connection
 * broke after acting, but the connection goes on, so a turn the queue started runs to its end.
 */
const turnAnswerCut = (reason: string): TurnStartSeen => {
  const broken = turnBrokenAfterActing(reason);
  return {
    ...broken,
    codex_run: { ...broken.codex_run, "thread/queue/start": runEnded("completed") },
  };
};
/**
 * An error answer: the config read fails closed, the thread is not loaded
 * (nothing is queued), the queue refuses the message; Codex starts a message
 * queued to a loaded thread itself, so a refused `thread/queue/start` changes
 * nothing; a refused interrupt is enforced by releasing the turn (the turn
 * host, whose only turn it is here, is reaped with it). A refused review
 * starts nothing; a refused steer leaves the turn as it was (`unavailable`).
 */
const turnRefused = (reason: string): TurnStartSeen => ({
  codex_run: {
    "config/read": runNotSent(reason),
    "thread/resume": runNotSent(reason),
    "thread/queue/add": runNotSent(reason),
    "thread/queue/start": runEnded("completed"),
  },
  codex_interrupt: { status: "interrupted" },
  codex_review: review(reason, runNotSent(reason)),
  codex_steer: { status: "unavailable", reason },
});

const MIB = 1024 * 1024;

/** The matrix. */
export const FAULT_CASES: readonly FaultCase[] = [
  {
    id: "not_a_program",
    fault: "`codex` is not a program",
    provoke: { kind: "not_a_program" },
    seen: failing("spawn_failed"),
    turnStart: turnCannotStart("spawn_failed"),
  },
  {
    id: "missing",
    fault: "no `codex` on PATH",
    provoke: { kind: "missing" },
    seen: failing("codex_missing"),
    note: "installed later: restart the relay",
    turnNote: "installed later: restart the relay",
    turnStart: turnCannotStart("codex_missing"),
  },
  {
    id: "exit_at_start",
    fault: "exits at start",
    provoke: { kind: "startup", startup: { exitAtStart: 3 } },
    seen: failing("spawn_failed"),
    turnStart: turnCannotStart("spawn_failed"),
  },
  {
    id: "exit_on_initialize",
    fault: "exits before answering `initialize`",
    provoke: { kind: "startup", startup: { exitOnInitialize: 7 } },
    seen: failing("spawn_failed"),
    turnStart: turnCannotStart("spawn_failed"),
  },
  {
    id: "exit_before_acting",
    fault: "exits after reading the request",
    provoke: { kind: "request", action: { exit: 0 } },
    seen: failing("protocol_error", { status: "unknown", reason: "protocol_error" }),
    turnStart: {
      codex_run: {
        "config/read": runNotSent("protocol_error"),
        "thread/resume": runNotSent("protocol_error"),
        "thread/queue/add": runNotStarted("protocol_error", {
          status: "unknown",
          reason: "protocol_error",
        }),
        "thread/queue/start": DIED_MID_TURN,
      },
      codex_interrupt: { status: "ended", turn: "failed", failureClass: "internal" },
      codex_review: review(
        "protocol_error",
        runNotStarted("protocol_error", { status: "unknown", reason: "protocol_error" }),
      ),
      codex_steer: { status: "unknown", reason: "protocol_error" },
    },
  },
  {
    id: "lost_answer",
    fault: "acts, then exits without answering",
    provoke: { kind: "request", action: { loseAnswer: 0 } },
    seen: failing("protocol_error", STORED_THEN_CONFIRMED),
    turnStart: turnBrokenAfterActing("protocol_error"),
  },
  {
    id: "exit_mid_frame",
    fault: "exits in the middle of the answer",
    provoke: { kind: "request", action: { exitMidFrame: true } },
    seen: failing("protocol_error", STORED_THEN_CONFIRMED),
    turnStart: turnBrokenAfterActing("protocol_error"),
  },
  {
    id: "wrong_id",
    fault: "answers under another id",
    provoke: { kind: "request", action: { wrongId: true } },
    seen: failing("protocol_error", STORED_THEN_CONFIRMED),
    turnStart: turnBrokenAfterActing("protocol_error"),
  },
  {
    id: "garbage_line",
    fault: "a non-JSON line before the answer",
    provoke: { kind: "request", action: { garbage: true } },
    seen: failing("protocol_error", STORED_THEN_CONFIRMED),
    turnStart: turnBrokenAfterActing("protocol_error"),
  },
  {
    id: "frame_at_limit",
    fault: "answer frame of exactly 1 MiB",
    provoke: { kind: "request", action: { frameBytes: MIB } },
    seen: ok(),
    turnStart: TURN_OK,
  },
  {
    id: "frame_over_limit",
    fault: "answer frame of 1 MiB + 1 byte",
    provoke: { kind: "request", action: { frameBytes: MIB + 1 } },
    seen: failing("output_limit", STORED_THEN_CONFIRMED),
    turnStart: turnAnswerCut("output_limit"),
  },
  {
    id: "stderr_flood",
    fault: "floods stderr (4 MiB first)",
    provoke: { kind: "startup", startup: { stderrFlood: 4 * MIB } },
    seen: ok(),
    turnStart: TURN_OK,
  },
  {
    id: "never_answers",
    fault: "never answers",
    provoke: { kind: "request", action: { never: true } },
    seen: failing("timeout", { status: "unknown", reason: "timeout" }),
    note: "12 s per RPC; a wait: its time + 4 s",
    turnNote: "RPC 12 s, start 20 s, `turn/interrupt` 10 s",
    turnStart: {
      codex_run: {
        "config/read": runNotSent("timeout"),
        "thread/resume": runNotSent("timeout"),
        "thread/queue/add": runNotStarted("timeout", { status: "unknown", reason: "timeout" }),
        "thread/queue/start": runEnded("completed"),
      },
      codex_interrupt: { status: "interrupted" },
      codex_review: review(
        "timeout",
        runNotStarted("timeout", { status: "unknown", reason: "timeout" }),
      ),
      codex_steer: { status: "unknown", reason: "timeout" },
    },
  },
  {
    id: "ignores_sigterm",
    fault: "ignores stdin EOF and SIGTERM",
    provoke: { kind: "startup", startup: { stubborn: true } },
    seen: ok(),
    note: "SIGKILL after 1.5 s",
    turnNote: "SIGKILL after 1.5 s",
    turnStart: TURN_OK,
  },
  {
    id: "orphaning_grandchild",
    fault: "a grandchild holds stdout/stderr",
    provoke: { kind: "startup", startup: { stubborn: true, orphan: true } },
    seen: ok(),
    note: "the process group is SIGKILLed",
    turnNote: "the process group is SIGKILLed",
    turnStart: TURN_OK,
  },
  {
    id: "rpc_32600",
    fault: "error -32600 (invalid request)",
    provoke: {
      kind: "request",
      action: { error: { code: -32600, message: "Invalid request: rejected by the fixture" } },
    },
    seen: failing("rpc_error"),
    turnStart: turnRefused("rpc_error"),
  },
  {
    id: "rpc_32601",
    fault: "error -32601 (method not found)",
    provoke: { kind: "request", action: { error: { code: -32601, message: "Method not found" } } },
    seen: failing("rpc_error"),
    turnStart: turnRefused("rpc_error"),
  },
  {
    id: "rpc_32603",
    fault: "error -32603 (internal error)",
    provoke: { kind: "request", action: { error: { code: -32603, message: "Internal error" } } },
    seen: failing("rpc_error"),
    turnStart: turnRefused("rpc_error"),
  },
  {
    id: "rpc_32001",
    fault: "error -32001 (overloaded)",
    provoke: {
      kind: "request",
      action: { error: { code: -32001, message: "Server overloaded; retry later" } },
    },
    seen: failing("busy"),
    turnStart: turnRefused("busy"),
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

function runCell(r: RunSeen): string {
  const receipt = cell(r.receipt);
  if (r.turn === null) {
    return r.reason === r.receipt.reason ? receipt : `${receipt}; not started: \`${r.reason}\``;
  }
  return `${receipt}; turn \`${r.turn}\`${r.failureClass ? `, \`${r.failureClass}\`` : ""}`;
}

function steerCell(s: SteerSeen): string {
  return s.reason ? `\`${s.status}\`, \`${s.reason}\`` : `\`${s.status}\``;
}

function interruptCell(i: InterruptSeen): string {
  if (!i.turn) return `\`${i.status}\``;
  return `\`${i.status}\`; turn \`${i.turn}\`${i.failureClass ? `, \`${i.failureClass}\`` : ""}`;
}

/** The caption between the README's two tables. */
export const TURN_TABLE_CAPTION =
  'At the turn-start level (`--allow-turn-start --allow-reply-read`), a request fault is put on one step of `codex_run` (thread by id), or on `turn/interrupt` while the turn runs; after each, the same thread runs a turn to its end and is released. A `codex_run` cell is the receipt, then the turn or why it did not start. "Never answers" runs through an in-process connection on a manual clock.';

/** The caption before the table of Codex's own jobs. */
export const JOBS_TABLE_CAPTION =
  "Codex's own jobs, at the same level: the fault is put on one step of `codex_review` (inline, on an idle thread by id), or on `turn/steer` while a turn of the relay runs; after each, the same thread runs a turn to its end and is released. A `codex_review` cell reads as a `codex_run` cell.";

/**
 * The README tables: one row per fault, one column per tool; then the
 * turn-start table, one column per step of `codex_run` and one for
 * `codex_interrupt`; then the jobs' table, one column per step of
 * `codex_review` and one for `codex_steer`; then the jobs in daemon mode.
 */
export function faultTableMarkdown(): string {
  const first = markdownTable(
    ["fault (fixture app-server)", ...MATRIX_TOOLS.map((t) => `\`${t}\``), "note"],
    FAULT_CASES.map((c) => [c.fault, ...MATRIX_TOOLS.map((t) => cell(c.seen[t])), c.note ?? ""]),
  );
  const second = markdownTable(
    [
      "fault (fixture app-server)",
      ...RUN_SITES.map((m) => `\`codex_run\` at \`${m}\``),
      "`codex_interrupt` at `turn/interrupt`",
      "note",
    ],
    FAULT_CASES.map((c) => [
      c.fault,
      ...RUN_SITES.map((m) => runCell(c.turnStart.codex_run[m])),
      interruptCell(c.turnStart.codex_interrupt),
      c.turnNote ?? "",
    ]),
  );
  const third = markdownTable(
    [
      "fault (fixture app-server)",
      ...REVIEW_SITES.map((m) => `\`codex_review\` at \`${m}\``),
      "`codex_steer` at `turn/steer`",
    ],
    FAULT_CASES.map((c) => [
      c.fault,
      ...REVIEW_SITES.map((m) => runCell(c.turnStart.codex_review[m])),
      steerCell(c.turnStart.codex_steer),
    ]),
  );
  return [
    first,
    "",
    wrap(TURN_TABLE_CAPTION, 100),
    "",
    second,
    "",
    wrap(JOBS_TABLE_CAPTION, 100),
    "",
    third,
    "",
    wrap(DAEMON_TABLE_CAPTION, 100),
    "",
    daemonTableMarkdown(markdownTable),
  ].join("\n");
}

/** Greedy word wrap at `width` columns, as `deno fmt` wraps markdown prose. */
function wrap(text: string, width: number): string {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line].join("\n");
}

/**
 * The rows of every markdown table in `text`, cells trimmed
 * (formatting-insensitive), one array per table.
 */
export function tablesOf(text: string): string[][][] {
  const tables: string[][][] = [];
  let rows: string[][] = [];
  for (const raw of text.split("\n")) {
    const l = raw.trim();
    if (!l.startsWith("|")) {
      if (rows.length > 0) tables.push(rows);
      rows = [];
      continue;
    }
    const cells = l.slice(1, l.endsWith("|") ? -1 : undefined).split("|").map((c) => c.trim());
    rows.push(cells.every((c) => /^:?-+:?$/.test(c)) ? cells.map(() => "---") : cells);
  }
  if (rows.length > 0) tables.push(rows);
  return tables;
}

/** The rows of the first markdown table in `text` (see {@linkcode tablesOf}). */
export function tableRows(text: string): string[][] {
  return tablesOf(text)[0] ?? [];
}

/** The document holding the fault tables (the README links to it). */
export const FAULT_DOC = "docs/reliability.md";

/** Marks the generated table in {@linkcode FAULT_DOC}. */
export const README_MARKERS = {
  start: "<!-- fault-table:start (deno run scripts/fault_table.ts) -->",
  end: "<!-- fault-table:end -->",
} as const;
