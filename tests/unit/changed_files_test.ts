import assert from "node:assert/strict";
import {
  CHANGED_FILES_MAX,
  combineKinds,
  FileChanges,
  parseNameStatus,
  parseTurnDiff,
  relativePath,
} from "../../src/turn/changed_files.ts";
import { parseFileChanges, parseTurnEvent } from "../../src/codex/notifications.ts";
import { gitChangedFiles } from "../../src/turn/worktree_files.ts";
import type { Git } from "../../src/connect/process/git_runner.ts";

// From the capture (docs/codex-protocol.md, "Files a turn changed"): cwd is <repo>/sub.
const ROOT = "/tmp/codex-e2e-8ef115d7487bd845/workspace";
const CWD = `${ROOT}/sub`;
const ITEM = {
  type: "fileChange",
  id: "call_sh_1",
  changes: [
    { path: `${ROOT}/old.txt`, kind: { type: "update", move_path: null }, diff: "@@ -1 +1 @@" },
    { path: `${CWD}/gone.txt`, kind: { type: "delete" }, diff: "x\n" },
    { path: `${CWD}/hello.txt`, kind: { type: "add" }, diff: "hi\n" },
  ],
  status: "completed",
};
const DIFF =
  "diff --git a/old.txt b/old.txt\nindex 3367afd..3e75765\n--- a/old.txt\n+++ b/old.txt\n" +
  "@@ -1 +1 @@\n-old\n+new\ndiff --git a/sub/gone.txt b/sub/gone.txt\ndeleted file mode 100644\n" +
  "index 587be6b..0000000\n--- a/sub/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" +
  "diff --git a/sub/hello.txt b/sub/hello.txt\nnew file mode 100644\nindex 0000000..45b983b\n" +
  "--- /dev/null\n+++ b/sub/hello.txt\n@@ -0,0 +1 @@\n+hi\n";
const WANT = [
  { path: "../old.txt", kind: "update", outside: true },
  { path: "gone.txt", kind: "delete" },
  { path: "hello.txt", kind: "add" },
];

Deno.test("changedFiles: a patch's item lists each file relative to the run's cwd", () => {
  const files = new FileChanges();
  files.item(ITEM);
  assert.deepEqual(files.list(CWD), { changedFiles: WANT, changedFilesCount: 3 });
});

Deno.test("changedFiles: the turn diff alone (its paths from the repository's root) names the same files", () => {
  const files = new FileChanges();
  files.diff(DIFF);
  assert.deepEqual(files.list(CWD, ROOT).changedFiles, WANT);
  // Both: the diff's paths are matched to the items' without knowing the root.
  files.item(ITEM);
  assert.deepEqual(files.list(CWD), { changedFiles: WANT, changedFilesCount: 3 });
});

Deno.test("changedFiles: an item that did not complete, or another item, changes nothing", () => {
  const files = new FileChanges();
  files.item({ ...ITEM, status: "inProgress" });
  files.item({ ...ITEM, status: "declined" });
  files.item({ type: "commandExecution", command: "echo hi > f", status: "completed" });
  files.item(null);
  files.item({ type: "fileChange", status: "completed", changes: [{ path: 1 }, null] });
  assert.deepEqual(files.list(CWD), { changedFiles: [], changedFilesCount: 0 });
});

Deno.test("changedFiles: a move is the old path deleted and the new one added (item and diff)", () => {
  const files = new FileChanges();
  files.item({
    type: "fileChange",
    status: "completed",
    changes: [{ path: `${ROOT}/old.txt`, kind: { type: "update", move_path: `${CWD}/moved.txt` } }],
  });
  const want = [
    { path: "../old.txt", kind: "delete", outside: true },
    { path: "moved.txt", kind: "add" },
  ];
  assert.deepEqual(files.list(CWD).changedFiles, want);
  const diff =
    "diff --git a/old.txt b/sub/moved.txt\nindex 1..2\n--- a/old.txt\n+++ b/sub/moved.txt\n";
  assert.deepEqual(parseTurnDiff(diff), [
    { path: "old.txt", kind: "delete" },
    { path: "sub/moved.txt", kind: "add" },
  ]);
});

