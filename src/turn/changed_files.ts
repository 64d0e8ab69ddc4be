/**
 * The files a turn changed (pure, no I/O). From what Codex reports: its
 * completed `fileChange` items (absolute paths, parsed by
 * `codex/notifications.ts`) and its latest `turn/diff/updated` (a unified
 * diff of the turn so far, paths relative to the repository's root, or to
 * the cwd outside a repository; a file outside the repository by its
 * absolute path, `a//tmp/x`). Whichever says more: the union, the diff's
 * kind winning for a file both name (it is the turn's net). Neither sees a
 * file a shell command wrote: in a worktree, git's view at the run's end
 * replaces both ({@linkcode parseNameStatus}, `worktree_files.ts`). Paths are
 * listed relative to the run's cwd; one outside it is marked `outside`.
 * @module
 */

import type { ChangedFile } from "../reply/files_schema.ts";
import { type FileChangeRef, parseFileChanges } from "../codex/notifications.ts";

/** How many changed files a result lists (`changedFilesCount` says how many there are). */
export const CHANGED_FILES_MAX = 200;

type Kind = ChangedFile["kind"];

/** The files of one turn, as `FileChanges.list` reports them. */
export interface ChangedFiles {
  changedFiles: ChangedFile[];
  changedFilesCount: number;
}

/**
 * What a second change of a file makes of the first: an added file updated
 * is still added; added then deleted is nothing (`undefined`); deleted then
 * added is updated; otherwise the later change.
 */
export function combineKinds(before: Kind | undefined, after: Kind): Kind | undefined {
  if (before === "add") return after === "delete" ? undefined : "add";
  if (before === "delete" && after === "add") return "update";
  return after;
}

/**
 * The files a unified `git diff` names, with how: `new file mode` is an add,
 * `deleted file mode` a delete, `a/<x> b/<y>` with x ≠ y a move (x deleted,
 * y added), anything else an update.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(parseTurnDiff("diff --git a/x b/x\nnew file mode 100644\n"), [{ path: "x", kind: "add" }]);
 * ```
 */
export function parseTurnDiff(diff: string): ChangedFile[] {
  const out: ChangedFile[] = [];
  const sections = diff.split(/^(?=diff --git )/m).filter((s) => s.startsWith("diff --git "));
  for (const section of sections) {
    const [first, ...lines] = section.split("\n");
    // Stryker disable next-line ArrayDeclaration: a header line no mark or mode starts with is nothing
    const header: string[] = [];
    for (const line of lines) {
      if (line.startsWith("@@")) break;
      header.push(line);
    }
    const [from, to] = headerPaths(first.slice("diff --git ".length), header);
    if (header.some((l) => l.startsWith("new file mode"))) out.push({ path: to, kind: "add" });
    else if (header.some((l) => l.startsWith("deleted file mode"))) {
      out.push({ path: from, kind: "delete" });
    } else if (from !== to) out.push({ path: from, kind: "delete" }, { path: to, kind: "add" });
    else out.push({ path: to, kind: "update" });
  }
  return out;
}

