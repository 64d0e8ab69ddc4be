/**
 * The files a run changed (`changedFiles`), through `mod.ts serve`: from the fixture's
 * `fileChange` item and `turn/diff/updated` (shapes of the capture in docs/codex-protocol.md,
 * "Files a turn changed"), in `codex_run`'s result and in `codex_wait_reply` of its message.
 */
import assert from "node:assert/strict";
import { FixtureHome } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { callTool } from "../../testing/call_tool.ts";

const FULL = ["--allow-reply-read", "--allow-turn-start"];
const PATCH = {
  type: "fileChange",
  id: "call_sh_1",
  status: "completed",
  changes: [
    { path: "/repo/old.txt", kind: { type: "update", move_path: null }, diff: "SECRET-HUNK" },
    { path: "/repo/sub/hello.txt", kind: { type: "add" }, diff: "SECRET-CONTENT\n" },
  ],
};
const DIFF =
  "diff --git a/old.txt b/old.txt\nindex 1..2\n--- a/old.txt\n+++ b/old.txt\n@@ -1 +1 @@\n" +
  "-SECRET-OLD\n+SECRET-NEW\ndiff --git a/sub/hello.txt b/sub/hello.txt\nnew file mode 100644\n" +
  "diff --git a/sub/gone.txt b/sub/gone.txt\ndeleted file mode 100644\n";

Deno.test("changedFiles: codex_run and codex_wait_reply name the files the run changed, relative to its cwd, never their contents", async () => {
  const s: Scenario = {
    threads: [],
    newThreadScripts: [[
      { item: { ...PATCH, id: "fc_1" } },
      {
        notify: {
          method: "turn/diff/updated",
          params: { threadId: "$threadId", turnId: "$turnId", diff: DIFF },
        },
      },
      { item: { type: "agentMessage", id: "msg_final", text: "done", phase: "final_answer" } },
      { end: "completed" },
    ]],
  };
  const f = await FixtureHome.create(s);
  const relay = await startRelay({ fixture: f, flags: FULL, protocol: "2026-07-28" });
  try {
    const run = await callTool(relay.client, "codex_run", { cwd: "/repo/sub", text: "edit" });
    const out = run.structuredContent;
    const want = [
      { path: "../old.txt", kind: "update", outside: true },
      { path: "gone.txt", kind: "delete" },
      { path: "hello.txt", kind: "add" },
    ];
    assert.equal(out.turn?.status, "completed");
    assert.deepEqual(out.changedFiles, want);
    assert.equal(out.changedFilesCount, 3);
    assert.doesNotMatch(JSON.stringify(run), /SECRET/, "no content or diff in the result");
    const wait = await callTool(relay.client, "codex_wait_reply", {
      threadId: out.threadId,
      clientMessageId: out.receipt.clientMessageId,
    });
    assert.deepEqual(wait.structuredContent.changedFiles, want);
    assert.equal(wait.structuredContent.changedFilesCount, 3);
  } finally {
    const { code } = await relay.close();
    assert.equal(code, 0);
    assert.deepEqual(f.alive(), []);
    await f.dispose();
  }
});
