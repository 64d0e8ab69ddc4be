/**
 * The options of a `codex_run` turn (model, effort, sandbox, approvals): the
 * sandbox and approval policy may only tighten what the thread's
 * configuration allows, and turn into the `thread/start` / `thread/resume`
 * parameters.
 * @module
 */

import { RelayError } from "../core/errors.ts";
import { parseRunConfig } from "../codex/validate.ts";
import type { ImageInput, RunParams } from "../codex/methods.ts";
import {
  APPROVAL_POLICIES,
  type ApprovalPolicy,
  SANDBOX_MODES,
  type SandboxMode,
} from "../reply/inputs.ts";

/** What the client chose for the turn. */
export interface RunOptions {
  /** A name for a new thread (`thread/name/set`). */
  name?: string;
  model?: string;
  /** Reasoning effort (`model_reasoning_effort`). */
  effort?: string;
  sandbox?: SandboxMode;
  approvalPolicy?: ApprovalPolicy;
  /** A JSON Schema for the final answer (`turn/start.outputSchema`; checked before the start). */
  outputSchema?: Record<string, unknown>;
  /** Instead of Codex's own (`thread/start.baseInstructions`; compatibility `codex`). */
  baseInstructions?: string;
  /** A developer message (`thread/start.developerInstructions`; compatibility `codex`). */
  developerInstructions?: string;
  /** The prompt of compactions (config `compact_prompt`; compatibility `codex`). */
  compactPrompt?: string;
  /** Images sent with the text (`turn/start` on an idle thread: `run_job.ts`). */
  images?: ImageInput[];
}

/**
 * What earlier relay runs left with a thread: Codex keeps a start's or a
 * resume's sandbox and approval policy for the thread's later turns (0.169:
 * a plain resume in a new process reports and runs them), and no read shows
 * them before a resume, so the relay remembers the ones it passed.
 */
export type Applied = Pick<RunOptions, "sandbox" | "approvalPolicy">;

/**
 * Refuses (`not_allowed`, nothing sent) a sandbox or approval policy looser
 * than the configuration's (read at the thread's cwd), or than what an
 * earlier run of this relay left with the thread (`applied`). A setting the
 * configuration leaves unset (or sets to a form the relay does not rank, like
 * a granular policy) counts as the tightest, since the relay cannot tell what
 * Codex would pick: then only the tightest value is accepted.
 */
export function checkTightening(config: unknown, options: RunOptions, applied: Applied = {}): void {
  const current = parseRunConfig(config);
  const problems: string[] = [];
  const earlier = " (left by an earlier codex_run of this relay)";
  // Stryker disable next-line ConditionalExpression: an unset option ranks -1 (indexOf(undefined)), never looser than anything
  if (options.sandbox !== undefined) {
    const configured = rank(SANDBOX_MODES, current.sandbox);
    const left = applied.sandbox ? SANDBOX_MODES.indexOf(applied.sandbox) : Infinity;
    if (SANDBOX_MODES.indexOf(options.sandbox) > Math.min(configured, left)) {
      problems.push(
        `sandbox ${options.sandbox} is looser than the thread's ${
          left < configured
            ? `${applied.sandbox}${earlier}`
            : current.sandbox ?? "unset sandbox (counted as read-only)"
        }`,
      );
    }
  }
  // Stryker disable next-line ConditionalExpression: an unset option ranks -1 (indexOf(undefined)), never looser than anything
  if (options.approvalPolicy !== undefined) {
    const configured = current.granular ? 0 : rank(APPROVAL_POLICIES, current.approvalPolicy);
    const left = applied.approvalPolicy
      ? APPROVAL_POLICIES.indexOf(applied.approvalPolicy)
      : Infinity;
    if (APPROVAL_POLICIES.indexOf(options.approvalPolicy) > Math.min(configured, left)) {
      const now = left < configured
        ? `${applied.approvalPolicy}${earlier}`
        : current.granular
        ? "granular approval policy (counted as untrusted)"
        : current.approvalPolicy ?? "unset approval policy (counted as untrusted)";
      problems.push(`approvalPolicy ${options.approvalPolicy} is looser than the thread's ${now}`);
    }
  }
  if (problems.length > 0) {
    throw new RelayError(
      "not_allowed",
      `codex_run may only tighten the thread's configuration: ${problems.join("; ")}`,
    );
  }
}

/** The index of `value` in `order`, or 0 (the tightest) when unset or unknown. */
function rank(order: readonly string[], value: string | null): number {
  // Stryker disable next-line ConditionalExpression: indexOf(null) is -1 too: the null test only says so
  const at = value === null ? -1 : order.indexOf(value);
  return at === -1 ? 0 : at;
}

/** The `thread/start` / `thread/resume` parameters of the options, besides `config`. */
export function runParams(options: RunOptions): RunParams {
  return {
    ...(options.model ? { model: options.model } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    ...(options.approvalPolicy ? { approvalPolicy: options.approvalPolicy } : {}),
    ...(options.baseInstructions ? { baseInstructions: options.baseInstructions } : {}),
    ...(options.developerInstructions
      ? { developerInstructions: options.developerInstructions }
      : {}),
  };
}

/** The `config` overrides of the options (reasoning effort, compact prompt), merged with the guard's. */
export function runConfig(
  guard: Record<string, boolean>,
  options: RunOptions,
): Record<string, unknown> {
  return {
    ...guard,
    ...(options.effort ? { model_reasoning_effort: options.effort } : {}),
    ...(options.compactPrompt ? { compact_prompt: options.compactPrompt } : {}),
  };
}

/** What the thread keeps after a run with `options` over `applied`: the tighter of each. */
export function tighterOf(applied: Applied, options: RunOptions): Applied {
  const pick = <T extends string>(order: readonly T[], a?: T, b?: T): T | undefined =>
    // Stryker disable next-line EqualityOperator: equal ranks are the same value: a or b is the same setting
    a === undefined ? b : b === undefined ? a : order.indexOf(a) <= order.indexOf(b) ? a : b;
  const sandbox = pick(SANDBOX_MODES, applied.sandbox, options.sandbox);
  const approvalPolicy = pick(APPROVAL_POLICIES, applied.approvalPolicy, options.approvalPolicy);
  return {
    ...(sandbox ? { sandbox } : {}),
    ...(approvalPolicy ? { approvalPolicy } : {}),
  };
}

/**
 * The options a start or resume did not apply: those looser than what the
 * thread reports it runs with afterwards are fine (Codex kept tighter), a
 * requested value tighter than the reported one was not applied (Codex keeps
 * a loaded thread's settings). Unreported or unranked settings pass.
 */
export function unapplied(
  options: RunOptions,
  reported: { sandbox: string | null; approvalPolicy: string | null },
): string[] {
  const problems: string[] = [];
  // Stryker disable next-line ConditionalExpression: indexOf(null) is -1 too: the null test only says so
  const at = (order: readonly string[], v: string | null) => v === null ? -1 : order.indexOf(v);
  const sandbox = at(SANDBOX_MODES, reported.sandbox);
  if (options.sandbox && sandbox > SANDBOX_MODES.indexOf(options.sandbox)) {
    problems.push(`sandbox ${reported.sandbox} (not ${options.sandbox})`);
  }
  const policy = at(APPROVAL_POLICIES, reported.approvalPolicy);
  if (options.approvalPolicy && policy > APPROVAL_POLICIES.indexOf(options.approvalPolicy)) {
    problems.push(`approvalPolicy ${reported.approvalPolicy} (not ${options.approvalPolicy})`);
  }
  return problems;
}
