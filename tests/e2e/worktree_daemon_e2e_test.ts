/**
 * A worktree run on a real app-server daemon (`serve --app-server daemon`, temp CODEX_HOME,
 * offline with the Responses mock), its turn held by the mock: the turn outlives relay A, which
 * dies mid-run (SIGKILL, or SIGTERM: a relay on the daemon leaves its turns to it). While relay A
 * runs, a second relay on the same CODEX_HOME, and after its death a restarted relay, list the
 * worktree as `active` (the daemon's `thread/list` says so) and refuse to remove it without
 * `force`: folder, branch and files stay, and the turn's write after the restart lands in its
 * worktree. Once the turn ended the worktree is free: remove without `force` keeps only the turn's
 * file (`worktree_dirty`), then, that file taken, removes it. A daemon killed mid-run and started
 * again leaves the turn unended in its store (`interrupted`, no `completedAt`): no relay lists it free, a
 * new one says it cannot tell (`activeUnknown`), and it is removed only with `force`. The user's own Codex
 * working in the worktree through a symlink's spelling of its path keeps it too (Codex lists the
 * thread for the real path, its cwd as stored).
 *
 * Run: `deno test -P tests/e2e/worktree_daemon_e2e_test.ts` with codex in `.codex-npm/` or
 * `CODEX_BIN=/path/to/codex` (CI runs it against 0.169 and 0.171).
 */
import assert from "node:assert/strict";
import { codexForTests } from "../../testing/codex_bin.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import { startRelay } from "../../testing/relay.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";
import { callTool, type ToolName, type ToolOutput } from "../../testing/call_tool.ts";
import { gitRunner } from "../../src/connect/process/git_runner.ts";
import { gitPath } from "../../testing/paths.ts";
import type { MockResponses } from "../../testing/mock_responses.ts";
import type { CodexHome } from "../../testing/codex_home.ts";
import { DaemonClient, type DaemonInfo, startDaemon, stopDaemon } from "./daemon_home.ts";

const BIN = codexForTests("tests/e2e/worktree_daemon_e2e_test.ts");
const git = gitRunner("git");

async function sh(cwd: string, ...args: string[]): Promise<string> {
  const id = ["-c", "user.email=t@example.com", "-c", "user.name=t"];
  const out = await git([...id, ...args], cwd);
  assert.equal(out.code, 0, out.stderr);
  return out.stdout;
}

