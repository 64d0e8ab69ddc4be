/**
 * Moderated final answers through the real entry point (`mod.ts serve`): for
 * every moderation shape of Codex 0.169 and 0.171 (fixtures/moderation.ts),
 * codex_read_reply, codex_wait_reply and codex_run return the text only when
 * Codex's display instruction allows it, and a withheld answer's text appears
 * nowhere in the result (structured content or text content).
 */
import assert from "assert";
import { MODERATION_SHAPES } from "../../fixtures/moderation.ts";
import type { FixtureItem, Scenario } from "../../fixtures/scenario.ts";
import { agentItem, FixtureHome, thread, turn, userItem } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";

type Structured = Record<string, unknown>;

const SHAPES = Object.entries(MODERATION_SHAPES);
const secret = (i: number) => `moderated-answer-text-${i}`;

/** One final answer per shape, in the table's order. */
function finals(): FixtureItem[] {
  return SHAPES.map(([, shape], i) => ({
    ...agentItem(`msg_final_${i}`, secret(i)),
    moderation: shape.moderation,
  }));
}

/** The replies every tool must return for {@link finals}. */
function expected(): Structured[] {
  return SHAPES.map(([, shape], i) =>
    shape.disclose
      ? { itemId: `msg_final_${i}`, text: secret(i), truncated: false }
      : { itemId: `msg_final_${i}`, moderated: true, ...shape.withheld }
  );
}

/** Asserts the replies, and that no withheld text is anywhere in the whole tool result. */
function assertReplies(
  result: { structuredContent: Structured; content?: unknown },
  what: string,
): void {
  const out = result.structuredContent;
  assert.deepEqual(out.replies, expected(), `${what}: the replies`);
  const raw = JSON.stringify(result);
  SHAPES.forEach(([name, shape], i) => {
    if (!shape.disclose) {
      assert.ok(
        !raw.includes(secret(i)),
        `${what}: the text withheld by "${name}" is not returned`,
      );
    }
  });
  const text = (result.content as { text: string }[])[0].text;
  assert.match(text, /withheld: Codex moderated this answer/, `${what}: the text says so`);
}

async function withRelay(
  s: Scenario,
  flags: string[],
  fn: (client: Awaited<ReturnType<typeof startRelay>>["client"]) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create(s);
  const relay = await startRelay({ fixture: f, flags, protocol: "2026-07-28" });
  try {
    await fn(relay.client);
  } finally {
    const { code, stderr } = await relay.close();
    assert.equal(code, 0, stderr);
    assert.deepEqual(f.alive(), [], "no helper is left in the process table");
    await f.dispose();
  }
}

Deno.test("codex_read_reply and codex_wait_reply return no text of a moderated answer, of any shape", async () => {
  const cmid = "0b5f6a4e-7c1d-4e0a-9a51-4c2f8d0e6b31";
  const t = thread({ turns: [turn([userItem(cmid, "question"), ...finals()])] });
  await withRelay({ threads: [t] }, ["--allow-reply-read"], async (client) => {
    const args = { threadId: t.id, clientMessageId: cmid };
    const read = await callTool(client, "codex_read_reply", args);
    assert.notEqual(read.isError, true, JSON.stringify(read.content));
    assert.equal(read.structuredContent.status, "observed");
    assertReplies(read, "codex_read_reply");
    const wait = await callTool(client, "codex_wait_reply", { ...args, timeoutSeconds: 5 });
    assert.notEqual(wait.isError, true, JSON.stringify(wait.content));
    assert.equal(wait.structuredContent.timedOut, false);
    assertReplies(wait, "codex_wait_reply");
  });
});

Deno.test("codex_run (and codex_wait_reply after it) return no text of a moderated answer, of any shape", async () => {
  const t = thread({ scripts: [[...finals().map((item) => ({ item })), { end: "completed" }]] });
  await withRelay(
    { threads: [t] },
    ["--allow-turn-start", "--allow-reply-read"],
    async (client) => {
      const run = await callTool(client, "codex_run", { threadId: t.id, text: "go" });
      assert.notEqual(run.isError, true, JSON.stringify(run.content));
      const out = run.structuredContent;
      assert.equal(out.turn?.status, "completed");
      assertReplies(run, "codex_run");
      const receipt = out.receipt;
      const wait = await callTool(client, "codex_wait_reply", {
        threadId: t.id,
        clientMessageId: receipt.clientMessageId,
        timeoutSeconds: 5,
      });
      assert.notEqual(wait.isError, true, JSON.stringify(wait.content));
      assertReplies(wait, "codex_wait_reply of a relay-run turn");
    },
  );
});
