/**
 * Temporary git repositories for the worktree tests, against real git.
 * @module
 */
import assert from "node:assert/strict";
import { gitRunner } from "../src/connect/process/git_runner.ts";

/** The git the tests run (with the relay's own settings: no hooks, a deadline). */
export const git = gitRunner("git");

/** A committer, and file submodules allowed, for the tests' own commits. */
export const ID = [
  "-c",
  "user.email=t@example.com",
  "-c",
  "user.name=t",
  "-c",
  "protocol.file.allow=always",
];

/** Runs git (as {@linkcode ID}) in `cwd`, asserts it succeeded, and returns its trimmed output. */
export async function sh(cwd: string, ...args: string[]): Promise<string> {
  const out = await git([...ID, ...args], cwd);
  assert.equal(out.code, 0, `git ${args.join(" ")}: ${out.stderr}`);
  return out.stdout.trim();
}

/** A temp folder with a repository `repo` (one commit: a.txt, sub/b.txt) and a worktrees root. */
export async function withRepo(fn: (repo: string, root: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "relay-wt-" });
  const repo = `${dir}/repo`;
  try {
    await Deno.mkdir(`${repo}/sub`, { recursive: true });
    await Deno.writeTextFile(`${repo}/a.txt`, "a\n");
    await Deno.writeTextFile(`${repo}/sub/b.txt`, "b\n");
    await sh(repo, "init", "-q", "-b", "main");
    await sh(repo, "add", ".");
    await sh(repo, "commit", "-qm", "one");
    // Real paths: git names folders with symlinks resolved (macOS's /var is /private/var).
    const real = await Deno.realPath(dir);
    await fn(`${real}/repo`, `${real}/codex-home/worktrees/codex-relay`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Whether the branch `name` exists in `repo`. */
export async function hasBranch(repo: string, name: string): Promise<boolean> {
  return (await git(["rev-parse", "--verify", "--quiet", `refs/heads/${name}`], repo)).code === 0;
}