async function call<N extends ToolName>(
  c: ConnectedClient,
  name: N,
  args: Record<string, unknown>,
): Promise<ToolOutput<N>> {
  const result = await callTool(c.client, name, args, { timeout: 90_000 });
  assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

interface World {
  home: CodexHome;
  mock: MockResponses;
  /** The repository the worktree is made from. */
  repo: string;
  /** The daemon as `daemon start` reported it. */
  daemon: DaemonInfo;
  /** Starts a relay on the daemon with worktrees allowed (closed at the end); `more`: its env's. */
  start(more?: Record<string, string>): Promise<ConnectedClient>;
}

/**
 * A daemon in a temp home whose threads may write (workspace-write: the worktree is the thread's
 * cwd) and a one-commit repository; every relay is closed, the daemon stopped and reaped at the end.
 */
async function withWorld(fn: (w: World) => Promise<void>): Promise<void> {
  let killed: string[] = [];
  await withMockHome({ bin: BIN!.path }, async ({ home, env, mock }) => {
    const config = `${home.codexHome}/config.toml`;
    const toml = await Deno.readTextFile(config);
    await Deno.writeTextFile(
      config,
      toml.replace(`sandbox_mode = "read-only"`, `sandbox_mode = "workspace-write"`),
    );
    const repo = `${await Deno.realPath(home.root)}/repo`;
    await Deno.mkdir(repo, { recursive: true });
    await Deno.writeTextFile(`${repo}/a.txt`, "a\n");
    await sh(repo, "init", "-q");
    await sh(repo, "add", ".");
    await sh(repo, "commit", "-qm", "one");
    const gitBin = gitPath();
    const closers: ConnectedClient[] = [];
    const start = async (more: Record<string, string> = {}) => {
      const r = await startRelay({
        env: { ...env, ...more },
        flags: [
          "--app-server",
          "daemon",
          "--allow-reply-read",
          "--allow-turn-start",
          "--allow-worktrees",
          "--git",
          gitBin,
        ],
        permissions: [`--allow-run=codex,/bin/kill,${gitBin}`],
        protocol: "2026-07-28",
      });
      closers.push(r);
      return r;
    };
    try {
      const daemon = await startDaemon(BIN!.path, home);
      await fn({ home, mock, repo, daemon, start });
    } finally {
      mock.release("held");
      for (const r of closers.reverse()) await r.close().catch(() => {});
      killed = await stopDaemon(BIN!.path, home);
    }
  });
  // What `daemon stop` left and the test had to end (a Codex quirk, reaped by pid).
  assert.ok(killed.every((k) => /pid-update-loop|app-server/.test(k)), killed.join("; "));
}

/** The last turn of `threadId` as a client of the daemon reads it. */
async function lastTurn(
  w: World,
  threadId: string,
): Promise<{ status: string; completedAt: number | null }> {
  const user = await DaemonClient.connect(BIN!.path, w.home);
  try {
    const page = await user.request("thread/turns/list", {
      threadId,
      limit: 1,
      itemsView: "notLoaded",
    }) as { data: { status: string; completedAt: number | null }[] };
    return page.data[0];
  } finally {
    await user.close();
  }
}

/** Relay `a` starts a worktree run whose turn the mock holds; once released, its command writes. */
async function heldRun(w: World, a: ConnectedClient) {
  const run = await call(a, "codex_run", {
    cwd: w.repo,
    text: "SLOW:held SANDBOXED SHELL: echo after-restart > work.txt",
    worktree: "held",
    waitSeconds: 1,
  });
  assert.equal(run.turn?.status, "running", JSON.stringify(run));
  await w.mock.held("held");
  return run;
}

/** The worktree as relay `r` lists it; its remove without force is refused, nothing is lost. */
async function keptFor(w: World, r: ConnectedClient, path: string, who: string) {
  const listed = await call(r, "codex_worktree", { action: "list" });
  const [wt] = listed.worktrees ?? [];
  assert.equal(wt?.name, "held", JSON.stringify(listed));
  const refused = await call(r, "codex_worktree", { action: "remove", name: "held" });
  assert.equal(refused.reason, "worktree_busy", `${who}: ${JSON.stringify(refused)}`);
  assert.equal(await Deno.readTextFile(`${path}/a.txt`), "a\n", `${who}: files kept`);
  assert.match(await sh(w.repo, "branch", "--list", "codex/held"), /codex\/held/);
  return wt;
}

for (const signal of ["SIGKILL", "SIGTERM"] as const) {
  Deno.test({
    name:
      `e2e worktree on the daemon: a turn that outlives its relay (${signal}) keeps its worktree: active for a second relay and after a restart, no remove without force; free once it ended`,
    ignore: BIN === null,
    fn: () =>
      withWorld(async (w) => {
        const a = await w.start();
        const run = await heldRun(w, a);
        const path = run.worktree!.path;

        // Two relays at once: the second sees relay A's turn in the daemon.
        const b = await w.start();
        const second = await keptFor(w, b, path, "a second relay");
        assert.equal(second.active, true, JSON.stringify(second));

        // Relay A dies mid-run; its turn goes on in the daemon.
        Deno.kill(a.transport.pid!, signal);
        const exit = await a.transport.exited;
        // SIGTERM: the relay's shutdown (exit 0) leaves the daemon's turns to it.
        assert.deepEqual(
          [exit.signal, exit.code],
          signal === "SIGKILL" ? ["SIGKILL", 137] : [null, 0],
          JSON.stringify(exit),
        );
        assert.equal((await lastTurn(w, run.threadId)).status, "inProgress", "it outlived A");
        const c = await w.start();
        const after = await keptFor(w, c, path, "a relay started after relay A's death");
        assert.equal(after.active, true, JSON.stringify(after));

        w.mock.release("held");
        const done = await call(c, "codex_wait_reply", {
          threadId: run.threadId,
          clientMessageId: run.receipt.clientMessageId,
          timeoutSeconds: 55,
        });
        assert.equal(done.turn?.status, "completed", JSON.stringify(done));
        assert.equal(await Deno.readTextFile(`${path}/work.txt`), "after-restart\n");

        // Ended: free. Its file is uncommitted work; taken away, the worktree goes.
        const listed = await call(c, "codex_worktree", { action: "list" });
        assert.equal(listed.worktrees?.[0].active, false, JSON.stringify(listed));
        const dirty = await call(c, "codex_worktree", { action: "remove", name: "held" });
        assert.equal(dirty.reason, "worktree_dirty", JSON.stringify(dirty));
        await Deno.remove(`${path}/work.txt`);
        const removed = await call(c, "codex_worktree", { action: "remove", name: "held" });
        assert.equal(removed.status, "removed", JSON.stringify(removed));
        assert.equal(await sh(w.repo, "branch", "--list", "codex/held"), "");
        assert.equal(await Deno.stat(path).catch(() => null), null);
      }),
  });
}

Deno.test({
  name:
    "e2e worktree on the daemon: a daemon killed mid-run and started again leaves the turn unended: no relay lists it free (a new one: active unknown), removed only with force",
  ignore: BIN === null,
  fn: () =>
    withWorld(async (w) => {
      const a = await w.start();
      const run = await heldRun(w, a);
      const path = run.worktree!.path;
      Deno.kill(w.daemon.pid, "SIGKILL");
      await stopDaemon(BIN!.path, w.home); // Reaps what it left (its pid-update-loop).
      await startDaemon(BIN!.path, w.home);
      const stored = await lastTurn(w, run.threadId);
      assert.deepEqual([stored.status, stored.completedAt], ["interrupted", null]);
      const c = await w.start();
      // Relay A, which lived through the restart, may still count the run as its own: not free.
      const mine = await keptFor(w, a, path, "relay A");
      assert.notEqual(mine.active, false, JSON.stringify(mine));
      const wt = await keptFor(w, c, path, "a relay started after");
      assert.equal(wt.active, null, JSON.stringify(wt));
      assert.match(wt.activeUnknown ?? "", /has not ended/);
      const forced = await call(c, "codex_worktree", {
        action: "remove",
        name: "held",
        force: true,
      });
      assert.equal(forced.status, "removed", JSON.stringify(forced));
      assert.equal(await sh(w.repo, "branch", "--list", "codex/held"), "");
    }),
});

Deno.test({
  name:
    "e2e worktree on the daemon: the user's own Codex running in the worktree by another spelling of its path (a symlink) keeps it",
  ignore: BIN === null,
  fn: () =>
    withWorld(async (w) => {
      const relay = await w.start();
      const made = await call(relay, "codex_run", {
        cwd: w.repo,
        text: "make it",
        worktree: "held",
        waitSeconds: 55,
      });
      assert.equal(made.turn?.status, "completed", JSON.stringify(made));
      const path = made.worktree!.path;
      assert.equal(path, await Deno.realPath(path), "the relay keeps the real path");
      // The user's Codex (an editor that opened the folder through a symlink) stores that spelling;
      // Codex lists the thread for the real path too (its cwd filter matches canonically).
      const alias = `${w.home.root}/alias`;
      await Deno.symlink(w.home.home, alias);
      const spelt = `${alias}/.codex/worktrees/codex-relay/held`;
      const user = await DaemonClient.connect(BIN!.path, w.home);
      try {
        const { thread } = await user.request("thread/start", { cwd: spelt }) as {
          thread: { id: string; cwd: string };
        };
        assert.equal(thread.cwd, spelt);
        await user.request("turn/start", {
          threadId: thread.id,
          input: [{ type: "text", text: "SLOW:held the user's own", text_elements: [] }],
        });
        await w.mock.held("held");
        const wt = await keptFor(w, relay, path, "the relay");
        assert.equal(wt.active, true, JSON.stringify(wt));
        w.mock.release("held");
        await user.waitFor((m) =>
          m.method === "turn/completed" && (m.params as { threadId: string }).threadId === thread.id
        );
      } finally {
        await user.close();
      }
      const removed = await call(relay, "codex_worktree", { action: "remove", name: "held" });
      assert.equal(removed.status, "removed", JSON.stringify(removed));
    }),
});
