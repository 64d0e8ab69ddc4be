/**
 * Proves the e2e harness (Responses mock + CODEX_HOME builder + raw app-server driver + the
 * elicitation MCP server) against the real `codex app-server`.
 *
 * Run: `CODEX_BIN=/path/to/codex deno test -P tests/e2e/harness_test.ts`. Without a codex
 * binary every test is reported as ignored and a SKIPPED line is printed.
 *
 * Every test gets its own mock, temp CODEX_HOME and app-server process, and checks the process
 * table afterwards: nothing tagged with its temp root may survive.
 */
import assert from "node:assert/strict";
import {
  AppServer,
  listAllItems,
  RpcError,
  type ServerRequestHandler,
} from "../../testing/app_server_client.ts";
import { codexForTests } from "../../testing/codex_bin.ts";
import type { CodexHome, CodexHomeOptions } from "../../testing/codex_home.ts";
import { processesTagged } from "../../testing/process_table.ts";
import { longAnswerText, type MockResponses } from "../../testing/mock_responses.ts";
import { withMockHome } from "../../testing/mock_home.ts";

const BIN = codexForTests("tests/e2e/harness_test.ts");
const ignore = BIN === null;

type Rec = Record<string, unknown>;

interface Env {
  mock: MockResponses;
  home: CodexHome;
  server: AppServer;
}

async function withCodex(
  opts: Omit<CodexHomeOptions, "mockUrl"> & { onServerRequest?: ServerRequestHandler },
  fn: (env: Env) => Promise<void>,
): Promise<void> {
  const { onServerRequest, ...homeOpts } = opts;
  let status: Deno.CommandStatus | undefined;
  await withMockHome(homeOpts, async ({ mock, home }) => {
    let server: AppServer | null = null;
    try {
      server = await AppServer.start(home, { bin: BIN!.path, onServerRequest });
      // The check below is only meaningful if it sees our processes while they run.
      assert.ok(
        (await processesTagged(home.root)).some((p) => p.pid === server!.pid),
        "the process-table check must find the running app-server",
      );
      await fn({ mock, home, server });
    } finally {
      status = await server?.close();
    }
  });
  if (status) assert.equal(status.code, 0, `app-server exit status ${JSON.stringify(status)}`);
}

function items(entries: { item: Rec }[]): Rec[] {
  return entries.map((e) => e.item);
}

Deno.test({
  name: "e2e harness: default turn stores commentary + final answer with phases and clientId",
  ignore,
  fn: () =>
    withCodex({}, async ({ mock, home, server }) => {
      const thread = await server.startThread({ cwd: home.workspace });
      const cum = "cum-e2e-default-1";
      const run = await server.runTurn(thread.id, "hello relay", { clientUserMessageId: cum });
      assert.equal(run.turn.status, "completed");
      assert.equal(run.turn.error, null);

      // live notifications
      const liveUser = run.notifications.find((n) =>
        n.method === "item/completed" && (n.params.item as Rec).type === "userMessage"
      );
      assert.equal((liveUser?.params.item as Rec).clientId, cum);
      const methods = run.notifications.map((n) => n.method);
      assert.equal(methods[0], "turn/started");
      assert.equal(methods.at(-1), "turn/completed");

      // stored items
      const stored = items(await listAllItems(server, thread.id));
      assert.deepEqual(stored.map((i) => [i.type, i.phase ?? null]), [
        ["userMessage", null],
        ["agentMessage", "commentary"],
        ["agentMessage", "final_answer"],
      ]);
      assert.equal(stored[0].clientId, cum);
      assert.deepEqual(stored[0].content, [{
        type: "text",
        text: "hello relay",
        text_elements: [],
      }]);
      assert.equal(stored[1].text, "Looking at: hello relay");
      assert.equal(stored[2].text, "Echo: hello relay");
      assert.equal(stored[2].id, `msg_${mock.requests[0].seq}_final`); // provider id verbatim

      // what Codex sent to the mock
      assert.equal(mock.requests.length, 1);
      const req = mock.requests[0];
      assert.equal(req.path, "/v1/responses");
      assert.equal(req.userText, "hello relay");
      assert.equal((req.body as Rec).model, "mock-model");
      assert.equal((req.body as Rec).stream, true);
    }),
});

