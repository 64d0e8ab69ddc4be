/**
 * Protects: the relay never removes or deletes a worktree, branch or file it did not make
 * (issue #45), against real git. Two relays on one CODEX_HOME (a second instance of the
 * worktree module: its own queue, as another process has) making one name and different names
 * at once; the record's lock held by another process; a user's worktree whose folder is away;
 * ignored files; a worktree whose folder is gone; a half-made worktree (git stopped after it made
 * it); user hooks that sleep or never end; git's deadline and the shutdown killing git's whole
 * process group.
 */
import assert from "node:assert/strict";
import { gitRunner } from "../../src/connect/process/git_runner.ts";
import { RelayError } from "../../src/core/errors.ts";
import type { Git } from "../../src/connect/process/git_runner.ts";
import * as one from "../../src/ops/worktree.ts";
import { recordFile } from "../../src/ops/worktree_record.ts";
import { git, hasBranch, sh, withRepo } from "../../testing/git_repo.ts";
import { exists } from "../../testing/paths.ts";
import { within } from "../../testing/deadline.ts";
import { processesTagged } from "../../testing/process_table.ts";

/** The worktree module as another relay process has it: its own one-at-a-time queue. */
const other = await import(
  new URL("../../src/ops/worktree.ts?relay=2", import.meta.url).href
) as typeof one;

const idle = () => false;

/** Two parties meet: each `arrive()` resolves once both arrived (within the test deadline). */
function meeting() {
  let arrived = 0;
  const both = Promise.withResolvers<void>();
  return () => {
    if (++arrived === 2) both.resolve();
    return within(both.promise, "both makes at the same step", 10_000);
  };
}

/** A git that waits for the other make once it checked whether the branch exists. */
function meetsAfterBranchCheck(arrive: () => Promise<void>): Git {
  let met = false;
  return async (args, cwd) => {
    const out = await git(args, cwd);
    if (!met && args[0] === "rev-parse" && args.includes("--quiet")) {
      met = true;
      await arrive();
    }
    return out;
  };
}

Deno.test("two relays make one name at once: one makes it whole, the other is worktree_exists and deletes nothing", async () => {
  await withRepo(async (repo, root) => {
    for (const name of ["same-1", "same-2", "same-3"]) {
      const arrive = meeting();
      const results = await Promise.all([
        one.makeWorktree({ git: meetsAfterBranchCheck(arrive), root }, repo, name),
        other.makeWorktree({ git: meetsAfterBranchCheck(arrive), root }, repo, name),
      ]);
      const made = results.filter((m) => m.ok);
      assert.equal(made.length, 1, JSON.stringify(results));
      const lost = results.find((m) => !m.ok)!;
      assert.equal(!lost.ok && lost.reason, "worktree_exists", JSON.stringify(lost));
      const won = made[0];
      assert.ok(won.ok);
      assert.ok(await hasBranch(repo, `codex/${name}`), "the winner's branch exists");
      assert.equal(await sh(won.cwd, "branch", "--show-current"), `codex/${name}`);
      assert.equal(await sh(won.cwd, "rev-parse", "HEAD"), won.worktree.base);
    }
    const listed = await one.listWorktrees({ git, root }, idle);
    assert.deepEqual(listed.ok && listed.worktrees.map((w) => w.name), [
      "same-1",
      "same-2",
      "same-3",
    ]);
  });
});

Deno.test("two relays make different names at once: every make succeeds (no not_allowed from the record's lock)", async () => {
  await withRepo(async (repo, root) => {
    for (let round = 0; round < 6; round++) {
      const results = await Promise.all([
        one.makeWorktree({ git, root }, repo, `a-${round}`),
        other.makeWorktree({ git, root }, repo, `b-${round}`),
      ]);
      assert.ok(results.every((m) => m.ok), JSON.stringify(results));
    }
    const listed = await one.listWorktrees({ git, root }, idle);
    assert.equal(listed.ok && listed.worktrees.length, 12);
  });
});

