/**
 * End-to-end tests of the relay's turn-start level against the real `codex app-server` (see
 * `relay_e2e_test.ts` for the setup): codex_run with an elicitation answered by the MCP client,
 * and command approval (`approval_policy = "on-request"`, mock `SHELL:`), which reads the exact
 * frames between the relay and its helpers through a `tee` wrapper (world option `tap`).
 *
 * Run: `deno test -P tests/e2e/relay_e2e_turn_test.ts` with codex in `.codex-npm/` or `CODEX_BIN`.
 */
import assert from "node:assert/strict";
import { listAllItems } from "../../testing/app_server_client.ts";
import { noEchoAnswer, SHELL_JUSTIFICATION } from "../../testing/mock_responses.ts";
import { PROTOCOLS } from "../../testing/relay.ts";
import type { ConnectedClient, ElicitParams } from "../../testing/mcp_client.ts";
import type { ElicitResult } from "@modelcontextprotocol/client";

import {
  approvalExchange,
  assertNoLeak,
  call,
  e2eCodex,
  readReply,
  type Rec,
  seedThread,
  seqOf,
  structured,
  withWorld,
  type World,
} from "./_relay_e2e.ts";
import { callTool, type ToolResult } from "../../testing/call_tool.ts";

const BIN = e2eCodex("tests/e2e/relay_e2e_turn_test.ts");
const ignore = BIN === null;

// ---------------------------------------------------------------------------------------------
// Turn start (--allow-turn-start): codex_run with an elicitation answered by the MCP client
// ---------------------------------------------------------------------------------------------

const RUN = ["--allow-turn-start", "--allow-reply-read"];

/**
 * Runs `step` as a test step; the relay started with `--allow-turn-start` must list
 * `codex_run` (a missing tool fails the step, it is never skipped).
 */
async function turnStep(
  t: Deno.TestContext,
  relay: ConnectedClient,
  step: { name: string; fn: () => Promise<void> },
): Promise<void> {
  const { tools } = await relay.client.listTools();
  await t.step({
    ...step,
    fn: async () => {
      assert.ok(
        tools.some((tool) => tool.name === "codex_run"),
        `codex_run is listed at --allow-turn-start (got ${tools.map((x) => x.name).join(", ")})`,
      );
      await step.fn();
    },
  });
}

/** `codex_run` (fails the test on an isError result). */
async function run(
  relay: ConnectedClient,
  args: Rec,
): Promise<{ result: ToolResult<"codex_run">; out: Rec }> {
  const result = await callTool(relay.client, "codex_run", args, {
    timeout: 60_000,
    resetTimeoutOnProgress: true,
  });
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return { result, out: structured(result) };
}

for (const protocol of PROTOCOLS) {
  Deno.test({
    name: `e2e relay [${protocol}]: codex_run forwards an MCP elicitation and the client's answer`,
    ignore,
    fn: (t) =>
      withWorld({ elicitMcp: true }, async (w) => {
        const d = await w.driver();
        const seed = await seedThread(d, w.home, "seed NOECHO");
        await d.close();

        const asked: ElicitParams[] = [];
        const relay = await w.relay(RUN, {
          protocol,
          onElicit: (p) => {
            asked.push(p);
            return { action: "accept", content: { colour: "blue", sure: true } };
          },
        });
        await turnStep(t, relay, {
          name: "codex_run completes the turn with the answered elicitation",
          fn: async () => {
            const text = "please MCP_ELICIT";
            const { result, out } = await run(relay, {
              threadId: seed.threadId,
              text,
              waitSeconds: 30,
            });
            const receipt = out.receipt as Rec;
            assert.equal(receipt.status, "queued", JSON.stringify(out));
            assert.equal(receipt.threadId, seed.threadId);
            assert.equal((out.turn as Rec).status, "completed", JSON.stringify(out));

            assert.equal(asked.length, 1, "one elicitation reached the client");
            assert.equal(asked[0].mode ?? "form", "form");
            // The relay names the asking MCP server in front of its question.
            assert.equal(asked[0].message, "[elicitor] What is your favourite colour?");
            const schema = (asked[0] as { requestedSchema: { properties: Record<string, Rec> } })
              .requestedSchema;
            assert.deepEqual(schema.properties.colour.enum, ["red", "green", "blue"]);

            const log = await w.home.readMcpLog();
            assert.deepEqual(log.find((e) => e.ev === "elicitResult")?.result, {
              action: "accept",
              content: { colour: "blue", sure: true },
            });

            // The turn's final answer carries the tool output; the user text and commentary do not
            // come back.
            const [call1, answer] = w.mock.requests.filter((r) => r.userText === text);
            assert.deepEqual([call1.kind, answer.kind], ["mcp_call", "mcp_answer"]);
            const replies = out.replies as { itemId: string; text: string; truncated: boolean }[];
            assert.equal(replies.length, 1, JSON.stringify(replies));
            assert.equal(replies[0].itemId, `msg_${answer.seq}_final`);
            assert.equal(replies[0].truncated, false);
            assert.match(replies[0].text, new RegExp(`^Tool call call_mcp_${call1.seq} returned:`));
            assert.ok(
              replies[0].text.includes(
                `elicitation result: {"action":"accept","content":{"colour":"blue","sure":true}}`,
              ),
            );
            assertNoLeak(result, ["Calling the MCP tool", "seed NOECHO"]);

            // The reply is readable afterwards by the receipt's clientMessageId.
            const again = await readReply(relay, {
              threadId: seed.threadId,
              clientMessageId: String(receipt.clientMessageId),
            });
            assert.equal(again.out.status, "observed");
            assert.deepEqual(again.out.replies, replies);
          },
        });
      }),
  });
}

