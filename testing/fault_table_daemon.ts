/**
 * The fault matrix of Codex's own jobs in daemon mode (issue 39): a fault of
 * the daemon's app-server (an error answer, an answer frame over the limit) or
 * of the `codex app-server proxy` that carries the connection (the answer
 * lost, the frame cut, a close, a frame that is not JSON) on `review/start`
 * of `codex_review`, `turn/steer` of `codex_steer`, and `turn/start` of a
 * structured run (`codex_run` with `outputSchema`). What each caller sees;
 * `tests/reliability/fault_matrix_daemon_test.ts` runs it and the table in
 * `docs/reliability.md` is printed from it ({@linkcode daemonTableMarkdown}).
 * @module
 */

import type { FaultAction, ProxyFaultAction } from "../fixtures/scenario.ts";
import type { RunSeen, SteerSeen } from "./fault_table.ts";

/** The sites of the daemon matrix: a tool and the method its fault is put on. */
export const DAEMON_SITES = [
  { tool: "codex_review", method: "review/start" },
  { tool: "codex_steer", method: "turn/steer" },
  { tool: "structured", method: "turn/start" },
] as const;

/** What the callers see at each site. */
export interface DaemonSeen {
  codex_review: RunSeen;
  codex_steer: SteerSeen;
  structured: RunSeen;
}

/** One row: a fault of the daemon's app-server or of the proxy. */
export interface DaemonCase {
  id: string;
  fault: string;
  provoke: { kind: "app_server"; action: FaultAction } | {
    kind: "proxy";
    action: ProxyFaultAction;
  };
  seen: DaemonSeen;
}

const QUEUED = { status: "queued", confirmedBy: "acknowledgement" } as const;
const notSent = (reason: string): RunSeen => ({
  receipt: { status: "not_sent", reason },
  turn: null,
  reason,
});
const unknown = (reason: string): RunSeen => ({
  receipt: { status: "unknown", reason },
  turn: null,
  reason,
});
const completed: RunSeen = { receipt: QUEUED, turn: "completed" };

/** An error answer: nothing starts; the steered turn is as it was. */
const refused = (reason: string): DaemonSeen => ({
  codex_review: notSent(reason),
  codex_steer: { status: "unavailable", reason },
  structured: notSent(reason),
});

/** The connection to the daemon is lost after the daemon acted: nothing can be confirmed. */
const lost = (reason: string): DaemonSeen => ({
  codex_review: unknown(reason),
  codex_steer: { status: "unknown", reason },
  structured: unknown(reason),
});

/** The rows. */
export const DAEMON_CASES: readonly DaemonCase[] = [
  {
    id: "rpc_32603",
    fault: "the daemon answers error -32603 (internal error)",
    provoke: { kind: "app_server", action: { error: { code: -32603, message: "Internal error" } } },
    seen: refused("rpc_error"),
  },
  {
    id: "rpc_32001",
    fault: "the daemon answers error -32001 (overloaded)",
    provoke: {
      kind: "app_server",
      action: { error: { code: -32001, message: "Server overloaded; retry later" } },
    },
    seen: refused("busy"),
  },
  {
    id: "frame_over_limit",
    fault: "the daemon's answer frame is 1 MiB + 1 byte",
    provoke: { kind: "app_server", action: { frameBytes: 1024 * 1024 + 1 } },
    seen: lost("output_limit"),
  },
  {
    id: "never_answers",
    fault: "the daemon never answers (12 s per RPC)",
    provoke: { kind: "app_server", action: { never: true } },
    seen: lost("timeout"),
  },
  {
    id: "proxy_lose_answer",
    fault: "the proxy lets the daemon act, then exits without the answer",
    provoke: { kind: "proxy", action: { loseAnswer: true } },
    seen: lost("connection_lost"),
  },
  {
    id: "proxy_exit_mid_frame",
    fault: "the proxy exits in the middle of the answer frame",
    provoke: { kind: "proxy", action: { exitMidFrame: true } },
    seen: lost("connection_lost"),
  },
  {
    id: "proxy_close",
    fault: "the proxy sends a close frame instead of the answer",
    provoke: { kind: "proxy", action: { close: true } },
    seen: lost("connection_lost"),
  },
  {
    id: "proxy_text_garbage",
    fault: "the proxy sends a text frame that is not JSON before the answer",
    provoke: { kind: "proxy", action: { textGarbage: true } },
    seen: lost("connection_lost"),
  },
];

/** A run cell, as the other tables show it. */
function runCell(r: RunSeen): string {
  const receipt = `\`${r.receipt.status}\`${r.receipt.reason ? `, \`${r.receipt.reason}\`` : ""}`;
  if (r.turn === null) {
    return r.reason === r.receipt.reason ? receipt : `${receipt}; not started: \`${r.reason}\``;
  }
  return `${receipt}; turn \`${r.turn}\`${r.failureClass ? `, \`${r.failureClass}\`` : ""}`;
}

function steerCell(s: SteerSeen): string {
  return s.reason ? `\`${s.status}\`, \`${s.reason}\`` : `\`${s.status}\``;
}

/** The caption before the daemon table. */
export const DAEMON_TABLE_CAPTION =
  "The same jobs in daemon mode (`--app-server daemon`, the fixture's `codex app-server proxy` in front of its app-server): the fault is the daemon's answer or the proxy's (`fault_matrix_daemon_test.ts`), on `review/start` (inline review), `turn/steer` (a running turn) or `turn/start` of a structured run (`codex_run` with `outputSchema`); after each, the same thread runs a turn to its end.";

/** The daemon table: one row per fault, one column per site. */
export function daemonTableMarkdown(
  table: (header: string[], rows: string[][]) => string,
): string {
  return table(
    [
      "fault (daemon mode)",
      "`codex_review`, fault at `review/start`",
      "`codex_steer`, fault at `turn/steer`",
      "`codex_run` + `outputSchema`, fault at `turn/start`",
    ],
    DAEMON_CASES.map((c) => [
      c.fault,
      runCell(c.seen.codex_review),
      steerCell(c.seen.codex_steer),
      runCell(c.seen.structured),
    ]),
  );
}

/** `completed` as a run cell sees it (the run after each row). */
export const DAEMON_RUN_OK: RunSeen = completed;
