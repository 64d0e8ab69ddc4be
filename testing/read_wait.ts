/**
 * The wait engine on one read message, as `codex_wait_reply {threadId,
 * clientMessageId}` runs it when no run of this relay is followed: for the
 * unit tests of its reads' pacing, wakes and progress (a manual clock, a
 * scripted read, no I/O).
 * @module
 */

import type { Clock } from "../src/core/clock.ts";
import type { Session } from "../src/connect/connection.ts";
import type { ReadReplyInput } from "../src/ops/read_reply.ts";
import type { ReadReplyResult, WaitMessageResult } from "../src/reply/schemas.ts";
import { waitResult } from "../src/turn/run_result.ts";
import { type FollowedRun, waitOn } from "../src/turn/wait_engine.ts";

/** What one read's progress report says. */
export interface ReadProgress {
  reads: number;
  elapsedMs: number;
  timeoutMs: number;
  last: ReadReplyResult;
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

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
  const out = await waitOn<FollowedRun>([{ ref }], {
    clock: options.clock,
    signal: session.signal,
    log: quiet,
    timeoutMs: timeoutSeconds * 1000,
    until: "any",
    progress: "detail",
    fromStart: true,
    ...(options.backoff ? { pacing: options.backoff } : {}),
  }, {
    operation: (fn) => fn(session),
    read: options.read,
    readFollowed: () => Promise.reject(new Error("nothing is followed")),
    settled: () => Promise.reject(new Error("nothing is followed")),
    pending: () => [],
    askable: () => [],
    report: async (p) => {
      if (p.kind === "read") await options.onProgress?.(p);
    },
    ask: () => Promise.resolve("none"),
  });
  if (out.kind !== "done") throw new Error("a read wait offered a round");
  return waitResult(out.ends[0]);
}