Deno.test("changedFiles: two changes of one file combine; the diff's kind (the turn's net) wins", () => {
  assert.equal(combineKinds("add", "update"), "add");
  assert.equal(combineKinds("add", "delete"), undefined);
  assert.equal(combineKinds("delete", "add"), "update");
  assert.equal(combineKinds("update", "delete"), "delete");
  assert.equal(combineKinds(undefined, "update"), "update");
  const files = new FileChanges();
  const one = (type: string) => ({
    type: "fileChange",
    status: "completed",
    changes: [{ path: `${CWD}/t.txt`, kind: { type } }],
  });
  files.item(one("add"));
  files.item(one("delete"));
  assert.deepEqual(files.list(CWD).changedFiles, [], "added then deleted: nothing");
  files.item(one("update"));
  files.diff("diff --git a/sub/t.txt b/sub/t.txt\nnew file mode 100644\n");
  assert.deepEqual(files.list(CWD).changedFiles, [{ path: "t.txt", kind: "add" }]);
});

Deno.test("changedFiles: a later turn diff replaces the earlier; paths with spaces are read whole", () => {
  const files = new FileChanges();
  files.diff("diff --git a/a b/a\n");
  files.diff("diff --git a/my file.txt b/my file.txt\nindex 1..2\n");
  assert.deepEqual(files.list("/r").changedFiles, [{ path: "my file.txt", kind: "update" }]);
});

Deno.test(`changedFiles: at most ${CHANGED_FILES_MAX} listed, by path, with the count of all`, () => {
  const files = new FileChanges();
  const changes = Array.from({ length: 250 }, (_, i) => ({
    path: `/r/f${String(i).padStart(3, "0")}`,
    kind: { type: "add" },
  }));
  files.item({ type: "fileChange", status: "completed", changes: changes.reverse() });
  const listed = files.list("/r");
  assert.equal(listed.changedFilesCount, 250);
  assert.equal(listed.changedFiles.length, CHANGED_FILES_MAX);
  assert.equal(listed.changedFiles[0].path, "f000");
  assert.equal(listed.changedFiles.at(-1)!.path, "f199");
});

Deno.test("relativePath: inside, outside and the cwd itself", () => {
  assert.equal(relativePath("/r/a/x", "/r/b"), "../a/x");
  assert.equal(relativePath("/r/b/x", "/r/b/"), "x");
  assert.equal(relativePath("/r/b", "/r/b"), ".");
});

Deno.test("changedFiles: a file only the diff names is placed by the root a file both name tells", () => {
  const files = new FileChanges();
  files.item({ ...ITEM, changes: ITEM.changes.slice(2) }); // hello.txt only
  files.diff(DIFF);
  assert.deepEqual(files.list(CWD).changedFiles, WANT);
});

// Captured (0.169.0, docs/codex-protocol.md): a patch adding a file outside the repository and
// one inside it, the run's cwd `<repo>/sub`.
const OUT_ROOT = "/tmp/codex-e2e-8fa99114356a6d71";
const OUT_ITEM = {
  type: "fileChange",
  id: "call_sh_1",
  changes: [
    { path: `${OUT_ROOT}/outside/x.txt`, kind: { type: "add" }, diff: "hi\n" },
    { path: `${OUT_ROOT}/repo/sub/in.txt`, kind: { type: "add" }, diff: "in\n" },
  ],
  status: "completed",
};
const OUT_DIFF = `diff --git a/${OUT_ROOT}/outside/x.txt b/${OUT_ROOT}/outside/x.txt\n` +
  "new file mode 100644\nindex 0000000..45b983b\n--- /dev/null\n" +
  `+++ b/${OUT_ROOT}/outside/x.txt\n@@ -0,0 +1 @@\n+hi\n` +
  "diff --git a/sub/in.txt b/sub/in.txt\nnew file mode 100644\nindex 0000000..4935e88\n" +
  "--- /dev/null\n+++ b/sub/in.txt\n@@ -0,0 +1 @@\n+in\n";
const OUT_WANT = [
  { path: "../../outside/x.txt", kind: "add", outside: true },
  { path: "in.txt", kind: "add" },
];

