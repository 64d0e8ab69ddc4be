/**
 * Elicitation modes the relay cannot forward, through the real entry point
 * (`mod.ts serve`): Codex gets `decline` at once, the client is never asked,
 * and the codex_run result (and codex_wait_reply after it) says so.
 */
import assert from "assert";
import type { ElicitParams } from "../../testing/mcp_client.ts";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";

// McpServerElicitationRequestParams, openai/userVerification branch (0.169 and 0.171 schemas).
const USER_VERIFICATION = {
  serverName: "bank",
  mode: "openai/userVerification",
  title: "Confirm it is you",
  description: "Approve the transfer on your device",
  challenge: "Y2hhbGxlbmdlLWJ5dGVz",
  _meta: null,
};
const NEW_MODE = { serverName: "bank", mode: "openai/faceScan", message: "Look at the camera" };

Deno.test("codex_run: openai/userVerification and an unknown elicitation mode are declined at once and reported", async () => {
  const t = thread({
    scripts: [[
      { request: { method: "mcpServer/elicitation/request", params: USER_VERIFICATION } },
      { request: { method: "mcpServer/elicitation/request", params: NEW_MODE } },
      { item: agentItem("msg_f", "Done without the transfer.") },
      { end: "completed" },
    ]],
  });
  const f = await FixtureHome.create({ threads: [t] });
  const asked: ElicitParams[] = [];
  const relay = await startRelay({
    fixture: f,
    flags: ["--allow-turn-start", "--allow-reply-read"],
    protocol: "2026-07-28",
    onElicit: (params) => {
      asked.push(params);
      return { action: "accept", content: {} };
    },
  });
  try {
    const result = await callTool(relay.client, "codex_run", {
      threadId: t.id,
      text: "pay the invoice",
    }, { timeout: 60_000 });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    const out = result.structuredContent;
    assert.equal(out.turn?.status, "completed");
    assert.equal(asked.length, 0, "the client is never asked");
    assert.deepEqual(
      (await f.answers()).map((a) => a.result),
      [
        { action: "decline", content: null, _meta: null },
        { action: "decline", content: null, _meta: null },
      ],
      "Codex got decline for both",
    );
    const declined = out.declinedRequests;
    assert.deepEqual(declined?.map((d) => d.method), [
      "mcpServer/elicitation/request",
      "mcpServer/elicitation/request",
    ]);
    assert.match(String(declined?.[0].summary), /"openai\/userVerification"/);
    assert.match(String(declined?.[1].summary), /"openai\/faceScan"/);
    const text = (result.content as { text: string }[])[0].text;
    assert.match(text, /declined 2 request\(s\) of Codex it cannot forward/);
    assert.ok(!JSON.stringify(result).includes("Y2hhbGxlbmdl"), "the challenge is not passed on");

    const wait = await callTool(relay.client, "codex_wait_reply", {
      threadId: t.id,
      clientMessageId: out.receipt.clientMessageId,
      timeoutSeconds: 5,
    });
    assert.equal(
      (wait.structuredContent.declinedRequests as unknown[]).length,
      2,
      "codex_wait_reply of the same turn tells it too",
    );
  } finally {
    const { code, stderr } = await relay.close();
    assert.equal(code, 0, stderr);
    assert.deepEqual(f.alive(), [], "no helper is left in the process table");
    await f.dispose();
  }
});
