/**
 * Codex's own jobs through the relay (issue 30), against the fixture app-server playing
 * transcripts 21-24: codex_review (new read-only thread, inline, refused on a busy thread,
 * interrupted on 0.169 and 0.171, its clientMessageId read by codex_wait_reply), codex_run with
 * outputSchema (valid, not JSON, invalid schema, busy thread), codex_steer (steered and read,
 * not_running, not_steerable), and unknown_model.
 * @module
 */

import { VERDICT_SCHEMA } from "../../testing/verdict_schema.ts";
import assert from "assert";
import {
  agentItem,
  type Barrier,
  commandApproval,
  FixtureHome,
  thread,
} from "../../testing/fixture_home.ts";
import type { ElicitParams } from "../../testing/mcp_client.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { callTool } from "../../testing/call_tool.ts";

type Client = Awaited<ReturnType<typeof startRelay>>["client"];
type Obj = Record<string, unknown>;

const FULL = ["--allow-turn-start", "--allow-reply-read"];

async function withJobs(
  s: Scenario,
  fn: (client: Client, f: FixtureHome, b: Record<string, Barrier>) => Promise<void>,
  barriers: string[] = [],
  onElicit?: (p: ElicitParams) => { action: "accept"; content: Record<string, string> },
): Promise<void> {
  const f = await FixtureHome.create(s);
  const b: Record<string, Barrier> = {};
  for (const name of barriers) b[name] = await f.barrier(name);
  const relay = await startRelay({ fixture: f, flags: FULL, protocol: "2026-07-28", onElicit });
  const { code, left } = await closeAfter(relay, f, () => fn(relay.client, f, b));
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no helper is left in the process table");
}

const sent = async (f: FixtureHome, method: string) =>
  (await f.requests()).filter((r) => r.method === method).map((r) => r.params as Obj);

const SCHEMA = VERDICT_SCHEMA;

Deno.test("codex_review in a cwd: a new read-only thread, the findings, and codex_wait_reply by its id", async () => {
  await withJobs({ threads: [] }, async (client, f) => {
    const out = (await callTool(client, "codex_review", {
      cwd: "/repo",
      target: "uncommitted",
    })).structuredContent;
    assert.equal(out.turn?.status, "completed");
    assert.equal(out.receipt.status, "queued");
    assert.deepEqual(out.review?.findings, [{
      priority: 1,
      title: "Mock finding: division by zero",
      file: "/workspace/calc.js",
      lineStart: 2,
      lineEnd: 2,
      body: "calc() divides by b without checking b != 0.",
    }]);
    assert.match(out.review!.text, /^Mock review: one blocking issue\./);
    const [start] = await sent(f, "thread/start");
    assert.equal(start.cwd, "/repo");
    assert.equal(start.sandbox, "read-only");
    const [review] = await sent(f, "review/start");
    assert.deepEqual(review.target, { type: "uncommittedChanges" });
    assert.equal(review.threadId, out.threadId);
    // The review's turn R, never its inner turn R' (stored interrupted), is the review's end.
    const waited = (await callTool(client, "codex_wait_reply", {
      threadId: out.threadId,
      clientMessageId: out.receipt.clientMessageId,
      timeoutSeconds: 5,
    })).structuredContent;
    assert.equal(waited.turn?.status, "completed");
    assert.equal(waited.turn?.id, out.turn?.id);
    assert.equal(waited.timedOut, false);
    assert.deepEqual(waited.review, out.review);
    assert.equal(out.review?.verdict, "findings");
  });
});

Deno.test("codex_review whose reviewer answers garbage or nothing: verdict failed with why; a clean JSON review no_findings", async () => {
  const clean = JSON.stringify({
    findings: [],
    overall_correctness: "patch is correct",
    overall_explanation: "Mock review: no issues.",
    overall_confidence_score: 0.9,
  });
  const answers: [string, string | undefined, string?][] = [
    ["Plain text review, not JSON.", "unparseable"],
    ["Reviewer failed to output a response.", "reviewer_failed"],
    ["Mock review: no issues.", undefined, clean],
  ];
  for (const [text, reason, answer] of answers) {
    const s: Scenario = { threads: [], newThreadReviewScripts: [{ review: text, answer }] };
    await withJobs(s, async (client) => {
      const out = (await callTool(client, "codex_review", { cwd: "/repo", target: "uncommitted" }))
        .structuredContent;
      assert.equal(out.turn?.status, "completed");
      assert.deepEqual(out.review, {
        text,
        findings: [],
        truncated: false,
        ...(reason ? { verdict: "failed", verdictReason: reason } : { verdict: "no_findings" }),
      });
    });
  }
});