/** Runs `please MCP_ELICIT` with codex_run and checks the elicitor was disabled in that turn. */
async function assertElicitorDisabled(
  w: World,
  relay: ConnectedClient,
  threadId: string,
  asked: ElicitParams[],
): Promise<void> {
  const text = "please MCP_ELICIT";
  const { out } = await run(relay, { threadId, text, waitSeconds: 30 });
  assert.equal((out.turn as Rec).status, "completed", JSON.stringify(out));
  assert.deepEqual(asked, [], "no elicitation: the server was not loaded for this turn");
  const [call1, answer] = w.mock.requests.filter((r) => r.userText === text);
  const tools = (call1.body as { tools?: Rec[] }).tools ?? [];
  assert.ok(!tools.some((tool) => tool.name === "mcp__elicitor"), "the model saw no elicitor");
  assert.deepEqual(out.replies, [{
    itemId: `msg_${answer.seq}_final`,
    text: `Tool call call_mcp_${call1.seq} returned: unsupported call: mcp__elicitorelicit_colour`,
    truncated: false,
  }]);
  const log = await w.home.readMcpLog();
  assert.ok(!log.some((e) => e.ev === "callTool"), "the MCP server ran no tool");
}

/** A turn on a seeded thread with the elicitor MCP server configured: it must not be reached. */
function elicitorDisabledTest(
  name: string,
  world: { extraMcpArgs?: string[] },
  flags: string[],
  step: string,
): void {
  Deno.test({
    name,
    ignore,
    fn: (t) =>
      withWorld({ elicitMcp: true, ...world }, async (w) => {
        const d = await w.driver();
        const seed = await seedThread(d, w.home, "seed NOECHO");
        await d.close();
        const asked: ElicitParams[] = [];
        const relay = await w.relay([...RUN, ...flags], {
          onElicit: (p) => {
            asked.push(p);
            return { action: "decline" };
          },
        });
        await turnStep(t, relay, {
          name: step,
          fn: () => assertElicitorDisabled(w, relay, seed.threadId, asked),
        });
      }),
  });
}

elicitorDisabledTest(
  "e2e relay: codex_run disables a Codex MCP server entry that runs codex-relay",
  { extraMcpArgs: ["--label=codex-relay"] },
  [],
  "the recursion guard found the entry in config/read",
);

elicitorDisabledTest(
  "e2e relay: codex_run disables the MCP servers named by --disable-codex-mcp-server",
  {},
  ["--disable-codex-mcp-server", "elicitor"],
  "the named server is disabled",
);

