/**
 * Hostile input through one relay process (`mod.ts serve --allow-reply-read`):
 * property tests over every tool's arguments (types, sizes, Unicode, NUL, lone
 * surrogates, huge numbers, unknown fields) and over read cursors (real ones
 * of another scope, forged, mutated, random), plus malformed MCP frames on the
 * relay's stdin. The relay must never crash, never return text outside the
 * caller's scope, and always answer clearly: `isError` with a message for
 * invalid input (and nothing spawned), a status result otherwise. At the
 * turn-start level: `codex_run` and `codex_interrupt` arguments, and forged,
 * mutated, replayed or misapplied `requestState` retries of `codex_run` and
 * `codex_wait_reply`, none of which may reach Codex (the fixture's answers).
 */

import assert from "assert";
import fc from "fast-check";
import { agentItem, FixtureHome, thread, turn, userItem } from "../../testing/fixture_home.ts";
import { closeAfter, relayArgs, ROOT } from "../../testing/relay.ts";
import { within } from "../../testing/deadline.ts";
import { SHUTDOWN_BOUND_MS } from "../../testing/mcp_client.ts";
import { encodeCursor } from "../../src/reply/cursor.ts";
import { MAX_MESSAGE_BYTES } from "../../src/host/stdio_transport.ts";
import {
  type CallResult,
  callTool,
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
import { denoChildEnv } from "../../testing/child_env.ts";

/** Runs per property: bounded so the file stays fast. */
const RUNS = {
  queue: 250,
  list: 200,
  read: 150,
  wait: 100,
  withdraw: 60,
  cursor: 200,
  run: 120,
  interrupt: 60,
  state: 100,
} as const;

const SCOPE_A = "hostile-scope-a";
const SCOPE_B = "hostile-scope-b";
const MARK_A = "SCOPE-A-FINAL";
const MARK_B = "SCOPE-B-FINAL";
const UNKNOWN_THREAD = "01a00000-0000-7000-8000-0000000000ff";

// ------------------------------------------------------------- the scenario

function hostileScenario() {
  const s = seeded();
  const finals = (mark: string) =>
    [1, 2, 3].map((i) => agentItem(`msg_${mark}_${i}`, `${mark} ${i} ${"é".repeat(3500)}`));
  const userA = userItem(SCOPE_A, SECRETS.userText);
  const userB = userItem(SCOPE_B, SECRETS.userText);
  const turnA = turn([
    userA,
    agentItem("msg_a_c", SECRETS.commentary, "commentary"),
    ...finals(MARK_A),
  ]);
  const turnB = turn([userB, ...finals(MARK_B)]);
  // Newer than both messages and longer than one search page (100 items).
  const filler = turn(
    Array.from(
      { length: 110 },
      (_, i) => agentItem(`msg_fill_${i}`, SECRETS.commentary, "commentary"),
    ),
  );
  const big = thread({
    name: "hostile big",
    preview: SECRETS.preview,
    cwd: SECRETS.cwd,
    updatedAt: 1796006995,
    turns: [turnA, turnB, filler],
  });
  return {
    s,
    big,
    ids: { turnA: turnA.id, turnB: turnB.id, userA: userA.id, userB: userB.id },
    scenario: { threads: [...s.scenario.threads, big] },
  };
}

// ------------------------------------------------------------- oracles

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const utf8 = (s: string) => new TextEncoder().encode(s).length;
/** zod counts string lengths in code points. */
const chars = (s: string) => [...s].length;
const isStr = (v: unknown): v is string => typeof v === "string";
const isThreadRef = (v: unknown) =>
  // deno-lint-ignore no-control-regex
  isStr(v) && chars(v) >= 1 && chars(v) <= 256 && v.isWellFormed() && !/[\u0000-\u001f\u007f]/
    .test(v);
const isInt = (v: unknown, min: number, max: number) =>
  typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;

/** What each tool accepts, field by field (the published input contract). */
const VALID: Record<string, Record<string, { required: boolean; ok: (v: unknown) => boolean }>> = {
  codex_list_threads: {
    limit: { required: false, ok: (v) => isInt(v, 1, 50) },
    cursor: { required: false, ok: (v) => isStr(v) && chars(v) >= 1 && chars(v) <= 4096 },
  },
  codex_queue_message: {
    threadId: {
      required: true,
      ok: (v) =>
        // deno-lint-ignore no-control-regex
        isStr(v) && chars(v) >= 1 && chars(v) <= 256 && v.isWellFormed() && !/[\u0000-\u001f\u007f]/
          .test(v),
    },
    text: {
      required: true,
      ok: (v) =>
        isStr(v) && v.length > 0 && v.isWellFormed() && !v.includes("\0") && utf8(v) <= 16384,
    },
  },
  codex_read_reply: {
    // Every tool that takes a thread takes its id or its exact name (issue 14).
    threadId: { required: true, ok: (v) => isThreadRef(v) },
    clientMessageId: {
      required: true,
      ok: (v) =>
        isStr(v) && chars(v) >= 1 && chars(v) <= 200 && v.isWellFormed() && !/\p{Cc}/u.test(v),
    },
    cursor: { required: false, ok: (v) => isStr(v) && chars(v) >= 1 && chars(v) <= 8192 },
    refresh: { required: false, ok: (v) => typeof v === "boolean" },
  },
};
VALID.codex_wait_reply = {
  threadId: VALID.codex_read_reply.threadId,
  clientMessageId: VALID.codex_read_reply.clientMessageId,
  cursor: VALID.codex_read_reply.cursor,
  timeoutSeconds: { required: false, ok: (v) => isInt(v, 1, 55) },
};
VALID.codex_withdraw_message = {
  threadId: VALID.codex_read_reply.threadId,
  clientMessageId: VALID.codex_read_reply.clientMessageId,
};
const SANDBOXES = ["read-only", "workspace-write", "danger-full-access"];
const POLICIES = ["untrusted", "on-request", "never"];
VALID.codex_run = {
  threadId: { required: false, ok: (v) => isThreadRef(v) },
  cwd: {
    required: false,
    ok: (v) =>
      isStr(v) && chars(v) >= 1 && chars(v) <= 4096 && /^(\/|[A-Za-z]:[\\/])/.test(v) &&
      !v.includes("\0") && v.isWellFormed(),
  },
  text: VALID.codex_queue_message.text,
  waitSeconds: { required: false, ok: (v) => isInt(v, 1, 55) },
  name: {
    required: false,
    ok: (v) =>
      isStr(v) && chars(v) >= 1 && chars(v) <= 200 && v.isWellFormed() && !/\p{Cc}/u.test(v) &&
      v.trim() === v,
  },
  model: { required: false, ok: (v) => isStr(v) && /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,99}$/.test(v) },
  effort: { required: false, ok: (v) => isStr(v) && /^[a-z][a-z0-9_-]{0,31}$/.test(v) },
  sandbox: { required: false, ok: (v) => isStr(v) && SANDBOXES.includes(v) },
  approvalPolicy: { required: false, ok: (v) => isStr(v) && POLICIES.includes(v) },
};
VALID.codex_interrupt = { threadId: VALID.codex_read_reply.threadId };