Deno.test("codex_review: the reviewer's command approval reaches the client; its answer reaches Codex", async () => {
  const s: Scenario = {
    threads: [],
    newThreadReviewScripts: [{ steps: [commandApproval()] }],
  };
  const asked: ElicitParams[] = [];
  await withJobs(
    s,
    async (client, f) => {
      const out = (await callTool(client, "codex_review", { cwd: "/repo", target: "uncommitted" }))
        .structuredContent;
      assert.equal(out.turn?.status, "completed");
      assert.equal(asked.length, 1);
      assert.match(String(asked[0].message), /touch x/);
      const answers = await f.answers();
      assert.deepEqual(answers.map((a) => a.result), [{ decision: "accept" }]);
      assert.equal(out.review?.findings.length, 1);
    },
    [],
    (params) => {
      asked.push(params);
      return { action: "accept", content: { decision: "accept" } };
    },
  );
});

Deno.test("codex_review targets: base, commit and custom reach review/start; bad combinations are refused", async () => {
  await withJobs({ threads: [] }, async (client, f) => {
    for (
      const [args, target] of [
        [{ target: "base", base: "main" }, { type: "baseBranch", branch: "main" }],
        [{ target: "commit", commit: "7d1f252" }, { type: "commit", sha: "7d1f252" }],
        [{ target: "custom", instructions: "Check calc.js" }, {
          type: "custom",
          instructions: "Check calc.js",
        }],
      ] as const
    ) {
      const out = (await callTool(client, "codex_review", { cwd: "/repo", ...args }))
        .structuredContent;
      assert.equal(out.turn?.status, "completed");
      assert.deepEqual((await sent(f, "review/start")).at(-1)?.target, target);
    }
    const bad = await callTool(client, "codex_review", { cwd: "/repo", target: "base" });
    assert.equal(bad.isError, true);
    const both = await callTool(client, "codex_review", {
      cwd: "/repo",
      target: "uncommitted",
      instructions: "x",
    });
    assert.equal(both.isError, true);
  });
});

Deno.test("codex_review's instructions, base and commit refuse what message text refuses (lone surrogates, NUL, over 16 KiB of UTF-8) at once, and nothing reaches the app-server", async () => {
  await withJobs({ threads: [] }, async (client, f) => {
    const before = (await f.requests()).length;
    for (
      const [args, why] of [
        [{ target: "custom", instructions: "Check \ud800 calc.js" }, /lone surrogate/],
        [{ target: "custom", instructions: "Check\0calc.js" }, /NUL/],
        // 8,193 characters, 16,386 bytes: within 16,384 UTF-16 units, over 16 KiB of UTF-8.
        [{ target: "custom", instructions: "é".repeat(8193) }, /16386 bytes .* limit is 16384/],
        [{ target: "base", base: "ma\udc00in" }, /lone surrogate/],
        [{ target: "commit", commit: "7d1f\ud800" }, /lone surrogate/],
        [{ target: "commit", commit: "7d1f\0" }, /NUL/],
      ] as const
    ) {
      const out = await callTool(client, "codex_review", { cwd: "/repo", ...args });
      assert.equal(out.isError, true, JSON.stringify(args).slice(0, 80));
      const text = out.content.map((c) => c.type === "text" ? c.text : "").join("");
      assert.match(text, why);
    }
    assert.equal((await f.requests()).length, before, "nothing was sent to the app-server");
    const list = (await callTool(client, "codex_list_threads", {})).structuredContent;
    assert.deepEqual(list.runs ?? [], [], "no run was started");
    const ok = (await callTool(client, "codex_review", {
      cwd: "/repo",
      target: "custom",
      instructions: "é".repeat(8192),
    })).structuredContent;
    assert.equal(ok.turn?.status, "completed", "16 KiB of UTF-8 is taken, as in message text");
  });
});

