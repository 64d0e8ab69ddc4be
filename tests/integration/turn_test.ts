import assert from "assert";
import type { ElicitResult } from "@modelcontextprotocol/client";
import type { ElicitParams } from "../../testing/mcp_client.ts";
import {
  agentItem,
  commandApproval,
  FixtureHome,
  jsonAt,
  thread,
} from "../../testing/fixture_home.ts";
import { closeAfter, PROTOCOLS, startRelay } from "../../testing/relay.ts";
import type { Scenario, TurnStep } from "../../fixtures/scenario.ts";
import { callTool, replyTexts } from "../../testing/call_tool.ts";

type Structured = Record<string, unknown>;

const COMMAND_APPROVAL = commandApproval({
  availableDecisions: ["accept", {
    acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch", "x"] },
  }, "cancel"],
}).request;

const FINAL = "All done: the parser is refactored.";

function scenario(
  steps: TurnStep[],
  over: Partial<Scenario> = {},
): { s: Scenario; threadId: string } {
  const t = thread({ scripts: [steps] });
  return { s: { threads: [t], ...over }, threadId: t.id };
}

async function withTurnRelay(
  s: Scenario,
  options: {
    protocol: (typeof PROTOCOLS)[number];
    flags?: string[];
    onElicit?: (p: ElicitParams) => ElicitResult;
  },
  fn: (client: Awaited<ReturnType<typeof startRelay>>["client"], f: FixtureHome) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create(s);
  const relay = await startRelay({
    fixture: f,
    flags: options.flags ?? ["--allow-turn-start", "--allow-reply-read"],
    protocol: options.protocol,
    onElicit: options.onElicit,
  });
  const { code, left } = await closeAfter(relay, f, () => fn(relay.client, f));
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no helper is left in the process table");
}

async function released(f: FixtureHome, threadId: string): Promise<boolean> {
  const text = await Deno.readTextFile(`${f.home}/fixture-state.jsonl`).catch(() => "");
  const events = text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const holds = events.filter((e) => e.e === "hold" && e.threadId === threadId).length;
  const releases = events.filter((e) => e.e === "release" && e.threadId === threadId).length;
  return holds > 0 && holds === releases;
}

for (const protocol of PROTOCOLS) {
  for (
    const [answer, decision] of [["accept", "accept"], ["decline", "decline"], [
      "cancel",
      "cancel",
    ]] as const
  ) {
    Deno.test(`[${protocol}] codex_run forwards a command approval; ${answer} reaches the exact request`, async () => {
      const { s, threadId } = scenario([
        { item: agentItem("msg_c", "Looking into it", "commentary") },
        { request: COMMAND_APPROVAL },
        { item: agentItem("msg_f", FINAL) },
        { end: "completed" },
      ]);
      const asked: ElicitParams[] = [];
      await withTurnRelay(s, {
        protocol,
        onElicit: (params) => {
          asked.push(params);
          return answer === "accept"
            ? { action: "accept", content: { decision: "accept" } }
            : { action: answer };
        },
      }, async (client, f) => {
        const result = await callTool(client, "codex_run", {
          threadId,
          text: "please refactor",
          waitSeconds: 30,
        }, { timeout: 60_000 });
        const out = result.structuredContent;
        assert.equal(out.receipt.status, "queued");
        // A cancelled approval stops the turn (Codex, issue 32); decline and accept let it go on.
        const stopped = answer === "cancel";
        assert.deepEqual(out.turn && out.turn.status, stopped ? "interrupted" : "completed");
        assert.deepEqual(replyTexts(out.replies), stopped ? [] : [FINAL]);
        assert.equal(asked.length, 1);
        assert.match(String(asked[0].message), /touch x/);
        const answers = await f.answers();
        assert.equal(answers.length, 1);
        assert.equal(answers[0].id, 0, "the fixture's first server request id");
        assert.deepEqual(answers[0].result, { decision });
        assert.ok(await released(f, threadId), "the thread was released");
        const methods = (await f.requests()).map((r) => r.method);
        assert.ok(methods.includes("thread/resume") && methods.includes("thread/unsubscribe"));
      });
    });
  }

  Deno.test(`[${protocol}] codex_run: a client without elicitation gets Codex's request declined`, async () => {
    const { s, threadId } = scenario([
      { request: COMMAND_APPROVAL },
      { item: agentItem("msg_f", FINAL) },
      { end: "completed" },
    ]);
    await withTurnRelay(s, { protocol }, async (client, f) => {
      const out =
        (await callTool(client, "codex_run", { threadId, text: "go" }, { timeout: 60_000 }))
          .structuredContent;
      assert.equal(out.turn?.status, "completed");
      assert.deepEqual((await f.answers()).map((a) => a.result), [{ decision: "decline" }]);
    });
  });

  Deno.test(`[${protocol}] codex_run: an answer that breaks the requested schema is refused; Codex gets decline`, async () => {
    const { s, threadId } = scenario([
      { request: COMMAND_APPROVAL },
      { end: "completed" },
    ]);
    await withTurnRelay(s, {
      protocol,
      onElicit: () => ({ action: "accept", content: { decision: "format-the-disk" } }),
    }, async (client, f) => {
      const out =
        (await callTool(client, "codex_run", { threadId, text: "go" }, { timeout: 60_000 }))
          .structuredContent;
      assert.equal(out.turn?.status, "completed");
      assert.deepEqual((await f.answers()).map((a) => a.result), [{ decision: "decline" }]);
    });
  });
}

