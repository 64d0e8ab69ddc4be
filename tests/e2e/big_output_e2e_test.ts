/**
 * A command that prints 3 MB against real Codex offline (issue 46, item 2): Codex tells it in one
 * `item/completed` line carrying the whole `aggregatedOutput`, over the relay's 1 MiB frame
 * bound. The relay skips that line (spawn) or WebSocket message (daemon), the run completes and
 * lists it in `cutNotifications`, and a run on another thread of the same app-server goes on. Against 0.169 (`.codex-npm`) and, with
 * `CODEX_BIN`, 0.171.
 */

import assert from "node:assert/strict";
import { callTool } from "../../testing/call_tool.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";
import { e2eCodex, type Rec, structured, withWorld } from "./_relay_e2e.ts";
import { startDaemon, stopDaemon } from "./daemon_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import type { MockResponses } from "../../testing/mock_responses.ts";
import type { CodexHome } from "../../testing/codex_home.ts";

const BIN = e2eCodex("tests/e2e/big_output_e2e_test.ts");
const ignore = BIN === null;
const RUN = ["--allow-turn-start", "--allow-reply-read"];
const BYTES = 3_000_000;

async function run(relay: ConnectedClient, args: Rec): Promise<Rec> {
  const result = await callTool(relay.client, "codex_run", args, {
    timeout: 90_000,
    resetTimeoutOnProgress: true,
  });
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return structured(result);
}

/** A run of a 3 MB command beside another run on the same app-server; both complete. */
async function bigBeside(relay: ConnectedClient, mock: MockResponses, home: CodexHome) {
  const other = run(relay, { cwd: home.workspace, text: "SLOW:other NOECHO", waitSeconds: 50 });
  await mock.held("other");

  const scratch = await Deno.makeTempDir({ dir: home.root, prefix: "scratch-" });
  const text = `SANDBOXED SHELL: head -c ${BYTES} /dev/zero | tr '\\0' x`;
  const out = await run(relay, { cwd: scratch, text, waitSeconds: 50 });
  assert.equal((out.turn as Rec).status, "completed", JSON.stringify(out));
  const cut = (out.cutNotifications ?? []) as Rec[];
  assert.equal(cut.length, 1, JSON.stringify(out));
  assert.equal(cut[0].method, "item/completed");
  assert.equal(cut[0].itemType, "commandExecution");
  assert.match(String(cut[0].itemId), /^call_sh_\d+$/);
  // Codex cuts `aggregatedOutput` near 1 MiB: the line is still over the bound (0.169: 1049319).
  assert.ok((cut[0].bytes as number) > 1024 * 1024, `a frame of ${cut[0].bytes} bytes`);
  assert.equal((out.replies as Rec[]).length, 1, "the final answer after the command is read");

  mock.release("other");
  const o = await other;
  assert.equal((o.turn as Rec).status, "completed", JSON.stringify(o));
  assert.equal("cutNotifications" in o, false);
}

Deno.test({
  name:
    "e2e relay (spawn): a command printing 3 MB: the run completes, its cut notification listed; another run goes on",
  ignore,
  fn: () =>
    withWorld({ approval: "never" }, async (w) => {
      await bigBeside(await w.relay(RUN), w.mock, w.home);
    }),
});

Deno.test({
  name:
    "e2e relay (daemon): a command printing 3 MB: the run completes, its cut notification listed; another run goes on",
  ignore,
  fn: () =>
    withMockHome({ bin: BIN!.path, approval: "never" }, async ({ mock, home, env }) => {
      await startDaemon(BIN!.path, home);
      const relay = await startRelay({
        env,
        flags: ["--app-server", "daemon", ...RUN],
        protocol: "2026-07-28",
      });
      try {
        await bigBeside(relay, mock, home);
      } finally {
        await relay.close().catch(() => {});
        await stopDaemon(BIN!.path, home);
      }
    }),
});