Deno.test("codex_review inline on a thread where this relay's turn runs: turn_running, nothing sent, the turn goes on", async () => {
  const t = thread({ scripts: [[{ barrier: "busy" }, { item: agentItem("m1", "done") }]] });
  await withJobs({ threads: [t] }, async (client, f) => {
    const run =
      (await callTool(client, "codex_run", { threadId: t.id, text: "go", waitSeconds: 1 }))
        .structuredContent;
    assert.equal(run.turn?.status, "running");
    const out = (await callTool(client, "codex_review", { threadId: t.id, target: "uncommitted" }))
      .structuredContent;
    assert.equal(out.receipt.status, "not_sent");
    assert.equal(out.reason, "turn_running");
    assert.deepEqual(await sent(f, "review/start"), []);
    const list = (await callTool(client, "codex_list_threads", {})).structuredContent;
    assert.deepEqual(list.runs?.map((r) => r.state), ["running"]);
  }, ["busy"]);
});

Deno.test("codex_review inline on a thread held by another process: held_elsewhere, nothing queued", async () => {
  const t = thread({ heldElsewhere: true });
  await withJobs({ threads: [t] }, async (client, f) => {
    const out = (await callTool(client, "codex_review", { threadId: t.id, target: "uncommitted" }))
      .structuredContent;
    assert.equal(out.reason, "held_elsewhere");
    assert.equal(out.receipt.status, "not_sent");
    assert.match(out.message ?? "", /cannot be queued for it .* nothing was sent/);
    assert.deepEqual(await sent(f, "review/start"), []);
    assert.deepEqual(await sent(f, "thread/queue/add"), []);
  });
});

for (const version of ["0.169.0", "0.171.0"]) {
  Deno.test(`codex_interrupt of a running review ends it interrupted (${version})`, async () => {
    const s: Scenario = {
      threads: [],
      startup: { version },
      newThreadReviewScripts: [{ steps: [{ barrier: "review" }] }],
    };
    await withJobs(s, async (client, f) => {
      const out = (await callTool(client, "codex_review", {
        cwd: "/repo",
        target: "custom",
        instructions: "slow review",
        waitSeconds: 1,
      })).structuredContent;
      assert.equal(out.turn?.status, "running");
      const listed = (await callTool(client, "codex_list_threads", {})).structuredContent;
      assert.deepEqual(listed.runs?.map((r) => r.clientMessageId), [out.receipt.clientMessageId]);
      const stopped = (await callTool(client, "codex_interrupt", {
        threadId: out.threadId,
        clientMessageId: out.receipt.clientMessageId,
      })).structuredContent;
      assert.equal(stopped.status, "interrupted");
      assert.equal(stopped.turn?.status, "interrupted");
      assert.equal(stopped.review?.text, "Reviewer failed to output a response.");
      assert.equal(stopped.review?.verdict, "failed");
      assert.equal(stopped.review?.verdictReason, "run_interrupted");
      const interrupts = await sent(f, "turn/interrupt");
      assert.equal(interrupts[0].turnId, out.turn?.id, "R first");
      assert.equal(interrupts.length, version === "0.169.0" ? 2 : 1, "0.169: R' after R");
    }, ["review"]);
  });
}

Deno.test("codex_read_reply of a review's own message id (the relay's): its review, never not_found", async () => {
  await withJobs({ threads: [] }, async (client) => {
    const out = (await callTool(client, "codex_review", { cwd: "/repo", target: "uncommitted" }))
      .structuredContent;
    assert.equal(out.review?.verdict, "findings");
    const read = (await callTool(client, "codex_read_reply", {
      threadId: out.threadId,
      clientMessageId: out.receipt.clientMessageId,
    })).structuredContent;
    assert.equal(read.status, "observed", JSON.stringify(read));
    assert.equal(read.turn?.id, out.turn?.id);
    assert.deepEqual(read.review, out.review);
  });
});

Deno.test("[spawn] a review whose turn host dies ends failed with a review whose verdict fails closed", async () => {
  const s: Scenario = { threads: [], newThreadReviewScripts: [{ steps: [{ barrier: "review" }] }] };
  await withJobs(s, async (client, f, b) => {
    const [out] = await Promise.all([
      callTool(client, "codex_review", {
        cwd: "/repo",
        target: "custom",
        instructions: "a review",
        waitSeconds: 1,
      }).then((r) => r.structuredContent),
      b.review.reached(),
    ]);
    assert.equal(out.turn?.status, "running");
    const host = (await f.requests()).find((r) => r.method === "review/start")!.pid;
    Deno.kill(host, "SIGKILL");
    const ended = (await callTool(client, "codex_wait_reply", {
      threadId: out.threadId,
      clientMessageId: out.receipt.clientMessageId,
      timeoutSeconds: 30,
    })).structuredContent;
    assert.equal(ended.turn?.status, "failed", JSON.stringify(ended));
    assert.deepEqual(ended.review, {
      text: "",
      findings: [],
      truncated: false,
      verdict: "failed",
      verdictReason: "run_failed",
    });
    await b.review.release().catch(() => {});
  }, ["review"]);
});

