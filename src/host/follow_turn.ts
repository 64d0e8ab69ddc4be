/**
 * Follows a relay-run turn inside one tool call: forwards progress, turns
 * pending Codex requests into input rounds, and returns when the turn ends,
 * the wait ends, or the call's round budget is spent.
 * @module
 */

import type { InputRequiredResult } from "@modelcontextprotocol/server";
import {
  applyAnswers,
  askable,
  type ClientModes,
  inputRound,
  MAX_ROUNDS_PER_CALL,
  type RoundState,
} from "../elicit/input_rounds.ts";
import type { ElicitationRouter } from "../elicit/router.ts";
import type { Clock } from "../core/clock.ts";
import type { FinishedRun, TurnRegistry } from "../turn/turn_registry.ts";
import type { RunSnapshot, TurnRuntime } from "../turn/turn_runtime.ts";
import { ToolRefusal } from "./tool.ts";

/** A pending request as reported in `pendingApprovals`. */
export interface PendingSummary {
  method: string;
  summary: string;
}

/** How following ended. */
export type Followed =
  | { kind: "settled"; run: FinishedRun }
  | { kind: "running"; snapshot: RunSnapshot; pending: PendingSummary[] }
  | { kind: "input"; result: InputRequiredResult };

/** What following needs. */
export interface FollowDeps {
  turns: TurnRegistry;
  router: ElicitationRouter;
  clock: Clock;
  modes: ClientModes;
  signal: AbortSignal;
  progress(message: string, progress: number): Promise<void>;
  mint(state: RoundState): Promise<string>;
}

/** The round-independent part of the state. */
export type RoundBase = Omit<RoundState, "tokens" | "round" | "runtimeId">;

/**
 * Follows `runtime` for up to `base.waitSeconds`. `round` is the number of
 * input rounds this call has returned so far.
 */
export async function followTurn(
  runtime: TurnRuntime,
  deps: FollowDeps,
  base: RoundBase,
  round: number,
): Promise<Followed> {
  const until = deps.clock.now() + base.waitSeconds * 1000;
  // A first call reports the run from its start; a retry only what is new.
  let sent = round === 0 ? 0 : runtime.progressSince(0).length;
  while (true) {
    const seen = runtime.version;
    for (const message of runtime.progressSince(sent)) await deps.progress(message, ++sent);
    if (runtime.ended) return { kind: "settled", run: await deps.turns.settled(runtime) };
    const pending = askable(deps.router, deps.router.pendingFor(runtime), deps.modes);
    if (pending.length > 0) {
      if (round >= MAX_ROUNDS_PER_CALL) return running(runtime, deps);
      const state: RoundState = {
        ...base,
        runtimeId: runtime.id,
        tokens: pending.map((p) => p.token),
        round: round + 1,
      };
      const result = inputRound(deps.router, pending, await deps.mint(state));
      if (result) return { kind: "input", result };
      continue;
    }
    if (deps.signal.aborted || deps.clock.now() >= until) return running(runtime, deps);
    if (runtime.version === seen) await runtime.waitForChange(seen, until, deps.signal);
  }
}

function running(runtime: TurnRuntime, deps: FollowDeps): Followed {
  return {
    kind: "running",
    snapshot: runtime.snapshot(),
    pending: deps.router.pendingFor(runtime).map((p) => ({ method: p.method, summary: p.summary })),
  };
}

/**
 * Takes the answers a retried call carries. `belongs` tells whether the
 * sealed state was minted for this tool and these arguments. A state of
 * another call, or one whose every token was answered already or expired (a
 * replay), is refused and nothing reaches Codex.
 */
export function takeAnswers(
  router: ElicitationRouter,
  state: RoundState,
  responses: unknown,
  belongs: boolean,
): void {
  if (!belongs) {
    throw new ToolRefusal("This input round belongs to another call; nothing was sent to Codex");
  }
  const outcomes = applyAnswers(router, state, responses);
  if (
    outcomes.length > 0 && outcomes.every((o) => o === "unknown_token" || o === "wrong_runtime")
  ) {
    throw new ToolRefusal(
      "This input round was already answered or has expired; nothing was sent to Codex",
    );
  }
}
