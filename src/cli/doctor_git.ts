/**
 * `doctor --allow-worktrees`: whether the relay can run the git it names
 * (`--git`, else `git` on PATH) under its own permissions, and which git it
 * is (`git worktree remove` needs git 2.17).
 * @module
 */

import { asRelayError } from "../core/errors.ts";
import type { Git } from "../connect/process/git_runner.ts";

/** One line of the doctor's report. */
interface Finding {
  level: "ok" | "info" | "problem";
  text: string;
  fix?: string;
}

/**
 * The git findings: its version, or why it cannot run and how to fix it.
 *
 * @example
 * ```ts ignore
 * await gitFindings(gitRunner("/usr/bin/git"), "/usr/bin/git", "codex-relay");
 * ```
 */
export async function gitFindings(git: Git, bin: string, relay: string): Promise<Finding[]> {
  const fix =
    `install git, then register the relay again: ${relay} install --client <client> --allow-turn-start --allow-worktrees`;
  try {
    const out = await git(["--version"]);
    const version = /git version (\d+)\.(\d+)/.exec(out.stdout);
    if (out.code !== 0 || !version) {
      return [{ level: "problem", text: `git (${bin}) did not say its version`, fix }];
    }
    const [major, minor] = [Number(version[1]), Number(version[2])];
    if (major < 2 || (major === 2 && minor < 17)) {
      return [{
        level: "problem",
        text: `${out.stdout.trim()} (${bin}): worktrees need git 2.17 or later`,
        fix,
      }];
    }
    return [{
      level: "ok",
      text: `${out.stdout.trim()} (${bin}): codex_run {worktree} and codex_worktree can run it`,
    }];
  } catch (error) {
    return [{ level: "problem", text: asRelayError(error).message, fix }];
  }
}
