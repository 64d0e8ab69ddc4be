/**
 * The texts a model reads are true in the mode the relay runs in: through
 * the daemon a message queued to a thread the daemon holds idle starts at
 * once, and turns outlive the relay; with a private app-server per call
 * neither holds.
 */

import assert from "assert";
import { thread, withFixture } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";

interface Texts {
  instructions: string;
  queue: string;
  withdraw: string;
  receipt: string;
}

async function texts(mode: "spawn" | "daemon"): Promise<Texts> {
  const t = thread({ name: "alpha" });
  let seen: Texts | undefined;
  await withFixture({ threads: [t] }, async (f) => {
    const relay = await startRelay({
      fixture: f,
      flags: ["--allow-turn-start", "--app-server", mode],
      protocol: "2026-07-28",
    });
    try {
      const instructions = relay.client.getInstructions() ?? "";
      const { tools } = await relay.client.listTools();
      const description = (name: string) => tools.find((x) => x.name === name)?.description ?? "";
      const q = await callTool(relay.client, "codex_queue_message", { threadId: t.id, text: "hi" });
      assert.equal(q.structuredContent.status, "queued");
      seen = {
        instructions,
        queue: description("codex_queue_message"),
        withdraw: description("codex_withdraw_message"),
        receipt: (q.content as { text: string }[])[0].text,
      };
    } finally {
      const { code } = await relay.close();
      assert.equal(code, 0);
    }
  });
  return seen!;
}

Deno.test("daemon mode: the receipt, the queue tool and the instructions say an idle thread the daemon holds starts the message at once", async () => {
  const d = await texts("daemon");
  assert.match(d.receipt, /^Queued \(.*\)\. Stored in the Codex daemon's queue/);
  assert.match(d.receipt, /a thread the daemon holds idle starts it at once/);
  assert.doesNotMatch(d.receipt, /not processed yet/);
  assert.match(d.queue, /holds idle starts it at once/);
  assert.match(d.withdraw, /holds idle takes it at once/);
  assert.match(d.instructions, /a thread the daemon holds idle starts it at once/);
  assert.match(
    d.instructions,
    /Turns run in the Codex daemon and keep running if codex-relay exits/,
  );
});

Deno.test("spawn mode: the same texts say the message waits for the thread's next resume, and turns end with the relay", async () => {
  const s = await texts("spawn");
  assert.match(s.receipt, /Stored, not processed yet: it runs when a Codex process next resumes/);
  for (const text of [s.receipt, s.queue, s.withdraw, s.instructions]) {
    assert.doesNotMatch(text, /at once/);
  }
  assert.match(s.instructions, /Turns run inside codex-relay and end when it exits/);
});
