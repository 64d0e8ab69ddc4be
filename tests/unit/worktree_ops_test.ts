/**
 * Protects: the relay never removes or deletes a worktree, branch or file it did not make, or
 * one in use (issue #45). The worktree operations over an in-memory git (testing/fake_git.ts;
 * tests/integration/worktree_*_test.ts run the same cases on real git): what a make claims,
 * records and takes down again, what a removal refuses and what it deletes, what a list says.
 */
import assert from "node:assert/strict";
import { fakeGit } from "../../testing/fake_git.ts";
import { listWorktrees, makeWorktree, removeWorktree } from "../../src/ops/worktree.ts";
import { RelayError } from "../../src/core/errors.ts";

const ROOT = "/h/worktrees/codex-relay";
const FILE = `${ROOT}/relay-worktrees.gitconfig`;
const WAITS = [1, 1];
const idle = () => false;

/** A fake whose root exists and whose record holds `names` (made at c0, checked out). */
function withMade(...names: string[]) {
  const fake = fakeGit();
  fake.repo.folders.add(ROOT);
  for (const n of names) {
    const path = `${ROOT}/${n}`;
    fake.repo.config.push(
      [`worktree.${n}.repository`, "/repo"],
      [`worktree.${n}.path`, path],
      [`worktree.${n}.branch`, `codex/${n}`],
      [`worktree.${n}.base`, "c0"],
      [`worktree.${n}.cwd`, `${path}/sub`],
    );
    fake.repo.branches.set(`codex/${n}`, { sha: "c0", ahead: 0 });
    fake.repo.worktrees.set(path, { branch: `codex/${n}` });
  }
  return { fake, deps: { git: fake.git, root: ROOT, lockWaits: WAITS } };
}

Deno.test("make: claims the name, records the worktree, then makes the branch and the worktree", async () => {
  const fake = fakeGit();
  const made = await makeWorktree({ git: fake.git, root: ROOT }, "/repo/sub", "n1");
  assert.ok(made.ok, JSON.stringify(made));
  assert.equal(made.cwd, `${ROOT}/n1/sub`);
  assert.deepEqual({ ...made.worktree, howTo: undefined }, {
    name: "n1",
    path: `${ROOT}/n1`,
    branch: "codex/n1",
    base: "c0",
    uncommittedLeftOut: false,
    howTo: undefined,
  });
  const writes = fake.writes();
  assert.equal(
    writes[0],
    `config --file ${FILE} --add worktree.n1.maker ${fake.repo.config[0][1]}`,
  );
  assert.equal(writes[1], `init --quiet --bare ${ROOT}/.codex-relay.git`);
  assert.deepEqual(writes.slice(3), [
    `config --file ${FILE} worktree.n1.repository /repo`,
    `config --file ${FILE} worktree.n1.path ${ROOT}/n1`,
    `config --file ${FILE} worktree.n1.branch codex/n1`,
    `config --file ${FILE} worktree.n1.base c0`,
    `config --file ${FILE} worktree.n1.cwd ${ROOT}/n1/sub`,
    "branch --no-track codex/n1 c0",
    `worktree add --quiet ${ROOT}/n1 codex/n1`,
  ]);
  const listed = await listWorktrees({ git: fake.git, root: ROOT }, idle);
  assert.deepEqual(listed, {
    ok: true,
    worktrees: [{
      name: "n1",
      repository: "/repo",
      path: `${ROOT}/n1`,
      branch: "codex/n1",
      base: "c0",
      active: false,
      uncommittedChanges: false,
    }],
  });
});

Deno.test("make: the user's uncommitted work is said to be left out", async () => {
  const fake = fakeGit();
  fake.repo.userStatus = " M a.txt\n";
  const made = await makeWorktree({ git: fake.git, root: ROOT }, "/repo", "n2");
  assert.equal(made.ok && made.worktree.uncommittedLeftOut, true);
  assert.equal(made.ok && made.cwd, `${ROOT}/n2`);
});