Deno.test("codex_run: a thread held by another process is held_elsewhere and the message stays queued", async () => {
  const t = thread({ heldElsewhere: true });
  await withTurnRelay({ threads: [t] }, { protocol: "2026-07-28" }, async (client, f) => {
    const out =
      (await callTool(client, "codex_run", { threadId: t.id, text: "go" })).structuredContent;
    assert.equal(out.reason, "held_elsewhere");
    assert.equal(out.receipt.status, "queued");
    assert.equal(out.turn, null);
    const text = (await Deno.readTextFile(`${f.home}/fixture-state.jsonl`)).split("\n").filter(
      Boolean,
    )
      .map((l) => JSON.parse(l));
    assert.equal(text.filter((e) => e.e === "queue.add").length, 1);
    assert.equal(text.filter((e) => e.e === "queue.remove").length, 0, "the message stays queued");
  });
});

Deno.test("codex_run in a cwd starts a new thread and returns its final answer", async () => {
  const s: Scenario = {
    threads: [],
    newThreadScripts: [[{ item: agentItem("msg_f", FINAL) }, { end: "completed" }]],
  };
  await withTurnRelay(s, { protocol: "2026-07-28" }, async (client, f) => {
    const out =
      (await callTool(client, "codex_run", { cwd: "/tmp/scratch", text: "write a haiku" }))
        .structuredContent;
    assert.equal(out.turn?.status, "completed");
    assert.deepEqual(replyTexts(out.replies), [FINAL]);
    const start = (await f.requests()).find((r) => r.method === "thread/start");
    assert.equal(start?.params.cwd, "/tmp/scratch");
  });
});

Deno.test("codex_run at --allow-turn-start alone returns the answer: the level includes reply read (issue 38)", async () => {
  const { s, threadId } = scenario([{ item: agentItem("msg_f", FINAL) }, { end: "completed" }]);
  await withTurnRelay(
    s,
    { protocol: "2026-07-28", flags: ["--allow-turn-start"] },
    async (client) => {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === "codex_wait_reply"), "codex_wait_reply is there");
      const out = (await callTool(client, "codex_run", { threadId, text: "go" })).structuredContent;
      assert.equal(out.turn?.status, "completed");
      assert.deepEqual(replyTexts(out.replies), [FINAL]);
    },
  );
});

