/**
 * Issue 31, item 1, against the real `codex app-server`: the thread's MCP
 * server needs 3 s to start (`elicit_mcp_server.ts --start-delay-ms=3000`).
 * Codex starts a turn without waiting for it (transcript
 * 25-mcp-startup-not-waited), so codex_run waits for its `ready` before it
 * queues the message: the model's request offers the server's tool, on a
 * thread the relay resumes and on one it starts. Issue 39: a server that
 * never comes up costs the first run its `startup_timeout_sec`, not the next
 * runs (each a new turn host in spawn mode); the times are printed.
 *
 * Run: `deno test -P tests/e2e/mcp_startup_e2e_test.ts` with codex in `.codex-npm/` or `CODEX_BIN`.
 */
import assert from "node:assert/strict";
import { e2eCodex, inWorld, type Rec, seedThread, structured, withWorld } from "./_relay_e2e.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import { callTool } from "../../testing/call_tool.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";
import type { MockResponses } from "../../testing/mock_responses.ts";

const BIN = e2eCodex("tests/e2e/mcp_startup_e2e_test.ts");
const ignore = BIN === null;

const RUN = ["--allow-turn-start", "--allow-reply-read"];

/** Runs `please MCP_ELICIT` with `where` and checks the model was offered the slow server's tool. */
async function runOffersTool(
  relay: ConnectedClient,
  mock: MockResponses,
  where: { threadId: string } | { cwd: string },
  text: string,
): Promise<void> {
  const result = await callTool(relay.client, "codex_run", { ...where, text, waitSeconds: 50 }, {
    timeout: 90_000,
    resetTimeoutOnProgress: true,
  });
  const out = structured(result);
  assert.equal(out.turn?.status, "completed", JSON.stringify(out));
  assert.equal(out.mcpServers, undefined, JSON.stringify(out.mcpServers));
  const first = mock.requests.find((r) => r.userText === text);
  const tools = (first?.body as { tools?: Rec[] } | undefined)?.tools ?? [];
  assert.ok(
    tools.some((tool) => tool.type === "namespace" && tool.name === "mcp__elicitor"),
    `the model is offered the slow server's tool: ${tools.map((t) => t.name).join(", ")}`,
  );
  assert.deepEqual(
    mock.requests.filter((r) => r.userText === text).map((r) => r.kind),
    ["mcp_call", "mcp_answer"],
  );
}

Deno.test({
  name:
    "e2e relay: codex_run waits for an MCP server that needs 3 s to start; the model is offered its tool",
  ignore,
  fn: () =>
    withWorld({ elicitMcp: true, extraMcpArgs: ["--start-delay-ms=3000"] }, async (w) => {
      const d = await w.driver();
      const seed = await seedThread(d, w.home, "seed NOECHO");
      await d.close();
      const relay = await w.relay(RUN, {
        onElicit: () => ({ action: "accept", content: { colour: "blue", sure: true } }),
      });
      await runOffersTool(relay, w.mock, { threadId: seed.threadId }, "resumed MCP_ELICIT");
      await runOffersTool(relay, w.mock, { cwd: w.home.workspace }, "new thread MCP_ELICIT");
    }),
});

/** An MCP server that never answers `initialize` (Codex gives it 4 s). */
const MUTE_TOML = [
  `[mcp_servers.mute]`,
  `command = "sh"`,
  `args = ["-c", "exec sleep 30"]`,
  `startup_timeout_sec = 4`,
].join("\n");

Deno.test({
  name:
    "e2e relay (spawn): an MCP server that never comes up costs the first run its startup_timeout_sec, not the next runs",
  ignore,
  fn: () =>
    withMockHome(
      { bin: BIN?.path, extraToml: MUTE_TOML },
      ({ mock, home, env }) =>
        inWorld(mock, home, env, async (w) => {
          const relay = await w.relay(RUN);
          const times: number[] = [];
          const errors: string[] = [];
          for (const n of [1, 2, 3]) {
            const began = performance.now();
            const result = await callTool(relay.client, "codex_run", {
              cwd: w.home.workspace,
              text: `run ${n} NOECHO`,
              waitSeconds: 50,
            }, { timeout: 90_000, resetTimeoutOnProgress: true });
            times.push(Math.round(performance.now() - began));
            const out = structured(result);
            assert.equal(out.turn?.status, "completed", JSON.stringify(out));
            assert.deepEqual(out.mcpServers?.map((m) => m.name), ["mute"]);
            errors.push(out.mcpServers![0].error ?? "");
          }
          // deno-lint-ignore no-console
          console.error(`codex_run with a server that never comes up, ms: ${times.join(", ")}`);
          assert.ok(times[0] >= 4000, `the first run waits for the server: ${times}`);
          assert.doesNotMatch(errors[0], /^not waited for/);
          for (const i of [1, 2]) {
            assert.match(errors[i], /^not waited for: not up at a start \d+ s ago/);
            assert.ok(times[i] < 4000, `run ${i + 1} does not wait: ${times}`);
          }
        }),
    ),
});

Deno.test({
  name:
    "e2e relay: codex_interrupt while codex_run starts (the MCP server needs 3 s): not_sent, cancelled; listed once, interrupted; the model is never asked",
  ignore,
  fn: () =>
    withWorld({ elicitMcp: true, extraMcpArgs: ["--start-delay-ms=3000"] }, async (w) => {
      const d = await w.driver();
      const seed = await seedThread(d, w.home, "seed NOECHO");
      await d.close();
      const relay = await w.relay(RUN);
      const text = "cancelled while starting NOECHO";
      const run = callTool(relay.client, "codex_run", { threadId: seed.threadId, text }, {
        timeout: 90_000,
      });
      const look = async () =>
        (await callTool(relay.client, "codex_list_threads", {})).structuredContent.runs ?? [];
      // The run is listed (still starting) from its first step: each look is a round trip.
      let listed = await look();
      while (listed.length === 0) listed = await look();
      assert.deepEqual(listed.map((r) => r.state), ["queued"]);
      const stop = (await callTool(relay.client, "codex_interrupt", { threadId: seed.threadId }))
        .structuredContent;
      assert.equal(stop.status, "interrupted", JSON.stringify(stop));
      const out = structured(await run);
      assert.deepEqual([out.receipt.status, out.reason], ["not_sent", "cancelled"]);
      assert.deepEqual((await look()).map((r) => [r.clientMessageId, r.state]), [
        [out.receipt.clientMessageId, "interrupted"],
      ]);
      assert.deepEqual(await look(), [], "listed by one look only");
      assert.deepEqual(w.mock.requests.filter((r) => r.userText === text), [], "never asked");
    }),
});