Deno.test("make: a bad name, a branch or record of the name, another make's claim: refused, nothing written", async () => {
  const bad = fakeGit();
  const r0 = await makeWorktree({ git: bad.git, root: ROOT }, "/repo", "../x");
  assert.equal(!r0.ok && r0.reason, "not_allowed");
  assert.deepEqual(bad.calls, []);

  const { fake, deps } = withMade("taken");
  const r1 = await makeWorktree(deps, "/repo", "taken");
  assert.deepEqual(r1, {
    ok: false,
    reason: "worktree_exists",
    message: "the branch codex/taken exists",
  });
  fake.repo.branches.delete("codex/taken");
  const r2 = await makeWorktree(deps, "/repo", "taken");
  assert.deepEqual(r2, {
    ok: false,
    reason: "worktree_exists",
    message: "this relay has a worktree named taken",
  });
  assert.deepEqual(fake.writes(), []);

  // Another relay claimed "other" first: this make takes its own claim back and makes nothing.
  fake.repo.config.push(["worktree.other.maker", "theirs"]);
  const r3 = await makeWorktree(deps, "/repo", "other");
  assert.equal(!r3.ok && r3.reason, "worktree_exists");
  assert.match(!r3.ok ? r3.message : "", /another make of the worktree other is under way/);
  assert.deepEqual(fake.repo.config.filter(([k]) => k.startsWith("worktree.other.")), [
    ["worktree.other.maker", "theirs"],
  ]);
  assert.equal(fake.repo.branches.has("codex/other"), false);
});

Deno.test("make: a branch made meanwhile by someone else is theirs: refused, it and its worktree untouched", async () => {
  const fake = fakeGit((args) =>
    args[0] === "branch"
      ? { code: 128, stdout: "", stderr: "fatal: a branch named 'codex/n3' already exists" }
      : undefined
  );
  fake.repo.folders.add(ROOT);
  fake.repo.branches.set("codex/n3", { sha: "c0", ahead: 0 });
  const deps = { git: fake.git, root: ROOT };
  // The check saw no branch: it appears between the check and the make's own branch step.
  const real = fake.git;
  let checks = 0;
  deps.git = (args, cwd) => {
    if (args[0] === "rev-parse" && args[2] === "--quiet" && checks++ === 0) {
      return Promise.resolve({ code: 1, stdout: "", stderr: "" });
    }
    return real(args, cwd);
  };
  const made = await makeWorktree(deps, "/repo", "n3");
  assert.equal(!made.ok && made.reason, "worktree_exists");
  assert.match(!made.ok ? made.message : "", /already exists/);
  assert.ok(fake.repo.branches.has("codex/n3"), "their branch is kept");
  assert.deepEqual(fake.repo.config, [], "the make's record is taken back");
  assert.ok(!fake.writes().some((w) => /update-ref|worktree remove/.test(w)));
});

Deno.test("make: git cannot add the worktree: the make's own branch (at base, checked out nowhere) and record go", async () => {
  const { fake, deps } = withMade();
  // A worktree git lists at the path is someone else's: refused before anything is made.
  fake.repo.worktrees.set(`${ROOT}/n4`, { branch: "user-branch" });
  const theirs = await makeWorktree(deps, "/repo", "n4");
  assert.deepEqual(theirs, {
    ok: false,
    reason: "worktree_exists",
    message: `git has a worktree at ${ROOT}/n4`,
  });
  assert.ok(fake.repo.worktrees.has(`${ROOT}/n4`));
  assert.equal(fake.repo.branches.has("codex/n4"), false);
  assert.ok(!fake.writes().some((w) => /^(branch|worktree|update-ref)/.test(w)));
  // A folder in the way: git refuses the add; the make takes down its branch and record.
  const blocked = fakeGit((args) =>
    args[0] === "worktree" && args[1] === "add"
      ? { code: 128, stdout: "", stderr: `fatal: '${ROOT}/n5' already exists` }
      : undefined
  );
  const made = await makeWorktree({ git: blocked.git, root: ROOT }, "/repo", "n5");
  assert.equal(!made.ok && made.reason, "worktree_exists");
  assert.equal(!made.ok && made.message, `git worktree: fatal: '${ROOT}/n5' already exists`);
  assert.equal(blocked.repo.branches.has("codex/n5"), false);
  assert.deepEqual(blocked.repo.config, []);
  assert.ok(blocked.writes().includes("update-ref -d refs/heads/codex/n5 c0"));
  assert.ok(!blocked.writes().some((w) => w.startsWith("worktree remove")));
});

