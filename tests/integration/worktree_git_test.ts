/**
 * The worktree operations against real git in temporary repositories: made from a clean and a
 * dirty tree, from a subfolder, from a detached HEAD, with submodules; a name or branch that
 * exists, no repository, no git; listed and removed (busy, dirty, force, a branch with commits
 * kept), and never a worktree this relay did not make.
 */
import assert from "node:assert/strict";
import { gitRunner } from "../../src/connect/process/git_runner.ts";
import { git, sh, withRepo } from "../../testing/git_repo.ts";
import { exists } from "../../testing/paths.ts";
import { listWorktrees, makeWorktree, removeWorktree } from "../../src/ops/worktree.ts";
import { recordFile } from "../../src/ops/worktree_record.ts";

const idle = () => false;

Deno.test("worktree: made from a clean tree's subfolder, the run's cwd is the same subfolder in it; listed", async () => {
  await withRepo(async (repo, root) => {
    const head = await sh(repo, "rev-parse", "HEAD");
    const made = await makeWorktree({ git, root }, `${repo}/sub`, "fix-1");
    assert.ok(made.ok, JSON.stringify(made));
    assert.deepEqual({ ...made.worktree, howTo: undefined }, {
      name: "fix-1",
      path: `${root}/fix-1`,
      branch: "codex/fix-1",
      base: head,
      uncommittedLeftOut: false,
      howTo: undefined,
    });
    assert.match(made.worktree.howTo!, new RegExp(`git -C ${root}/fix-1 diff ${head}`));
    assert.equal(made.cwd, `${root}/fix-1/sub`);
    assert.equal(await Deno.readTextFile(`${made.cwd}/b.txt`), "b\n");
    assert.equal(await sh(made.cwd, "branch", "--show-current"), "codex/fix-1");
    assert.equal(
      await sh(repo, "branch", "--show-current"),
      "main",
      "the user's tree stays on its branch",
    );
    const listed = await listWorktrees({ git, root }, (p) => p === `${root}/fix-1`);
    assert.deepEqual(listed, {
      ok: true,
      worktrees: [{
        name: "fix-1",
        repository: repo,
        path: `${root}/fix-1`,
        branch: "codex/fix-1",
        base: head,
        active: true,
        uncommittedChanges: false,
      }],
    });
  });
});

Deno.test("worktree: a dirty tree's uncommitted changes are left out, and the result says so", async () => {
  await withRepo(async (repo, root) => {
    await Deno.writeTextFile(`${repo}/a.txt`, "changed\n");
    await Deno.writeTextFile(`${repo}/new.txt`, "untracked\n");
    const made = await makeWorktree({ git, root }, repo, "dirty");
    assert.ok(made.ok);
    assert.equal(made.worktree.uncommittedLeftOut, true);
    assert.equal(await Deno.readTextFile(`${made.cwd}/a.txt`), "a\n");
    assert.equal(await exists(`${made.cwd}/new.txt`), false);
    assert.equal(
      await Deno.readTextFile(`${repo}/a.txt`),
      "changed\n",
      "the user's tree untouched",
    );
  });
});

Deno.test("worktree: a name this relay used, or a branch that exists, is worktree_exists and nothing is made", async () => {
  await withRepo(async (repo, root) => {
    assert.ok((await makeWorktree({ git, root }, repo, "one")).ok);
    const again = await makeWorktree({ git, root }, repo, "one");
    assert.equal(again.ok, false);
    assert.equal(!again.ok && again.reason, "worktree_exists");
    await sh(repo, "branch", "codex/mine");
    const mine = await makeWorktree({ git, root }, repo, "mine");
    assert.equal(!mine.ok && mine.reason, "worktree_exists");
    assert.equal(await exists(`${root}/mine`), false);
    // A folder that is in the way: git refuses; no branch or record is left behind.
    await Deno.mkdir(`${root}/blocked`, { recursive: true });
    await Deno.writeTextFile(`${root}/blocked/x`, "x");
    const blocked = await makeWorktree({ git, root }, repo, "blocked");
    assert.equal(!blocked.ok && blocked.reason, "worktree_exists");
    assert.equal(
      (await git(["rev-parse", "--verify", "--quiet", "refs/heads/codex/blocked"], repo)).code,
      1,
    );
    const listed = await listWorktrees({ git, root }, idle);
    assert.deepEqual(listed.ok && listed.worktrees.map((w) => w.name), ["one"]);
    const bad = await makeWorktree({ git, root }, repo, "../escape");
    assert.equal(!bad.ok && bad.reason, "not_allowed");
  });
});

Deno.test("worktree: from a detached HEAD the branch starts at that commit", async () => {
  await withRepo(async (repo, root) => {
    const first = await sh(repo, "rev-parse", "HEAD");
    await Deno.writeTextFile(`${repo}/a.txt`, "two\n");
    await sh(repo, "commit", "-qam", "two");
    await sh(repo, "checkout", "-q", "--detach", first);
    const made = await makeWorktree({ git, root }, repo, "detached");
    assert.ok(made.ok);
    assert.equal(made.worktree.base, first);
    assert.equal(await Deno.readTextFile(`${made.cwd}/a.txt`), "a\n");
  });
});

