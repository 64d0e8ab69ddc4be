import assert from "node:assert/strict";
import {
  derivedName,
  listedWorktrees,
  nameProblem,
  parseRecords,
  recordFile,
  recordWrites,
  worktreesRoot,
} from "../../src/ops/worktree_record.ts";

Deno.test("worktree names: letters, digits, - and _, 1-48, never a path", () => {
  for (const ok of ["a", "fix-login", "A_1", "x".repeat(48)]) {
    assert.equal(nameProblem(ok), undefined);
  }
  for (const bad of ["", "-a", "../x", "a/b", "a b", "a.b", "x".repeat(49)]) {
    assert.match(nameProblem(bad)!, /must be 1-48 letters/);
  }
  const derived = derivedName(new Date("2026-12-03T13:50:07Z"), "a1b2");
  assert.equal(derived, "run-20261203-135007-a1b2");
  assert.equal(nameProblem(derived), undefined);
});

Deno.test("worktreesRoot: under CODEX_HOME, else ~/.codex; none without either", () => {
  assert.equal(worktreesRoot({ CODEX_HOME: "/c/", HOME: "/h" }), "/c/worktrees/codex-relay");
  assert.equal(worktreesRoot({ HOME: "/home/u" }), "/home/u/.codex/worktrees/codex-relay");
  assert.equal(worktreesRoot({}), undefined);
  assert.equal(recordFile("/r"), "/r/relay-worktrees.gitconfig");
});

Deno.test("the record: written field by field with git config, read back whole; incomplete ones left out", () => {
  const rec = { name: "a", repository: "/repo", path: "/w/a", branch: "codex/a", base: "abc" };
  const writes = recordWrites("/w/f", rec);
  assert.deepEqual(writes[0], ["config", "--file", "/w/f", "worktree.a.repository", "/repo"]);
  const output = writes.map((w) => `${w[3]}\n${w[4]}`).join("\0") + "\0worktree.b.path\n/w/b\0" +
    "worktree.c.d.path\n/w/odd\0other.x.y\nz\0";
  assert.deepEqual(parseRecords(output), [rec]);
  assert.deepEqual(parseRecords(""), []);
});

Deno.test("listedWorktrees reads git worktree list --porcelain: path and branch, or null when detached", () => {
  const porcelain = "worktree /repo\nHEAD abc\nbranch refs/heads/main\n\n" +
    "worktree /w/a\nHEAD def\nbranch refs/heads/codex/a\n\nworktree /w/d\nHEAD 123\ndetached\n";
  assert.deepEqual(
    [...listedWorktrees(porcelain)],
    [["/repo", "main"], ["/w/a", "codex/a"], ["/w/d", null]],
  );
});