Deno.test("make: an add that met another add in the repository is tried again, at most three times", async () => {
  let raced = 0;
  const racing = (times: number) =>
    fakeGit((args) =>
      args[0] === "worktree" && args[1] === "add" && raced++ < times
        ? {
          code: 128,
          stdout: "",
          stderr: "fatal: failed to read .git/worktrees/x/commondir: Success",
        }
        : undefined
    );
  const twice = racing(2);
  const made = await makeWorktree({ git: twice.git, root: ROOT }, "/repo", "n5");
  assert.ok(made.ok, JSON.stringify(made));
  raced = 0;
  const thrice = racing(3);
  const lost = await makeWorktree({ git: thrice.git, root: ROOT }, "/repo", "n6");
  assert.equal(!lost.ok && lost.reason, "worktree_exists");
  assert.match(!lost.ok ? lost.message : "", /failed to read/);
  assert.equal(thrice.calls.filter((c) => c[2] === "worktree" && c[3] === "add").length, 3);
  assert.equal(thrice.repo.branches.has("codex/n6"), false);
});

Deno.test("make: the record locked by another process is waited for; locked past the waits, worktree_locked", async () => {
  const { fake, deps } = withMade();
  fake.repo.lockedWrites = 2;
  const made = await makeWorktree(deps, "/repo", "n7");
  assert.ok(made.ok, JSON.stringify(made));
  fake.repo.lockedWrites = 3;
  const locked = await makeWorktree(deps, "/repo", "n8");
  assert.equal(!locked.ok && locked.reason, "worktree_locked");
  assert.match(
    !locked.ok ? locked.message : "",
    /^another process kept the worktree record locked/,
  );
  assert.equal(fake.repo.branches.has("codex/n8"), false);
  // A record write git refuses otherwise is not_allowed, and what the make did is taken down.
  const refusing = fakeGit((args) =>
    args[0] === "config" && args[3]?.endsWith(".base")
      ? { code: 3, stdout: "", stderr: "error: invalid key" }
      : undefined
  );
  const bad = await makeWorktree({ git: refusing.git, root: ROOT }, "/repo", "n9");
  assert.equal(!bad.ok && bad.reason, "not_allowed");
  assert.deepEqual(refusing.repo.config, []);
});

Deno.test("make: stopped at shutdown, what it made stays recorded; past a deadline, it is taken down", async () => {
  for (const [reason, kept] of [["cancelled", true], ["timeout", false]] as const) {
    const fake = fakeGit((args) => {
      if (args[0] === "worktree" && args[1] === "add") {
        throw new RelayError(reason, `git ${reason}`);
      }
      return undefined;
    });
    const made = await makeWorktree({ git: fake.git, root: ROOT }, "/repo", "s1");
    assert.equal(!made.ok && made.reason, reason);
    assert.equal(fake.repo.branches.has("codex/s1"), kept);
    assert.equal(fake.repo.config.some(([k]) => k === "worktree.s1.path"), kept);
  }
});

Deno.test("make: git names the folder otherwise (symlinks resolved): the record says git's path", async () => {
  const fake = fakeGit((args) =>
    args[0] === "rev-parse" && args.length === 2
      ? { code: 0, stdout: "/real/s2\n", stderr: "" }
      : undefined
  );
  const made = await makeWorktree({ git: fake.git, root: ROOT }, "/repo/sub", "s2");
  assert.equal(made.ok && made.worktree.path, "/real/s2");
  assert.equal(made.ok && made.cwd, "/real/s2/sub");
  const get = (k: string) => fake.repo.config.find(([key]) => key === `worktree.s2.${k}`)?.[1];
  assert.equal(get("path"), "/real/s2");
  assert.equal(get("cwd"), "/real/s2/sub");
});

