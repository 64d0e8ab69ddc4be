import assert from "node:assert/strict";
import {
  addRaced,
  claimArgs,
  derivedName,
  goneWorktrees,
  listedWorktrees,
  lockedOut,
  lockWaits,
  nameProblem,
  parseRecords,
  recordFile,
  recordWrites,
  rootMaker,
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

Deno.test("the record: the run's folder (cwd) is written last and read back; a maker is no field", () => {
  const rec = {
    name: "a",
    repository: "/r",
    path: "/w/a",
    branch: "codex/a",
    base: "b",
    cwd: "/w/a/s",
  };
  const writes = recordWrites("/w/f", rec);
  assert.equal(writes.length, 5);
  assert.deepEqual(writes[4], ["config", "--file", "/w/f", "worktree.a.cwd", "/w/a/s"]);
  const output = ["worktree.a.maker\nt1", ...writes.map((w) => `${w[3]}\n${w[4]}`)].join("\0");
  assert.deepEqual(parseRecords(output), [rec]);
});

Deno.test("a make's claim: appended under git's lock, the makers read in order, its own taken back", () => {
  assert.deepEqual(claimArgs("/w/f", "a", "t1"), {
    add: ["config", "--file", "/w/f", "--add", "worktree.a.maker", "t1"],
    makers: ["config", "--file", "/w/f", "--get-all", "worktree.a.maker"],
    drop: ["config", "--file", "/w/f", "--fixed-value", "--unset", "worktree.a.maker", "t1"],
  });
  assert.deepEqual(rootMaker("/h/w"), ["init", "--quiet", "--bare", "/h/w/.codex-relay.git"]);
});

Deno.test("lock contention and a concurrent add are told apart from other failures", () => {
  assert.equal(lockedOut("error: could not lock config file /w/f: File exists"), true);
  assert.equal(
    lockedOut("error: could not lock config file /w/f: No such file or directory"),
    false,
  );
  assert.equal(lockedOut("error: invalid key"), false);
  assert.equal(addRaced("fatal: failed to read .git/worktrees/a/commondir: Success"), true);
  assert.equal(
    addRaced("fatal: Unable to create '/r/.git/worktrees/a/index.lock': File exists."),
    true,
  );
  assert.equal(addRaced("fatal: '/w/a' already exists"), false);
  assert.equal(addRaced("fatal: failed to read object"), false);
  const waits = lockWaits();
  assert.equal(waits[0], 10);
  assert.ok(waits.every((w, i) => i === 0 || w >= waits[i - 1]), "never shorter");
  const total = waits.reduce((a, b) => a + b, 0);
  assert.ok(total >= 1_500 && total <= 2_000, `about 2 s with jitter: ${total}`);
});

Deno.test("goneWorktrees: the worktrees git marks prunable (their folder is gone)", () => {
  const porcelain = "worktree /repo\nHEAD abc\nbranch refs/heads/main\n\n" +
    "worktree /w/a\nHEAD def\nbranch refs/heads/codex/a\nprunable gitdir file points to non-existent location\n\n" +
    "worktree /w/b\nHEAD 123\nbranch refs/heads/codex/b\n\nno worktree line\nprunable x\n";
  assert.deepEqual([...goneWorktrees(porcelain)], ["/w/a"]);
});

Deno.test("the record's reader: only whole `worktree.<name>.<field>` keys, each with its value", () => {
  const full = (name: string, skip = "") =>
    ["repository", "path", "branch", "base"].filter((f) => f !== skip)
      .map((f) => `worktree.${name}.${f}\n/${f}`);
  const output = [
    ...full("a", "path"),
    "worktree.a.pathX", // no newline: no value, not a path
    ...full("b", "path"),
    "xworktree.b.path\n/not-b", // not a worktree key
    ...full("c", "path"),
    "worktree.c.path9\n/not-c", // not a field
  ].join("\0");
  assert.deepEqual(parseRecords(output), []);
});

Deno.test("worktreesRoot: trailing slashes of CODEX_HOME and HOME are dropped", () => {
  assert.equal(worktreesRoot({ HOME: "/home/u//" }), "/home/u/.codex/worktrees/codex-relay");
  assert.equal(worktreesRoot({ CODEX_HOME: "/c//" }), "/c/worktrees/codex-relay");
});

Deno.test("git's worktree list: a block without a worktree line, or words mid-line, are not read as paths", () => {
  const porcelain = "worktree /w/a\nHEAD 1\nlocked the branch refs/heads/x was here\n\n" +
    "HEAD 2\nnote: worktree /w/odd\n\nworktree /w/b\nlocked not prunable\n";
  assert.deepEqual([...listedWorktrees(porcelain)], [["/w/a", null], ["/w/b", null]]);
  assert.deepEqual([...goneWorktrees(porcelain)], []);
});