Deno.test("codex_run with outputSchema: turn/start with the schema; a valid answer is structured.value", async () => {
  const s: Scenario = {
    threads: [],
    newThreadScripts: [[{
      item: agentItem("msg_16_final", '{"verdict":"pass","issues":["mock"],"count":42}'),
    }]],
  };
  await withJobs(s, async (client, f) => {
    const out = (await callTool(client, "codex_run", {
      cwd: "/w",
      text: "give me a verdict",
      outputSchema: SCHEMA,
    })).structuredContent;
    assert.equal(out.turn?.status, "completed");
    assert.deepEqual(out.structured, {
      valid: true,
      value: { verdict: "pass", issues: ["mock"], count: 42 },
    });
    const [start] = await sent(f, "turn/start");
    assert.deepEqual(start.outputSchema, SCHEMA);
    assert.equal(start.clientUserMessageId, out.receipt.clientMessageId);
    assert.deepEqual(await sent(f, "thread/queue/add"), [], "never the queue path");
    const waited = (await callTool(client, "codex_wait_reply", {
      threadId: out.threadId,
      clientMessageId: out.receipt.clientMessageId,
    })).structuredContent;
    assert.deepEqual(waited.structured, out.structured);
  });
});

Deno.test("codex_run with outputSchema: an answer that is not JSON is valid: false", async () => {
  const t = thread({ scripts: [[{ item: agentItem("msg_18_final", "this is not json at all") }]] });
  await withJobs({ threads: [t] }, async (client) => {
    const out = (await callTool(client, "codex_run", {
      threadId: t.id,
      text: "BADJSON please",
      outputSchema: SCHEMA,
    })).structuredContent;
    assert.equal(out.turn?.status, "completed");
    assert.equal(out.structured?.valid, false);
    assert.match(out.structured && !out.structured.valid ? out.structured.error : "", /not JSON/);
  });
});

Deno.test("codex_run with an outputSchema strict mode refuses: not_sent invalid_schema, nothing sent", async () => {
  const t = thread();
  await withJobs({ threads: [t] }, async (client, f) => {
    const loose = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    const out = (await callTool(client, "codex_run", {
      threadId: t.id,
      text: "loose schema",
      outputSchema: loose,
    })).structuredContent;
    assert.equal(out.receipt.status, "not_sent");
    assert.equal(out.reason, "invalid_schema");
    assert.match(out.message ?? "", /additionalProperties: false.*rule additional_properties/);
    assert.deepEqual(await f.spawned(), [], "no app-server was even started");
  });
});

Deno.test("codex_run with outputSchema on a thread with queued messages: turn_running, no turn/start", async () => {
  const t = thread();
  await withJobs({ threads: [t] }, async (client, f) => {
    await f.queueAsUser(t.id, "theirs");
    const out = (await callTool(client, "codex_run", {
      threadId: t.id,
      text: "x",
      outputSchema: SCHEMA,
    })).structuredContent;
    assert.equal(out.reason, "turn_running");
    assert.equal(out.receipt.status, "not_sent");
    assert.match(out.message ?? "", /messages wait in its queue/);
    assert.deepEqual(await sent(f, "turn/start"), []);
    assert.deepEqual(
      await sent(f, "thread/resume"),
      [],
      "not even loaded (a resume starts the queue)",
    );
  });
});

