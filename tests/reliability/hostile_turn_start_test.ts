/**
 * Hostile input at the turn-start level (see `hostile_input_test.ts`): `codex_run`,
 * `codex_review` and `codex_interrupt` arguments, and forged, mutated, replayed or misapplied `requestState`
 * retries of `codex_run` and `codex_wait_reply`, none of which may reach Codex.
 */

import assert from "assert";
import fc from "fast-check";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";
import {
  callToolManual,
  holdsAndReleases,
  isInputRequired,
  leakedSecrets,
  READ_CLIENT_ID,
  registeredTools,
  type RelayProcess,
  resultText,
  retryTool,
  SECRETS,
  seeded,
  startRelayProcess,
} from "./_reliability.ts";
import type { TurnStep } from "../../fixtures/scenario.ts";
import {
  ALL_SECRETS,
  anyValue,
  argsOf,
  field,
  hostileCaller,
  hostileString,
  RUNS,
  TURN_TOOLS,
  UNKNOWN_THREAD,
  UUID,
  VALID,
} from "./_hostile.ts";

let relay: RelayProcess;
let f: FixtureHome;
const hostileCall = hostileCaller(() => ({ relay, f }));

// ------------------------------------------------------------- turn start

const RUN_FINAL = "hostile run final 8d2e";
const APPROVAL_STEP: TurnStep = {
  request: {
    method: "item/commandExecution/requestApproval",
    params: {
      itemId: "call_hostile_1",
      reason: "hostile",
      command: "/bin/true",
      cwd: "/workspace",
      commandActions: [],
      availableDecisions: ["accept", "decline", "cancel"],
    },
  },
};
const cwds = fc.constantFrom(
  "/",
  "/tmp/hostile-cwd",
  "/a/é/😀/\u202e",
  "C:\\work",
  "c:/work",
  "/".repeat(4096),
  "/".repeat(4097),
  "relative/path",
  "./here",
  "~/x",
  "\\\\server\\share",
  "/nul\0inside",
  "/lone\ud800",
  "/lone\udc00end",
  "",
);

/** The clientMessageIds the fixture stored for `threadId`, in order. */
async function queuedIds(threadId: string): Promise<string[]> {
  const text = await Deno.readTextFile(`${f.home}/fixture-state.jsonl`).catch(() => "");
  return text.split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((e) =>
    e.e === "queue.add" && e.threadId === threadId
  ).map((e) => e.submission.clientUserMessageId);
}

/** The (body, MAC bytes) a request state verifies as, or the state itself when it cannot be read. */
function stateIdentity(state: unknown): string {
  if (typeof state !== "string") return JSON.stringify(state);
  const dot = state.lastIndexOf(".");
  if (!state.startsWith("v1.") || dot <= 3) return state;
  try {
    const mac = atob(state.slice(dot + 1).replaceAll("-", "+").replaceAll("_", "/"));
    return `${state.slice(0, dot)}|${mac}`;
  } catch {
    return state;
  }
}

