import assert from "node:assert/strict";
import {
  CHANGED_FILES_MAX,
  combineKinds,
  FileChanges,
  parseTurnDiff,
  relativePath,
} from "../../src/turn/changed_files.ts";

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
  { path: "../old.txt", kind: "update" },
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
  const want = [{ path: "../old.txt", kind: "delete" }, { path: "moved.txt", kind: "add" }];
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