Deno.test({
  name: "e2e harness: LONG final answer (> 16 KiB, 1-4 byte UTF-8) arrives intact",
  ignore,
  fn: () =>
    withCodex({}, async ({ home, server }) => {
      const thread = await server.startThread({ cwd: home.workspace });
      const run = await server.runTurn(thread.id, "please LONG");
      assert.equal(run.turn.status, "completed");
      const expected = longAnswerText();
      assert.ok(new TextEncoder().encode(expected).length > 16 * 1024);
      for (const ch of ["a", "é", "€", "😀"]) {
        assert.equal(new TextEncoder().encode(ch).length, ["a", "é", "€", "😀"].indexOf(ch) + 1);
        assert.ok(expected.includes(ch));
      }
      const live = run.notifications.find((n) =>
        n.method === "item/completed" && (n.params.item as Rec).phase === "final_answer"
      );
      assert.equal((live?.params.item as Rec).text, expected);
      const deltas = run.notifications.filter((n) => n.method === "item/agentMessage/delta");
      assert.equal(deltas.map((n) => n.params.delta).join(""), expected);
      const stored = items(await listAllItems(server, thread.id));
      assert.equal(stored.at(-1)?.text, expected);
    }),
});

Deno.test({
  name: "e2e harness: FAIL and HTTP500 turns fail with codexErrorInfo",
  ignore,
  fn: () =>
    withCodex({}, async ({ home, server }) => {
      const thread = await server.startThread({ cwd: home.workspace });
      const failed = await server.runTurn(thread.id, "please FAIL");
      assert.equal(failed.turn.status, "failed");
      const err = failed.turn.error as Rec;
      assert.equal(err.codexErrorInfo, "other");
      assert.match(String(err.message), /mock says the response failed/);
      assert.ok(failed.notifications.some((n) => n.method === "error"));

      const http = await server.runTurn(thread.id, "please HTTP500");
      assert.equal(http.turn.status, "failed");
      assert.equal((http.turn.error as Rec).codexErrorInfo, "internalServerError");

      // the thread is still usable
      const ok = await server.runTurn(thread.id, "after failures");
      assert.equal(ok.turn.status, "completed");
      const turns = await server.request("thread/turns/list", {
        threadId: thread.id,
        sortDirection: "asc",
      }) as { data: Rec[] };
      assert.deepEqual(turns.data.map((t) => t.status), ["failed", "failed", "completed"]);
      assert.equal(((turns.data[0].error ?? {}) as Rec).codexErrorInfo, "other");
    }),
});

Deno.test({
  name: "e2e harness: SLOW turn holds until the test releases it",
  ignore,
  fn: () =>
    withCodex({}, async ({ mock, home, server }) => {
      const thread = await server.startThread({ cwd: home.workspace });
      const { turnId } = await server.startTurn(thread.id, "take it SLOW:gate1");
      await mock.held("gate1");
      await server.waitForNotification(
        (n) => n.method === "turn/started" && (n.params.turn as Rec).id === turnId,
        "turn/started",
      );
      // held: the turn is in progress and not completed
      const turns = await server.request("thread/turns/list", { threadId: thread.id }) as {
        data: Rec[];
      };
      assert.equal(turns.data[0].id, turnId);
      assert.equal(turns.data[0].status, "inProgress");
      const read = await server.request("thread/read", { threadId: thread.id }) as {
        thread: { status: Rec };
      };
      assert.equal(read.thread.status.type, "active");
      assert.ok(!server.notifications.some((n) => n.method === "turn/completed"));

      mock.release("gate1");
      const turn = await server.waitForTurnCompleted(turnId);
      assert.equal(turn.status, "completed");
      const stored = items(await listAllItems(server, thread.id));
      assert.equal(stored.at(-1)?.text, "Echo: take it SLOW:gate1");
    }),
});