/** The old and new path of one section (its names; its `---`/`+++` lines where they are). */
function headerPaths(names: string, header: readonly string[]): [string, string] {
  const unquote = (p: string) => p.startsWith('"') && p.endsWith('"') ? p.slice(1, -1) : p;
  // `a/<p> b/<p>`: the same path twice (spaces and all).
  const p = (names.length - 5) / 2;
  const path = names.slice(2, 2 + p);
  if (Number.isInteger(p) && names === `a/${path} b/${path}`) return [path, path];
  const marked = (mark: string) => {
    const line = header.find((l) => l.startsWith(mark));
    const p = line === undefined ? undefined : unquote(line.slice(mark.length).trim());
    return p === undefined || p === "/dev/null" ? undefined : p.replace(/^[ab]\//, "");
  };
  // `a/<x> b/<y>`, or both quoted (`"a/<x>" "b/<y>"`: git quotes a name with a tab or a quote);
  // names that do not split are one path.
  const quoted = names.startsWith('"') && names.endsWith('"');
  const split = quoted ? names.indexOf('" "') + 1 : names.indexOf(" b/");
  // Stryker disable next-line EqualityOperator: split is never 0 (a name begins `a/` or `"a/`)
  const [a, b] = split > 0 ? [names.slice(0, split), names.slice(split + 1)] : [names, names];
  // Stryker disable next-line Regex: the names' first half begins `a/` (Codex's diff always has it)
  const from = marked("--- ") ?? unquote(a).replace(/^a\//, "");
  // Stryker disable next-line Regex: the second half begins `b/` (split at " b/"), or is all: `a/`
  const to = marked("+++ ") ?? unquote(b).replace(/^[ab]\//, "");
  return [from, to];
}

/**
 * `path` relative to `cwd` (both absolute, `/`-separated): `sub/x`, or
 * `../x` for a file outside it.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(relativePath("/r/a/x", "/r/b"), "../a/x");
 * ```
 */
export function relativePath(path: string, cwd: string): string {
  const parts = (p: string) => p.split("/").filter((s) => s !== "" && s !== ".");
  const to = parts(path);
  const from = parts(cwd);
  const differ = from.findIndex((segment, i) => segment !== to[i]);
  const common = differ < 0 ? from.length : differ;
  const up = from.slice(common).map(() => "..");
  return [...up, ...to.slice(common)].join("/") || ".";
}

/**
 * What `git diff --name-status -z --no-renames` prints, and
 * `git ls-files -z --others --exclude-standard` (`untracked`): the files, by
 * path relative to the repository's root. `A` and an untracked file are an
 * add, `D` a delete, any other status an update.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(parseNameStatus("M\0a.txt\0D\0b.txt\0", "c.txt\0"), [
 *   { path: "a.txt", kind: "update" },
 *   { path: "b.txt", kind: "delete" },
 *   { path: "c.txt", kind: "add" },
 * ]);
 * ```
 */
export function parseNameStatus(diff: string, untracked: string): ChangedFile[] {
  const out: ChangedFile[] = [];
  const fields = diff.split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [status, path] = [fields[i], fields[i + 1]];
    const kind = status === "A" ? "add" : status === "D" ? "delete" : "update";
    if (path !== "") out.push({ path, kind });
  }
  for (const path of untracked.split("\0")) if (path !== "") out.push({ path, kind: "add" });
  return out;
}

/**
 * The changes of one turn: fed its completed `fileChange` items' files and
 * its latest turn diff (or, in a worktree, git's view at its end), listed
 * relative to a cwd.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const files = new FileChanges();
 * files.changes([{ path: "/r/x", kind: "add" }]);
 * assert.deepEqual(files.list("/r"), {
 *   changedFiles: [{ path: "x", kind: "add" }],
 *   changedFilesCount: 1,
 * });
 * ```
 */
export class FileChanges {
  /** Absolute path → kind, from the items (a file changed twice: the two combined). */
  readonly #items = new Map<string, Kind>();
  /** The latest turn diff's files (paths relative to its root, or absolute). */
  #diff: ChangedFile[] = [];
  /** Git's view at the run's end (absolute paths): when known, the only one. */
  #git: ChangedFile[] | undefined;

  /** A completed `fileChange` item (raw; others, and items that did not complete, change nothing). */
  item(raw: unknown): void {
    this.changes(parseFileChanges(raw));
  }

  /** The files of a completed `fileChange` item. */
  changes(files: readonly FileChangeRef[]): void {
    for (const { path, kind } of files) this.#note(path, kind);
  }

  /** The turn's diff so far (`turn/diff/updated`): it replaces the last one. */
  diff(text: string): void {
    this.#diff = parseTurnDiff(text);
  }

  /** What git says the run changed in its worktree `root` (paths relative to it): replaces the rest. */
  fromGit(root: string, files: readonly ChangedFile[]): void {
    this.#git = files.map(({ path, kind }) => ({ path: `${root}/${path}`, kind }));
  }

  /**
   * The files relative to `cwd`, the first {@linkcode CHANGED_FILES_MAX} by
   * path (one outside `cwd` marked `outside`). The diff's paths are relative
   * to `root` (the repository's root); without it, matched to the items' (an
   * item's path that ends in the diff's tells the root), else taken relative
   * to `cwd`; an absolute one is itself.
   */
  list(cwd: string, root?: string): ChangedFiles {
    const all = this.#git?.map(({ path, kind }) => [path, kind] as const) ??
      this.#merged(cwd, root);
    // By the path listed: one file named twice (`/r/x`, `/r//x`) is one, the later kind its.
    const byPath = new Map<string, ChangedFile>();
    for (const [path, kind] of all) {
      const file = listed(relativePath(path, cwd), kind);
      byPath.set(file.path, file);
    }
    const files = [...byPath.keys()].sort().map((path) => byPath.get(path)!);
    return { changedFiles: files.slice(0, CHANGED_FILES_MAX), changedFilesCount: files.length };
  }

  /** The items' files and the diff's, by absolute path. */
  #merged(cwd: string, root: string | undefined): Map<string, Kind> {
    const all = new Map(this.#items);
    const known = [...this.#items.keys()];
    const match = (path: string) => known.find((p) => p.endsWith(`/${path}`));
    // The diff's root: given, or told by a file both name (never an absolute one), or else the cwd.
    const told = this.#diff.map(({ path }) => [path, match(path)]).find(([, abs]) => abs);
    const base = root ?? (told ? told[1]!.slice(0, -told[0]!.length - 1) : cwd);
    for (const { path, kind } of this.#diff) {
      const abs = path.startsWith("/")
        ? path
        : root === undefined
        ? match(path) ?? `${base}/${path}`
        : `${base}/${path}`;
      all.set(abs, kind);
    }
    return all;
  }

  #note(path: string, kind: Kind): void {
    const next = combineKinds(this.#items.get(path), kind);
    if (next === undefined) this.#items.delete(path);
    else this.#items.set(path, next);
  }
}

/** A listed file: `outside` when its path leaves the cwd. */
function listed(path: string, kind: Kind): ChangedFile {
  return path === ".." || path.startsWith("../") ? { path, kind, outside: true } : { path, kind };
}