Deno.test("make: no repository, no commit: not_a_repository", async () => {
  const none = fakeGit();
  const r = await makeWorktree({ git: none.git, root: ROOT }, "/elsewhere", "x");
  assert.equal(!r.ok && r.reason, "not_a_repository");
  assert.match(!r.ok ? r.message : "", /^\/elsewhere is not in a git repository \(git rev-parse/);
  const empty = fakeGit((args) =>
    args[1] === "--verify" && args[2] === "HEAD^{commit}"
      ? { code: 128, stdout: "", stderr: "fatal: needed a single revision" }
      : undefined
  );
  const e = await makeWorktree({ git: empty.git, root: ROOT }, "/repo", "x");
  assert.equal(!e.ok && e.message, "/repo has no commit to start from");
});

Deno.test("remove: only a recorded name; never while a run works there; unknown only with force", async () => {
  const { fake, deps } = withMade("r1");
  const none = await removeWorktree(deps, "nope", true, idle);
  assert.deepEqual(none, {
    ok: false,
    reason: "worktree_not_found",
    message: "codex-relay made no worktree named nope",
  });
  const asked: [string, string | undefined][] = [];
  const busy = await removeWorktree(deps, "r1", true, (p, c) => (asked.push([p, c]), true));
  assert.deepEqual(busy, {
    ok: false,
    reason: "worktree_busy",
    message: `a run is active in ${ROOT}/r1`,
  });
  assert.deepEqual(asked, [[`${ROOT}/r1`, `${ROOT}/r1/sub`]]);
  const unknown = () => Promise.resolve({ unknown: "why not" });
  const refused = await removeWorktree(deps, "r1", false, unknown);
  assert.equal(!refused.ok && refused.reason, "worktree_busy");
  assert.equal(
    !refused.ok && refused.message,
    `codex-relay cannot tell whether a run works in ${ROOT}/r1 (why not): remove it with force once none does`,
  );
  assert.deepEqual(fake.writes(), []);
  const forced = await removeWorktree(deps, "r1", true, unknown);
  assert.deepEqual(forced, {
    ok: true,
    name: "r1",
    path: `${ROOT}/r1`,
    branch: "codex/r1",
    branchDeleted: true,
  });
  assert.deepEqual(fake.writes(), [
    `worktree remove --force --force ${ROOT}/r1`,
    "update-ref -d refs/heads/codex/r1 c0",
    `config --file ${FILE} --remove-section worktree.r1`,
  ]);
});

Deno.test("remove: changes, untracked or ignored files are work: kept without force", async () => {
  for (
    const work of [{ status: " M a.txt\n" }, { status: "?? n.txt\n" }, { ignored: "!! b.log\n" }]
  ) {
    const { fake, deps } = withMade("r2");
    Object.assign(fake.repo.worktrees.get(`${ROOT}/r2`)!, work);
    const dirty = await removeWorktree(deps, "r2", false, idle);
    assert.equal(!dirty.ok && dirty.reason, "worktree_dirty", JSON.stringify(work));
    assert.match(
      !dirty.ok ? dirty.message : "",
      /uncommitted changes or untracked or ignored files/,
    );
    assert.deepEqual(fake.writes(), []);
    const listed = await listWorktrees(deps, idle);
    assert.equal(listed.ok && listed.worktrees[0].uncommittedChanges, true);
  }
  // git cannot tell (status fails): kept too.
  const { fake, deps } = fakeUnreadable();
  const unsure = await removeWorktree(deps, "r3", false, idle);
  assert.equal(!unsure.ok && unsure.reason, "worktree_dirty");
  assert.deepEqual(fake.writes(), []);
});

/** A recorded worktree whose status git cannot read. */
function fakeUnreadable() {
  const made = withMade("r3");
  const real = made.fake.git;
  made.deps.git = (args, cwd) =>
    args[0] === "status"
      ? Promise.resolve({ code: 128, stdout: "", stderr: "fatal: broken" })
      : real(args, cwd);
  return made;
}

Deno.test("remove: a gone folder is not dirty: exactly its entry goes, by path, without force", async () => {
  const { fake, deps } = withMade("r4", "other");
  fake.repo.worktrees.get(`${ROOT}/r4`)!.gone = true;
  fake.repo.worktrees.get(`${ROOT}/other`)!.gone = true;
  const listed = await listWorktrees(deps, idle);
  assert.deepEqual(listed.ok && listed.worktrees.map((w) => w.uncommittedChanges), [false, false]);
  const removed = await removeWorktree(deps, "r4", false, idle);
  assert.ok(removed.ok, JSON.stringify(removed));
  assert.deepEqual(fake.writes(), [
    `worktree remove ${ROOT}/r4`,
    "update-ref -d refs/heads/codex/r4 c0",
    `config --file ${FILE} --remove-section worktree.r4`,
  ]);
  assert.ok(fake.repo.worktrees.has(`${ROOT}/other`), "another gone worktree stays registered");
  assert.ok(!fake.calls.some((c) => c.includes("prune")));
});

Deno.test("remove: a worktree git no longer lists: no worktree command, its branch and record go", async () => {
  const { fake, deps } = withMade("r5");
  fake.repo.worktrees.delete(`${ROOT}/r5`);
  const listed = await listWorktrees(deps, idle);
  assert.equal(listed.ok && listed.worktrees[0].uncommittedChanges, false);
  const removed = await removeWorktree(deps, "r5", false, idle);
  assert.equal(removed.ok && removed.branchDeleted, true);
  assert.deepEqual(fake.writes(), [
    "update-ref -d refs/heads/codex/r5 c0",
    `config --file ${FILE} --remove-section worktree.r5`,
  ]);
});

Deno.test("remove: the branch is kept with commits beyond base, when checked out elsewhere, moved, or gone", async () => {
  const cases: [string, (f: ReturnType<typeof withMade>["fake"]) => void][] = [
    ["commits", (f) => (f.repo.branches.get("codex/b")!.ahead = 2)],
    ["checked out", (f) => f.repo.worktrees.set("/user/wt", { branch: "codex/b" })],
    ["deleted", (f) => f.repo.branches.delete("codex/b")],
  ];
  for (const [what, arrange] of cases) {
    const { fake, deps } = withMade("b");
    arrange(fake);
    const removed = await removeWorktree(deps, "b", false, idle);
    assert.equal(removed.ok && removed.branchDeleted, false, what);
    assert.ok(!fake.writes().some((w) => w.startsWith("update-ref")), what);
    assert.ok(what === "deleted" || fake.repo.branches.has("codex/b"), what);
  }
  // Moved between the read and the delete: update-ref refuses; kept.
  const moved = withMade("b");
  const at = moved.fake.git;
  moved.deps.git = (args, cwd) =>
    args[0] === "update-ref"
      ? Promise.resolve({ code: 1, stdout: "", stderr: "error: cannot lock ref" })
      : at(args, cwd);
  const raced = await removeWorktree(moved.deps, "b", false, idle);
  assert.equal(raced.ok && raced.branchDeleted, false);
  // git cannot list the worktrees when the branch is looked at: kept.
  const unlisted = withMade("b");
  const first = unlisted.fake.git;
  let lists = 0;
  unlisted.deps.git = (args, cwd) =>
    args[0] === "worktree" && args[1] === "list" && ++lists === 2
      ? Promise.resolve({ code: 128, stdout: "", stderr: "fatal: broken" })
      : first(args, cwd);
  const blind = await removeWorktree(unlisted.deps, "b", false, idle);
  assert.equal(blind.ok && blind.branchDeleted, false);
  assert.ok(unlisted.fake.repo.branches.has("codex/b"));
  // rev-list cannot count (base unknown): kept.
  const { fake, deps } = withMade("b");
  const real = fake.git;
  deps.git = (args, cwd) =>
    args[0] === "rev-list"
      ? Promise.resolve({ code: 128, stdout: "0\n", stderr: "fatal: bad revision" })
      : real(args, cwd);
  const removed = await removeWorktree(deps, "b", false, idle);
  assert.equal(removed.ok && removed.branchDeleted, false);
});

Deno.test("remove and list: a repository git cannot list; a removal git refuses", async () => {
  const { fake, deps } = withMade("r6");
  const real = fake.git;
  deps.git = (args, cwd) =>
    args[0] === "worktree" && args[1] === "list"
      ? Promise.resolve({ code: 128, stdout: "", stderr: "fatal: not a git repository" })
      : real(args, cwd);
  const removed = await removeWorktree(deps, "r6", false, idle);
  assert.deepEqual(removed, {
    ok: false,
    reason: "worktree_not_found",
    message: "git cannot list the worktrees of /repo",
  });
  const listed = await listWorktrees(deps, idle);
  assert.equal(listed.ok && listed.worktrees[0].uncommittedChanges, false);
  deps.git = (args, cwd) =>
    args[0] === "worktree" && args[1] === "remove"
      ? Promise.resolve({ code: 128, stdout: "", stderr: "fatal: locked" })
      : real(args, cwd);
  const locked = await removeWorktree(deps, "r6", false, idle);
  assert.deepEqual(locked, {
    ok: false,
    reason: "worktree_dirty",
    message: "git worktree: fatal: locked",
  });
  assert.ok(fake.repo.branches.has("codex/r6"));
});

Deno.test("list: by name, active from activeIn (null with why when unknown), errors as refusals", async () => {
  const { deps } = withMade("zz", "aa", "mm");
  const listed = await listWorktrees(deps, (path, cwd) => {
    assert.equal(cwd, `${path}/sub`);
    if (path.endsWith("aa")) return true;
    if (path.endsWith("mm")) return Promise.resolve({ unknown: "cannot say" });
    return false;
  });
  assert.ok(listed.ok);
  assert.deepEqual(
    listed.worktrees.map((w) => [w.name, w.active, w.activeUnknown, "cwd" in w]),
    [["aa", true, undefined, false], ["mm", null, "cannot say", false], [
      "zz",
      false,
      undefined,
      false,
    ]],
  );
  const failing = {
    git: () => Promise.reject(new RelayError("git_missing", "no git")),
    root: ROOT,
  };
  assert.deepEqual(await listWorktrees(failing, idle), {
    ok: false,
    reason: "git_missing",
    message: "no git",
  });
  assert.deepEqual(await removeWorktree(failing, "x", false, idle), {
    ok: false,
    reason: "git_missing",
    message: "no git",
  });
  assert.deepEqual(await makeWorktree(failing, "/repo", "x"), {
    ok: false,
    reason: "git_missing",
    message: "no git",
  });
});

Deno.test("make: git's words in a refusal (its last two lines, or how it exited); a status git refuses", async () => {
  for (
    const [stderr, code, said] of [["a\nb\nc\n", 128, "b c"], ["", 7, "git exited 7"]] as const
  ) {
    const fake = fakeGit((args) => args[0] === "status" ? { code, stdout: "", stderr } : undefined);
    const made = await makeWorktree({ git: fake.git, root: ROOT }, "/repo", "st");
    assert.deepEqual(made, {
      ok: false,
      reason: "not_a_repository",
      message: `git status: ${said}`,
    });
    assert.deepEqual(fake.writes(), []);
  }
  // Whitespace only is no change (git prints nothing for a clean tree).
  const blank = fakeGit();
  blank.repo.userStatus = "\n";
  const made = await makeWorktree({ git: blank.git, root: ROOT }, "/repo", "bl");
  assert.equal(made.ok && made.worktree.uncommittedLeftOut, false);
});

Deno.test("make: rev-parse naming no folder, no commit: not_a_repository with git's reason", async () => {
  const empty = fakeGit((args) =>
    args.includes("--show-prefix") ? { code: 0, stdout: "\n", stderr: "" } : undefined
  );
  const r = await makeWorktree({ git: empty.git, root: ROOT }, "/repo", "x");
  assert.deepEqual(r, {
    ok: false,
    reason: "not_a_repository",
    message: "/repo is not in a git working tree",
  });
  const noCommit = fakeGit((args) =>
    args[2] === "HEAD^{commit}" ? { code: 128, stdout: "", stderr: "fatal: x" } : undefined
  );
  const e = await makeWorktree({ git: noCommit.git, root: ROOT }, "/repo", "x");
  assert.equal(!e.ok && e.reason, "not_a_repository");
});

Deno.test("make: a folder two levels down is the run's cwd in the worktree; howTo says how to read and remove it", async () => {
  const fake = fakeGit();
  const made = await makeWorktree({ git: fake.git, root: ROOT }, "/repo/a/b", "deep");
  assert.ok(made.ok);
  assert.equal(made.cwd, `${ROOT}/deep/a/b`);
  const p = `${ROOT}/deep`;
  assert.equal(
    made.worktree.howTo,
    `The run's changes are in ${p}: read them with \`git -C ${p} diff c0\` (committed and not); ` +
      `have Codex review them with codex_review {cwd: "${p}", target: "base", base: "c0"}; ` +
      `remove it with codex_worktree {action: "remove"}.`,
  );
});

Deno.test("make: a step after the add fails: the worktree it added goes too (by path, forced), then its branch and record", async () => {
  const steps: [string, (a: readonly string[]) => boolean][] = [
    ["git's path of it", (a) => a[0] === "rev-parse" && a.length === 2],
    [
      "the record's path",
      (a) => a[0] === "config" && a[3] === "worktree.s3.path" && a[4] === "/real/s3",
    ],
  ];
  for (const [what, fails] of steps) {
    const fake = fakeGit((args) => {
      if (fails(args)) return { code: 128, stdout: "", stderr: "fatal: boom" };
      if (args[0] === "rev-parse" && args.length === 2) {
        return { code: 0, stdout: "/real/s3\n", stderr: "" };
      }
      return undefined;
    });
    const made = await makeWorktree({ git: fake.git, root: ROOT }, "/repo", "s3");
    const said = what === "git's path of it"
      ? "git rev-parse: fatal: boom"
      : "git config: fatal: boom";
    const reason = what === "git's path of it" ? "worktree_exists" : "not_allowed";
    assert.deepEqual(made, { ok: false, reason, message: said }, what);
    assert.ok(fake.writes().includes(`worktree remove --force --force ${ROOT}/s3`), what);
    assert.equal(fake.repo.worktrees.size, 0, what);
    assert.equal(fake.repo.branches.has("codex/s3"), false, what);
    assert.deepEqual(fake.repo.config, [], what);
  }
});

Deno.test("make: git cannot list the repository's worktrees: refused, its branch never made", async () => {
  const fake = fakeGit((args) =>
    args[0] === "worktree" && args[1] === "list"
      ? { code: 128, stdout: "", stderr: "fatal: broken" }
      : undefined
  );
  const made = await makeWorktree({ git: fake.git, root: ROOT }, "/repo", "s4");
  assert.deepEqual(made, {
    ok: false,
    reason: "not_a_repository",
    message: "git worktree: fatal: broken",
  });
  assert.equal(fake.repo.branches.has("codex/s4"), false);
  assert.deepEqual(fake.repo.config, []);
});

Deno.test("make: the record locked for good, its root there: no init, worktree_locked", async () => {
  const { fake, deps } = withMade();
  fake.repo.lockedWrites = 99;
  const locked = await makeWorktree(deps, "/repo", "lk");
  assert.equal(!locked.ok && locked.reason, "worktree_locked");
  assert.ok(!fake.writes().some((w) => w.startsWith("init")));
});

Deno.test("list: no record yet lists none", async () => {
  const fake = fakeGit();
  assert.deepEqual(await listWorktrees({ git: fake.git, root: ROOT }, idle), {
    ok: true,
    worktrees: [],
  });
});