/**
 * Whether the tool must accept `args`. An own `__proto__` key is not an
 * unknown field: the SDK drops it from the parsed request before any tool sees
 * the arguments (checked through the relay: `{"__proto__": {"cursor": 7}}`
 * lists threads as `{}` does).
 */
function isValid(tool: string, args: Record<string, unknown>): boolean {
  const fields = VALID[tool];
  const present = (key: string) => Object.hasOwn(args, key) && key !== "__proto__";
  for (const key of Object.keys(args)) {
    if (present(key) && !Object.hasOwn(fields, key)) return false;
  }
  const fieldsOk = Object.entries(fields).every(([key, f]) =>
    present(key) && args[key] !== undefined ? f.ok(args[key]) : !f.required
  );
  // codex_run runs in a thread or starts one in a directory: exactly one of the two.
  // A name is for a new thread only.
  if (tool === "codex_run") {
    return fieldsOk && present("threadId") !== present("cwd") &&
      (!present("name") || present("cwd"));
  }
  return fieldsOk;
}

// ------------------------------------------------------------- arbitraries

const nasty = fc.constantFrom(
  "",
  " ",
  "\0",
  "a\0b",
  "\ud800",
  "x\udc00y",
  "\udbff\udfff",
  "\u202e\u200b\ufeff",
  "\u0007\u001b[31m",
  "\u007f",
  "line\nbreak",
  "😀".repeat(4096),
  "😀".repeat(4097),
  "é".repeat(8192),
  "é".repeat(8192) + "x",
  "a".repeat(16384),
  "a".repeat(16385),
  "a".repeat(257),
  "c".repeat(200),
  "c".repeat(201),
  "c".repeat(4096),
  "c".repeat(4097),
  "c".repeat(8192),
  "c".repeat(8193),
  "😀".repeat(2048),
  "__proto__",
  "constructor",
  "../../etc/passwd",
  "$(touch /tmp/pwned)",
  UNKNOWN_THREAD,
);
const hostileString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.string({
    unit: fc.constantFrom("\0", "\ud800", "\udfff", "\u0085", "é", "😀", "\u{10ffff}", "a", "\n"),
    maxLength: 24,
  }),
  nasty,
  fc.integer({ min: 16380, max: 16390 }).map((n) => "b".repeat(n)),
  fc.uuid(),
);
const hugeNumber = fc.oneof(
  fc.constantFrom(
    1e308,
    -1e308,
    Number.MAX_SAFE_INTEGER + 2,
    -0,
    0,
    0.5,
    2 ** 53,
    1e21,
    5e-324,
    -1,
  ),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer({ min: -1000, max: 1000 }),
);
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hugeNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }) },
  {
    weight: 1,
    arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), {
      maxKeys: 3,
    }),
  },
);

