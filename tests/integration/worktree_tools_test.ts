/**
 * `--allow-worktrees` through `mod.ts serve`: the flag needs `--allow-turn-start`; without it
 * tools/list is unchanged; with it `codex_run {cwd, worktree}` runs its new thread in a git
 * worktree (the fixture's thread is started there) and names it, `codex_worktree` lists and
 * removes it; errors (not a repository, a name that exists) are results.
 */
import assert from "node:assert/strict";
import type { ElicitResult } from "@modelcontextprotocol/client";
import type { ElicitParams } from "../../testing/mcp_client.ts";
import { agentItem, commandApproval, FixtureHome } from "../../testing/fixture_home.ts";
import { relayArgs, startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { callTool } from "../../testing/call_tool.ts";
import { gitRunner } from "../../src/connect/process/git_runner.ts";
import { denoChildEnv } from "../../testing/child_env.ts";
import {
  INITIALIZED,
  initializeRequest,
  RawStdioRelay,
  toolCall,
} from "../../testing/raw_relay.ts";
import { processesTagged } from "../../testing/process_table.ts";
import { gitPath } from "../../testing/paths.ts";

const FULL = ["--allow-reply-read", "--allow-turn-start"];

async function withRelay(
  s: Scenario,
  flags: string[],
  fn: (client: Awaited<ReturnType<typeof startRelay>>["client"], f: FixtureHome) => Promise<void>,
  home?: FixtureHome,
  onElicit?: (p: ElicitParams) => ElicitResult | Promise<ElicitResult>,
): Promise<void> {
  const f = home ?? await FixtureHome.create(s);
  const git = gitPath();
  const relay = await startRelay({
    fixture: f,
    flags: [...flags, "--git", git],
    permissions: [`--allow-run=codex,/bin/kill,${git}`],
    protocol: "2026-07-28",
    onElicit,
  });
  try {
    await fn(relay.client, f);
  } finally {
    const { code } = await relay.close();
    assert.equal(code, 0);
    assert.deepEqual(f.alive(), []);
    if (!home) await f.dispose();
  }
}

async function repo(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "relay-wt-repo-" }));
  const git = gitRunner("git");
  await Deno.mkdir(`${dir}/sub`);
  await Deno.writeTextFile(`${dir}/sub/a.txt`, "a\n");
  const id = ["-c", "user.email=t@example.com", "-c", "user.name=t"];
  for (const args of [["init", "-q"], ["add", "."], [...id, "commit", "-qm", "one"]]) {
    assert.equal((await git(args, dir)).code, 0);
  }
  return dir;
}

Deno.test("--allow-worktrees needs --allow-turn-start; --git needs --allow-worktrees (usage errors, exit 64)", async () => {
  for (const flags of [["--allow-worktrees"], ["--allow-turn-start", "--git", "/usr/bin/git"]]) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: relayArgs(flags),
      env: denoChildEnv({}),
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 64, flags.join(" "));
    assert.equal(out.stdout.length, 0, "nothing on stdout");
    assert.match(new TextDecoder().decode(out.stderr), /needs --allow-/);
  }
});

Deno.test("without --allow-worktrees, codex_run has no worktree and codex_worktree does not exist", async () => {
  const f = await FixtureHome.create({ threads: [] });
  const relay = await startRelay({ fixture: f, flags: FULL, protocol: "2026-07-28" });
  try {
    const { tools } = await relay.client.listTools();
    assert.ok(!tools.some((t) => t.name === "codex_worktree"));
    const run = tools.find((t) => t.name === "codex_run")!;
    assert.ok(!Object.keys(run.inputSchema.properties ?? {}).includes("worktree"));
    assert.ok(!Object.keys(run.outputSchema?.properties ?? {}).includes("worktree"));
  } finally {
    await relay.close();
    await f.dispose();
  }
});

