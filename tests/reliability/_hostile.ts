/**
 * Shared setup of the hostile-input tests (`hostile_*_test.ts`): the scenario, the
 * published input contract each tool is checked against, the fast-check arbitraries
 * and `hostileCaller`, which checks one call's answer against the contract.
 * @module
 */

import assert from "assert";
import fc from "fast-check";
import { agentItem, type FixtureHome, thread, turn, userItem } from "../../testing/fixture_home.ts";
import { type CallResult, callTool } from "../../testing/call_tool.ts";
import {
  leakedSecrets,
  type RelayProcess,
  resultText,
  SECRETS,
  type Seeded,
  seeded,
} from "./_reliability.ts";
import type { FixtureThread, Scenario } from "../../fixtures/scenario.ts";

/** Runs per property: bounded so the file stays fast. */
export const RUNS = {
  queue: 250,
  list: 200,
  read: 150,
  wait: 100,
  withdraw: 60,
  cursor: 200,
  run: 120,
  review: 60,
  interrupt: 60,
  state: 100,
} as const;

export const SCOPE_A = "hostile-scope-a";
export const SCOPE_B = "hostile-scope-b";
export const MARK_A = "SCOPE-A-FINAL";
export const MARK_B = "SCOPE-B-FINAL";
export const UNKNOWN_THREAD = "01a00000-0000-7000-8000-0000000000ff";

// ------------------------------------------------------------- the scenario

/** The hostile scenario: the seeded threads plus one big thread with a turn per scope. */
export interface HostileScenario {
  s: Seeded;
  big: FixtureThread;
  ids: { turnA: string; turnB: string; userA: string; userB: string };
  scenario: Scenario;
}

/** The seeded scenario plus a big thread holding scope A's and scope B's turns. */
export function hostileScenario(): HostileScenario {
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

export const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
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
export const VALID: Record<
  string,
  Record<string, { required: boolean; ok: (v: unknown) => boolean }>
> = {
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
// Issue 42's tools (their faults: job_faults_test.ts).
VALID.codex_usage = { threadId: { ...VALID.codex_read_reply.threadId, required: false } };
VALID.codex_fork = { threadId: VALID.codex_read_reply.threadId, name: VALID.codex_run.name };
VALID.codex_compact = {
  threadId: VALID.codex_read_reply.threadId,
  waitSeconds: VALID.codex_run.waitSeconds,
};

/** Review fields take what message text takes (issue 39): well-formed, no NUL, bounded in UTF-8. */
const reviewName = {
  required: false,
  ok: (v: unknown) =>
    isStr(v) && v.length >= 1 && v.isWellFormed() && utf8(v) <= 256 && v.trim() === v &&
    !/\p{Cc}/u.test(v),
};
VALID.codex_review = {
  threadId: VALID.codex_run.threadId,
  cwd: VALID.codex_run.cwd,
  target: {
    required: true,
    ok: (v) => isStr(v) && ["uncommitted", "base", "commit", "custom"].includes(v),
  },
  base: reviewName,
  commit: reviewName,
  instructions: { required: false, ok: VALID.codex_queue_message.text.ok },
  waitSeconds: VALID.codex_run.waitSeconds,
  model: VALID.codex_run.model,
  effort: VALID.codex_run.effort,
};
VALID.codex_steer = {
  threadId: VALID.codex_read_reply.threadId,
  clientMessageId: { ...VALID.codex_read_reply.clientMessageId, required: false },
  text: VALID.codex_queue_message.text,
};

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
  // codex_review: in a thread or a new one in cwd; each target with its own field only.
  if (tool === "codex_review") {
    const target = args.target;
    return fieldsOk && present("threadId") !== present("cwd") &&
      present("base") === (target === "base") && present("commit") === (target === "commit") &&
      present("instructions") === (target === "custom");
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
export const hostileString = fc.oneof(
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
export const anyValue: fc.Arbitrary<unknown> = fc.oneof(
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
export function field(
  valid: fc.Arbitrary<unknown>,
  hostile: fc.Arbitrary<unknown> = anyValue,
): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 4, arbitrary: valid },
    { weight: 2, arbitrary: hostile },
  );
}

/** An argument object over `fields`, sometimes with unknown keys. */
export function argsOf(
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

/** What a hostile call runs against: the relay of the test that is running and its fixture. */
export interface HostileTarget {
  relay: RelayProcess;
  f: FixtureHome;
}

/** Makes `hostileCall` for the test whose relay and fixture `target` gives. */
export function hostileCaller(
  target: () => HostileTarget,
): (
  tool: string,
  args: Record<string, unknown>,
  forbidden: readonly string[],
) => Promise<Record<string, unknown> | undefined> {
  /** Calls `tool` and checks the answer against the contract; returns the structured content. */
  return async function hostileCall(
    tool: string,
    args: Record<string, unknown>,
    forbidden: readonly string[],
  ): Promise<Record<string, unknown> | undefined> {
    const { relay, f } = target();
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
  };
}

export const ALL_SECRETS = Object.values(SECRETS);
/** The turn-start level's tools (their own test, `hostile_turn_start_test.ts`). */
export const TURN_TOOLS = [
  "codex_run",
  "codex_interrupt",
  "codex_withdraw_message",
  "codex_review",
  "codex_steer",
  "codex_usage",
  "codex_fork",
  "codex_compact",
];