Deno.test("the record's lock held by another process: the make waits for it; held for good, worktree_locked and nothing made", async () => {
  await withRepo(async (repo, root) => {
    await Deno.mkdir(root, { recursive: true });
    const lock = `${recordFile(root)}.lock`;
    await Deno.writeTextFile(lock, "");
    // The other process lets go once this make found the file locked.
    let released = false;
    const releasing: Git = async (args, cwd) => {
      const out = await git(args, cwd);
      if (!released && /could not lock config file/.test(out.stderr)) {
        released = true;
        await Deno.remove(lock);
      }
      return out;
    };
    const made = await one.makeWorktree({ git: releasing, root }, repo, "waited");
    assert.ok(made.ok, JSON.stringify(made));
    assert.ok(released);

    await Deno.writeTextFile(lock, "");
    const began = performance.now();
    const locked = await one.makeWorktree({ git, root }, repo, "locked");
    assert.equal(!locked.ok && locked.reason, "worktree_locked", JSON.stringify(locked));
    assert.ok(performance.now() - began < 10_000, "bounded");
    assert.equal(await hasBranch(repo, "codex/locked"), false);
    assert.equal(await exists(`${root}/locked`), false);
  });
});

Deno.test("a user's worktree whose folder is away stays registered through a failed make and a removal", async () => {
  await withRepo(async (repo, root) => {
    const theirs = `${repo}/../theirs`;
    await sh(repo, "worktree", "add", "-q", "-b", "feature", theirs);
    await Deno.rename(theirs, `${theirs}-unmounted`);
    // A make git refuses (its folder is in the way).
    await Deno.mkdir(`${root}/blocked`, { recursive: true });
    await Deno.writeTextFile(`${root}/blocked/x`, "x");
    const blocked = await one.makeWorktree({ git, root }, repo, "blocked");
    assert.equal(!blocked.ok && blocked.reason, "worktree_exists");
    // A removal of a recorded worktree git no longer lists.
    const mine = await one.makeWorktree({ git, root }, repo, "mine");
    assert.ok(mine.ok);
    await sh(repo, "worktree", "remove", mine.worktree.path);
    const removed = await one.removeWorktree({ git, root }, "mine", false, idle);
    assert.ok(removed.ok, JSON.stringify(removed));
    const listed = await sh(repo, "worktree", "list", "--porcelain");
    assert.match(listed, /worktree .*\/theirs\n/, "the user's worktree is still registered");
    await Deno.rename(`${theirs}-unmounted`, theirs);
    assert.equal(await sh(theirs, "branch", "--show-current"), "feature");
    assert.equal(
      await Deno.readTextFile(`${root}/blocked/x`),
      "x",
      "the folder in the way is kept",
    );
  });
});

Deno.test("ignored files are work: listed as uncommitted, kept by a removal without force", async () => {
  await withRepo(async (repo, root) => {
    await Deno.writeTextFile(`${repo}/.gitignore`, "*.log\n");
    await sh(repo, "add", ".gitignore");
    await sh(repo, "commit", "-qm", "ignore logs");
    const made = await one.makeWorktree({ git, root }, repo, "ign");
    assert.ok(made.ok);
    await Deno.writeTextFile(`${made.cwd}/build.log`, "hours of work\n");
    const listed = await one.listWorktrees({ git, root }, idle);
    assert.equal(listed.ok && listed.worktrees[0].uncommittedChanges, true);
    const refused = await one.removeWorktree({ git, root }, "ign", false, idle);
    assert.equal(!refused.ok && refused.reason, "worktree_dirty");
    assert.equal(await Deno.readTextFile(`${made.cwd}/build.log`), "hours of work\n");
    const forced = await one.removeWorktree({ git, root }, "ign", true, idle);
    assert.ok(forced.ok);
  });
});

Deno.test("a worktree whose folder is gone is not dirty: listed without changes, removed without force", async () => {
  await withRepo(async (repo, root) => {
    const made = await one.makeWorktree({ git, root }, repo, "away");
    assert.ok(made.ok);
    const moved = `${made.worktree.path}-moved`;
    await Deno.rename(made.worktree.path, moved);
    const listed = await one.listWorktrees({ git, root }, idle);
    assert.equal(listed.ok && listed.worktrees[0].uncommittedChanges, false);
    const removed = await one.removeWorktree({ git, root }, "away", false, idle);
    assert.ok(removed.ok, JSON.stringify(removed));
    assert.equal(removed.branchDeleted, true);
    assert.doesNotMatch(await sh(repo, "worktree", "list"), /away/);
    assert.equal(await Deno.readTextFile(`${moved}/a.txt`), "a\n", "the moved folder untouched");
  });
});

