/**
 * The record of the worktrees this relay made (pure, no I/O): a git config
 * file (`git config --file`, written only by git) with one section per
 * worktree, `[worktree "<name>"]` with `repository`, `path`, `branch` and
 * `base`. The relay tells its own worktrees apart by this record, never by a
 * name pattern alone. Also: the names a worktree may have, and where it goes.
 * @module
 */

/** One worktree this relay made. */
export interface WorktreeRecord {
  name: string;
  /** The main working tree of the repository it was made from. */
  repository: string;
  path: string;
  branch: string;
  /** The commit its branch started from. */
  base: string;
  /** The folder the run's thread works in (in `path`; the same folder of it as the run's cwd). */
  cwd?: string;
}

/** What a worktree's name may be: it names the folder and the branch `codex/<name>`. */
export const WORKTREE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,47}$/;

/** The fields of a record, in the order they are written. */
const FIELDS = ["repository", "path", "branch", "base"] as const;

/** The fields a record is read with (`cwd` is optional: records of older versions lack it). */
const KEPT = [...FIELDS, "cwd"] as const;

/**
 * Why `name` cannot name a worktree, or undefined.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(nameProblem("fix-login"), undefined);
 * ```
 */
export function nameProblem(name: string): string | undefined {
  if (WORKTREE_NAME.test(name)) return undefined;
  return `worktree name "${name}" must be 1-48 letters, digits, "-" or "_", starting with a letter or digit`;
}

/**
 * A name for a worktree made without one: the time and a random suffix.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(derivedName(new Date("2026-12-03T13:50:00Z"), "a1b2"), "run-20261203-135000-a1b2");
 * ```
 */
export function derivedName(at: Date, suffix: string): string {
  const stamp = at.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `run-${stamp}-${suffix}`;
}

/** The `git config` arguments that write `record` into the file `file` (one call per field). */
export function recordWrites(file: string, record: WorktreeRecord): string[][] {
  const fields = record.cwd === undefined ? FIELDS : [...FIELDS, "cwd" as const];
  return fields.map((f) => ["config", "--file", file, `worktree.${record.name}.${f}`, record[f]!]);
}

/**
 * The `git config` arguments of a make's claim on `name`: `add` appends its
 * `token` to the name's makers (under git's lock of the file, so appends are
 * ordered), `makers` reads them (the first one owns the name), `drop` takes
 * back this make's own.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(claimArgs("/r/f", "a", "t1").add, [
 *   "config", "--file", "/r/f", "--add", "worktree.a.maker", "t1",
 * ]);
 * ```
 */
export function claimArgs(
  file: string,
  name: string,
  token: string,
): { add: string[]; makers: string[]; drop: string[] } {
  const key = `worktree.${name}.maker`;
  return {
    add: ["config", "--file", file, "--add", key, token],
    makers: ["config", "--file", file, "--get-all", key],
    drop: ["config", "--file", file, "--fixed-value", "--unset", key, token],
  };
}

/**
 * Whether git's words say another process held the lock of a file it writes
 * (the record, `<file>.lock`): a wait and a retry may succeed.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.ok(lockedOut("error: could not lock config file /r/f: File exists"));
 * ```
 */
export function lockedOut(stderr: string): boolean {
  return /could not lock config file .*: File exists/.test(stderr);
}

/**
 * Whether `git worktree add` failed on another add in the same repository at
 * the same moment (it read that one's half-written entry, or met its lock):
 * a second try may succeed.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.ok(addRaced("fatal: failed to read .git/worktrees/a/commondir: Success"));
 * ```
 */
export function addRaced(stderr: string): boolean {
  return /failed to read .*worktrees\/|Unable to create '.*\.lock'/.test(stderr);
}

/**
 * The waits (ms) between the tries of a write whose lock another process
 * holds: doubling from 10 ms, about 2 s in all, then `worktree_locked`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(lockWaits().length, 14);
 * ```
 */
