/**
 * The relay's one way to run `git` (only with `--allow-worktrees`): the
 * binary `install` resolved (named in the run permission, as Codex is), its
 * arguments as an array (never a shell), no prompt, no pager, output read
 * whole. A git that cannot be started is `git_missing`.
 * @module
 */

import { RelayError } from "../../core/errors.ts";

/** What one git command printed and how it exited. */
export interface GitOutput {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs git with `args` in `cwd`. */
export type Git = (args: readonly string[], cwd?: string) => Promise<GitOutput>;

const decoder = new TextDecoder();

/**
 * A {@linkcode Git} that runs `bin` (an absolute path, or `git` on PATH).
 * Throws `git_missing` when it cannot be started (not installed, or not in
 * the run permission).
 *
 * @example
 * ```ts ignore
 * const git = gitRunner("/usr/bin/git");
 * const { stdout } = await git(["rev-parse", "--show-toplevel"], "/repo/sub");
 * ```
 */
export function gitRunner(bin: string): Git {
  return async (args, cwd) => {
    let out: Deno.CommandOutput;
    try {
      // `-C`, not the spawn's cwd: git says what is wrong with a folder; Deno would not.
      out = await new Deno.Command(bin, {
        args: [...(cwd === undefined ? [] : ["-C", cwd]), ...args],
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        env: { GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", LC_ALL: "C" },
      }).output();
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new RelayError("git_missing", `git (${bin}) could not be started: ${why}`, {
        cause: error,
      });
    }
    return {
      code: out.code,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
    };
  };
}
