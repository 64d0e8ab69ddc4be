/**
 * Protects: "active" comes from Codex, not this process's memory (issue #45): the threads Codex
 * lists in a worktree's folders, as the Codex process asked sees them (transcripts 12-14: a
 * non-holder sees another process's running turn as `interrupted` without an end).
 */
import assert from "node:assert/strict";
import { scriptedSession } from "../../testing/scripted_session.ts";
import { ACTIVE_PROBES, codexInUse, within } from "../../src/ops/worktree_active.ts";
import { LISTED_SOURCE_KINDS } from "../../src/codex/types.ts";

const W = "/h/worktrees/codex-relay/w";

function thread(id: string, status: string, cwd: string | null = W) {
  return { id, name: null, status: { type: status }, updatedAt: 1796006982, cwd };
}

function turn(status: string, completedAt: number | null) {
  return { id: "t1", status, error: null, completedAt, items: [] };
}

/** A session listing `threads` (once per folder asked) and answering each thread's last turn. */
function codex(threads: unknown[], last: Record<string, unknown> = {}, nextCursor = null) {
  return scriptedSession({
    "thread/list": () => ({ data: threads, nextCursor }),
    "thread/turns/list": (p) => ({
      data: last[p.threadId as string] ? [last[p.threadId as string]] : [],
      nextCursor: null,
    }),
  });
}

Deno.test("active: a thread Codex runs a turn on in the worktree is in use; idle or ended ones are not", async () => {
  const busy = codex([thread("a", "idle"), thread("b", "active")]);
  assert.equal(await codexInUse(busy.session, W), true);
  assert.deepEqual(busy.calls, [[
    "thread/list",
    { limit: ACTIVE_PROBES, sourceKinds: LISTED_SOURCE_KINDS, cwd: W },
  ]]);
  const free = codex([thread("a", "idle"), thread("b", "notLoaded"), thread("c", "notLoaded")], {
    b: turn("completed", 1796006990),
  });
  assert.equal(await codexInUse(free.session, W), false);
  assert.deepEqual(free.calls.slice(1), [
    ["thread/turns/list", {
      threadId: "b",
      limit: 1,
      sortDirection: "desc",
      itemsView: "notLoaded",
    }],
    ["thread/turns/list", {
      threadId: "c",
      limit: 1,
      sortDirection: "desc",
      itemsView: "notLoaded",
    }],
  ]);
});

Deno.test("active: a thread not loaded here whose last turn has not ended: in use when inProgress, else unknown", async () => {
  const running = codex([thread("a", "notLoaded")], { a: turn("inProgress", null) });
  assert.equal(await codexInUse(running.session, W), true);
  const elsewhere = codex([thread("a", "notLoaded"), thread("b", "systemError")], {
    a: turn("interrupted", null),
    b: turn("completed", 1796006990),
  });
  assert.deepEqual(await codexInUse(elsewhere.session, W), {
    unknown:
      "the last turn of thread a has not ended, as Codex stores it: it runs in another process or one that stopped left it so",
  });
  // A thread in use after an unknown one still says in use.
  const then = codex([thread("a", "notLoaded"), thread("b", "active")], {
    a: turn("interrupted", null),
  });
  assert.equal(await codexInUse(then.session, W), true);
  // An interrupted turn that ended is over.
  const ended = codex([thread("a", "notLoaded")], { a: turn("interrupted", 1796006990) });
  assert.equal(await codexInUse(ended.session, W), false);
});

Deno.test("active: the run's folder is asked too; a thread Codex lists there counts whatever the spelling of its cwd", async () => {
  const s = codex([thread("x", "idle")]);
  assert.equal(await codexInUse(s.session, W, `${W}/sub`), false);
  assert.deepEqual(s.calls.map(([, p]) => p.cwd), [W, `${W}/sub`]);
  // Codex matches the folder canonically and gives the cwd as stored: another client's thread
  // started through a symlink to the worktree (tests/e2e/worktree_daemon_e2e_test.ts).
  const alias = codex([thread("y", "active", "/alias/worktrees/codex-relay/w")]);
  assert.equal(await codexInUse(alias.session, W), true);
  const sub = codex([thread("z", "active", `${W}/sub`)]);
  assert.equal(await codexInUse(sub.session, W, W), true);
  assert.equal(sub.calls.length, 1, "one folder asked once");
});

Deno.test("active: more threads than read, or Codex not answering: unknown, saying why", async () => {
  const many = codex([], {}, "more" as unknown as null);
  assert.deepEqual(await codexInUse(many.session, W), {
    unknown: `more than ${ACTIVE_PROBES} Codex threads work in ${W}`,
  });
  const down = scriptedSession({});
  assert.deepEqual(await codexInUse(down.session, W), {
    unknown: "Codex could not be asked: unexpected thread/list",
  });
});

Deno.test("within: the folder itself or below it, never a sibling sharing its prefix", () => {
  assert.equal(within(W, W), true);
  assert.equal(within(`${W}/a`, W), true);
  assert.equal(within(`${W}-2`, W), false);
  assert.equal(within("/h", W), false);
});

Deno.test("active: a thread in use ends the look at once, whatever the threads after it say", async () => {
  const s = codex([thread("b", "active"), thread("a", "notLoaded")], {
    a: turn("interrupted", null),
  });
  assert.equal(await codexInUse(s.session, W), true);
  assert.deepEqual(s.methods(), ["thread/list"]);
});
