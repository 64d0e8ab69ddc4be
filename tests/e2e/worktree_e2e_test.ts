/**
 * A worktree run against real Codex (the mock Responses API): `codex_run {cwd, worktree}` with
 * `--allow-worktrees`, where the model applies a patch that adds a file (Codex intercepts the
 * mock's `apply_patch` heredoc, as captured in docs/codex-protocol.md "Files a turn changed").
 * The file is in the worktree, the user's tree is untouched, `changedFiles` names it; then
 * `codex_worktree` removes the worktree and its branch (no commit beyond its base). A second run
 * on the thread works there again (a thread run: Codex's report, which misses the file its shell
 * command writes). A worktree run whose shell command goes through an approval (`on-request`):
 * every result names the worktree, and `changedFiles` is git's view, the command's file included.
 * Outside a worktree, a file the patch adds outside the repository is listed once, `outside`.
 *
 * Run: `deno test -P tests/e2e/worktree_e2e_test.ts` with codex in `.codex-npm/` or
 * `CODEX_BIN=/path/to/codex`.
 */
import assert from "node:assert/strict";
import { codexForTests } from "../../testing/codex_bin.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import { startRelay } from "../../testing/relay.ts";
import type { ElicitParams } from "../../testing/mcp_client.ts";
import { callTool } from "../../testing/call_tool.ts";
import { gitRunner } from "../../src/connect/process/git_runner.ts";
import { gitPath } from "../../testing/paths.ts";

const BIN = codexForTests("tests/e2e/worktree_e2e_test.ts");
const git = gitRunner("git");

async function sh(cwd: string, ...args: string[]): Promise<string> {
  const id = ["-c", "user.email=t@example.com", "-c", "user.name=t"];
  const out = await git([...id, ...args], cwd);
  assert.equal(out.code, 0, out.stderr);
  return out.stdout;
}

const PATCH =
  "SANDBOXED SHELL: apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: hello.txt\n+hi\n" +
  "*** End Patch\nEOF";

Deno.test({
  name:
    "e2e worktree: the model's file is in the run's worktree, the user's tree is untouched, changedFiles names it",
  ignore: BIN === null,
  async fn() {
    await withMockHome({ bin: BIN!.path }, async ({ home, env }) => {
      // The run writes: the home's threads may (workspace-write), the worktree being their cwd.
      const config = `${home.codexHome}/config.toml`;
      const toml = await Deno.readTextFile(config);
      await Deno.writeTextFile(
        config,
        toml.replace(`sandbox_mode = "read-only"`, `sandbox_mode = "workspace-write"`),
      );
      const repo = `${await Deno.realPath(home.root)}/repo`;
      await Deno.mkdir(`${repo}/sub`, { recursive: true });
      await Deno.writeTextFile(`${repo}/sub/a.txt`, "a\n");
      await sh(repo, "init", "-q");
      await sh(repo, "add", ".");
      await sh(repo, "commit", "-qm", "one");
      const gitBin = gitPath();
      const relay = await startRelay({
        env,
        flags: ["--allow-reply-read", "--allow-turn-start", "--allow-worktrees", "--git", gitBin],
        permissions: [`--allow-run=codex,/bin/kill,${gitBin}`],
        protocol: "2026-07-28",
      });
      try {
        const run = await callTool(relay.client, "codex_run", {
          cwd: `${repo}/sub`,
          text: PATCH,
          worktree: "e2e",
          waitSeconds: 55,
        }, { timeout: 90_000 });
        const out = run.structuredContent;
        assert.equal(out.turn?.status, "completed", JSON.stringify(out));
        const path = out.worktree!.path;
        assert.equal(path, `${await Deno.realPath(home.codexHome)}/worktrees/codex-relay/e2e`);
        assert.equal(out.worktree?.uncommittedLeftOut, false);
        assert.equal(await Deno.readTextFile(`${path}/sub/hello.txt`), "hi\n");
        assert.equal(await Deno.stat(`${repo}/sub/hello.txt`).catch(() => null), null);
        assert.equal(await sh(repo, "status", "--porcelain"), "", "the user's tree is untouched");
        assert.deepEqual(out.changedFiles, [{ path: "hello.txt", kind: "add" }]);
        assert.equal(out.changedFilesCount, 1);
        assert.equal(await sh(path, "status", "--porcelain"), "?? sub/hello.txt\n");

        // The thread runs there again; a file a shell command writes is in neither of Codex's
        // reports, so changedFiles does not name it.
        const again = await callTool(relay.client, "codex_run", {
          threadId: out.threadId,
          text: "SANDBOXED SHELL: echo x > shell.txt",
          waitSeconds: 55,
        }, { timeout: 90_000 });
        assert.equal(again.structuredContent.turn?.status, "completed");
        assert.equal(await Deno.readTextFile(`${path}/sub/shell.txt`), "x\n");
        assert.deepEqual(again.structuredContent.changedFiles, []);
        assert.equal(await sh(repo, "status", "--porcelain"), "");

        const removed = await callTool(relay.client, "codex_worktree", {
          action: "remove",
          name: "e2e",
        });
        assert.equal(removed.structuredContent.reason, "worktree_dirty", "its change is kept");
        const forced = await callTool(relay.client, "codex_worktree", {
          action: "remove",
          name: "e2e",
          force: true,
        });
        assert.equal(forced.structuredContent.removed?.branchDeleted, true);
        assert.equal(await sh(repo, "branch", "--list", "codex/e2e"), "");
      } finally {
        const { code } = await relay.close();
        assert.equal(code, 0);
      }
    });
  },
});