export function lockWaits(): number[] {
  return [10, 20, 40, 80, 160, 160, 160, 160, 160, 160, 160, 160, 160, 160];
}

/**
 * The records in `git config --file <file> --null --get-regexp ^worktree\.`
 * output (`key\nvalue\0` entries); incomplete ones are left out.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(parseRecords("worktree.a.path\n/w/a\0"), []); // A record has four fields.
 * ```
 */
export function parseRecords(output: string): WorktreeRecord[] {
  const byName = new Map<string, Partial<WorktreeRecord>>();
  for (const entry of output.split("\0")) {
    const nl = entry.indexOf("\n");
    // Stryker disable next-line EqualityOperator: an entry starting with a newline has an empty key, which the key's pattern refuses anyway
    if (nl < 0) continue;
    const m = /^worktree\.(.+)\.([a-z]+)$/.exec(entry.slice(0, nl));
    if (!m || !(KEPT as readonly string[]).includes(m[2])) continue;
    const rec = byName.get(m[1]) ?? { name: m[1] };
    (rec as Record<string, string>)[m[2]] = entry.slice(nl + 1);
    byName.set(m[1], rec);
  }
  return [...byName.values()].filter((r): r is WorktreeRecord =>
    FIELDS.every((f) => typeof r[f] === "string")
  );
}

/**
 * The folder of this relay's worktrees: `<CODEX_HOME>/worktrees/codex-relay`
 * (CODEX_HOME defaults to `~/.codex`), beside the worktrees Codex's own app
 * keeps under `<CODEX_HOME>/worktrees`, outside the user's tree.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(worktreesRoot({ HOME: "/home/u" }), "/home/u/.codex/worktrees/codex-relay");
 * ```
 */
export function worktreesRoot(env: { CODEX_HOME?: string; HOME?: string }): string | undefined {
  const home = env.CODEX_HOME || (env.HOME ? `${env.HOME.replace(/\/+$/, "")}/.codex` : undefined);
  return home === undefined ? undefined : `${home.replace(/\/+$/, "")}/worktrees/codex-relay`;
}

/** The record file in `root`. */
export function recordFile(root: string): string {
  return `${root}/relay-worktrees.gitconfig`;
}

/**
 * What makes the folder `root` when it does not exist (the relay writes no
 * file itself, and `git config --file` makes no folder): an empty bare
 * repository in it, `git init` making the folders it needs.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(rootMaker("/h/w"), ["init", "--quiet", "--bare", "/h/w/.codex-relay.git"]);
 * ```
 */
export function rootMaker(root: string): string[] {
  return ["init", "--quiet", "--bare", `${root}/.codex-relay.git`];
}

/**
 * The paths of `git worktree list --porcelain` output with the branch each
 * has checked out (null when detached).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(listedWorktrees("worktree /r\nbranch refs/heads/main\n"), new Map([["/r", "main"]]));
 * ```
 */
export function listedWorktrees(porcelain: string): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const block of porcelain.split("\n\n")) {
    // `(.+)` ends at the line's end: `.` never crosses it.
    const path = /^worktree (.+)/m.exec(block)?.[1];
    if (path === undefined) continue;
    out.set(path, /^branch refs\/heads\/(.+)/m.exec(block)?.[1] ?? null);
  }
  return out;
}

/**
 * The paths in `git worktree list --porcelain` output whose folder is gone
 * (git marks them `prunable`): nothing is left in them to lose.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const gone = goneWorktrees("worktree /w\nprunable gitdir file points to non-existent location\n");
 * assert.deepEqual(gone, new Set(["/w"]));
 * ```
 */
export function goneWorktrees(porcelain: string): Set<string> {
  const out = new Set<string>();
  for (const block of porcelain.split("\n\n")) {
    // `(.+)` ends at the line's end: `.` never crosses it.
    const path = /^worktree (.+)/m.exec(block)?.[1];
    if (path !== undefined && /^prunable/m.test(block)) out.add(path);
  }
  return out;
}