Deno.test({
  name: "e2e relay: codex_run starts a new thread in a cwd, and reports a thread held elsewhere",
  ignore,
  fn: (t) =>
    withWorld({}, async (w) => {
      const relay = await w.relay(RUN);
      await turnStep(t, relay, {
        name: "a new thread in the workspace",
        fn: async () => {
          const text = "new thread NOECHO";
          const { result, out } = await run(relay, { cwd: w.home.workspace, text });
          const receipt = out.receipt as Rec;
          assert.equal(receipt.status, "queued");
          assert.equal(out.threadId, receipt.threadId);
          assert.equal((out.turn as Rec).status, "completed");
          const seq = seqOf(w.mock, text);
          assert.deepEqual(out.replies, [
            { itemId: `msg_${seq}_final`, text: noEchoAnswer(seq), truncated: false },
          ]);
          assertNoLeak(result, [text, "Looking at"]);
          const listed = structured(await call(relay, "codex_list_threads", {}));
          assert.deepEqual((listed.threads as Rec[]).map((x) => x.id), [out.threadId]);
        },
      });
      await turnStep(t, relay, {
        name: "a thread another Codex process has open is held_elsewhere; the message stays queued",
        fn: async () => {
          const d = await w.driver();
          const seed = await seedThread(d, w.home, "seed NOECHO"); // d holds the thread
          const text = "while held NOECHO";
          const { out } = await run(relay, { threadId: seed.threadId, text });
          assert.equal(out.reason, "held_elsewhere", JSON.stringify(out));
          const receipt = out.receipt as Rec;
          assert.equal(receipt.status, "queued");
          assert.ok(!w.mock.requests.some((r) => r.userText === text), "it did not run");
          // The holder runs it after its own next turn.
          await d.runTurn(seed.threadId, "next NOECHO");
          const ran = await d.waitForNotification(
            (n) =>
              n.method === "item/completed" &&
              (n.params.item as Rec).clientId === receipt.clientMessageId,
            "the queued message's user item",
          );
          await d.waitForTurnCompleted(String(ran.params.turnId));
          assert.ok(w.mock.requests.some((r) => r.userText === text), "the holder ran it");
        },
      });
    }),
});

// ---------------------------------------------------------------------------------------------
// Command approval (approval_policy "on-request"), as a new user tries it: codex_run in a scratch
// directory, the mock's `SHELL:` asks for an escalated command, and Codex asks the client.
// ---------------------------------------------------------------------------------------------

const APPROVED = "approved-by-relay-e2e";
/** What exec_command returns to the model when the user declines (capture 09). */
const REJECTED =
  `exec_command failed: CreateProcess { message: "Rejected(\\"rejected by user\\")" }`;

/** Checks that the approval Codex sent has the shape of capture 09, for `command` in `scratch`. */
function assertApprovalShape(request: Rec, scratch: string, command: string): void {
  const params = request.params as Rec;
  assert.deepEqual(Object.keys(params).sort(), [
    "availableDecisions",
    "command",
    "commandActions",
    "cwd",
    "environmentId",
    "itemId",
    "kind",
    "proposedExecpolicyAmendment",
    "reason",
    "startedAtMs",
    "threadId",
    "turnId",
  ]);
  assert.equal(params.command, `/bin/bash -lc '${command}'`);
  assert.equal(params.cwd, scratch);
  assert.equal(params.reason, SHELL_JUSTIFICATION);
  const available = params.availableDecisions as unknown[];
  assert.deepEqual([available[0], Object.keys(available[1] as Rec), available[2]], [
    "accept",
    ["acceptWithExecpolicyAmendment"],
    "cancel",
  ]);
}

/** The form the relay shows for a command approval. */
function assertApprovalForm(asked: ElicitParams, scratch: string, command: string): void {
  assert.equal(asked.mode ?? "form", "form");
  assert.equal(
    asked.message,
    `Codex asks to run a command (reason: ${SHELL_JUSTIFICATION}).\nCommand: /bin/bash -lc '${command}'\nIn: ${scratch}`,
  );
  const schema = (asked as { requestedSchema: { properties: Rec; required: string[] } })
    .requestedSchema;
  assert.deepEqual(Object.keys(schema.properties), ["decision"]);
  assert.deepEqual(schema.required, ["decision"]);
  const choices = (schema.properties.decision as { oneOf: { const: string }[] }).oneOf;
  assert.deepEqual(choices.map((c) => c.const), [
    "accept",
    "acceptWithExecpolicyAmendment",
    "cancel",
  ]);
}

/** Checks a `SHELL:` turn that Codex declined: the model got the rejection, nothing ran. */
async function assertDeclined(
  w: World,
  out: Rec,
  text: string,
  marker: string,
): Promise<void> {
  assert.equal((out.turn as Rec).status, "completed", JSON.stringify(out));
  const [ask, answer] = w.mock.requests.filter((r) => r.userText === text);
  assert.deepEqual([ask.kind, answer.kind], ["shell_call", "shell_answer"]);
  assert.deepEqual(out.replies, [{
    itemId: `msg_${answer.seq}_final`,
    text: `Tool call call_sh_${ask.seq} returned: ${REJECTED}`,
    truncated: false,
  }]);
  const exchange = await approvalExchange(w.home, String(out.threadId));
  assert.deepEqual(exchange.answer.result, { decision: "decline" });
  assert.equal(
    await Deno.stat(marker).then(() => true, () => false),
    false,
    "the declined command did not run",
  );
}