/** A field: absent, valid, or hostile. */
function field(valid: fc.Arbitrary<unknown>, hostile: fc.Arbitrary<unknown> = anyValue) {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: valid },
    { weight: 2, arbitrary: hostile },
  );
}

/** An argument object over `fields`, sometimes with unknown keys. */
function argsOf(
  fields: Record<string, fc.Arbitrary<unknown>>,
): fc.Arbitrary<Record<string, unknown>> {
  const known = Object.keys(fields);
  const extra = fc.oneof(
    { weight: 5, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.dictionary(
        fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("__proto__", "constructor", "_meta"))
          .filter((k) => !known.includes(k)),
        anyValue,
        { minKeys: 1, maxKeys: 2 },
      ),
    },
  );
  return fc.tuple(fc.record(fields), extra).map(([f, e]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(f)) if (v !== undefined) out[k] = v;
    for (const [k, v] of Object.entries(e)) {
      Object.defineProperty(out, k, {
        value: v,
        enumerable: true,
        configurable: true,
        writable: true,
      });
    }
    return out;
  });
}

// ------------------------------------------------------------- checks

let relay: RelayProcess;
let f: FixtureHome;

/** Calls `tool` and checks the answer against the contract; returns the structured content. */
async function hostileCall(
  tool: string,
  args: Record<string, unknown>,
  forbidden: readonly string[],
): Promise<Record<string, unknown> | undefined> {
  const spawnedBefore = (await f.spawned()).length;
  let result: CallResult;
  try {
    result = await callTool(relay.client, tool, args);
  } catch (error) {
    throw new Error(`${tool} threw for ${JSON.stringify(args).slice(0, 300)}: ${error}`);
  }
  const text = resultText(result);
  const label = `${tool}(${JSON.stringify(args).slice(0, 300)}) → ${text.slice(0, 300)}`;
  assert.ok(text.length > 0, `${label}: a message`);
  assert.deepEqual(leakedSecrets(result, forbidden), [], `${label}: text outside the scope`);
  if (!isValid(tool, args)) {
    assert.equal(result.isError, true, `${label}: invalid input is an error`);
    assert.equal(
      (await f.spawned()).length,
      spawnedBefore,
      `${label}: invalid input spawns nothing`,
    );
    return undefined;
  }
  assert.notEqual(result.isError, true, `${label}: valid input is not an error`);
  const out = result.structuredContent;
  const receipt = out?.receipt as { status?: unknown } | undefined;
  assert.ok(
    out && (typeof out.status === "string" || typeof receipt?.status === "string"),
    `${label}: a status`,
  );
  return out;
}

const ALL_SECRETS = Object.values(SECRETS);
/** The turn-start level's tools (their own test, below). */
const TURN_TOOLS = ["codex_run", "codex_interrupt", "codex_withdraw_message"];

// ------------------------------------------------------------- tests

const h = hostileScenario();
const known = h.s;