Deno.test("codex_run {cwd, worktree}: the thread starts in the worktree's subfolder; codex_worktree lists and removes it", async () => {
  const dir = await repo();
  try {
    const s: Scenario = { threads: [], newThreadScripts: [[{ end: "completed" }]] };
    await withRelay(s, [...FULL, "--allow-worktrees"], async (client, f) => {
      await Deno.writeTextFile(`${dir}/sub/a.txt`, "uncommitted\n");
      const run = await callTool(client, "codex_run", {
        cwd: `${dir}/sub`,
        text: "work",
        worktree: "job-1",
      });
      const out = run.structuredContent;
      assert.ok(out, JSON.stringify(run));
      const root = `${f.home}/worktrees/codex-relay`;
      assert.equal(out.turn?.status, "completed", JSON.stringify(out));
      assert.equal(out.worktree?.path, `${await Deno.realPath(root)}/job-1`);
      assert.equal(out.worktree?.branch, "codex/job-1");
      assert.equal(out.worktree?.uncommittedLeftOut, true);
      assert.deepEqual(out.changedFiles, []);
      const starts = (await f.requests()).filter((r) => r.method === "thread/start");
      assert.equal((starts[0].params as { cwd: string }).cwd, `${out.worktree!.path}/sub`);
      assert.equal(await Deno.readTextFile(`${out.worktree!.path}/sub/a.txt`), "a\n");
      assert.equal(await Deno.readTextFile(`${dir}/sub/a.txt`), "uncommitted\n");

      const again = await callTool(client, "codex_run", { cwd: dir, text: "x", worktree: "job-1" });
      assert.equal(again.structuredContent.receipt.status, "not_sent");
      assert.equal(again.structuredContent.reason, "worktree_exists");
      const none = await callTool(client, "codex_run", { cwd: f.home, text: "x", worktree: true });
      assert.equal(none.structuredContent.reason, "not_a_repository");

      const listed = await callTool(client, "codex_worktree", { action: "list" });
      assert.deepEqual(listed.structuredContent.worktrees?.map((w) => [w.name, w.active]), [
        ["job-1", false],
      ]);
      const removed = await callTool(client, "codex_worktree", { action: "remove", name: "job-1" });
      assert.equal(removed.structuredContent.status, "removed");
      assert.equal(removed.structuredContent.removed?.branchDeleted, true);
      const gone = await callTool(client, "codex_worktree", { action: "remove", name: "job-1" });
      assert.equal(gone.structuredContent.reason, "worktree_not_found");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("codex_worktree: a worktree whose run is active is listed active and not removed (worktree_busy)", async () => {
  const dir = await repo();
  try {
    const s: Scenario = {
      threads: [],
      newThreadScripts: [[{ barrier: "hold-turn" }, { end: "completed" }]],
    };
    await withRelay(s, [...FULL, "--allow-worktrees"], async (client, f) => {
      const hold = await f.barrier("hold-turn");
      const run = await callTool(client, "codex_run", {
        cwd: dir,
        text: "work",
        worktree: true,
        waitSeconds: 1,
      });
      const out = run.structuredContent;
      assert.equal(out.turn?.status, "running");
      const name = out.worktree!.name;
      assert.match(name, /^run-\d{8}-\d{6}-[0-9a-f]{4}$/);
      await hold.reached();
      const listed = await callTool(client, "codex_worktree", { action: "list" });
      assert.deepEqual(listed.structuredContent.worktrees?.map((w) => [w.name, w.active]), [
        [name, true],
      ]);
      const busy = await callTool(client, "codex_worktree", {
        action: "remove",
        name,
        force: true,
      });
      assert.equal(busy.structuredContent.reason, "worktree_busy");
      assert.match(busy.content[0].type === "text" ? busy.content[0].text : "", /active/);
      await hold.release();
      const wait = await callTool(client, "codex_wait_reply", {
        threadId: out.threadId,
        clientMessageId: out.receipt.clientMessageId,
      });
      assert.equal(wait.structuredContent.turn?.status, "completed");
      const removed = await callTool(client, "codex_worktree", { action: "remove", name });
      assert.equal(removed.structuredContent.status, "removed");
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("codex_worktree: another relay's run on the same CODEX_HOME is not removed without force; active says it cannot tell", async () => {
  const dir = await repo();
  const s: Scenario = {
    threads: [],
    newThreadScripts: [[{ barrier: "hold-turn" }, { end: "completed" }]],
  };
  const f = await FixtureHome.create(s);
  const git = gitPath();
  const start = () =>
    startRelay({
      fixture: f,
      flags: [...FULL, "--allow-worktrees", "--git", git],
      permissions: [`--allow-run=codex,/bin/kill,${git}`],
      protocol: "2026-07-28",
    });
  const a = await start();
  const b = await start();
  try {
    const hold = await f.barrier("hold-turn");
    const run = await callTool(a.client, "codex_run", {
      cwd: dir,
      text: "work",
      worktree: "shared",
      waitSeconds: 1,
    });
    assert.equal(run.structuredContent.turn?.status, "running", JSON.stringify(run));
    await hold.reached();
    const listed = await callTool(b.client, "codex_worktree", { action: "list" });
    const [w] = listed.structuredContent.worktrees ?? [];
    assert.equal(w?.name, "shared");
    assert.equal(w?.active, null, JSON.stringify(w));
    assert.match(w?.activeUnknown ?? "", /has not ended/);
    const refused = await callTool(b.client, "codex_worktree", {
      action: "remove",
      name: "shared",
    });
    assert.equal(refused.structuredContent.reason, "worktree_busy", JSON.stringify(refused));
    assert.equal(await Deno.readTextFile(`${w.path}/sub/a.txt`), "a\n", "the run's folder is kept");
    // Its own relay knows: active.
    const own = await callTool(a.client, "codex_worktree", { action: "list" });
    assert.equal(own.structuredContent.worktrees?.[0].active, true);
    await hold.release();
    const wait = await callTool(a.client, "codex_wait_reply", {
      threadId: run.structuredContent.threadId,
      clientMessageId: run.structuredContent.receipt.clientMessageId,
    });
    assert.equal(wait.structuredContent.turn?.status, "completed");
    // Ended: the other relay removes it without force.
    const removed = await callTool(b.client, "codex_worktree", {
      action: "remove",
      name: "shared",
    });
    assert.equal(removed.structuredContent.status, "removed", JSON.stringify(removed));
  } finally {
    assert.equal((await a.close()).code, 0);
    assert.equal((await b.close()).code, 0);
    await f.dispose();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a make held by git at stdin EOF: the codex_run is answered within the shutdown bound, git's group killed, the worktree listed after", async () => {
  const dir = await repo();
  const f = await FixtureHome.create({ threads: [], newThreadScripts: [[{ end: "completed" }]] });
  const tag = `git-eof-${crypto.randomUUID()}`;
  // A git that hangs (with a child in its group) in `worktree add`, as a slow filter would.
  const real = gitPath();
  const fake = `${f.home}/slow-git`;
  await Deno.writeTextFile(
    fake,
    `#!/bin/sh\nfor a in "$@"; do [ "$a" = add ] && { RELAY_TEST_TAG=${tag} sleep 300 & touch '${f.home}/git-hangs'; wait; exit 1; }; done\nexec '${real}' "$@"\n`,
  );
  await Deno.chmod(fake, 0o755);
  const relay = new RawStdioRelay(
    f.env,
    [...FULL, "--allow-worktrees", "--git", fake],
    [`--allow-run=codex,/bin/kill,${fake}`],
  );
  try {
    relay.readStdout();
    await relay.write(initializeRequest(1), INITIALIZED);
    await relay.until(() => relay.answers().has(1), "initialize answered");
    const watcher = Deno.watchFs(f.home);
    await relay.write(toolCall(2, "codex_run", { cwd: dir, text: "x", worktree: "eof" }));
    for await (const event of watcher) {
      if (event.paths.includes(`${f.home}/git-hangs`)) break;
    }
    watcher.close();
    const began = performance.now();
    await relay.closeStdin();
    await relay.until(() => relay.answers().has(2), "the codex_run answered", 5_000);
    const status = await relay.exited();
    assert.equal(status.code, 0);
    assert.ok(performance.now() - began < 2_500, `${performance.now() - began} ms`);
    const [answer] = relay.answers().get(2)!;
    const out = (answer.result as { structuredContent: Record<string, unknown> }).structuredContent;
    assert.equal(out.reason, "cancelled", JSON.stringify(answer));
    assert.deepEqual(await processesTagged(tag), [], "git's whole group was killed");
  } finally {
    await relay.dispose();
  }
  // The half-made worktree is recorded: another relay lists it and removes it.
  await withRelay({ threads: [] }, [...FULL, "--allow-worktrees"], async (client) => {
    const listed = await callTool(client, "codex_worktree", { action: "list" });
    assert.deepEqual(listed.structuredContent.worktrees?.map((w) => w.name), ["eof"]);
    const removed = await callTool(client, "codex_worktree", { action: "remove", name: "eof" });
    assert.equal(removed.structuredContent.status, "removed", JSON.stringify(removed));
  }, f);
  await f.dispose();
  await Deno.remove(dir, { recursive: true });
});

Deno.test("[daemon] after a relay restart the turn the daemon runs on keeps its worktree: not listed free, not removed without force", async () => {
  const dir = await repo();
  const s: Scenario = {
    threads: [],
    newThreadScripts: [[{ barrier: "never-released" }, { end: "completed" }]],
  };
  const f = await FixtureHome.create(s);
  const git = gitPath();
  const start = () =>
    startRelay({
      fixture: f,
      flags: [...FULL, "--allow-worktrees", "--git", git, "--app-server", "daemon"],
      permissions: [`--allow-run=codex,/bin/kill,${git}`],
      protocol: "2026-07-28",
    });
  try {
    const first = await start();
    const held = await f.barrier("never-released");
    try {
      const [run] = await Promise.all([
        callTool(first.client, "codex_run", {
          cwd: dir,
          text: "go",
          worktree: "kept",
          waitSeconds: 1,
        }),
        held.reached(),
      ]);
      assert.equal(run.structuredContent.turn?.status, "running", JSON.stringify(run));
    } finally {
      assert.equal((await first.close()).code, 0, "the turn is left to the daemon");
    }
    const second = await start();
    try {
      const listed = await callTool(second.client, "codex_worktree", { action: "list" });
      // The fixture's daemon lets go of a thread its last client unsubscribed from, so it reads
      // as another process's (unknown); real Codex's daemon says active
      // (tests/e2e/worktree_daemon_e2e_test.ts).
      const [w] = listed.structuredContent.worktrees ?? [];
      assert.notEqual(w?.active, false, JSON.stringify(listed.structuredContent));
      const busy = await callTool(second.client, "codex_worktree", {
        action: "remove",
        name: "kept",
      });
      assert.equal(busy.structuredContent.reason, "worktree_busy", JSON.stringify(busy));
      const path = listed.structuredContent.worktrees![0].path;
      assert.equal(await Deno.readTextFile(`${path}/sub/a.txt`), "a\n");
    } finally {
      assert.equal((await second.close()).code, 0);
    }
  } finally {
    await f.dispose();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a worktree run through an approval: every result names its worktree (howTo with its name); changedFiles are git's, a shell's write too", async () => {
  const dir = await repo();
  try {
    const s: Scenario = {
      threads: [],
      newThreadScripts: [[
        commandApproval(),
        { item: agentItem("msg_f", "done") },
        { end: "completed" },
      ]],
    };
    let home = "";
    const asked: string[] = [];
    // While Codex waits on the approval, a "shell command" of the run writes into the worktree:
    // Codex reports no file of it; git sees it, as it sees the change to a.txt.
    const onElicit = async (p: ElicitParams): Promise<ElicitResult> => {
      asked.push(String(p.message));
      const at = `${home}/worktrees/codex-relay/job-2`;
      await Deno.writeTextFile(`${at}/sub/shell.txt`, "x\n");
      await Deno.writeTextFile(`${at}/sub/a.txt`, "changed\n");
      await Deno.writeTextFile(`${at}/top.txt`, "outside cwd\n");
      return { action: "accept", content: { decision: "accept" } };
    };
    await withRelay(
      s,
      [...FULL, "--allow-worktrees"],
      async (client, f) => {
        home = f.home;
        const run = await callTool(client, "codex_run", {
          cwd: `${dir}/sub`,
          text: "work",
          worktree: "job-2",
          waitSeconds: 30,
        }, { timeout: 60_000 });
        const out = run.structuredContent;
        assert.equal(asked.length, 1, "the approval went through an input round");
        assert.equal(out.turn?.status, "completed", JSON.stringify(out));
        const path = `${await Deno.realPath(`${f.home}/worktrees/codex-relay`)}/job-2`;
        assert.equal(out.worktree?.name, "job-2", "the result after the round names the worktree");
        assert.equal(out.worktree?.path, path);
        assert.match(
          out.worktree?.howTo ?? "",
          /codex_worktree \{action: "remove", name: "job-2"\}/,
        );
        const files = [
          { path: "../top.txt", kind: "add", outside: true },
          { path: "a.txt", kind: "update" },
          { path: "shell.txt", kind: "add" },
        ];
        assert.deepEqual(out.changedFiles, files);
        assert.equal(out.changedFilesCount, 3);

        const wait = await callTool(client, "codex_wait_reply", {
          threadId: out.threadId,
          clientMessageId: out.receipt.clientMessageId,
        });
        assert.deepEqual(wait.structuredContent.worktree, out.worktree);
        assert.deepEqual(wait.structuredContent.changedFiles, files);
        const list = await callTool(client, "codex_list_threads", {});
        const runs = list.structuredContent.runs ?? [];
        const listed = runs.find((r) => r.clientMessageId === out.receipt.clientMessageId);
        assert.deepEqual(listed?.worktree, out.worktree, "the list's run names it");
      },
      undefined,
      onElicit,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