Deno.test("worktree: no repository, no commit, no folder, no git: a refusal, never an exception", async () => {
  const dir = await Deno.makeTempDir({ prefix: "relay-wt-" });
  try {
    const root = `${dir}/root`;
    const none = await makeWorktree({ git, root }, dir, "x");
    assert.equal(!none.ok && none.reason, "not_a_repository");
    assert.match(!none.ok ? none.message : "", /not in a git repository/);
    const gone = await makeWorktree({ git, root }, `${dir}/missing`, "x");
    assert.equal(!gone.ok && gone.reason, "not_a_repository");
    await sh(dir, "init", "-q");
    const empty = await makeWorktree({ git, root }, dir, "x");
    assert.equal(!empty.ok && empty.reason, "not_a_repository");
    assert.match(!empty.ok ? empty.message : "", /no commit/);
    const missing = await makeWorktree({ git: gitRunner(`${dir}/no-git`), root }, dir, "x");
    assert.equal(!missing.ok && missing.reason, "git_missing");
    const listed = await listWorktrees({ git: gitRunner(`${dir}/no-git`), root }, idle);
    assert.equal(!listed.ok && listed.reason, "git_missing");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("worktree: with submodules the worktree is made; the submodules are not checked out in it", async () => {
  await withRepo(async (repo, root) => {
    const lib = `${repo}/../lib`;
    await Deno.mkdir(lib);
    await Deno.writeTextFile(`${lib}/l.txt`, "l\n");
    await sh(lib, "init", "-q");
    await sh(lib, "add", ".");
    await sh(lib, "commit", "-qm", "lib");
    await sh(repo, "submodule", "--quiet", "add", lib, "lib");
    await sh(repo, "commit", "-qm", "with lib");
    const made = await makeWorktree({ git, root }, repo, "subm");
    assert.ok(made.ok);
    assert.equal(await exists(`${made.cwd}/lib/l.txt`), false);
    assert.equal(await exists(`${made.cwd}/.gitmodules`), true);
  });
});

Deno.test("worktree remove: busy and dirty refused, force removes; the branch goes only without commits beyond base", async () => {
  await withRepo(async (repo, root) => {
    const deps = { git, root };
    const a = await makeWorktree(deps, repo, "a");
    const b = await makeWorktree(deps, repo, "b");
    assert.ok(a.ok && b.ok);
    const busy = await removeWorktree(deps, "a", false, (p) => p === a.worktree.path);
    assert.equal(!busy.ok && busy.reason, "worktree_busy");
    await Deno.writeTextFile(`${a.cwd}/new.txt`, "n\n");
    const dirty = await removeWorktree(deps, "a", false, idle);
    assert.equal(!dirty.ok && dirty.reason, "worktree_dirty");
    assert.equal(await exists(a.worktree.path), true);
    const forced = await removeWorktree(deps, "a", true, idle);
    assert.deepEqual(forced, {
      ok: true,
      name: "a",
      path: a.worktree.path,
      branch: "codex/a",
      branchDeleted: true,
    });
    assert.equal(await exists(a.worktree.path), false);
    assert.equal(
      (await git(["rev-parse", "--verify", "--quiet", "refs/heads/codex/a"], repo)).code,
      1,
    );
    // b commits: its branch is kept.
    await Deno.writeTextFile(`${b.cwd}/c.txt`, "c\n");
    await sh(b.cwd, "add", ".");
    await sh(b.cwd, "commit", "-qm", "work");
    const kept = await removeWorktree(deps, "b", false, idle);
    assert.equal(kept.ok && kept.branchDeleted, false);
    assert.equal(await sh(repo, "branch", "--list", "codex/b"), "codex/b");
    const listed = await listWorktrees(deps, idle);
    assert.deepEqual(listed.ok && listed.worktrees, []);
    const again = await removeWorktree(deps, "b", false, idle);
    assert.equal(!again.ok && again.reason, "worktree_not_found");
  });
});

Deno.test("worktree remove: a worktree this relay did not make is never touched, whatever its name", async () => {
  await withRepo(async (repo, root) => {
    await sh(repo, "worktree", "add", "-q", "-b", "codex/theirs", `${root}/theirs`);
    const removed = await removeWorktree({ git, root }, "theirs", true, idle);
    assert.equal(!removed.ok && removed.reason, "worktree_not_found");
    assert.equal(await exists(`${root}/theirs/a.txt`), true);
    assert.equal(await exists(recordFile(root)), false, "no record was written");
  });
});

Deno.test("worktree: two makes of one name at once: one is made, the other worktree_exists, and the first stays whole", async () => {
  await withRepo(async (repo, root) => {
    const [a, b] = await Promise.all([
      makeWorktree({ git, root }, repo, "same"),
      makeWorktree({ git, root }, repo, "same"),
    ]);
    const made = [a, b].filter((m) => m.ok);
    const refused = [a, b].filter((m) => !m.ok);
    assert.equal(made.length, 1);
    assert.equal(!refused[0].ok && refused[0].reason, "worktree_exists");
    assert.equal(await exists(`${root}/same/a.txt`), true);
    assert.match(await sh(repo, "branch", "--list", "codex/same"), /codex\/same$/);
  });
});