for (const protocol of PROTOCOLS) {
  Deno.test({
    name:
      `e2e relay [${protocol}]: codex_run in a scratch dir forwards a command approval and Codex acts on the answer`,
    ignore,
    fn: (t) =>
      withWorld({ approval: "on-request", tap: true }, async (w) => {
        const asked: ElicitParams[] = [];
        let answer: ElicitResult = { action: "accept", content: { decision: "accept" } };
        const relay = await w.relay(RUN, {
          protocol,
          onElicit: (p) => {
            asked.push(p);
            return answer;
          },
        });
        await turnStep(t, relay, {
          name: "accept: the command runs and the final answer carries its output",
          fn: async () => {
            const scratch = await Deno.makeTempDir({ dir: w.home.root, prefix: "scratch-" });
            const command = `echo ${APPROVED}`;
            const text = `SHELL: ${command}`;
            const { result, out } = await run(relay, { cwd: scratch, text, waitSeconds: 30 });
            assert.equal((out.receipt as Rec).status, "queued", JSON.stringify(out));
            assert.equal((out.turn as Rec).status, "completed", JSON.stringify(out));

            assert.equal(asked.length, 1, "one approval reached the client");
            assertApprovalForm(asked[0], scratch, command);
            const exchange = await approvalExchange(w.home, String(out.threadId));
            assertApprovalShape(exchange.request, scratch, command);
            assert.deepEqual(exchange.answer.result, { decision: "accept" });

            const [ask, followUp] = w.mock.requests.filter((r) => r.userText === text);
            assert.deepEqual([ask.kind, followUp.kind], ["shell_call", "shell_answer"]);
            const replies = out.replies as { itemId: string; text: string; truncated: boolean }[];
            assert.equal(replies.length, 1, JSON.stringify(replies));
            assert.equal(replies[0].itemId, `msg_${followUp.seq}_final`);
            assert.match(
              replies[0].text,
              new RegExp(
                `^Tool call call_sh_${ask.seq} returned: .*Process exited with code 0\\n.*Output:\\n${APPROVED}\\n$`,
                "s",
              ),
            );
            assertNoLeak(result, ["Running a command", text]);

            // Codex stored the command as run, in the scratch directory.
            const d = await w.driver();
            const items = await listAllItems(d, String(out.threadId));
            const runs = items.map((i) => i.item).filter((i) => i.type === "commandExecution");
            assert.deepEqual(
              runs.map((i) => [i.id, i.status, i.cwd, i.exitCode, i.aggregatedOutput]),
              [[`call_sh_${ask.seq}`, "completed", scratch, 0, `${APPROVED}\n`]],
            );
            await d.close();
          },
        });
        await turnStep(t, relay, {
          name: "decline: the command does not run and the turn still completes",
          fn: async () => {
            answer = { action: "decline" };
            const scratch = await Deno.makeTempDir({ dir: w.home.root, prefix: "scratch-" });
            const marker = `${scratch}/ran-although-declined`;
            const command = `touch ${marker}`;
            const text = `SHELL: ${command}`;
            const { out } = await run(relay, { cwd: scratch, text, waitSeconds: 30 });
            assert.equal(asked.length, 2, "the second approval reached the client");
            assertApprovalForm(asked[1], scratch, command);
            await assertDeclined(w, out, text, marker);
          },
        });
        // A client that declares no elicitation capability cannot be asked.
        const mute = await w.relay(RUN, { protocol });
        await turnStep(t, mute, {
          name: "no elicitation capability: the relay declines by itself and the turn completes",
          fn: async () => {
            const scratch = await Deno.makeTempDir({ dir: w.home.root, prefix: "scratch-" });
            const marker = `${scratch}/ran-without-a-client`;
            const text = `SHELL: touch ${marker}`;
            const { out } = await run(mute, { cwd: scratch, text, waitSeconds: 30 });
            assert.equal(asked.length, 2, "nothing reached the other client");
            await assertDeclined(w, out, text, marker);
          },
        });
      }),
  });
}