Deno.test("codex_steer: input reaches this relay's running turn; codex_wait_reply reads its answer", async () => {
  const t = thread({
    scripts: [[{ barrier: "slow" }, { item: agentItem("msg_f", "Echo: bananas") }]],
  });
  await withJobs({ threads: [t] }, async (client, f, b) => {
    const none = (await callTool(client, "codex_steer", { threadId: t.id, text: "x" }))
      .structuredContent;
    assert.equal(none.status, "not_running");
    const run =
      (await callTool(client, "codex_run", { threadId: t.id, text: "go", waitSeconds: 1 }))
        .structuredContent;
    await b.slow.reached();
    const steered = (await callTool(client, "codex_steer", {
      threadId: t.id,
      text: "also mention bananas",
    })).structuredContent;
    assert.equal(steered.status, "steered");
    assert.equal(steered.turnId, run.turn?.id);
    const [steer] = await sent(f, "turn/steer");
    assert.equal(steer.expectedTurnId, run.turn?.id);
    assert.equal(steer.clientUserMessageId, steered.clientMessageId);
    assert.deepEqual(await sent(f, "turn/start"), [], "never a turn/start");
    await b.slow.release();
    const waited = (await callTool(client, "codex_wait_reply", {
      threadId: t.id,
      clientMessageId: steered.clientMessageId!,
      timeoutSeconds: 20,
    })).structuredContent;
    assert.equal(waited.status, "observed");
    assert.equal(waited.association, "same_turn_not_exclusive");
    assert.equal(waited.turn?.id, run.turn?.id);
    assert.deepEqual(waited.replies?.map((r) => "text" in r ? r.text : ""), ["Echo: bananas"]);
  }, ["slow"]);
});

Deno.test("codex_steer on a running review: not_steerable (review), nothing sent", async () => {
  const s: Scenario = { threads: [], newThreadReviewScripts: [{ steps: [{ barrier: "review" }] }] };
  await withJobs(s, async (client, f, b) => {
    const out = (await callTool(client, "codex_review", {
      cwd: "/repo",
      target: "uncommitted",
      waitSeconds: 1,
    })).structuredContent;
    await b.review.reached();
    const steered = (await callTool(client, "codex_steer", { threadId: out.threadId, text: "x" }))
      .structuredContent;
    assert.equal(steered.status, "not_steerable");
    assert.equal(steered.kind, "review");
    assert.deepEqual(await sent(f, "turn/steer"), []);
    await b.review.release();
  }, ["review"]);
});

Deno.test("codex_run and codex_review: a model or effort model/list does not offer is unknown_model", async () => {
  const t = thread();
  await withJobs({ threads: [t] }, async (client, f) => {
    const run = (await callTool(client, "codex_run", { threadId: t.id, text: "x", model: "gpt-4" }))
      .structuredContent;
    assert.equal(run.reason, "unknown_model");
    assert.equal(run.receipt.status, "not_sent");
    assert.match(run.message ?? "", /unknown model "gpt-4"; Codex offers: gpt-6\.1-sol, /);
    const review = (await callTool(client, "codex_review", {
      cwd: "/repo",
      target: "uncommitted",
      model: "gpt-5.5",
      effort: "ultra",
    })).structuredContent;
    assert.equal(review.reason, "unknown_model");
    assert.match(review.message ?? "", /valid: low, medium, high, xhigh/);
    assert.deepEqual(await sent(f, "thread/queue/add"), []);
    assert.deepEqual(await sent(f, "thread/start"), []);
    assert.equal((await sent(f, "model/list")).length, 1, "model/list is read once per process");
  });
});

Deno.test("prompts review and delegate are offered at the turn-start level, arguments described", async () => {
  await withJobs({ threads: [] }, async (client) => {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ["review", "delegate"]);
    for (const p of prompts) {
      assert.ok(p.description, p.name);
      for (const a of p.arguments ?? []) assert.ok(a.description, `${p.name} ${a.name}`);
    }
    const review = prompts.find((p) => p.name === "review")!;
    assert.deepEqual(review.arguments?.map((a) => [a.name, a.required ?? false]), [
      ["cwd", true],
      ["target", false],
      ["detail", false],
    ]);
    const got = await client.getPrompt({
      name: "review",
      arguments: { cwd: "/repo", target: "base", detail: "main" },
    });
    const text = got.messages[0].content.type === "text" ? got.messages[0].content.text : "";
    assert.match(text, /codex_review tool with cwd: "\/repo", target: "base", base: "main"/);
    const delegate = await client.getPrompt({
      name: "delegate",
      arguments: { task: "fix the tests", cwd: "/w" },
    });
    assert.match(
      delegate.messages[0].content.type === "text" ? delegate.messages[0].content.text : "",
      /codex_run tool with cwd: "\/w" and this text: "fix the tests"/,
    );
  });
});

Deno.test("the default level offers no prompts (and still exactly two tools)", async () => {
  const f = await FixtureHome.create({ threads: [] });
  const relay = await startRelay({ fixture: f, flags: [], protocol: "2026-07-28" });
  await closeAfter(relay, f, async () => {
    const { tools } = await relay.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["codex_list_threads", "codex_queue_message"]);
    assert.equal(relay.client.getServerCapabilities()?.prompts, undefined);
  });
});
