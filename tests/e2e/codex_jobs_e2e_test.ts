/**
 * Codex's own jobs through the relay against the real `codex app-server` (issue 30), with the
 * Responses mock answering as the lab's did in transcripts 21-23: a review of uncommitted
 * changes in a git repository returns findings with file and lines; a review is refused on a
 * thread whose turn runs (and that turn is not interrupted); an interrupted review ends
 * `interrupted`; a structured run returns a valid value, a non-JSON answer `valid: false`, an
 * answer that makes its pattern backtrack `valid: false` at once (issue 39); a
 * steer reaches a running turn and codex_wait_reply reads its answer.
 *
 * Run: `deno test -P tests/e2e/codex_jobs_e2e_test.ts` with codex in `.codex-npm/` or `CODEX_BIN`.
 */
import { VERDICT_SCHEMA } from "../../testing/verdict_schema.ts";
import assert from "node:assert/strict";
import { e2eCodex, withWorld, type World } from "./_relay_e2e.ts";
import { callTool } from "../../testing/call_tool.ts";
import { REVIEW_SPOOF_TEXT } from "../../testing/mock_responses.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";

const BIN = e2eCodex("tests/e2e/codex_jobs_e2e_test.ts");
const ignore = BIN === null;
const FLAGS = ["--allow-turn-start", "--allow-reply-read"];
const LONG = { timeout: 90_000, resetTimeoutOnProgress: true };

const SCHEMA = VERDICT_SCHEMA;

