/**
 * End-to-end test of the spawn backend's turn host against the real `codex app-server` (setup as
 * in `relay_e2e_test.ts`): several threads' turns at once on one app-server process, and a thread
 * run again on that process while another thread's turn keeps it alive (Codex's own behaviour of a
 * thread the process loaded before).
 *
 * Run: `deno test -P tests/e2e/turn_host_e2e_test.ts` with codex in `.codex-npm/` or `CODEX_BIN`.
 */
import assert from "node:assert/strict";
import { callTool } from "../../testing/call_tool.ts";
import { noEchoAnswer } from "../../testing/mock_responses.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";
import type { CodexHome } from "../../testing/codex_home.ts";
import { e2eCodex, type Rec, seedThread, seqOf, structured, withWorld } from "./_relay_e2e.ts";

const BIN = e2eCodex("tests/e2e/turn_host_e2e_test.ts");

async function run(relay: ConnectedClient, threadId: string, text: string): Promise<Rec> {
  const result = await callTool(relay.client, "codex_run", { threadId, text, waitSeconds: 55 }, {
    timeout: 90_000,
    resetTimeoutOnProgress: true,
  });
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return structured(result);
}

/** The pids of the tapped app-servers that were sent `method` for `threadId`. */
async function pidsSent(home: CodexHome, method: string, threadId?: string): Promise<Set<number>> {
  const pids = new Set<number>();
  for await (const entry of Deno.readDir(`${home.root}/frames`)) {
    const [pid, dir] = entry.name.split(".");
    if (dir !== "in") continue;
    const text = await Deno.readTextFile(`${home.root}/frames/${entry.name}`);
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      const msg = JSON.parse(line) as Rec;
      const params = msg.params as Rec | undefined;
      if (msg.method === method && (threadId === undefined || params?.threadId === threadId)) {
        pids.add(Number(pid));
      }
    }
  }
  return pids;
}

Deno.test({
  name:
    "e2e turn host: two threads' turns run at once on one codex app-server, and a thread runs again there while the other's turn keeps it up",
  ignore: BIN === null,
  fn: () =>
    withWorld({ tap: true }, async (w) => {
      const d = await w.driver();
      const a = await seedThread(d, w.home, "seed a NOECHO");
      const b = await seedThread(d, w.home, "seed b NOECHO");
      await d.close();
      const relay = await w.relay(["--allow-turn-start", "--allow-reply-read"]);

      const slow = "SLOW:b NOECHO hold the host";
      const held = run(relay, b.threadId, slow);
      await w.mock.held("b"); // B's turn runs on the turn host, held by the mock.

      for (const text of ["NOECHO first on a", "NOECHO again on a"]) {
        const out = await run(relay, a.threadId, text);
        assert.equal((out.turn as Rec).status, "completed", `${text}: ${JSON.stringify(out)}`);
        assert.deepEqual(
          (out.replies as Rec[]).map((r) => r.text),
          [noEchoAnswer(seqOf(w.mock, text))],
          JSON.stringify(out),
        );
      }
      w.mock.release("b");
      const outB = await held;
      assert.equal((outB.turn as Rec).status, "completed", JSON.stringify(outB));
      assert.deepEqual((outB.replies as Rec[]).map((r) => r.text), [
        noEchoAnswer(seqOf(w.mock, slow)),
      ]);

      const turnHosts = await pidsSent(w.home, "thread/resume");
      assert.equal(turnHosts.size, 1, "one app-server process ran all three turns");
    }),
});