Deno.test("changedFiles: a file outside the repository is listed once, outside, never as a path under cwd", () => {
  const cwd = `${OUT_ROOT}/repo/sub`;
  for (const feed of ["both", "diff first", "diff only"]) {
    const files = new FileChanges();
    if (feed === "diff first" || feed === "diff only") files.diff(OUT_DIFF);
    if (feed !== "diff only") files.item(OUT_ITEM);
    if (feed === "both") files.diff(OUT_DIFF);
    const root = feed === "diff only" ? `${OUT_ROOT}/repo` : undefined;
    assert.deepEqual(files.list(cwd, root), { changedFiles: OUT_WANT, changedFilesCount: 2 }, feed);
    assert.deepEqual(files.list(cwd, `${OUT_ROOT}/repo`).changedFiles, OUT_WANT, `${feed}, root`);
  }
  assert.deepEqual(parseTurnDiff(OUT_DIFF)[0], { path: `${OUT_ROOT}/outside/x.txt`, kind: "add" });
});

Deno.test("changedFiles: outside is a path that leaves cwd, not one that starts with dots", () => {
  const files = new FileChanges();
  files.changes([
    { path: "/r/c/..x", kind: "add" },
    { path: "/r/c/...", kind: "add" },
    { path: "/r", kind: "delete" },
    { path: "/r/c", kind: "update" },
  ]);
  assert.deepEqual(files.list("/r/c").changedFiles, [
    { path: ".", kind: "update" },
    { path: "..", kind: "delete", outside: true },
    { path: "...", kind: "add" },
    { path: "..x", kind: "add" },
  ]);
});

Deno.test("parseFileChanges: a completed fileChange item's files, a move as a delete and an add; anything else none", () => {
  assert.deepEqual(parseFileChanges(OUT_ITEM), [
    { path: `${OUT_ROOT}/outside/x.txt`, kind: "add" },
    { path: `${OUT_ROOT}/repo/sub/in.txt`, kind: "add" },
  ]);
  const one = (kind: unknown, path: unknown = "/r/a") =>
    parseFileChanges({ type: "fileChange", status: "completed", changes: [{ path, kind }] });
  assert.deepEqual(one({ type: "update", move_path: "/r/b" }), [
    { path: "/r/a", kind: "delete" },
    { path: "/r/b", kind: "add" },
  ]);
  assert.deepEqual(one({ type: "update", move_path: "" }), [{ path: "/r/a", kind: "update" }]);
  assert.deepEqual(one({ type: "update", move_path: null }), [{ path: "/r/a", kind: "update" }]);
  assert.deepEqual(one({ type: "delete" }), [{ path: "/r/a", kind: "delete" }]);
  assert.deepEqual(one({ type: "rename" }), [], "an unknown kind");
  assert.deepEqual(one({ type: 1 }), []);
  assert.deepEqual(one(null), []);
  assert.deepEqual(one({ type: "add" }, 7), []);
  assert.deepEqual(parseFileChanges({ ...OUT_ITEM, status: "inProgress" }), []);
  assert.deepEqual(parseFileChanges({ ...OUT_ITEM, type: "commandExecution" }), []);
  assert.deepEqual(parseFileChanges({ ...OUT_ITEM, changes: "x" }), []);
  assert.deepEqual(parseFileChanges(null), []);
  const started = parseTurnEvent("item/started", { threadId: "t", turnId: "u", item: OUT_ITEM });
  assert.deepEqual(started?.kind === "item" && started.item.changes, [], "only a completed item");
});

Deno.test("parseTurnEvent: turn/diff/updated is the turn's diff; without a diff it is nothing", () => {
  assert.deepEqual(parseTurnEvent("turn/diff/updated", { threadId: "t", turnId: "u", diff: "d" }), {
    kind: "turnDiff",
    threadId: "t",
    turnId: "u",
    diff: "d",
  });
  assert.deepEqual(parseTurnEvent("turn/diff/updated", { threadId: "t", diff: "d" }), {
    kind: "turnDiff",
    threadId: "t",
    turnId: null,
    diff: "d",
  });
  assert.equal(parseTurnEvent("turn/diff/updated", { threadId: "t", turnId: "u" }), undefined);
});

