/**
 * The git worktrees of `codex_run {worktree}` and `codex_worktree`: make one
 * for a run (a new branch `codex/<name>` from the repository's `HEAD`, in a
 * folder of {@linkcode worktreesRoot}), list and remove those this relay made
 * (by its record, `worktree_record.ts`). Every git command goes through one
 * injected {@linkcode Git}; every failure is a result with a reason, and a
 * worktree half made is taken down again.
 * @module
 */

import { asRelayError, type ReasonCode } from "../core/errors.ts";
import type { Git } from "../connect/process/git_runner.ts";
import type { WorktreeInfo } from "../reply/files_schema.ts";
import {
  listedWorktrees,
  nameProblem,
  parseRecords,
  recordFile,
  recordWrites,
  type WorktreeRecord,
} from "./worktree_record.ts";

/** Why a worktree step did nothing (or undid what it did). */
export interface WorktreeRefusal {
  ok: false;
  reason: ReasonCode;
  message: string;
}

/** A worktree made for a run: where the run's thread works (`cwd`, inside it). */
export interface MadeWorktree {
  ok: true;
  worktree: WorktreeInfo;
  cwd: string;
}

/** One worktree as `codex_worktree {action: "list"}` reports it. */
export interface ListedWorktree extends WorktreeRecord {
  /** A run of this relay is active in it. */
  active: boolean;
  /** It has uncommitted changes (untracked files too); null when git could not tell (gone). */
  uncommittedChanges: boolean | null;
}

/** What the worktree operations run on. */
export interface WorktreeDeps {
  git: Git;
  /** The folder of this relay's worktrees (and of its record). */
  root: string;
}

const refuse = (reason: ReasonCode, message: string): WorktreeRefusal => ({
  ok: false,
  reason,
  message,
});

/** Runs git; a non-zero exit is a refusal with `reason` and git's own words. */
async function run(
  git: Git,
  args: string[],
  cwd: string | undefined,
  reason: ReasonCode,
): Promise<string | WorktreeRefusal> {
  const out = await git(args, cwd);
  if (out.code === 0) return out.stdout;
  const said = out.stderr.trim().split("\n").slice(-2).join(" ") || `git exited ${out.code}`;
  return refuse(reason, `git ${args[0]}: ${said}`);
}

/** The repository that holds `cwd`: its main working tree and `cwd`'s folder inside it. */
async function repositoryOf(
  git: Git,
  cwd: string,
): Promise<{ top: string; prefix: string } | WorktreeRefusal> {
  const out = await run(
    git,
    ["rev-parse", "--show-toplevel", "--show-prefix"],
    cwd,
    "not_a_repository",
  );
  if (typeof out !== "string") {
    return { ...out, message: `${cwd} is not in a git repository (${out.message})` };
  }
  const [top, prefix = ""] = out.split("\n");
  if (!top) return refuse("not_a_repository", `${cwd} is not in a git working tree`);
  return { top, prefix };
}

/**
 * Makes the worktree `name` of the repository that holds `cwd`: the branch
 * `codex/<name>` from its `HEAD` commit, checked out in `<root>/<name>`, and
 * recorded. The user's uncommitted changes are not carried over
 * (`uncommittedLeftOut` says there were some); submodules are not checked
 * out in it. A branch or record of that name is `worktree_exists`; whatever
 * a failed step made is removed again.
 */
export function makeWorktree(
  deps: WorktreeDeps,
  cwd: string,
  name: string,
): Promise<MadeWorktree | WorktreeRefusal> {
  return oneAtATime(() => make(deps, cwd, name));
}

/** Makes and removals of this process run one at a time (two of one name never interleave). */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(step: () => Promise<T>): Promise<T> {
  const next = queue.then(step, step);
  queue = next.catch(() => undefined);
  return next;
}

async function make(
  deps: WorktreeDeps,
  cwd: string,
  name: string,
): Promise<MadeWorktree | WorktreeRefusal> {
  const bad = nameProblem(name);
  if (bad) return refuse("not_allowed", bad);
  const { git, root } = deps;
  try {
    const repo = await repositoryOf(git, cwd);
    if ("ok" in repo) return repo;
    const head = await run(
      git,
      ["rev-parse", "--verify", "HEAD^{commit}"],
      repo.top,
      "not_a_repository",
    );
    if (typeof head !== "string") {
      return { ...head, message: `${repo.top} has no commit to start from` };
    }
    const branch = `codex/${name}`;
    const taken = await git(["rev-parse", "--verify", "--quiet", `refs/heads/${branch}`], repo.top);
    if (taken.code === 0) return refuse("worktree_exists", `the branch ${branch} exists`);
    if ((await records(git, root)).some((r) => r.name === name)) {
      return refuse("worktree_exists", `this relay has a worktree named ${name}`);
    }
    const status = await run(git, ["status", "--porcelain"], repo.top, "not_a_repository");
    if (typeof status !== "string") return status;
    const base = head.trim();
    const path = `${root}/${name}`;
    const added = await run(
      git,
      ["worktree", "add", "--quiet", "-b", branch, path, base],
      repo.top,
      "worktree_exists",
    );
    if (typeof added !== "string") {
      // git made no worktree; a branch it made (none existed) goes, unless one is checked out.
      await git(["worktree", "prune"], repo.top);
      await git(["branch", "-D", branch], repo.top);
      return added;
    }
    // The path as git names it (symlinks resolved, as `git worktree list` shows it).
    const real = await run(git, ["rev-parse", "--show-toplevel"], path, "worktree_exists");
    const at = typeof real === "string" ? real.trim() : path;
    const record = { name, repository: repo.top, path: at, branch, base };
    for (const write of recordWrites(recordFile(root), record)) {
      const wrote = await run(git, write, undefined, "not_allowed");
      if (typeof wrote !== "string") {
        await undo(git, repo.top, path, branch, name, root);
        return wrote;
      }
    }
    const worktree = { name, path: at, branch, base, uncommittedLeftOut: status.trim() !== "" };
    return {
      ok: true,
      worktree: { ...worktree, howTo: howTo(at, base) },
      cwd: joined(at, repo.prefix),
    };
  } catch (error) {
    const e = asRelayError(error);
    return refuse(e.reason, e.message);
  }
}