Deno.test({
  name: "hostile input: tool arguments and cursors never crash the relay or leak out of scope",
  async fn(t) {
    f = await FixtureHome.create(h.scenario);
    relay = await startRelayProcess({ env: f.env, flags: ["--allow-reply-read"] });
    const { code, stderr, left } = await closeAfter(relay, f, async () => {
      const tools = await registeredTools(relay.client);
      assert.deepEqual(
        tools.sort(),
        Object.keys(VALID).filter((t) => !TURN_TOOLS.includes(t)).sort(),
        "every registered tool is covered",
      );

      await t.step(`codex_queue_message: ${RUNS.queue} hostile argument sets`, async () => {
        const refs = [
          known.main.id,
          known.named.id,
          "reliability named",
          UNKNOWN_THREAD,
          "no such name",
        ];
        const arb = argsOf({
          threadId: field(fc.constantFrom(...refs)),
          text: field(fc.string({ unit: "grapheme", minLength: 1, maxLength: 64 })),
        });
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_queue_message", args, ALL_SECRETS);
            if (!out) return;
            assert.ok(["queued", "not_sent", "unknown"].includes(String(out.status)));
            if (out.status !== "queued") assert.equal(typeof out.reason, "string");
            const resolvable = [known.main.id, known.named.id, "reliability named"];
            if (!resolvable.includes(args.threadId as string)) {
              assert.equal(out.status, "not_sent", "an unknown thread stores nothing");
            }
          }),
          { numRuns: RUNS.queue },
        );
      });

      await t.step(`codex_list_threads: ${RUNS.list} hostile argument sets`, async () => {
        const arb = argsOf({
          limit: field(fc.integer({ min: 1, max: 50 })),
          cursor: field(fc.string({ minLength: 1, maxLength: 40 })),
        });
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_list_threads", args, ALL_SECRETS);
            if (!out) return;
            if (args.cursor === undefined) assert.equal(out.status, "ok");
            else assert.deepEqual([out.status, out.reason], ["unavailable", "invalid_cursor"]);
          }),
          { numRuns: RUNS.list },
        );
      });

      await t.step(`codex_read_reply: ${RUNS.read} hostile argument sets`, async () => {
        const arb = argsOf({
          threadId: field(fc.constantFrom(known.main.id, h.big.id, UNKNOWN_THREAD)),
          clientMessageId: field(fc.constantFrom(READ_CLIENT_ID, SCOPE_A, "not-a-message")),
          cursor: field(fc.string({ minLength: 1, maxLength: 40 })),
          refresh: field(fc.boolean()),
        });
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_read_reply", args, [...ALL_SECRETS, MARK_B]);
            if (!out) return;
            assert.ok(
              ["observed", "no_match", "ambiguous", "unavailable"].includes(String(out.status)),
            );
            if (args.cursor !== undefined) {
              // A name is looked up first (no thread has these hostile names); an id is not.
              const reason = UUID.test(String(args.threadId))
                ? "invalid_cursor"
                : "thread_not_found";
              assert.deepEqual([out.status, out.reason], ["unavailable", reason]);
            }
          }),
          { numRuns: RUNS.read },
        );
      });

      await t.step(`codex_wait_reply: ${RUNS.wait} hostile argument sets`, async () => {
        // Valid combinations all settle at once (observed, or unavailable), so no call waits.
        const invalidId = anyValue.filter((v) => !VALID.codex_wait_reply.clientMessageId.ok(v));
        const invalidSeconds = anyValue.filter((v) => !VALID.codex_wait_reply.timeoutSeconds.ok(v));
        const arb = argsOf({
          threadId: field(fc.constantFrom(known.main.id, UNKNOWN_THREAD)),
          clientMessageId: field(fc.constant(READ_CLIENT_ID), invalidId),
          cursor: field(fc.string({ minLength: 1, maxLength: 40 })),
          timeoutSeconds: field(fc.constant(1), invalidSeconds),
        });
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_wait_reply", args, ALL_SECRETS);
            if (!out) return;
            assert.equal(out.timedOut, false, "a settled wait did not time out");
          }),
          { numRuns: RUNS.wait },
        );
      });

      await t.step(
        `read cursors: ${RUNS.cursor} cursors of other scopes, forged, mutated or random`,
        async () => {
          const read = (scope: string, cursor?: string) =>
            callTool(relay.client, "codex_read_reply", {
              threadId: h.big.id,
              clientMessageId: scope,
              ...(cursor === undefined ? {} : { cursor }),
            }).then((r) => r.structuredContent as Record<string, unknown>);
          const cursors: Record<string, { search: string; reply: string }> = {};
          for (const [scope, mark] of [[SCOPE_A, MARK_A], [SCOPE_B, MARK_B]]) {
            const first = await read(scope);
            assert.equal(first.status, "no_match", "the message is older than one search page");
            const found = await read(scope, first.searchCursor as string);
            assert.equal(found.status, "observed");
            const texts = found.replies as { text: string; truncated: boolean }[];
            assert.ok(texts.length > 0 && texts.every((r) => r.text.startsWith(mark)));
            assert.equal(typeof found.nextCursor, "string", "more replies than one page holds");
            cursors[scope] = {
              search: first.searchCursor as string,
              reply: found.nextCursor as string,
            };
          }
          const forge = (data: Record<string, unknown>) =>
            encodeCursor(
              { v: 1, threadId: h.big.id, ...data } as Parameters<typeof encodeCursor>[0],
            );
          const appCursor = (offset: number) =>
            JSON.stringify({
              requestedThreadId: h.big.id,
              rolloutOrdinal: offset,
              scope: { kind: "itemsDesc" },
            });
          const forged = [SCOPE_A, SCOPE_B].flatMap((scope) => {
            const [other, otherUser, ownUser, ownTurn] = scope === SCOPE_A
              ? [h.ids.turnB, h.ids.userB, h.ids.userA, h.ids.turnA]
              : [h.ids.turnA, h.ids.userA, h.ids.userB, h.ids.turnB];
            const reply = { kind: "reply", clientMessageId: scope };
            return [
              forge({ ...reply, userItemId: otherUser, turnId: other, lastItemId: null }),
              forge({ ...reply, userItemId: ownUser, turnId: other, lastItemId: null }),
              forge({ ...reply, userItemId: otherUser, turnId: ownTurn, lastItemId: null }),
              forge({
                ...reply,
                userItemId: ownUser,
                turnId: ownTurn,
                lastItemId: `msg_${scope === SCOPE_A ? MARK_B : MARK_A}_1`,
              }),
              forge({ kind: "search", clientMessageId: scope, appCursor: appCursor(103) }),
              forge({ kind: "search", clientMessageId: scope, appCursor: "garbage" }),
            ];
          });
          const real = [
            cursors[SCOPE_A].search,
            cursors[SCOPE_A].reply,
            cursors[SCOPE_B].search,
            cursors[SCOPE_B].reply,
          ];
          const pool = [...real, ...forged];
          const mutated = fc.tuple(
            fc.constantFrom(...pool),
            fc.nat(),
            fc.string({ maxLength: 3 }),
            fc.nat(3),
          ).map(
            ([c, at, s, how]) => {
              const i = at % (c.length + 1);
              if (how === 0) return c.slice(0, i) + s + c.slice(i + 1);
              if (how === 1) return c.slice(0, i) || c.slice(1);
              if (how === 2) return c + s;
              return s + c;
            },
          );
          const cursorArb = fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...pool) },
            { weight: 3, arbitrary: mutated },
            { weight: 1, arbitrary: hostileString },
            { weight: 1, arbitrary: fc.base64String({ maxLength: 200 }) },
          );
          await fc.assert(
            fc.asyncProperty(
              fc.constantFrom(SCOPE_A, SCOPE_B),
              cursorArb,
              fc.option(fc.boolean(), { nil: undefined }),
              async (scope, cursor, refresh) => {
                const args: Record<string, unknown> = {
                  threadId: h.big.id,
                  clientMessageId: scope,
                  cursor,
                };
                if (refresh !== undefined) args.refresh = refresh;
                const otherMark = scope === SCOPE_A ? MARK_B : MARK_A;
                const out = await hostileCall("codex_read_reply", args, [
                  ...ALL_SECRETS,
                  otherMark,
                ]);
                if (!out) return;
                const otherScope = scope === SCOPE_A ? SCOPE_B : SCOPE_A;
                if (cursor === cursors[otherScope].search || cursor === cursors[otherScope].reply) {
                  assert.deepEqual([out.status, out.reason], ["unavailable", "invalid_cursor"]);
                }
                if (forged.includes(cursor) && out.status === "observed") {
                  const mark = scope === SCOPE_A ? MARK_A : MARK_B;
                  for (const r of out.replies as { text: string }[]) {
                    assert.ok(r.text.startsWith(mark));
                  }
                }
              },
            ),
            { numRuns: RUNS.cursor },
          );
        },
      );
    });
    assert.equal(code, 0, `the relay exits 0 after all of it:\n${stderr.slice(-2000)}`);
    assert.deepEqual(left, [], "no helper is left");
    assert.deepEqual(
      leakedSecrets(stderr, [...ALL_SECRETS, MARK_A, MARK_B]),
      [],
      "nothing stored reaches the log",
    );
  },
});

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
    "hostile input (turn start): codex_run and codex_interrupt arguments and forged, mutated or replayed request states never crash the relay, reach Codex, or spawn for invalid input",
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