Deno.test("changedFiles in a worktree: git's view replaces Codex's, relative to cwd, outside marked", () => {
  const files = new FileChanges();
  files.item(ITEM);
  files.diff(DIFF);
  files.fromGit(`${ROOT}/`, parseNameStatus("M\0old.txt\0D\0sub/gone.txt\0", "sub/shell.txt\0"));
  assert.deepEqual(files.list(CWD, ROOT), {
    changedFiles: [
      { path: "../old.txt", kind: "update", outside: true },
      { path: "gone.txt", kind: "delete" },
      { path: "shell.txt", kind: "add" },
    ],
    changedFilesCount: 3,
  });
  files.fromGit(ROOT, []);
  assert.deepEqual(files.list(CWD, ROOT).changedFiles, [], "git saw nothing changed");
});

Deno.test("parseNameStatus: A and untracked files are adds, D a delete, the rest updates; names whole", () => {
  assert.deepEqual(parseNameStatus("A\0a b\0D\0d\0M\0m\0T\0t\0", "u 1\0sub/u2\0"), [
    { path: "a b", kind: "add" },
    { path: "d", kind: "delete" },
    { path: "m", kind: "update" },
    { path: "t", kind: "update" },
    { path: "u 1", kind: "add" },
    { path: "sub/u2", kind: "add" },
  ]);
  assert.deepEqual(parseNameStatus("", ""), []);
  assert.deepEqual(parseNameStatus("M\0", ""), [], "a status without its path");
});

Deno.test("gitChangedFiles: the diff against base and the untracked files, read-only in the worktree; undefined when git cannot tell", async () => {
  const calls: string[] = [];
  const fake = (diff: number, others: number): Git => async (args, cwd) => {
    calls.push(`${cwd}: ${args.join(" ")}`);
    await Promise.resolve();
    const ls = args.includes("ls-files");
    return ls
      ? { code: others, stdout: "new.txt\0", stderr: "" }
      : { code: diff, stdout: "M\0a.txt\0", stderr: "" };
  };
  assert.deepEqual(await gitChangedFiles(fake(0, 0), "/w/j", "abc"), [
    { path: "a.txt", kind: "update" },
    { path: "new.txt", kind: "add" },
  ]);
  assert.deepEqual(calls, [
    "/w/j: --no-optional-locks diff --name-status -z --no-renames --no-ext-diff abc --",
    "/w/j: --no-optional-locks ls-files -z --others --exclude-standard",
  ]);
  assert.equal(await gitChangedFiles(fake(128, 0), "/w/j", "abc"), undefined);
  assert.equal(await gitChangedFiles(fake(0, 128), "/w/j", "abc"), undefined);
});