Deno.test({
  name:
    "e2e worktree: a turn another relay runs there on the same CODEX_HOME keeps it: active unknown, no remove without force",
  ignore: BIN === null,
  async fn() {
    await withMockHome({ bin: BIN!.path }, async ({ home, env, mock }) => {
      const repo = `${await Deno.realPath(home.root)}/repo`;
      await Deno.mkdir(repo, { recursive: true });
      await Deno.writeTextFile(`${repo}/a.txt`, "a\n");
      await sh(repo, "init", "-q");
      await sh(repo, "add", ".");
      await sh(repo, "commit", "-qm", "one");
      const gitBin = gitPath();
      const start = () =>
        startRelay({
          env,
          flags: ["--allow-reply-read", "--allow-turn-start", "--allow-worktrees", "--git", gitBin],
          permissions: [`--allow-run=codex,/bin/kill,${gitBin}`],
          protocol: "2026-07-28",
        });
      const a = await start();
      const b = await start();
      try {
        const run = await callTool(a.client, "codex_run", {
          cwd: repo,
          text: "SLOW:held",
          worktree: "held",
          waitSeconds: 1,
        }, { timeout: 90_000 });
        const out = run.structuredContent;
        assert.ok(out, JSON.stringify(run));
        assert.equal(out.turn?.status, "running", JSON.stringify(out));
        await mock.held("held");
        const listed = await callTool(b.client, "codex_worktree", { action: "list" });
        const [w] = listed.structuredContent.worktrees ?? [];
        assert.equal(w?.active, null, JSON.stringify(listed.structuredContent));
        assert.match(w?.activeUnknown ?? "", /has not ended/);
        const refused = await callTool(b.client, "codex_worktree", {
          action: "remove",
          name: "held",
        });
        assert.equal(refused.structuredContent.reason, "worktree_busy");
        assert.equal(await Deno.readTextFile(`${out.worktree!.path}/a.txt`), "a\n");
        const own = await callTool(a.client, "codex_worktree", { action: "list" });
        assert.equal(own.structuredContent.worktrees?.[0].active, true);
        mock.release("held");
        const done = await callTool(a.client, "codex_wait_reply", {
          threadId: out.threadId,
          clientMessageId: out.receipt.clientMessageId,
          timeoutSeconds: 55,
        }, { timeout: 90_000 });
        assert.equal(done.structuredContent.turn?.status, "completed");
        const removed = await callTool(b.client, "codex_worktree", {
          action: "remove",
          name: "held",
        });
        assert.equal(removed.structuredContent.status, "removed", JSON.stringify(removed));
      } finally {
        assert.equal((await a.close()).code, 0);
        assert.equal((await b.close()).code, 0);
      }
    });
  },
});