// ------------------------------------------------------------- raw frames

/** Line-delimited stdout of the relay with waiters by JSON-RPC id. */
class RawRelay {
  readonly child: Deno.ChildProcess;
  readonly lines: string[] = [];
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #waiters: { id: unknown; resolve: (m: Record<string, unknown>) => void }[] = [];
  readonly #pumps: Promise<unknown>[];
  stderr = "";

  constructor(env: Record<string, string>) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: relayArgs(["--allow-reply-read"]),
      env: denoChildEnv(env),
      clearEnv: true,
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#pumps = [this.#read(), this.#readStderr()];
  }

  async #read(): Promise<void> {
    let buffer = "";
    for await (const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        this.lines.push(line);
        const m = JSON.parse(line) as Record<string, unknown>; // stdout carries JSON only
        const i = this.#waiters.findIndex((w) => w.id === m.id);
        if (i !== -1) this.#waiters.splice(i, 1)[0].resolve(m);
      }
    }
  }

  async #readStderr(): Promise<void> {
    for await (const chunk of this.child.stderr.pipeThrough(new TextDecoderStream())) {
      this.stderr += chunk;
    }
  }

  async write(line: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(line + "\n"));
  }

  /** Writes raw bytes (no newline added). */
  async writeBytes(bytes: Uint8Array): Promise<void> {
    await this.#writer.write(bytes);
  }

  /** Resolves with the next message answered under `id` (sent by the caller). */
  answer(id: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve) => this.#waiters.push({ id, resolve }));
  }

  /** Sends a request and resolves with its response. */
  request(id: string, method: string, params: unknown): Promise<Record<string, unknown>> {
    const answered = new Promise<Record<string, unknown>>((resolve) =>
      this.#waiters.push({ id, resolve })
    );
    return this.write(JSON.stringify({ jsonrpc: "2.0", id, method, params })).then(() =>
      within(answered, `The relay answering request ${id}`)
    );
  }

  /** Closes stdin; the relay must exit within the shutdown bound (else it is killed and this fails). */
  async close(): Promise<Deno.CommandStatus> {
    await this.#writer.close().catch(() => {});
    const status = await within(
      this.child.status,
      "The relay exiting after stdin EOF",
      SHUTDOWN_BOUND_MS,
      async () => {
        this.child.kill("SIGKILL");
        await this.child.status;
        await Promise.all(this.#pumps).catch(() => {});
      },
    );
    await within(Promise.all(this.#pumps), "The relay's output closing after it exited");
    return status;
  }
}

const FRAME_MARK = "HOSTILE-FRAME-TEXT-77ab";

const MALFORMED: string[] = [
  "",
  "garbage",
  `${FRAME_MARK} not json`,
  "{",
  "}",
  "[]",
  "[1,2,3]",
  "null",
  "42",
  '"a string"',
  "true",
  "\u0000\u0001\u0002",
  "\ud800",
  '{"jsonrpc":"2.0"}',
  '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":1e308,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":-1e308,"method":"ping"}',
  '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
  '{"jsonrpc":"2.0","id":{"nested":true},"method":"ping"}',
  '{"jsonrpc":"2.0","id":[1],"method":"ping"}',
  '{"jsonrpc":"2.0","id":null,"method":"tools/list"}',
  `{"jsonrpc":"2.0","id":"${"i".repeat(100_000)}","method":"ping"}`,
  '{"jsonrpc":"2.0","id":7,"method":42}',
  '{"jsonrpc":"2.0","id":7,"method":null}',
  '{"jsonrpc":"2.0","id":8,"method":"tools/call"}',
  '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"nope"}',
  '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":42}}',
  '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"codex_list_threads","arguments":[]}}',
  `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"codex_queue_message","arguments":{"threadId":7,"text":"${FRAME_MARK}"}}}`,
  `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"codex_queue_message","arguments":{"threadId":"x","text":"${FRAME_MARK}"`,
  '{"jsonrpc":"2.0","id":14,"method":"no/such/method","params":{}}',
  '{"jsonrpc":"2.0","id":15,"result":{"unsolicited":true}}',
  '{"jsonrpc":"2.0","id":16,"error":{"code":-1,"message":"unsolicited"}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized","params":7}',
  '{"jsonrpc":"2.0","id":17,"method":"initialize","params":{"protocolVersion":42}}',
  '{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":18,"method":"ping"}',
];

Deno.test("hostile input: malformed MCP frames on stdin do not kill the relay", async () => {
  const f = await FixtureHome.create(seeded().scenario);
  const raw = new RawRelay(f.env);
  try {
    const random = fc.sample(
      fc.oneof(
        fc.string({ unit: "binary", maxLength: 80 }),
        fc.json({ maxDepth: 3 }),
        fc.jsonValue({ maxDepth: 2 }).map((v) =>
          JSON.stringify({ jsonrpc: "2.0", id: v, method: v })
        ),
        fc.record({
          jsonrpc: fc.constant("2.0"),
          id: fc.integer(),
          method: fc.string({ maxLength: 20 }),
          params: fc.jsonValue({ maxDepth: 2 }),
        })
          .map((v) => JSON.stringify(v)),
      ),
      { numRuns: 150, seed: 8 },
    ).map((l) => l.replaceAll("\n", " "));
    for (const line of [...MALFORMED, ...random]) await raw.write(line);
    const init = await raw.request("init", "initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "raw", version: "0" },
    });
    assert.ok(init.result, `initialize answered: ${JSON.stringify(init).slice(0, 300)}`);
    await raw.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    for (const line of [...MALFORMED, ...random.slice(0, 50)]) await raw.write(line);
    const listed = await raw.request("after", "tools/call", {
      name: "codex_list_threads",
      arguments: { limit: 5 },
    });
    const out = (listed.result as { structuredContent?: { status?: string } }).structuredContent;
    assert.equal(out?.status, "ok", "a normal call still works on the same process");
    await raw.write("x".repeat(2 * 1024 * 1024)); // One 2 MiB line of garbage.
    const again = await raw.request("after-huge", "tools/call", {
      name: "codex_queue_message",
      arguments: { threadId: "reliability named", text: "still here" },
    });
    const receipt = (again.result as { structuredContent?: { status?: string } }).structuredContent;
    assert.equal(receipt?.status, "queued");
    for (const line of raw.lines) {
      const m = JSON.parse(line);
      assert.equal(m.jsonrpc, "2.0", `stdout carries JSON-RPC only: ${line.slice(0, 200)}`);
    }
  } catch (error) {
    await raw.close().catch(() => {});
    await f.dispose();
    throw error;
  }
  const status = await raw.close().catch((error: Error) => error);
  const left = f.alive();
  await f.dispose();
  if (status instanceof Error) throw status;
  assert.equal(status.code, 0, `the relay exits 0 on stdin EOF:\n${raw.stderr.slice(-2000)}`);
  assert.deepEqual(left, []);
  assert.ok(!raw.stderr.includes(FRAME_MARK), "text in malformed frames never reaches the log");
});

/** A request line of exactly `bytes` bytes (newline excluded), padded with JSON whitespace. */
function paddedRequest(id: string, idAtEnd: boolean, bytes: number): Uint8Array {
  const params = { name: "codex_list_threads", arguments: { limit: 5 } };
  const [before, after] = idAtEnd
    ? [
      `{"method":"tools/call","params":${JSON.stringify(params)}`,
      `,"jsonrpc":"2.0","id":"${id}"}`,
    ]
    : [
      `{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":${JSON.stringify(params)}`,
      "}",
    ];
  const pad = bytes - before.length - after.length;
  assert.ok(pad > 0);
  const line = new Uint8Array(bytes + 1).fill(0x20);
  const enc = new TextEncoder();
  line.set(enc.encode(before), 0);
  line.set(enc.encode(after), before.length + pad);
  line[bytes] = 0x0a;
  return line;
}

async function initialized(raw: RawRelay): Promise<void> {
  const init = await raw.request("init", "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "raw", version: "0" },
  });
  assert.ok(init.result, JSON.stringify(init).slice(0, 300));
  await raw.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
}