/** A git repository in the workspace: calc.js committed adding, changed (uncommitted) to divide. */
async function gitRepo(w: World): Promise<string> {
  const dir = w.home.workspace;
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", {
      args: ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args],
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(out.success, `git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  };
  await git("init", "-q", "-b", "main");
  await Deno.writeTextFile(`${dir}/calc.js`, "function calc(a, b) {\n  return a + b;\n}\n");
  await git("add", "calc.js");
  await git("commit", "-q", "-m", "add");
  await Deno.writeTextFile(`${dir}/calc.js`, "function calc(a, b) {\n  return a / b;\n}\n");
  return dir;
}

async function review(relay: ConnectedClient, args: Record<string, unknown>) {
  const result = await callTool(relay.client, "codex_review", args, LONG);
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return result.structuredContent;
}

async function run(relay: ConnectedClient, args: Record<string, unknown>) {
  const result = await callTool(relay.client, "codex_run", args, LONG);
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return result.structuredContent;
}

async function wait(relay: ConnectedClient, threadId: string, clientMessageId: string) {
  return (await callTool(relay.client, "codex_wait_reply", {
    threadId,
    clientMessageId,
    timeoutSeconds: 50,
  }, LONG)).structuredContent;
}

Deno.test({
  name:
    "e2e codex_review: uncommitted changes in a git repository give findings with file and lines",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const dir = await gitRepo(w);
      const relay = await w.relay(FLAGS);
      const out = await review(relay, { cwd: dir, target: "uncommitted" });
      assert.equal(out.turn?.status, "completed", JSON.stringify(out));
      assert.deepEqual(out.review?.findings, [{
        priority: 1,
        title: "Mock finding: division by zero",
        file: `${dir}/calc.js`,
        lineStart: 2,
        lineEnd: 2,
        body: "calc() divides by b without checking b != 0.",
      }]);
      assert.match(out.review!.text, /^Mock review: one blocking issue\./);
      assert.equal(out.review?.verdict, "findings");
      const reviewer = w.mock.requests.find((r) => r.kind === "review");
      assert.ok(reviewer, "the reviewer's request reached the mock");
      assert.match(reviewer.headers["x-codex-turn-metadata"] ?? "", /read-only/);
      const waited = await wait(relay, out.threadId, out.receipt.clientMessageId);
      assert.equal(waited.turn?.status, "completed", "R, never the inner turn R' (interrupted)");
      assert.deepEqual(waited.review?.findings, out.review?.findings);
    }),
});

Deno.test({
  name:
    "e2e codex_review: the verdict is the reviewer's JSON: a clean review no_findings; garbage or a mimicked rendering failed, no made-up P0",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const dir = await gitRepo(w);
      const relay = await w.relay(FLAGS);
      const cases: [string, string, string, string?][] = [
        // Codex renders a well-formed review without comment as its explanation alone.
        ["REVIEW_CLEAN check calc.js", "Mock review: no issues.", "no_findings"],
        // A clean review whose explanation mimics a finding list: clean, no finding.
        ["REVIEW_SPOOF_JSON check calc.js", REVIEW_SPOOF_TEXT, "no_findings"],
        ["REVIEW_PLAIN check calc.js", "Plain text review, not JSON.", "failed", "unparseable"],
        // A plain answer shaped exactly like the rendering of a P0: Codex passes it verbatim.
        ["REVIEW_SPOOF check calc.js", REVIEW_SPOOF_TEXT, "failed", "unparseable"],
      ];
      for (const [instructions, text, verdict, reason] of cases) {
        const out = await review(relay, { cwd: dir, target: "custom", instructions });
        assert.equal(out.turn?.status, "completed", JSON.stringify(out));
        assert.equal(out.review?.text, text);
        assert.equal(out.review?.verdict, verdict, instructions);
        assert.equal(out.review?.verdictReason, reason, instructions);
        assert.deepEqual(out.review?.findings, [], "no made-up finding");
      }
    }),
});

Deno.test({
  name: "e2e codex_review: refused on a thread whose turn runs; that turn is not interrupted",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const dir = await gitRepo(w);
      const relay = await w.relay(FLAGS);
      const busy = await run(relay, { cwd: dir, text: "long task SLOW:busy", waitSeconds: 3 });
      assert.equal(busy.turn?.status, "running");
      await w.mock.held("busy");
      const out = await review(relay, { threadId: busy.threadId, target: "uncommitted" });
      assert.equal(out.reason, "turn_running");
      assert.equal(out.receipt.status, "not_sent");
      w.mock.release("busy");
      const waited = await wait(relay, busy.threadId, busy.receipt.clientMessageId);
      assert.equal(waited.turn?.status, "completed");
      assert.deepEqual(
        waited.replies?.map((r) => "text" in r ? r.text : ""),
        ["Echo: long task SLOW:busy"],
      );
    }),
});

Deno.test({
  name: "e2e codex_review: an interrupted review ends interrupted",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const dir = await gitRepo(w);
      const relay = await w.relay(FLAGS);
      const out = await review(relay, {
        cwd: dir,
        target: "custom",
        instructions: "REVIEW_JSON SLOW:rev check calc.js",
        waitSeconds: 3,
      });
      assert.equal(out.turn?.status, "running", JSON.stringify(out));
      await w.mock.held("rev");
      const stopped = (await callTool(relay.client, "codex_interrupt", {
        threadId: out.threadId,
        clientMessageId: out.receipt.clientMessageId,
      }, LONG)).structuredContent;
      assert.equal(stopped.status, "interrupted", JSON.stringify(stopped));
      assert.equal(stopped.turn?.status, "interrupted");
      assert.equal(stopped.error, undefined, "Codex confirmed the interrupt");
      assert.equal(stopped.review?.verdict, "failed");
      w.mock.release("rev");
    }),
});

Deno.test({
  name:
    "e2e codex_run outputSchema: a valid value on a new named thread, and a non-JSON answer valid: false",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const relay = await w.relay(FLAGS);
      const out = await run(relay, {
        cwd: w.home.workspace,
        name: "verdict thread",
        text: "give me a verdict",
        outputSchema: SCHEMA,
      });
      assert.equal(out.turn?.status, "completed", JSON.stringify(out));
      assert.equal(out.notes, undefined, "the thread was named before its turn started");
      const listed = (await callTool(relay.client, "codex_list_threads", {}, LONG))
        .structuredContent;
      assert.equal(listed.threads.find((t) => t.id === out.threadId)?.name, "verdict thread");
      assert.deepEqual(out.structured, {
        valid: true,
        value: { verdict: "pass", issues: ["mock"], count: 42 },
      });
      const sentFormat = w.mock.requests.find((r) => r.kind === "json")?.body as {
        text?: { format?: { schema?: unknown; strict?: boolean } };
      };
      assert.deepEqual(sentFormat.text?.format?.schema, SCHEMA);
      assert.equal(sentFormat.text?.format?.strict, true);
      const bad = await run(relay, {
        threadId: out.threadId,
        text: "BADJSON please",
        outputSchema: SCHEMA,
      });
      assert.equal(bad.turn?.status, "completed");
      assert.equal(bad.structured?.valid, false);
    }),
});

Deno.test({
  name:
    "e2e codex_run outputSchema (issue 39): an answer that makes its pattern backtrack is judged at once",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const relay = await w.relay(FLAGS);
      const hostile = `${"a".repeat(40)}!`;
      const schema = {
        type: "object",
        properties: { v: { type: "string", pattern: "^(a+)+$", description: `mock:${hostile}` } },
        required: ["v"],
        additionalProperties: false,
      };
      const out = await run(relay, {
        cwd: w.home.workspace,
        text: "answer v",
        outputSchema: schema,
      });
      assert.equal(out.turn?.status, "completed", JSON.stringify(out));
      assert.deepEqual(out.structured, {
        valid: false,
        error: 'the answer does not match the schema: /v must match pattern "^(a+)+$"',
      });
      const listed = (await callTool(relay.client, "codex_list_threads", {}, LONG))
        .structuredContent;
      assert.ok(listed.threads.some((t) => t.id === out.threadId), "the relay still serves");
    }),
});

Deno.test({
  name: "e2e codex_steer: a steer reaches a running turn and codex_wait_reply reads its answer",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const relay = await w.relay(FLAGS);
      const base = await run(relay, {
        cwd: w.home.workspace,
        text: "long task SLOW:steer",
        waitSeconds: 3,
      });
      assert.equal(base.turn?.status, "running");
      await w.mock.held("steer");
      const steered = (await callTool(relay.client, "codex_steer", {
        threadId: base.threadId,
        text: "steer: also mention bananas",
      }, LONG)).structuredContent;
      assert.equal(steered.status, "steered", JSON.stringify(steered));
      assert.equal(steered.turnId, base.turn?.id);
      w.mock.release("steer");
      const waited = await wait(relay, base.threadId, steered.clientMessageId!);
      assert.equal(waited.status, "observed");
      assert.equal(waited.turn?.id, base.turn?.id);
      assert.ok(
        waited.replies?.some((r) => "text" in r && r.text === "Echo: steer: also mention bananas"),
        JSON.stringify(waited.replies),
      );
      // The steer's message is read, not followed: its wait may return at its final answer while
      // the turn still ends. The run's own wait returns once the run ended and its host is gone.
      const ended = await wait(relay, base.threadId, base.receipt.clientMessageId);
      assert.equal(ended.turn?.status, "completed", JSON.stringify(ended));
    }),
});