Deno.test("codex_run reports a failed turn's class from codexErrorInfo", async () => {
  const { s, threadId } = scenario([{
    end: "failed",
    error: {
      message: "We're currently experiencing high demand",
      codexErrorInfo: "serverOverloaded",
    },
  }]);
  await withTurnRelay(s, { protocol: "2026-07-28" }, async (client) => {
    const out = (await callTool(client, "codex_run", { threadId, text: "go" })).structuredContent;
    assert.equal(out.turn?.status, "failed");
    assert.equal(out.failureClass, "capacity");
    assert.equal(out.retryable, true);
    assert.ok((out.retryAfterMs as number) >= 60_000);
  });
});

Deno.test("codex_interrupt stops a running turn and releases the thread", async () => {
  const { s, threadId } = scenario([{ barrier: "never-released" }, { end: "completed" }]);
  await withTurnRelay(s, { protocol: "2026-07-28" }, async (client, f) => {
    await f.barrier("never-released");
    const run = (await callTool(client, "codex_run", { threadId, text: "go", waitSeconds: 1 }))
      .structuredContent;
    assert.equal(run.turn?.status, "running");
    const out = (await callTool(client, "codex_interrupt", { threadId })).structuredContent;
    assert.equal(out.status, "interrupted");
    assert.ok(await released(f, threadId));
    assert.ok((await f.requests()).some((r) => r.method === "turn/interrupt"));
    const again = (await callTool(client, "codex_interrupt", { threadId }))
      .structuredContent;
    assert.equal(again.status, "not_running");
  });
});

Deno.test("codex_run refuses a replayed or tampered requestState and writes nothing more to Codex", async () => {
  const { s, threadId } = scenario([
    { request: COMMAND_APPROVAL },
    { barrier: "hold-after-answer" },
    { end: "completed" },
  ]);
  await withTurnRelay(
    s,
    { protocol: "2026-07-28", onElicit: () => ({ action: "decline" }) },
    async (client, f) => {
      const hold = await f.barrier("hold-after-answer");
      const args = { threadId, text: "go", waitSeconds: 30 };
      const first = await callTool(client, "codex_run", args, {
        allowInputRequired: true,
        timeout: 60_000,
      } as never) as unknown as {
        resultType: string;
        inputRequests: Record<string, unknown>;
        requestState: string;
      };
      assert.equal(first.resultType, "input_required");
      const [token] = Object.keys(first.inputRequests);
      const answer = { [token]: { action: "accept", content: { decision: "accept" } } };

      const tampered = first.requestState.slice(0, -4) +
        (first.requestState.endsWith("AAAA") ? "BBBB" : "AAAA");
      await assert.rejects(
        client.callTool(
          {
            name: "codex_run",
            arguments: args,
            inputResponses: answer,
            requestState: tampered,
          } as never,
        ),
        (e: Error & { code?: number }) => e.code === -32602,
      );
      assert.deepEqual(await f.answers(), [], "a tampered state reaches nothing");

      const retry = client.callTool(
        {
          name: "codex_run",
          arguments: args,
          inputResponses: answer,
          requestState: first.requestState,
        } as never,
        { timeout: 60_000 },
      );
      await hold.reached();
      assert.deepEqual((await f.answers()).map((a) => a.result), [{ decision: "accept" }]);
      const replay = await client.callTool(
        {
          name: "codex_run",
          arguments: args,
          inputResponses: answer,
          requestState: first.requestState,
        } as never,
      );
      assert.equal(replay.isError, true);
      assert.match((replay.content as { text: string }[])[0].text, /already answered/);
      await hold.release();
      assert.equal(jsonAt((await retry).structuredContent, "turn", "status"), "completed");
      assert.equal((await f.answers()).length, 1, "Codex got exactly one answer");
    },
  );
});