function structured(m: Record<string, unknown>): Record<string, unknown> | undefined {
  return (m.result as { structuredContent?: Record<string, unknown> } | undefined)
    ?.structuredContent;
}

Deno.test(`hostile input: an MCP message of ${MAX_MESSAGE_BYTES} bytes is served, one byte more is refused alone, and the relay serves on`, async () => {
  const f = await FixtureHome.create(seeded().scenario);
  const raw = new RawRelay(f.env);
  try {
    await initialized(raw);
    for (const idAtEnd of [false, true]) {
      const at = `at-bound-${idAtEnd}`;
      const served = raw.answer(at);
      await raw.writeBytes(paddedRequest(at, idAtEnd, MAX_MESSAGE_BYTES));
      assert.equal(structured(await served)?.status, "ok", `${at}: answered as usual`);

      const over = `over-bound-${idAtEnd}`;
      const refused = raw.answer(over);
      await raw.writeBytes(paddedRequest(over, idAtEnd, MAX_MESSAGE_BYTES + 1));
      const error = (await refused).error as { code: number; message: string; data?: unknown };
      assert.equal(error.code, -32600, `${over}: invalid request`);
      assert.match(
        error.message,
        new RegExp(`${MAX_MESSAGE_BYTES + 1} bytes.*${MAX_MESSAGE_BYTES}`),
      );
      assert.deepEqual(error.data, { limitBytes: MAX_MESSAGE_BYTES });
    }
    // 10 MiB without an id to be seen (the SDK's own transport closed the connection on it).
    await raw.writeBytes(new Uint8Array(10 * 1024 * 1024).fill(0x78));
    await raw.write("");
    const after = await raw.request("after-oversized", "tools/call", {
      name: "codex_list_threads",
      arguments: { limit: 5 },
    });
    assert.equal(structured(after)?.status, "ok", "the same process serves on");
  } finally {
    const status = await raw.close();
    const left = f.alive();
    await f.dispose();
    assert.equal(status.code, 0, `the relay exits 0 on stdin EOF:\n${raw.stderr.slice(-2000)}`);
    assert.deepEqual(left, []);
  }
  const refusals = raw.stderr.split("\n").filter((l) => l.includes("mcp message refused"));
  assert.equal(refusals.length, 3, raw.stderr.slice(-2000));
  for (const l of refusals) assert.match(l, /why="too large"/);
  assert.match(refusals[2], new RegExp(`bytes=${10 * 1024 * 1024} .*answered=false`));
  assert.ok(!raw.stderr.includes("ReadBuffer"), "the connection was never given up");
});