Deno.test({
  name:
    "hostile input (turn start): codex_run, codex_review and codex_interrupt arguments and forged, mutated or replayed request states never crash the relay, reach Codex, or spawn for invalid input",
  async fn(t) {
    const s = seeded();
    const runThread = thread({
      name: "hostile run",
      preview: SECRETS.preview,
      cwd: SECRETS.cwd,
      scripts: [[{ item: agentItem("msg_run_final", RUN_FINAL) }, { end: "completed" }]],
    });
    const askThread = thread({
      name: "hostile ask",
      preview: SECRETS.preview,
      cwd: SECRETS.cwd,
      scripts: [[APPROVAL_STEP, { item: agentItem("msg_ask_final", RUN_FINAL) }, {
        end: "completed",
      }]],
    });
    f = await FixtureHome.create({
      threads: [...s.scenario.threads, runThread, askThread],
      newThreadScripts: [[{ item: agentItem("msg_new_final", RUN_FINAL) }, { end: "completed" }]],
    });
    relay = await startRelayProcess({
      env: f.env,
      flags: ["--allow-turn-start", "--allow-reply-read"],
      onElicit: () => ({ action: "accept", content: { decision: "accept" } }),
    });
    const end = await closeAfter(relay, f, async () => {
      const tools = await registeredTools(relay.client);
      for (const tool of tools) assert.ok(Object.hasOwn(VALID, tool), `${tool} is covered`);
      assert.ok(TURN_TOOLS.every((tool) => tools.includes(tool)));

      await t.step(`codex_run: ${RUNS.run} hostile argument sets`, async () => {
        const threadIds = fc.constantFrom(runThread.id, UNKNOWN_THREAD);
        const validCwd = fc.constantFrom(
          "/",
          "/tmp/hostile-cwd",
          "/a/é/😀/\u202e",
          "C:\\work",
          "c:/work",
          "/".repeat(4096),
        );
        const cwd = fc.oneof({ weight: 3, arbitrary: validCwd }, { weight: 2, arbitrary: cwds }, {
          weight: 1,
          arbitrary: anyValue,
        });
        // Where to run: a thread, a directory, both, neither, or something else.
        const target = fc.oneof(
          { weight: 4, arbitrary: fc.record({ threadId: threadIds }) },
          { weight: 4, arbitrary: fc.record({ cwd }) },
          { weight: 1, arbitrary: fc.record({ threadId: threadIds, cwd }) },
          { weight: 1, arbitrary: fc.constant({}) },
          { weight: 1, arbitrary: fc.record({ threadId: anyValue }) },
        );
        const rest = argsOf({
          text: field(fc.string({ unit: "grapheme", minLength: 1, maxLength: 64 })),
          waitSeconds: field(fc.integer({ min: 1, max: 55 })),
        });
        const arb = fc.tuple(target, rest).map(([where, other]): Record<string, unknown> => ({
          ...where,
          ...other,
        }));
        const text = "hostile run";
        const examples: Record<string, unknown>[] = [
          { threadId: runThread.id, text },
          { cwd: "/tmp/hostile-cwd", text },
          { threadId: UNKNOWN_THREAD, text },
          { threadId: runThread.id, cwd: "/tmp/hostile-cwd", text },
          { text },
          { cwd: "relative/path", text },
          { cwd: "/nul\0inside", text },
          { cwd: "/lone\ud800", text },
          { cwd: "/".repeat(4097), text },
          { threadId: runThread.id, text, waitSeconds: 1e308 },
          { threadId: runThread.id, text, waitSeconds: 56 },
          { threadId: runThread.id, text, waitSeconds: 1.5 },
          { threadId: runThread.id, text, waitSeconds: 0 },
          { threadId: runThread.id, text, unknown: true },
          { threadId: runThread.id, text: "lone \udc00 surrogate" },
          { threadId: runThread.id, text: "a".repeat(16384) },
          { threadId: runThread.id, text: "a".repeat(16385) },
          { threadId: runThread.id, text: "é".repeat(8192) + "x" },
        ];
        const seen = { ran: 0, notFound: 0, refused: 0 };
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_run", args, ALL_SECRETS);
            if (!out) return void seen.refused++;
            const receipt = out.receipt as Record<string, unknown>;
            const turn = out.turn as { status: string } | null;
            if (args.threadId !== undefined && args.threadId !== runThread.id) {
              seen.notFound++; // UNKNOWN_THREAD, or any other well-formed id.
              assert.deepEqual([receipt.status, out.reason, turn], [
                "not_sent",
                "thread_not_found",
                null,
              ]);
            } else {
              seen.ran++;
              assert.equal(receipt.status, "queued", JSON.stringify(out));
              assert.equal(turn?.status, "completed", JSON.stringify(out));
              assert.deepEqual((out.replies as { text: string }[]).map((r) => r.text), [RUN_FINAL]);
            }
          }),
          { numRuns: RUNS.run, examples: examples.map((e) => [e]) },
        );
        assert.ok(seen.ran >= 2 && seen.notFound >= 1 && seen.refused >= 12, JSON.stringify(seen));
      });

      await t.step(`codex_review: ${RUNS.review} hostile argument sets`, async () => {
        // Review fields take what message text takes (issue 39): lone surrogates, NUL and more
        // than the UTF-8 bound are refused at once, spawning nothing; the rest reviews.
        const text = fc.oneof(
          { weight: 2, arbitrary: fc.constantFrom("main", "7d1f252", "Check calc.js") },
          { weight: 3, arbitrary: hostileString },
        );
        const arb = fc.tuple(
          fc.constantFrom("base", "commit", "custom", "uncommitted"),
          argsOf({ base: field(text), commit: field(text), instructions: field(text) }),
        ).map(([target, rest]) => ({ threadId: runThread.id, target, ...rest }));
        const examples: Record<string, unknown>[] = [
          { threadId: runThread.id, target: "custom", instructions: "x\ud800" },
          { threadId: runThread.id, target: "custom", instructions: "x\0y" },
          { threadId: runThread.id, target: "custom", instructions: "é".repeat(8193) },
          { threadId: runThread.id, target: "custom", instructions: "é".repeat(8192) },
          { threadId: runThread.id, target: "base", base: "ma\udc00in" },
          { threadId: runThread.id, target: "commit", commit: "7d1f\0" },
          { threadId: runThread.id, target: "commit", commit: "é".repeat(129) },
          { threadId: runThread.id, target: "base", base: "main" },
        ];
        const seen = { reviewed: 0, refused: 0 };
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_review", args, ALL_SECRETS);
            if (!out) return void seen.refused++;
            seen.reviewed++;
            assert.equal((out.turn as { status: string } | null)?.status, "completed");
          }),
          { numRuns: RUNS.review, examples: examples.map((e) => [e]) },
        );
        assert.ok(seen.reviewed >= 2 && seen.refused >= 6, JSON.stringify(seen));
      });

      await t.step(`codex_withdraw_message: ${RUNS.withdraw} hostile argument sets`, async () => {
        const arb = argsOf({
          threadId: field(fc.constantFrom(s.main.id, "hostile run", UNKNOWN_THREAD)),
          clientMessageId: field(fc.constantFrom(READ_CLIENT_ID, "not-a-message")),
        });
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_withdraw_message", args, ALL_SECRETS);
            if (!out) return;
            // Nothing of these is queued: nothing can be withdrawn.
            assert.ok(["not_found", "already_taken", "unavailable"].includes(String(out.status)));
          }),
          { numRuns: RUNS.withdraw },
        );
      });

      await t.step(`codex_interrupt: ${RUNS.interrupt} hostile argument sets`, async () => {
        const arb = argsOf({ threadId: field(fc.constantFrom(runThread.id, UNKNOWN_THREAD)) });
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const spawned = (await f.spawned()).length;
            const out = await hostileCall("codex_interrupt", args, ALL_SECRETS);
            // By id it never spawns; a name is looked up first (issue 14), and no thread has one.
            if (typeof args.threadId !== "string" || UUID.test(args.threadId) || !out) {
              assert.equal((await f.spawned()).length, spawned, "codex_interrupt never spawns");
              if (out) assert.equal(out.status, "not_running");
            } else assert.deepEqual([out.status, out.reason], ["unavailable", "thread_not_found"]);
          }),
          { numRuns: RUNS.interrupt },
        );
      });

      await t.step(
        `request states: ${RUNS.state} forged, mutated or misapplied retries reach nothing`,
        async () => {
          const client = relay.client;
          const runArgs = { threadId: askThread.id, text: "hostile ask", waitSeconds: 30 };
          const first = await callToolManual(client, "codex_run", runArgs);
          assert.ok(isInputRequired(first), "the turn waits on its approval");
          const [clientMessageId] = await queuedIds(askThread.id);
          const waitArgs = { threadId: askThread.id, clientMessageId, timeoutSeconds: 30 };
          const waited = await callToolManual(client, "codex_wait_reply", waitArgs);
          assert.ok(isInputRequired(waited), "codex_wait_reply asks the same approval");
          const [token] = Object.keys(first.inputRequests);
          assert.deepEqual(Object.keys(waited.inputRequests), [token], "one pending request");
          const accept = { [token]: { action: "accept", content: { decision: "accept" } } };
          const originals = new Set([first.requestState, waited.requestState].map(stateIdentity));
          const noAnswers = async (label: string) =>
            assert.deepEqual(await f.answers(), [], `${label}: nothing reached Codex`);
          /** A retry that must be refused: a JSON-RPC error or an isError result. */
          const refused = async (
            tool: string,
            args: Record<string, unknown>,
            responses: unknown,
            state: unknown,
            label: string,
          ) => {
            let result;
            try {
              result = await retryTool(client, tool, args, responses, state);
            } catch (error) {
              assert.equal((error as { code?: number }).code, -32602, `${label}: ${error}`);
              return;
            }
            assert.ok(!isInputRequired(result), `${label}: no new round`);
            assert.equal(result.isError, true, `${label}: ${JSON.stringify(result).slice(0, 300)}`);
            assert.ok(resultText(result).length > 0, `${label}: a message`);
          };

          // Real states on the wrong call: refused, nothing sent.
          const other = { ...waitArgs, clientMessageId: "another-message" };
          for (
            const [tool, args, state, label] of [
              [
                "codex_wait_reply",
                waitArgs,
                first.requestState,
                "codex_run's state on codex_wait_reply",
              ],
              ["codex_run", runArgs, waited.requestState, "codex_wait_reply's state on codex_run"],
              ["codex_wait_reply", other, waited.requestState, "another clientMessageId"],
              [
                "codex_wait_reply",
                { ...waitArgs, threadId: runThread.id },
                waited.requestState,
                "another thread",
              ],
              [
                "codex_run",
                { ...runArgs, threadId: runThread.id },
                first.requestState,
                "codex_run on another thread",
              ],
            ] as const
          ) {
            await refused(tool, args, accept, state, label);
            await noAnswers(label);
          }
          const before = (await queuedIds(askThread.id)).length;
          await refused("codex_run", runArgs, accept, undefined, "answers without a state");
          assert.equal((await queuedIds(askThread.id)).length, before, "nothing queued again");
          await noAnswers("answers without a state");

          // Forged and mutated states, with any answers: refused before the tool runs.
          const pool = [first.requestState, waited.requestState];
          const mutated = fc.tuple(
            fc.constantFrom(...pool),
            fc.nat(),
            fc.string({ maxLength: 3 }),
            fc.nat(4),
          )
            .map(([st, at, piece, how]) => {
              const i = at % (st.length + 1);
              if (how === 0) return st.slice(0, i) + piece + st.slice(i + 1);
              if (how === 1) return st.slice(0, i) || st.slice(1);
              if (how === 2) return st + piece;
              if (how === 3) return piece + st;
              // The other real state's body under this one's MAC.
              const [v, , mac] = st.split(".");
              const [, otherBody] = (st === pool[0] ? pool[1] : pool[0]).split(".");
              return `${v}.${otherBody}.${mac}`;
            });
          const forged = fc.oneof(
            fc.base64String({ maxLength: 120 }).map((b) => `v1.${b}.${b}`),
            hostileString,
            fc.jsonValue({ maxDepth: 2 }),
            fc.constantFrom("", "v1.", "v1..", "v2.e30.e30", null, 42, [], {}),
          );
          const responses = fc.oneof(
            fc.constant(accept),
            fc.constant({ [token]: { action: "decline" } }),
            fc.constant({}),
            fc.dictionary(fc.string({ maxLength: 30 }), fc.jsonValue({ maxDepth: 2 }), {
              maxKeys: 3,
            }),
            fc.jsonValue({ maxDepth: 2 }),
          );
          await fc.assert(
            fc.asyncProperty(
              fc.oneof({ weight: 3, arbitrary: mutated }, { weight: 1, arbitrary: forged }),
              fc.constantFrom("codex_run", "codex_wait_reply"),
              responses,
              async (state, tool, answer) => {
                fc.pre(!originals.has(stateIdentity(state))); // Same bytes: a replay, below.
                const args = tool === "codex_run" ? runArgs : waitArgs;
                await refused(
                  tool,
                  args,
                  answer,
                  state,
                  `${tool} with ${JSON.stringify(state)?.slice(0, 80)}`,
                );
                await noAnswers("a forged or mutated state");
              },
            ),
            { numRuns: RUNS.state },
          );

          // The real answer, once; replays of either state are refused.
          const answered = await retryTool(
            client,
            "codex_wait_reply",
            waitArgs,
            accept,
            waited.requestState,
          );
          assert.ok(
            !isInputRequired(answered) && answered.isError !== true,
            JSON.stringify(answered),
          );
          const done = answered.structuredContent!;
          assert.equal(done.status, "observed");
          assert.deepEqual((done.replies as { text: string }[]).map((r) => r.text), [RUN_FINAL]);
          assert.deepEqual((await f.answers()).map((a) => a.result), [{ decision: "accept" }]);
          await refused("codex_run", runArgs, accept, first.requestState, "a replayed state");
          await refused("codex_wait_reply", waitArgs, accept, waited.requestState, "a replay");
          assert.equal((await f.answers()).length, 1, "Codex got exactly one answer");
          const listed = await callTool(client, "codex_list_threads", { limit: 5 });
          assert.equal(listed.structuredContent?.status, "ok", "the relay serves on");
        },
      );
    }, holdsAndReleases);
    const { code, stderr, left, collected: holds } = end;
    assert.equal(code, 0, `the relay exits 0 after all of it:\n${stderr.slice(-2000)}`);
    assert.deepEqual(left, [], "no helper is left");
    for (const [id, n] of holds) assert.equal(n.releases, n.holds, `thread ${id} released`);
    assert.deepEqual(
      leakedSecrets(stderr, [...ALL_SECRETS, RUN_FINAL]),
      [],
      "nothing stored reaches the log",
    );
  },
});
