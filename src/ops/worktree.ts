/**
 * The git worktrees of `codex_run {worktree}` and `codex_worktree`: make one
 * for a run (a new branch `codex/<name>` from the repository's `HEAD`, in a
 * folder of `worktreesRoot`), list and remove those this relay made
 * (by its record, `worktree_record.ts`; `worktree_remove.ts`). Every git
 * command goes through one injected {@linkcode Git}; every failure is a
 * result with a reason. A make claims its name in the record, records the
 * worktree before git makes it (a half-made one is listed and removable),
 * and takes down only what it made itself.
 * @module
 */

import { asRelayError } from "../core/errors.ts";
import type { Git } from "../connect/process/git_runner.ts";
import type { WorktreeInfo } from "../reply/files_schema.ts";
import {
  addRaced,
  claimArgs,
  listedWorktrees,
  nameProblem,
  recordFile,
  recordWrites,
  rootMaker,
} from "./worktree_record.ts";
import { type RemovedWorktree, removeNow } from "./worktree_remove.ts";
import {
  type ActiveIn,
  dropBranch,
  dropRecord,
  records,
  refuse,
  refusedBy,
  run,
  type WorktreeDeps,
  type WorktreeRefusal,
  writeRecord,
} from "./worktree_git.ts";

export type { WorktreeDeps, WorktreeRefusal } from "./worktree_git.ts";
export type { ActiveIn, InUse } from "./worktree_git.ts";
export { type ListedWorktree, listWorktrees, type RemovedWorktree } from "./worktree_remove.ts";

/** A worktree made for a run: where the run's thread works (`cwd`, inside it). */
export interface MadeWorktree {
  ok: true;
  worktree: WorktreeInfo;
  cwd: string;
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
  const [top, prefix] = out.split("\n");
  if (!top) return refuse("not_a_repository", `${cwd} is not in a git working tree`);
  return { top, prefix };
}

/**
 * Makes the worktree `name` of the repository that holds `cwd`: the branch
 * `codex/<name>` from its `HEAD` commit, checked out in `<root>/<name>`, and
 * recorded. The user's uncommitted changes are not carried over
 * (`uncommittedLeftOut` says there were some); submodules are not checked
 * out in it. A branch or record of that name, or another make of it under
 * way (another relay's too), is `worktree_exists`; whatever this make made
 * is removed again when a step fails.
 */
export function makeWorktree(
  deps: WorktreeDeps,
  cwd: string,
  name: string,
): Promise<MadeWorktree | WorktreeRefusal> {
  return oneAtATime(() => make(deps, cwd, name));
}

/**
 * Removes the worktree `name` this relay made: refused while a run works in
 * it (`worktree_busy`), and unless `force` when the relay cannot tell
 * (`worktree_busy`, saying why) or it holds work (`worktree_dirty`); its
 * branch is deleted only when it holds no commit beyond `base` and is
 * checked out nowhere. A name the record does not hold is
 * `worktree_not_found`: nothing else is ever touched.
 */
export function removeWorktree(
  deps: WorktreeDeps,
  name: string,
  force: boolean,
  activeIn: ActiveIn,
): Promise<RemovedWorktree | WorktreeRefusal> {
  return oneAtATime(() => removeNow(deps, name, force, activeIn));
}

/** Makes and removals of this process run one at a time (two of one name never interleave). */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(step: () => Promise<T>): Promise<T> {
  const next = queue.then(step, step);
  queue = next.catch(() => undefined);
  return next;
}

/** Where a make stands: what it has made so far (for its clean-up). */
interface Making {
  top: string;
  name: string;
  path: string;
  branch: string;
  base: string;
  claimed: boolean;
  branchMade: boolean;
  added: boolean;
  /** The record's lock waits (`WorktreeDeps.lockWaits`). */
  waits?: readonly number[];
}

async function make(
  deps: WorktreeDeps,
  cwd: string,
  name: string,
): Promise<MadeWorktree | WorktreeRefusal> {
  const bad = nameProblem(name);
  if (bad) return refuse("not_allowed", bad);
  const { git, root } = deps;
  let m: Making | undefined;
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
    const path = `${root}/${name}`;
    m = {
      top: repo.top,
      name,
      path,
      branch,
      base: head.trim(),
      claimed: false,
      branchMade: false,
      added: false,
      waits: deps.lockWaits,
    };
    const made = await steps(git, root, m, repo.prefix);
    if (typeof made !== "string") {
      await undo(git, root, m);
      return made;
    }
    const worktree = {
      name,
      path: made,
      branch,
      base: m.base,
      uncommittedLeftOut: status.trim() !== "",
    };
    return {
      ok: true,
      worktree: { ...worktree, howTo: howTo(made, m.base) },
      cwd: joined(made, repo.prefix),
    };
  } catch (error) {
    const e = asRelayError(error);
    // Shutting down: git runs no more; the record lists what is half made.
    if (m && e.reason !== "cancelled") await undo(git, root, m).catch(() => undefined);
    return refuse(e.reason, e.message);
  }
}