/** How the agent reads a worktree and has Codex review it (the result's `howTo`). */
export function howTo(path: string, base: string): string {
  return `The run's changes are in ${path}: read them with \`git -C ${path} diff ${base}\` ` +
    `(committed and not); have Codex review them with codex_review {cwd: "${path}", ` +
    `target: "base", base: "${base}"}; remove it with codex_worktree {action: "remove"}.`;
}

function joined(path: string, prefix: string): string {
  const sub = prefix.replace(/\/+$/, "");
  return sub === "" ? path : `${path}/${sub}`;
}

/** Takes down a worktree this make added whose record could not be written: it, its branch, its record. */
async function undo(
  git: Git,
  top: string,
  path: string,
  branch: string,
  name: string,
  root: string,
): Promise<void> {
  await git(["worktree", "remove", "--force", path], top);
  await git(["worktree", "prune"], top);
  await git(["branch", "-D", branch], top);
  await git(["config", "--file", recordFile(root), "--remove-section", `worktree.${name}`]);
}

/** The records of the worktrees this relay made (none when the record does not exist). */
async function records(git: Git, root: string): Promise<WorktreeRecord[]> {
  const out = await git([
    "config",
    "--file",
    recordFile(root),
    "--null",
    "--get-regexp",
    "^worktree\\.",
  ]);
  return out.code === 0 ? parseRecords(out.stdout) : [];
}

/** Whether the worktree at `path` has uncommitted changes; null when git cannot tell. */
async function dirty(git: Git, path: string): Promise<boolean | null> {
  const out = await git(["status", "--porcelain"], path);
  return out.code === 0 ? out.stdout.trim() !== "" : null;
}

/**
 * The worktrees this relay made, by name, with whether a run is active in
 * each (`activeIn(path)`) and whether it has uncommitted changes.
 */
export async function listWorktrees(
  deps: WorktreeDeps,
  activeIn: (path: string) => boolean,
): Promise<{ ok: true; worktrees: ListedWorktree[] } | WorktreeRefusal> {
  try {
    const found = (await records(deps.git, deps.root)).sort((a, b) => a.name < b.name ? -1 : 1);
    const worktrees: ListedWorktree[] = [];
    for (const r of found) {
      worktrees.push({
        ...r,
        active: activeIn(r.path),
        uncommittedChanges: await dirty(deps.git, r.path),
      });
    }
    return { ok: true, worktrees };
  } catch (error) {
    const e = asRelayError(error);
    return refuse(e.reason, e.message);
  }
}

/** What a removal did. */
export interface RemovedWorktree {
  ok: true;
  name: string;
  path: string;
  branch: string;
  /** The branch was deleted (it held no commit beyond `base`); else it is kept. */
  branchDeleted: boolean;
}

/**
 * Removes the worktree `name` this relay made: refused while a run is active
 * in it (`worktree_busy`) and, unless `force`, while it has uncommitted
 * changes (`worktree_dirty`); its branch is deleted only when it holds no
 * commit beyond `base`. A name the record does not hold is
 * `worktree_not_found`: nothing else is ever touched.
 */
export function removeWorktree(
  deps: WorktreeDeps,
  name: string,
  force: boolean,
  activeIn: (path: string) => boolean,
): Promise<RemovedWorktree | WorktreeRefusal> {
  return oneAtATime(() => remove(deps, name, force, activeIn));
}

async function remove(
  deps: WorktreeDeps,
  name: string,
  force: boolean,
  activeIn: (path: string) => boolean,
): Promise<RemovedWorktree | WorktreeRefusal> {
  const { git, root } = deps;
  try {
    const r = (await records(git, root)).find((x) => x.name === name);
    if (!r) return refuse("worktree_not_found", `codex-relay made no worktree named ${name}`);
    if (activeIn(r.path)) {
      return refuse("worktree_busy", `a run of this relay is active in ${r.path}`);
    }
    const listed = await run(
      git,
      ["worktree", "list", "--porcelain"],
      r.repository,
      "worktree_not_found",
    );
    if (typeof listed !== "string") return listed;
    const checkedOut = listedWorktrees(listed);
    if (checkedOut.has(r.path)) {
      if (!force && (await dirty(git, r.path)) !== false) {
        return refuse(
          "worktree_dirty",
          `${r.path} has uncommitted changes: commit them, or remove with force`,
        );
      }
      const args = ["worktree", "remove", ...(force ? ["--force"] : []), r.path];
      const removed = await run(git, args, r.repository, "worktree_dirty");
      if (typeof removed !== "string") return removed;
    } else await git(["worktree", "prune"], r.repository);
    const ahead = await git(
      ["rev-list", "--count", `${r.base}..refs/heads/${r.branch}`],
      r.repository,
    );
    const branchDeleted = ahead.code === 0 && ahead.stdout.trim() === "0" &&
      (await git(["branch", "-D", r.branch], r.repository)).code === 0;
    await git(["config", "--file", recordFile(root), "--remove-section", `worktree.${name}`]);
    return { ok: true, name, path: r.path, branch: r.branch, branchDeleted };
  } catch (error) {
    const e = asRelayError(error);
    return refuse(e.reason, e.message);
  }
}