Deno.test("codex_run: two concurrent runtimes on the one turn host get the answers to their own requests", async () => {
  const approval = (command: string) => ({
    request: { method: COMMAND_APPROVAL.method, params: { ...COMMAND_APPROVAL.params, command } },
  });
  const a = thread({ scripts: [[approval("echo first"), { end: "completed" }]] });
  const b = thread({ scripts: [[approval("echo second"), { end: "completed" }]] });
  await withTurnRelay({ threads: [a, b] }, {
    protocol: "2026-07-28",
    onElicit: (p) =>
      String(p.message).includes("echo first")
        ? { action: "accept", content: { decision: "accept" } }
        : { action: "decline" },
  }, async (client, f) => {
    const [ra, rb] = await Promise.all(
      [a, b].map((t) =>
        callTool(client, "codex_run", { threadId: t.id, text: "go" }, {
          timeout: 60_000,
        })
      ),
    );
    for (const r of [ra, rb]) {
      assert.equal(r.structuredContent.turn?.status, "completed");
    }
    const answers = await f.answers();
    assert.equal(answers.length, 2);
    assert.equal(new Set(answers.map((x) => x.pid)).size, 1, "one app-server ran both turns");
    const asked = new Map(
      (await f.log()).filter((e) => e.dir === "out").map((e) => [
        e.msg!.id,
        (e.msg as { params: Structured }).params.threadId,
      ]),
    );
    const byThread = new Map(answers.map((x) => [asked.get(x.id), x.result]));
    assert.deepEqual(byThread.get(a.id), { decision: "accept" });
    assert.deepEqual(byThread.get(b.id), { decision: "decline" });
  });
});

Deno.test("codex_run forwards an MCP form elicitation as is and returns the answer to Codex", async () => {
  const schema = {
    type: "object",
    properties: {
      colour: { type: "string", title: "Colour", enum: ["red", "green", "blue"] },
      sure: { type: "boolean", title: "Sure?", default: true },
    },
    required: ["colour"],
  };
  const { s, threadId } = scenario([
    {
      request: {
        method: "mcpServer/elicitation/request",
        params: {
          serverName: "elicitor",
          mode: "form",
          _meta: null,
          message: "What is your favourite colour?",
          requestedSchema: schema,
        },
      },
    },
    { end: "completed" },
  ]);
  let seen: ElicitParams | undefined;
  await withTurnRelay(s, {
    protocol: "2025-11-25",
    onElicit: (p) => {
      seen = p;
      return { action: "accept", content: { colour: "blue", sure: true } };
    },
  }, async (client, f) => {
    await callTool(client, "codex_run", { threadId, text: "go" }, {
      timeout: 60_000,
    });
    assert.match(String(seen?.message), /elicitor.*favourite colour/);
    assert.deepEqual((seen as { requestedSchema?: unknown }).requestedSchema, schema);
    assert.deepEqual((await f.answers()).map((a) => a.result), [
      { action: "accept", content: { colour: "blue", sure: true }, _meta: null },
    ]);
  });
});

/** `n` command approvals ("step 1".."step n") in one turn, then its final answer. */
function approvalSteps(n: number): TurnStep[] {
  const steps: TurnStep[] = [];
  for (let i = 1; i <= n; i++) {
    steps.push({
      request: {
        method: COMMAND_APPROVAL.method,
        params: { ...COMMAND_APPROVAL.params, command: `step ${i}` },
      },
    });
  }
  steps.push({ item: agentItem("msg_f", FINAL) }, { end: "completed" });
  return steps;
}