Deno.test({
  name:
    "e2e worktree: a run through an approval names its worktree in every result; changedFiles has its shell command's file (git's view)",
  ignore: BIN === null,
  async fn() {
    await withMockHome({ bin: BIN!.path, approval: "on-request" }, async ({ home, env }) => {
      const repo = `${await Deno.realPath(home.root)}/repo`;
      await Deno.mkdir(`${repo}/sub`, { recursive: true });
      await Deno.writeTextFile(`${repo}/sub/a.txt`, "a\n");
      await sh(repo, "init", "-q");
      await sh(repo, "add", ".");
      await sh(repo, "commit", "-qm", "one");
      const gitBin = gitPath();
      const asked: ElicitParams[] = [];
      const relay = await startRelay({
        env,
        flags: ["--allow-reply-read", "--allow-turn-start", "--allow-worktrees", "--git", gitBin],
        permissions: [`--allow-run=codex,/bin/kill,${gitBin}`],
        protocol: "2026-07-28",
        onElicit: (p) => {
          asked.push(p);
          return { action: "accept", content: { decision: "accept" } };
        },
      });
      try {
        const run = await callTool(relay.client, "codex_run", {
          cwd: `${repo}/sub`,
          text: "SHELL: echo x > shell.txt",
          worktree: "e2e-approved",
          waitSeconds: 55,
        }, { timeout: 90_000 });
        const out = run.structuredContent;
        assert.equal(out.turn?.status, "completed", JSON.stringify(out));
        assert.equal(asked.length, 1, "the command's approval reached the client");
        const path = `${await Deno.realPath(home.codexHome)}/worktrees/codex-relay/e2e-approved`;
        assert.equal(await Deno.readTextFile(`${path}/sub/shell.txt`), "x\n");
        assert.equal(out.worktree?.path, path, "the result after the approval names the worktree");
        assert.match(out.worktree?.howTo ?? "", /name: "e2e-approved"/);
        assert.deepEqual(out.changedFiles, [{ path: "shell.txt", kind: "add" }]);
        const wait = await callTool(relay.client, "codex_wait_reply", {
          threadId: out.threadId,
          clientMessageId: out.receipt.clientMessageId,
        });
        assert.deepEqual(wait.structuredContent.worktree, out.worktree);
        assert.deepEqual(wait.structuredContent.changedFiles, out.changedFiles);
        const removed = await callTool(relay.client, "codex_worktree", {
          action: "remove",
          name: "e2e-approved",
          force: true,
        });
        assert.equal(removed.structuredContent.status, "removed");
      } finally {
        const { code } = await relay.close();
        assert.equal(code, 0);
      }
    });
  },
});

Deno.test({
  name:
    "e2e changedFiles outside a worktree: a file the patch adds outside the repository is listed once, outside",
  ignore: BIN === null,
  async fn() {
    await withMockHome({ bin: BIN!.path }, async ({ home, env }) => {
      const config = `${home.codexHome}/config.toml`;
      const toml = await Deno.readTextFile(config);
      await Deno.writeTextFile(
        config,
        toml.replace(`sandbox_mode = "read-only"`, `sandbox_mode = "workspace-write"`),
      );
      const root = await Deno.realPath(home.root);
      const repo = `${root}/repo`;
      await Deno.mkdir(`${repo}/sub`, { recursive: true });
      await Deno.mkdir(`${root}/outside`);
      await Deno.writeTextFile(`${repo}/sub/a.txt`, "a\n");
      await sh(repo, "init", "-q");
      await sh(repo, "add", ".");
      await sh(repo, "commit", "-qm", "one");
      const relay = await startRelay({
        env,
        flags: ["--allow-reply-read", "--allow-turn-start"],
        protocol: "2026-07-28",
      });
      try {
        const text = "SANDBOXED SHELL: apply_patch <<'EOF'\n*** Begin Patch\n" +
          `*** Add File: ${root}/outside/x.txt\n+hi\n*** Add File: in.txt\n+in\n*** End Patch\nEOF`;
        const run = await callTool(relay.client, "codex_run", {
          cwd: `${repo}/sub`,
          text,
          waitSeconds: 55,
        }, { timeout: 90_000 });
        const out = run.structuredContent;
        assert.equal(out.turn?.status, "completed", JSON.stringify(out));
        assert.equal(await Deno.readTextFile(`${root}/outside/x.txt`), "hi\n");
        assert.deepEqual(out.changedFiles, [
          { path: "../../outside/x.txt", kind: "add", outside: true },
          { path: "in.txt", kind: "add" },
        ]);
        assert.equal(out.changedFilesCount, 2);
      } finally {
        const { code } = await relay.close();
        assert.equal(code, 0);
      }
    });
  },
});
