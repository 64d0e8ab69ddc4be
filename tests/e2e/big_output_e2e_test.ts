/**
 * A command that prints 3 MB against real Codex offline (issue 46, item 2): Codex tells it in one
 * `item/completed` line carrying the whole `aggregatedOutput`, over the relay's 1 MiB frame
 * bound. The relay skips that line, the run completes and lists it in `cutNotifications`, and a
 * run on another thread of the same turn host goes on. Against 0.169 (`.codex-npm`) and, with
 * `CODEX_BIN`, 0.171.
 */

import assert from "node:assert/strict";
import { callTool } from "../../testing/call_tool.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";
import { e2eCodex, type Rec, structured, withWorld } from "./_relay_e2e.ts";

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

Deno.test({
  name:
    "e2e relay: a command printing 3 MB: the run completes, its cut notification listed; another run goes on",
  ignore,
  fn: () =>
    withWorld({ approval: "never" }, async (w) => {
      const relay = await w.relay(RUN);
      const other = run(relay, {
        cwd: w.home.workspace,
        text: "SLOW:other NOECHO",
        waitSeconds: 50,
      });
      await w.mock.held("other");

      const scratch = await Deno.makeTempDir({ dir: w.home.root, prefix: "scratch-" });
      const text = `SANDBOXED SHELL: head -c ${BYTES} /dev/zero | tr '\\0' x`;
      const out = await run(relay, { cwd: scratch, text, waitSeconds: 50 });
      assert.equal((out.turn as Rec).status, "completed", JSON.stringify(out));
      const cut = (out.cutNotifications ?? []) as Rec[];
      assert.equal(cut.length, 1, JSON.stringify(out));
      assert.equal(cut[0].method, "item/completed");
      assert.equal(cut[0].itemType, "commandExecution");
      assert.match(String(cut[0].itemId), /^call_sh_\d+$/);
      // Codex cuts `aggregatedOutput` near 1 MiB: the line is still over the bound (0.169: 1049319).
      assert.ok((cut[0].bytes as number) > 1024 * 1024, `a line of ${cut[0].bytes} bytes`);
      assert.equal((out.replies as Rec[]).length, 1, "the final answer after the command is read");

      w.mock.release("other");
      const o = await other;
      assert.equal((o.turn as Rec).status, "completed", JSON.stringify(o));
      assert.equal("cutNotifications" in o, false);
    }),
});