for (const protocol of PROTOCOLS) {
  Deno.test(`[${protocol}] twelve approvals in one turn complete across codex_run and codex_wait_reply`, async () => {
    const steps = approvalSteps(12);
    const { s, threadId } = scenario(steps);
    const asked: string[] = [];
    await withTurnRelay(s, {
      protocol,
      onElicit: (p) => {
        asked.push(String(p.message).match(/step \d+/)![0]);
        return { action: "accept", content: { decision: "accept" } };
      },
    }, async (client, f) => {
      const run = (await callTool(client, "codex_run", { threadId, text: "go", waitSeconds: 30 }, {
        timeout: 60_000,
      })).structuredContent;
      assert.equal(run.turn?.status, "running");
      assert.equal(
        (run.pendingRequests as unknown[]).length,
        1,
        "the 10th request waits for the next call",
      );
      assert.equal(asked.length, 9, "nine rounds in the first call, under the client's cap of 10");
      const receipt = run.receipt;
      const wait = (await callTool(client, "codex_wait_reply", {
        threadId,
        clientMessageId: receipt.clientMessageId,
        timeoutSeconds: 30,
      }, { timeout: 60_000 })).structuredContent;
      assert.equal(wait.status, "observed");
      assert.equal(wait.timedOut, false);
      assert.deepEqual(replyTexts(wait.replies), [FINAL]);
      assert.deepEqual(asked, Array.from({ length: 12 }, (_, i) => `step ${i + 1}`));
      const answers = await f.answers();
      assert.deepEqual(answers.map((a) => a.id), Array.from({ length: 12 }, (_, i) => i));
      assert.ok(answers.every((a) => jsonAt(a.result, "decision") === "accept"));
    });
  });
}

Deno.test("codex_wait_reply whose input rounds run out returns the request still waiting as pendingRequests", async () => {
  const steps = approvalSteps(19);
  const { s, threadId } = scenario(steps);
  let asked = 0;
  await withTurnRelay(s, {
    protocol: PROTOCOLS[0],
    onElicit: () => {
      asked++;
      return { action: "accept", content: { decision: "accept" } };
    },
  }, async (client) => {
    const run = (await callTool(client, "codex_run", { threadId, text: "go", waitSeconds: 30 }, {
      timeout: 60_000,
    })).structuredContent;
    const args = { threadId, clientMessageId: run.receipt.clientMessageId, timeoutSeconds: 30 };
    const first = await callTool(client, "codex_wait_reply", args, { timeout: 60_000 });
    const wait = first.structuredContent;
    assert.equal(asked, 18, "nine rounds in codex_run, nine in the wait");
    assert.equal(wait.turn?.status, "running", JSON.stringify(wait));
    assert.deepEqual(wait.pendingRequests?.map((p) => p.method), [COMMAND_APPROVAL.method]);
    assert.match(wait.pendingRequests?.[0].summary ?? "", /Codex asks to run a command/);
    const text = (first.content as { text: string }[])[0].text;
    assert.match(text, /1 request\(s\) from Codex wait for your answer/);
    const last = (await callTool(client, "codex_wait_reply", args, { timeout: 60_000 }))
      .structuredContent;
    assert.equal(last.turn?.status, "completed");
    assert.equal(last.pendingRequests, undefined);
  });
});

for (
  const flags of [[], ["--allow-reply-read"], ["--allow-turn-start"], [
    "--allow-reply-read",
    "--allow-turn-start",
  ]]
) {
  Deno.test(`at ${flags.join(" ") || "the default level"} no tool description, instruction or prompt names a tool it does not list (issue 38)`, async () => {
    const f = await FixtureHome.create({ threads: [] });
    const relay = await startRelay({ fixture: f, flags, protocol: "2026-07-28" });
    await closeAfter(relay, f, async () => {
      const { client } = relay;
      const { tools } = await client.listTools();
      const listed = new Set(tools.map((t) => t.name));
      const texts = [
        client.getInstructions() ?? "",
        ...tools.map((t) => t.description ?? ""),
      ];
      if (client.getServerCapabilities()?.prompts) {
        for (const p of (await client.listPrompts()).prompts) {
          const got = await client.getPrompt({
            name: p.name,
            arguments: { cwd: "/w", task: "t", target: "base", detail: "main" },
          });
          for (const m of got.messages) if (m.content.type === "text") texts.push(m.content.text);
        }
      }
      for (const text of texts) {
        for (const named of text.match(/\bcodex_(?!missing\b)[a-z_]+/g) ?? []) {
          assert.ok(listed.has(named), `${named} is named but not listed: ${text.slice(0, 120)}`);
        }
      }
    });
  });
}
