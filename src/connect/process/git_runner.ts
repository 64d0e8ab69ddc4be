/**
 * The relay's one way to run `git` (only with `--allow-worktrees`): the
 * binary `install` resolved (named in the run permission, as Codex is), its
 * arguments as an array (never a shell), no prompt, no pager, output read
 * whole. Each command runs in a process group of its own under a deadline
 * ({@linkcode GIT_DEADLINE_MS}): at the deadline, or when the relay shuts
 * down, the whole group (git, a filter, whatever they started) is killed.
 * The user's hooks and fsmonitor never run ({@linkcode GIT_CONFIG}). A git
 * that cannot be started is `git_missing`.
 * @module
 */

import { RelayError } from "../../core/errors.ts";
import { signalGroup } from "./process_group.ts";

/** What one git command printed and how it exited. */
export interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git with `args` in `cwd`. */
export type Git = (args: readonly string[], cwd?: string) => Promise<GitOutput>;

/** How long one git command may run before its process group is killed (`timeout`). */
export const GIT_DEADLINE_MS = 30_000;

/**
 * What every command runs with: no hooks (`core.hooksPath` names no folder,
 * so no hook is found) and no fsmonitor: the relay's git commands are its own
 * bookkeeping, and a user's hook (a slow `post-checkout`, one that never
 * ends) must neither hold them nor run on the relay's behalf.
 */
export const GIT_CONFIG: readonly string[] = Object.freeze([
  "-c",
  "core.hooksPath=/dev/null",
  "-c",
  "core.fsmonitor=false",
]);

/** How {@linkcode gitRunner} bounds its commands. */
export interface GitRunnerOptions {
  /** The deadline of one command, in ms ({@linkcode GIT_DEADLINE_MS}). */
  deadlineMs?: number;
  /** When it aborts (the relay shuts down), running commands are killed and none starts. */
  signal?: AbortSignal;
}

const decoder = new TextDecoder();

/**
 * A {@linkcode Git} that runs `bin` (an absolute path, or `git` on PATH).
 * Throws `git_missing` when it cannot be started (not installed, or not in
 * the run permission), `timeout` past its deadline and `cancelled` once
 * `signal` aborted (its process group killed in both cases).
 *
 * @example
 * ```ts ignore
 * const git = gitRunner("/usr/bin/git", { deadlineMs: 10_000 });
 * const { stdout } = await git(["rev-parse", "--show-toplevel"], "/repo/sub");
 * ```
 */
export function gitRunner(bin: string, options: GitRunnerOptions = {}): Git {
  const { deadlineMs = GIT_DEADLINE_MS, signal } = options;
  return async (args, cwd) => {
    const what = `git ${args[0] ?? ""}`.trim();
    if (signal?.aborted) throw stopped(what);
    const child = spawn(bin, args, cwd);
    let ended: "deadline" | "stop" | undefined;
    const kill = (why: "deadline" | "stop") => {
      ended ??= why;
      // The group first (a hook's children too), then git itself where groups cannot be signalled.
      void signalGroup(child.pid, "SIGKILL").finally(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* it has ended */ }
      });
    };
    const timer = setTimeout(() => kill("deadline"), deadlineMs);
    const onStop = () => kill("stop");
    signal?.addEventListener("abort", onStop);
    let out: Deno.CommandOutput;
    try {
      out = await child.output();
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onStop);
    }
    if (ended === "stop") throw stopped(what);
    if (ended === "deadline") {
      throw new RelayError("timeout", `${what} did not end within ${deadlineMs / 1000} s: stopped`);
    }
    return {
      code: out.code,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
    };
  };
}

function stopped(what: string): RelayError {
  return new RelayError("cancelled", `${what} was stopped: codex-relay is shutting down`);
}

function spawn(bin: string, args: readonly string[], cwd: string | undefined): Deno.ChildProcess {
  try {
    // `-C`, not the spawn's cwd: git says what is wrong with a folder; Deno would not.
    return new Deno.Command(bin, {
      args: [...GIT_CONFIG, ...(cwd === undefined ? [] : ["-C", cwd]), ...args],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      // Its own process group (pid = group id), killed whole at the deadline.
      detached: true,
      env: { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", LC_ALL: "C" },
    }).spawn();
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new RelayError("git_missing", `git (${bin}) could not be started: ${why}`, {
      cause: error,
    });
  }
}