Deno.test({
  name: "e2e harness: MCP_ELICIT routes the form elicitation to the client and back",
  ignore,
  fn: () =>
    withCodex({
      elicitMcp: true,
      onServerRequest: (r) =>
        r.method === "mcpServer/elicitation/request"
          ? { result: { action: "accept", content: { colour: "blue", sure: true }, _meta: null } }
          : { error: { code: -32601, message: `unexpected ${r.method}` } },
    }, async ({ mock, home, server }) => {
      const thread = await server.startThread({ cwd: home.workspace });
      // Codex does not hold a turn back for a server still starting: wait for its ready status.
      await server.waitForMcpServerReady(thread.id, "elicitor", 60_000);
      assert.ok(
        (await processesTagged(home.root)).some((p) => p.cmdline.includes("elicit_mcp_server.ts")),
        "the MCP server process is visible in the process table",
      );
      const run = await server.runTurn(thread.id, "please MCP_ELICIT", { timeoutMs: 60_000 });
      assert.equal(run.turn.status, "completed");

      // the live server→client request
      assert.equal(run.serverRequests.length, 1);
      const req = run.serverRequests[0];
      assert.equal(req.method, "mcpServer/elicitation/request");
      assert.equal(req.params.threadId, thread.id);
      assert.equal(req.params.turnId, run.turnId);
      assert.equal(req.params.serverName, "elicitor");
      assert.equal(req.params.mode, "form");
      assert.equal(req.params._meta, null);
      assert.equal(req.params.message, "What is your favourite colour?");
      const schema = req.params.requestedSchema as {
        properties: Record<string, Rec>;
        required: string[];
      };
      assert.deepEqual(schema.properties.colour.enum, ["red", "green", "blue"]);
      assert.equal(schema.properties.sure.type, "boolean");
      assert.deepEqual(schema.required, ["colour"]);
      const resolved = await server.waitForNotification(
        (n) => n.method === "serverRequest/resolved" && n.params.requestId === req.id,
        "serverRequest/resolved",
      );
      assert.equal(resolved.params.threadId, thread.id);

      // the tool's output reached the model and the final answer
      const want =
        `elicitation result: {"action":"accept","content":{"colour":"blue","sure":true}}`;
      const tool = run.notifications.find((n) =>
        n.method === "item/completed" && (n.params.item as Rec).type === "mcpToolCall"
      );
      const toolItem = tool?.params.item as Rec;
      assert.equal(toolItem.status, "completed");
      assert.equal(toolItem.server, "elicitor");
      assert.equal(toolItem.tool, "elicit_colour");
      assert.deepEqual((toolItem.result as Rec).content, [{ type: "text", text: want }]);
      assert.equal(mock.requests.length, 2);
      assert.deepEqual(mock.requests.map((r) => r.kind), ["mcp_call", "mcp_answer"]);
      const tools = (mock.requests[0].body as { tools: Rec[] }).tools;
      assert.ok(tools.some((t) => t.type === "namespace" && t.name === "mcp__elicitor"));
      const final = items(await listAllItems(server, thread.id)).at(-1)!;
      assert.equal(final.phase, "final_answer");
      assert.ok(String(final.text).includes(want), String(final.text));

      const log = await home.readMcpLog();
      assert.deepEqual(log.find((e) => e.ev === "elicitResult")?.result, {
        action: "accept",
        content: { colour: "blue", sure: true },
      });
    }),
});

Deno.test({
  name: "e2e harness: legacy-history thread answers thread/items/list with -32601",
  ignore,
  fn: () =>
    withCodex({}, async ({ home, server }) => {
      const thread = await server.startLegacyThread({ cwd: home.workspace });
      assert.equal(thread.historyMode, "legacy");
      const run = await server.runTurn(thread.id, "legacy hello", {
        clientUserMessageId: "cum-legacy-1",
      });
      assert.equal(run.turn.status, "completed");
      await assert.rejects(
        () => server.request("thread/items/list", { threadId: thread.id }),
        (e: unknown) => e instanceof RpcError && e.code === -32601,
      );
      const turns = await server.request("thread/turns/list", { threadId: thread.id }) as {
        data: { items: Rec[]; status: string }[];
      };
      assert.equal(turns.data[0].status, "completed");
      assert.equal(turns.data[0].items[0].clientId, "cum-legacy-1");
      assert.equal(turns.data[0].items[0].id, "item-1"); // positional ids in legacy mode
    }),
});