Deno.test("hostile input: a line that is not JSON, a batch and a request with id null get the JSON-RPC errors the spec gives", async () => {
  const f = await FixtureHome.create(seeded().scenario);
  const raw = new RawRelay(f.env);
  try {
    await initialized(raw);
    const before = raw.lines.length;
    await raw.write("this is not JSON");
    await raw.write(JSON.stringify([{ jsonrpc: "2.0", id: "b1", method: "ping" }]));
    await raw.write(JSON.stringify({ jsonrpc: "2.0", id: null, method: "ping" }));
    await raw.write(JSON.stringify({ jsonrpc: "2.0", id: 7, method: 42 }));
    await raw.request("fence", "ping", {});
    const got = raw.lines.slice(before).map((l) => JSON.parse(l));
    const errors = got.filter((m) => m.error).map((m) => [m.id, m.error.code]);
    assert.deepEqual(errors, [[null, -32700], [null, -32600], [null, -32600], [7, -32600]]);
    const texts = got.filter((m) => m.error).map((m) => m.error.message as string);
    assert.match(texts[0], /^Parse error/);
    assert.match(texts[1], /batch/);
    assert.match(texts[2], /null/);
    assert.deepEqual(got.at(-1), { jsonrpc: "2.0", id: "fence", result: {} });
  } finally {
    const status = await raw.close();
    await f.dispose();
    assert.equal(status.code, 0);
  }
  for (const why of ["not JSON", "batch", "id null", "invalid request"]) {
    assert.ok(raw.stderr.includes(`mcp message refused why="${why}"`), why);
  }
});
