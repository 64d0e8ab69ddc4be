/**
 * The files a turn changed, from what Codex reports (pure, no I/O): its
 * completed `fileChange` items (absolute paths; a move is an update with
 * `move_path`) and its latest `turn/diff/updated` (a unified diff of the turn
 * so far, paths relative to the repository's root, or to the cwd outside a
 * repository). Whichever says more: the union, the diff's kind winning for a
 * file both name (it is the turn's net). Neither sees a file a shell command
 * wrote. Paths are listed relative to the run's cwd.
 * @module
 */

import type { ChangedFile } from "../reply/files_schema.ts";

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
    const lines = section.split("\n");
    const header: string[] = [];
    for (const line of lines.slice(1)) {
      if (line.startsWith("@@")) break;
      header.push(line);
    }
    const [from, to] = headerPaths(lines[0].slice("diff --git ".length), header);
    if (header.some((l) => l.startsWith("new file mode"))) out.push({ path: to, kind: "add" });
    else if (header.some((l) => l.startsWith("deleted file mode"))) {
      out.push({ path: from, kind: "delete" });
    } else if (from !== to) out.push({ path: from, kind: "delete" }, { path: to, kind: "add" });
    else out.push({ path: to, kind: "update" });
  }
  return out;
}

/** The old and new path of one section (`a/<x> b/<y>`; `---`/`+++` lines where ambiguous). */
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
  const split = names.indexOf(" b/");
  const a = split < 0 ? names : names.slice(0, split);
  const b = split < 0 ? names : names.slice(split + 1);
  const from = marked("--- ") ?? unquote(a).replace(/^a\//, "");
  const to = marked("+++ ") ?? unquote(b).replace(/^b\//, "");
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
  let common = 0;
  while (common < from.length && common < to.length && from[common] === to[common]) common++;
  const up = from.slice(common).map(() => "..");
  return [...up, ...to.slice(common)].join("/") || ".";
}

/**
 * The changes of one turn: fed its completed `fileChange` items and its
 * latest turn diff, listed relative to a cwd.
 *
 * @example
 * ```ts
 * const files = new FileChanges();
 * files.item({ type: "fileChange", status: "completed",
 *   changes: [{ path: "/r/x", kind: { type: "add" } }] });
 * import assert from "assert";
 * assert.deepEqual(files.list("/r"), { changedFiles: [{ path: "x", kind: "add" }], changedFilesCount: 1 });
 * ```
 */
export class FileChanges {
  /** Absolute path → kind, from the items (a file changed twice: the two combined). */
  readonly #items = new Map<string, Kind>();
  /** The latest turn diff's files (paths relative to its root). */
  #diff: ChangedFile[] = [];

  /**
   * One notification of the run's thread: `item/completed` and
   * `turn/diff/updated` of the turn `turnId` count (others' are ignored).
   */
  notification(method: string, raw: unknown, threadId: string, turnId: string | null): void {
    const params = raw as { threadId?: unknown; turnId?: unknown; item?: unknown; diff?: unknown };
    if (turnId === null || params?.threadId !== threadId || params.turnId !== turnId) return;
    if (method === "item/completed") this.item(params.item);
    else if (method === "turn/diff/updated" && typeof params.diff === "string") {
      this.diff(params.diff);
    }
  }

  /** A completed `fileChange` item (others, and items that did not complete, change nothing). */
  item(raw: unknown): void {
    const item = raw as { type?: unknown; status?: unknown; changes?: unknown } | null;
    if (item?.type !== "fileChange" || item.status !== "completed") return;
    if (!Array.isArray(item.changes)) return;
    for (const change of item.changes as { path?: unknown; kind?: unknown }[]) {
      const kind = change?.kind as { type?: unknown; move_path?: unknown } | undefined;
      if (typeof change?.path !== "string" || typeof kind?.type !== "string") continue;
      if (typeof kind.move_path === "string" && kind.move_path !== "") {
        this.#note(change.path, "delete");
        this.#note(kind.move_path, "add");
      } else if (kind.type === "add" || kind.type === "delete" || kind.type === "update") {
        this.#note(change.path, kind.type);
      }
    }
  }

  /** The turn's diff so far (`turn/diff/updated`): it replaces the last one. */
  diff(text: string): void {
    this.#diff = parseTurnDiff(text);
  }

  /**
   * The files relative to `cwd`, the first {@linkcode CHANGED_FILES_MAX} by
   * path. The diff's paths are relative to `root` (the repository's root);
   * without it, matched to the items' (an item's path that ends in the
   * diff's tells the root), else taken relative to `cwd`.
   */
  list(cwd: string, root?: string): ChangedFiles {
    const all = new Map(this.#items);
    const known = [...this.#items.keys()];
    const match = (path: string) => known.find((p) => p.endsWith(`/${path}`));
    // The diff's root: given, or told by a file both name, or else the cwd.
    const told = this.#diff.map(({ path }) => [path, match(path)]).find(([, abs]) => abs);
    const base = trim(root ?? (told ? told[1]!.slice(0, -told[0]!.length - 1) : cwd));
    for (const { path, kind } of this.#diff) {
      all.set(root === undefined ? match(path) ?? `${base}/${path}` : `${base}/${path}`, kind);
    }
    const files = [...all].map(([path, kind]) => ({ path: relativePath(path, cwd), kind }))
      .sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
    return { changedFiles: files.slice(0, CHANGED_FILES_MAX), changedFilesCount: files.length };
  }

  #note(path: string, kind: Kind): void {
    const next = combineKinds(this.#items.get(path), kind);
    if (next === undefined) this.#items.delete(path);
    else this.#items.set(path, next);
  }
}

function trim(dir: string): string {
  return dir.replace(/\/+$/, "");
}
