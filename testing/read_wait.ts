/**
 * The wait engine on one read message, as `codex_wait_reply {threadId,
 * clientMessageId}` runs it when no run of this relay is followed: for the
 * unit tests of its reads' pacing, wakes and progress (a manual clock, a
 * scripted read, no I/O). A wait that runs away fails instead of hanging:
 * one that spins ({@linkcode spinGuard}), one that reads more often than a
 * wait ever does, one that asks for input it never had.
 * @module
 */

import type { Clock } from "../src/core/clock.ts";
import type { Session } from "../src/connect/connection.ts";
import type { ReadReplyInput } from "../src/ops/read_reply.ts";
import type { ReadReplyResult, WaitMessageResult } from "../src/reply/schemas.ts";
import { waitResult } from "../src/turn/run_result.ts";
import { type FollowedRun, waitOn } from "../src/turn/wait_engine.ts";
import { spinGuard } from "./spin_guard.ts";

/** What one read's progress report says. */
export interface ReadProgress {
  reads: number;
  elapsedMs: number;
  timeoutMs: number;
  last: ReadReplyResult;
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** More reads than a wait ever makes: at most 4 a second (WAIT_BACKOFF) for at most 55 s is 220. */
const READ_LIMIT = 250;

/** Waits on one message read on `session` with `read`, as the single form of `codex_wait_reply`. */
export async function readWait(
  session: Session,
  input: ReadReplyInput & { timeoutSeconds: number },
  options: {
    clock: Clock;
    read: (session: Session, input: ReadReplyInput) => Promise<ReadReplyResult>;
    onProgress?: (p: ReadProgress) => void | Promise<void>;
    backoff?: { initialMs: number; maxMs: number };
  },
): Promise<WaitMessageResult> {
  const { timeoutSeconds, ...ref } = input;
  let reads = 0;
  const out = await waitOn<FollowedRun>([{ ref }], {
    clock: spinGuard(options.clock),
    signal: session.signal,
    log: quiet,
    timeoutMs: timeoutSeconds * 1000,
    until: "any",
    progress: "detail",
    fromStart: true,
    ...(options.backoff ? { pacing: options.backoff } : {}),
  }, {
    operation: (fn) => fn(session),
    read: (session, input) =>
      ++reads > READ_LIMIT
        ? Promise.reject(new Error(`read ${reads} times: a runaway wait`))
        : options.read(session, input),
    readFollowed: () => Promise.reject(new Error("nothing is followed")),
    settled: () => Promise.reject(new Error("nothing is followed")),
    pending: () => [],
    askable: () => [],
    report: async (p) => {
      if (p.kind === "read") await options.onProgress?.(p);
    },
    ask: () => Promise.reject(new Error("asked for input: a read wait has no requests")),
  });
  if (out.kind !== "done") throw new Error("a read wait offered a round");
  return waitResult(out.ends[0]);
}