Deno.test("a worktree half made (git stopped once it had made it) is recorded: listed, then removed", async () => {
  await withRepo(async (repo, root) => {
    const stoppedAfterAdd: Git = async (args, cwd) => {
      const out = await git(args, cwd);
      if (args[0] === "worktree" && args[1] === "add") {
        throw new RelayError("cancelled", "git worktree was stopped: codex-relay is shutting down");
      }
      return out;
    };
    const made = await one.makeWorktree({ git: stoppedAfterAdd, root }, repo, "half");
    assert.equal(!made.ok && made.reason, "cancelled");
    const listed = await one.listWorktrees({ git, root }, idle);
    assert.deepEqual(listed.ok && listed.worktrees.map((w) => w.name), ["half"]);
    const removed = await one.removeWorktree({ git, root }, "half", false, idle);
    assert.ok(removed.ok, JSON.stringify(removed));
    assert.equal(await hasBranch(repo, "codex/half"), false);
    assert.equal(await exists(`${root}/half`), false);
  });
});

Deno.test("the user's hooks do not run for the relay's git: a post-checkout that sleeps or never ends holds no make", async () => {
  await withRepo(async (repo, root) => {
    const ran = `${root}/../hook-ran`;
    for (const [name, body] of [["slow", "sleep 30"], ["endless", "while :; do sleep 1; done"]]) {
      const hook = `${repo}/.git/hooks/post-checkout`;
      await Deno.writeTextFile(hook, `#!/bin/sh\ntouch '${ran}'\n${body}\n`);
      await Deno.chmod(hook, 0o755);
      const made = await within(
        one.makeWorktree({ git, root }, repo, name),
        `the ${name} make`,
        10_000,
      );
      assert.ok(made.ok, JSON.stringify(made));
      assert.equal(await exists(ran), false, "the hook did not run");
    }
  });
});

/** A fake git: starts a tagged `sleep` in its process group, says so (`started`), waits for it. */
async function hangingGit(dir: string, tag: string): Promise<string> {
  const bin = `${dir}/git`;
  await Deno.writeTextFile(
    bin,
    `#!/bin/sh\nRELAY_TEST_TAG=${tag} sleep 300 &\ntouch '${dir}/started'\nwait\n`,
  );
  await Deno.chmod(bin, 0o755);
  return bin;
}

Deno.test("git past its deadline: a timeout, its whole process group killed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "relay-git-" });
  const tag = `deadline-${crypto.randomUUID()}`;
  try {
    const slow = gitRunner(await hangingGit(dir, tag), { deadlineMs: 300 });
    const began = performance.now();
    const error = await within(slow(["status"]).catch((e) => e), "the deadline", 10_000);
    assert.ok(error instanceof RelayError, String(error));
    assert.equal(error.reason, "timeout");
    assert.match(error.message, /git status did not end within 0.3 s/);
    assert.ok(performance.now() - began < 5_000);
    assert.deepEqual(await processesTagged(tag), [], "the hook-like child is gone too");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("git at shutdown: the running command's group is killed (cancelled), and none starts after", async () => {
  const dir = await Deno.makeTempDir({ prefix: "relay-git-" });
  const tag = `shutdown-${crypto.randomUUID()}`;
  try {
    const stop = new AbortController();
    const bin = await hangingGit(dir, tag);
    const slow = gitRunner(bin, { signal: stop.signal });
    const watcher = Deno.watchFs(dir);
    const running = slow(["worktree", "add"]).catch((e) => e);
    await within(started(watcher, `${dir}/started`), "the fake git's child", 10_000);
    stop.abort();
    const error = await within(running, "the kill at shutdown", 10_000);
    assert.equal(error instanceof RelayError && error.reason, "cancelled", String(error));
    assert.deepEqual(await processesTagged(tag), []);
    const after = await slow(["status"]).catch((e) => e);
    assert.equal(after instanceof RelayError && after.reason, "cancelled");
    assert.deepEqual(await processesTagged(tag), [], "nothing started after the shutdown");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Resolves once `file` was made (the watcher's events; closed after). */
async function started(watcher: Deno.FsWatcher, file: string): Promise<void> {
  try {
    for await (const event of watcher) {
      if (event.paths.includes(file)) return;
    }
  } finally {
    watcher.close();
  }
}
