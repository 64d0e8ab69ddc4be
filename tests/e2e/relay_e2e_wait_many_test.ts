/**
 * End-to-end test of issue 23 against the real `codex app-server` (see `relay_e2e_test.ts` for
 * the setup): three threads run at once through one relay (`codex_run` in three scratch dirs, each
 * model request held by the mock's `SLOW:<tag>`), one of them asks for a command approval
 * (`approval_policy = "on-request"`, mock `SHELL:`), and one `codex_wait_reply {messages}` loop
 * (any, then all) collects the three final answers and forwards the approval into its turn (the
 * exact frames are read through the `tee` wrapper, world option `tap`).
 *
 * Run: `deno test -P tests/e2e/relay_e2e_wait_many_test.ts` with codex in `.codex-npm/` or
 * `CODEX_BIN`.
 */
import assert from "node:assert/strict";
import type { ElicitParams } from "../../testing/mcp_client.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";
import { callTool } from "../../testing/call_tool.ts";
import { approvalExchange, e2eCodex, type Rec, withWorld } from "./_relay_e2e.ts";

const BIN = e2eCodex("tests/e2e/relay_e2e_wait_many_test.ts");
const ignore = BIN === null;

const RUN = ["--allow-turn-start", "--allow-reply-read"];
const APPROVED = "approved-in-a-wait-on-three";

async function tool(
  relay: ConnectedClient,
  name: string,
  args: Rec,
  progress?: string[],
): Promise<Rec> {
  const result = await callTool(relay.client, name, args, {
    timeout: 120_000,
    resetTimeoutOnProgress: true,
    ...(progress ? { onprogress: (p) => void progress.push(String(p.message)) } : {}),
  });
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  assert.ok(result.structuredContent, "the result has structuredContent");
  return result.structuredContent;
}

const texts = (m: Rec) => (m.replies as { text: string }[]).map((r) => r.text);

Deno.test({
  name:
    "e2e relay: three threads at once, one asks for an approval; one wait-any/all loop collects all three and forwards it",
  ignore,
  fn: () =>
    withWorld({ approval: "on-request", tap: true }, async (w) => {
      const asked: ElicitParams[] = [];
      const relay = await w.relay(RUN, {
        onElicit: (p) => {
          asked.push(p);
          return { action: "accept", content: { decision: "accept" } };
        },
      });
      const texts3 = ["SLOW:a first", "SLOW:b second", `SLOW:c SHELL: echo ${APPROVED}`];
      const refs: Rec[] = [];
      for (const text of texts3) {
        const scratch = await Deno.makeTempDir({ dir: w.home.root, prefix: "scratch-" });
        const out = await tool(relay, "codex_run", { cwd: scratch, text, waitSeconds: 1 });
        assert.equal((out.turn as Rec).status, "running", JSON.stringify(out));
        refs.push({
          threadId: out.threadId,
          clientMessageId: (out.receipt as Rec).clientMessageId,
        });
      }
      for (const tag of ["a", "b", "c"]) await w.mock.held(tag);
      assert.equal(new Set(refs.map((r) => r.threadId)).size, 3, "three threads");

      // The loop: wait for any, keep what is final, wait again on the rest (all).
      w.mock.release("b");
      const progress: string[] = [];
      const first = await tool(relay, "codex_wait_reply", { messages: refs, timeoutSeconds: 50 });
      assert.equal(first.done, 1, JSON.stringify(first));
      const [fa, fb, fc] = first.messages as Rec[];
      assert.deepEqual(texts(fb), ["Echo: SLOW:b second"]);
      assert.deepEqual([fa.timedOut, fb.timedOut, fc.timedOut], [true, false, true]);
      assert.equal((fa.turn as Rec).status, "running", "a still runs");

      w.mock.release("a");
      w.mock.release("c");
      const rest = [refs[0], refs[2]];
      const last = await tool(relay, "codex_wait_reply", {
        messages: rest,
        until: "all",
        timeoutSeconds: 50,
      }, progress);
      assert.equal(last.done, 2, JSON.stringify(last));
      const [la, lc] = last.messages as Rec[];
      assert.deepEqual(texts(la), ["Echo: SLOW:a first"]);
      assert.equal(texts(lc).length, 1, JSON.stringify(lc));
      assert.match(texts(lc)[0], new RegExp(`Process exited with code 0\\n.*${APPROVED}\\n$`, "s"));
      assert.equal((lc.turn as Rec).status, "completed");

      // The approval reached the client once, in the wait's round, and went back into c's turn.
      assert.equal(asked.length, 1, "one approval reached the client");
      assert.match(String(asked[0].message), new RegExp(`echo ${APPROVED}`));
      assert.ok(
        progress.some((p) => /waiting for approval/.test(p)),
        `progress said an approval was waiting: ${progress.join(" | ")}`,
      );
      const exchange = await approvalExchange(w.home, String(refs[2].threadId));
      assert.equal((exchange.request.params as Rec).threadId, refs[2].threadId);
      assert.deepEqual(exchange.answer.result, { decision: "accept" });
    }),
});