/**
 * The steps that make something: the claim on the name, the record, the
 * branch, the worktree (git's path of it, symlinks resolved, is recorded).
 * The worktree's path, or why not.
 */
async function steps(
  git: Git,
  root: string,
  m: Making,
  prefix: string,
): Promise<string | WorktreeRefusal> {
  const file = recordFile(root);
  const claim = claimArgs(file, m.name, crypto.randomUUID());
  let added = await writeRecord(git, claim.add, m.waits);
  if (typeof added !== "string" && added.message.endsWith("No such file or directory")) {
    await git(rootMaker(root));
    added = await writeRecord(git, claim.add, m.waits);
  }
  if (typeof added !== "string") return added;
  const makers = await git(claim.makers);
  if (makers.stdout.split("\n")[0] !== claim.add[5]) {
    await writeRecord(git, claim.drop, m.waits);
    return refuse("worktree_exists", `another make of the worktree ${m.name} is under way`);
  }
  m.claimed = true;
  const record = { name: m.name, repository: m.top, path: m.path, branch: m.branch, base: m.base };
  for (const write of recordWrites(file, { ...record, cwd: joined(m.path, prefix) })) {
    const wrote = await writeRecord(git, write, m.waits);
    if (typeof wrote !== "string") return wrote;
  }
  // A worktree git lists at the path is not this make's: it is never taken down.
  const listed = await run(git, ["worktree", "list", "--porcelain"], m.top, "not_a_repository");
  if (typeof listed !== "string") return listed;
  if (listedWorktrees(listed).has(m.path)) {
    return refuse("worktree_exists", `git has a worktree at ${m.path}`);
  }
  const branched = await run(
    git,
    ["branch", "--no-track", m.branch, m.base],
    m.top,
    "worktree_exists",
  );
  if (typeof branched !== "string") return branched;
  m.branchMade = true;
  m.added = true;
  const checkedOut = await addWorktree(git, m);
  if (typeof checkedOut !== "string") return checkedOut;
  const real = await run(git, ["rev-parse", "--show-toplevel"], m.path, "worktree_exists");
  if (typeof real !== "string") return real;
  const at = real.trim();
  if (at === m.path) return at;
  for (const write of recordWrites(file, { ...record, path: at, cwd: joined(at, prefix) })) {
    const wrote = await writeRecord(git, write, m.waits);
    if (typeof wrote !== "string") return wrote;
  }
  return at;
}

/**
 * `git worktree add` of the make's branch at its path, tried again (twice at
 * most) when it failed on another add in the same repository at that moment
 * ({@linkcode addRaced}).
 */
async function addWorktree(git: Git, m: Making): Promise<string | WorktreeRefusal> {
  const args = ["worktree", "add", "--quiet", m.path, m.branch];
  for (let tries = 1;; tries++) {
    const out = await git(args, m.top);
    if (out.code === 0) return out.stdout;
    if (tries === 3 || !addRaced(out.stderr)) return refusedBy("worktree_exists", args, out);
  }
}

/**
 * Takes down what a failed make made, and only that: its worktree (by its
 * path, as git lists it), its branch (where it made it, checked out
 * nowhere), its record.
 */
async function undo(git: Git, root: string, m: Making): Promise<void> {
  if (m.added) {
    const listed = await git(["worktree", "list", "--porcelain"], m.top);
    // Stryker disable next-line ConditionalExpression: a failed list prints no worktree, so none is found at the path either way
    if (listed.code === 0 && listedWorktrees(listed.stdout).has(m.path)) {
      await git(["worktree", "remove", "--force", "--force", m.path], m.top);
    }
  }
  if (m.branchMade) await dropBranch(git, m.top, m.branch, m.base);
  if (m.claimed) await dropRecord(git, root, m.name, m.waits);
}

/** How the agent reads a worktree and has Codex review it (the result's `howTo`). */
export function howTo(path: string, base: string): string {
  return `The run's changes are in ${path}: read them with \`git -C ${path} diff ${base}\` ` +
    `(committed and not); have Codex review them with codex_review {cwd: "${path}", ` +
    `target: "base", base: "${base}"}; remove it with codex_worktree {action: "remove"}.`;
}

/** `path` and git's `--show-prefix` (empty, or the folder with one trailing slash). */
function joined(path: string, prefix: string): string {
  return prefix === "" ? path : `${path}/${prefix.slice(0, -1)}`;
}