Deno.test("parseTurnDiff: the names, the ---/+++ lines where the names are ambiguous, quoted or not, and the header only", () => {
  const parse = (diff: string) => parseTurnDiff(diff).map((f) => `${f.kind} ${f.path}`);
  // Text before the first section, and "diff --git" inside a line of a hunk, start no section.
  assert.deepEqual(
    parse(
      "preamble\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+see diff --git a/q b/q\n",
    ),
    ["update x"],
  );
  // A path with " b/" in it, named twice (a mode change: no ---/+++ lines).
  assert.deepEqual(parse("diff --git a/x b/y b/x b/y\nold mode 100644\nnew mode 100755\n"), [
    "update x b/y",
  ]);
  // A rename without ---/+++ lines: the names split at " b/".
  assert.deepEqual(
    parse("diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n"),
    [
      "delete x",
      "add y",
    ],
  );
  // Ambiguous names: the ---/+++ lines tell.
  assert.deepEqual(parse("diff --git a/a b/c b/d\n--- a/a b/c\t\n+++ b/d \n"), [
    "delete a b/c",
    "add d",
  ]);
  // Quoted names without ---/+++ lines (a mode change, a rename): both quoted, or one of them;
  // names that do not split are one path.
  assert.deepEqual(parse('diff --git "a/x\\ty" "b/x\\tz"\nold mode 100644\nnew mode 100755\n'), [
    "delete x\\ty",
    "add x\\tz",
  ]);
  assert.deepEqual(parse('diff --git "a/x\\ty" b/y\nrename from x\nrename to y\n'), [
    "delete x\\ty",
    "add y",
  ]);
  assert.deepEqual(parse("diff --git a/x\nold mode 100644\nnew mode 100755\n"), ["update x"]);
  assert.deepEqual(parse('diff --git a/x b/y"\nrename from x\nrename to y\n'), [
    "delete x",
    'add y"',
  ]);
  // Quoted, and a quote at one end only is part of the name.
  assert.deepEqual(parse('diff --git "a/x\\ty" "b/z"\n--- "a/x\\ty"\n+++ "b/z"\n'), [
    "delete x\\ty",
    "add z",
  ]);
  assert.deepEqual(parse('diff --git a/p b/q\n--- "a/p\n+++ b/q"\n'), ['delete "a/p', 'add q"']);
  // A /dev/null side is no path: the names tell it.
  assert.deepEqual(parse("diff --git a/x b/y\n--- /dev/null\n+++ b/y\n"), ["delete x", "add y"]);
  // Only an a/ or b/ prefix is taken off a ---/+++ path.
  assert.deepEqual(parse("diff --git a/m b/n\n--- old/a/x\n+++ new/b/y\n"), [
    "delete old/a/x",
    "add new/b/y",
  ]);
  // The header ends at the first hunk (with its function context): what follows is content.
  assert.deepEqual(parse("diff --git a/x b/y\n@@ -1 +1 @@ fn\n--- q\n+++ r\n"), [
    "delete x",
    "add y",
  ]);
});

Deno.test("changedFiles: a deleted file deleted again is deleted; a diff's file an item names is that file; the root, when known, places the diff's", () => {
  assert.equal(combineKinds("delete", "delete"), "delete");
  const told = new FileChanges();
  told.changes([{ path: "/r/x.txt", kind: "update" }, { path: "/q/y.txt", kind: "update" }]);
  told.diff("diff --git a/x.txt b/x.txt\nindex 1..2\ndiff --git a/y.txt b/y.txt\nindex 1..2\n");
  assert.deepEqual(told.list("/r").changedFiles, [
    { path: "../q/y.txt", kind: "update", outside: true },
    { path: "x.txt", kind: "update" },
  ]);
  const rooted = new FileChanges();
  rooted.changes([{ path: "/r/sub/x.txt", kind: "add" }]);
  rooted.diff("diff --git a/x.txt b/x.txt\nindex 1..2\n");
  assert.deepEqual(rooted.list("/r", "/r").changedFiles, [
    { path: "sub/x.txt", kind: "add" },
    { path: "x.txt", kind: "update" },
  ]);
  // One file named twice (a root with a trailing slash) is one, the diff's kind its.
  const twice = new FileChanges();
  twice.changes([{ path: "/r/x.txt", kind: "add" }]);
  twice.diff("diff --git a/x.txt b/x.txt\nindex 1..2\n");
  assert.deepEqual(twice.list("/r", "/r/").changedFiles, [{ path: "x.txt", kind: "update" }]);
});

Deno.test("changedFiles: listed by path whatever the order they came in", () => {
  const files = new FileChanges();
  files.changes(["/r/b", "/r/a/z", "/r/c", "/r/a"].map((path) => ({ path, kind: "add" as const })));
  assert.deepEqual(files.list("/r").changedFiles.map((f) => f.path), ["a", "a/z", "b", "c"]);
});

Deno.test("relativePath: a `.` segment is no folder; a parent of cwd is `..`", () => {
  assert.equal(relativePath("/r/./x", "/r"), "x");
  assert.equal(relativePath("/r", "/r/b/c"), "../..");
  assert.equal(relativePath("/a/x", "/b"), "../a/x");
});

Deno.test("parseFileChanges: a change without a type is none, a move too; changes that are no list are none", () => {
  const item = (changes: unknown) => ({ type: "fileChange", status: "completed", changes });
  assert.deepEqual(parseFileChanges(item([{ path: "/r/a", kind: { move_path: "/r/b" } }])), []);
  assert.deepEqual(parseFileChanges(item({ path: "/r/a" })), []);
  assert.deepEqual(parseFileChanges(item(5)), []);
});
