/**
 * issue 46 item 1: the costliest answer checks known, each a strict `outputSchema` within its
 * bounds (64 KiB, 64 levels, 512-unit patterns) and an answer within the 16 KiB page bound. Shared
 * by tests/unit/answer_check_test.ts (each ends within the one-check bound) and `deno task bench`
 * (scripts/bench/one_check.ts: the slowest of them against a plain check).
 * @module
 */

type Obj = Record<string, unknown>;

/** The longest final answer a check ever sees: the 16 KiB page bound (`run_job.ts`). */
export const ANSWER_BYTES = 16 * 1024;

/** An object schema as strict mode wants it: closed, every property required. */
export function closed(properties: Obj, extra: Obj = {}): Obj {
  return {
    type: "object",
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    ...extra,
  };
}

/** A 511-unit pattern of 169 nested groups, each repeated: the engine's costliest per unit. */
export const NESTED_511 = `^${"(".repeat(169)}a*${")*".repeat(169)}$`;

/** `v` goes through `levels` levels of `anyOf: [$ref next, $ref next]` to `leaf`: 2^levels paths. */
export function fanOut(leaf: Obj, levels: number): Obj {
  const defs: Obj = { [`d${levels}`]: leaf };
  for (let i = 0; i < levels; i++) {
    defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  }
  return closed({ v: { $ref: "#/$defs/d0" } }, { $defs: defs });
}

/** `{"v": value}` as answer text. */
const answer = (value: unknown) => JSON.stringify({ v: value });

/** A string of `n` `a`s and a `!`: no pattern of `a`s ending in `$` matches it. */
const as = (n: number) => `${"a".repeat(n)}!`;

/** The costly checks, by name: a schema, and an answer no branch matches (so all are tried). */
export function hostileChecks(): Record<string, { schema: Obj; answer: string }> {
  const keys: Obj = {};
  for (let i = 0; i < 2_000; i++) keys[i.toString(36)] = 0;
  const big = { type: "object", properties: {}, required: [], additionalProperties: false };
  const long = "b".repeat(ANSWER_BYTES - 64);
  return {
    // The 1.9 KB schema: its fan-out reaches a 511-unit pattern (113 s before).
    "anyOf fan-out to a 511-unit pattern, 16 KiB answer": {
      schema: fanOut({ type: "string", pattern: NESTED_511 }, 20),
      answer: answer(as(ANSWER_BYTES - 16)),
    },
    "anyOf fan-out to a 511-unit pattern, 1 KiB answer": {
      schema: fanOut({ type: "string", pattern: NESTED_511 }, 20),
      answer: answer(as(1_024)),
    },
    "anyOf fan-out to a 511-unit pattern, 64-character answer": {
      schema: fanOut({ type: "string", pattern: NESTED_511 }, 20),
      answer: answer(as(64)),
    },
    "anyOf fan-out to an object, a 2,000-key answer": {
      schema: fanOut(big, 20),
      answer: answer(keys),
    },
    "anyOf fan-out to an enum of long strings": {
      schema: fanOut({ enum: [`${long}x`, `${long}y`] }, 20),
      answer: answer(`${long}z`),
    },
    "anyOf fan-out to a const object, a 2,000-key answer": {
      schema: fanOut({ const: { ...keys, k0: -1 } }, 20),
      answer: answer(keys),
    },
  };
}

/** A plain check: a closed object with a patterned string, answered as it asks. */
export function plainCheck(): { schema: Obj; answer: string } {
  return {
    schema: closed({ ok: { type: "boolean" }, v: { type: "string", pattern: "^[a-z]+$" } }),
    answer: JSON.stringify({ ok: true, v: "abc" }),
  };
}

/** This process's CPU time so far, in ms (user + system; `Deno.cpuUsage`, not in Deno's types). */
export function cpuMs(): number {
  const { user, system } = (Deno as unknown as {
    cpuUsage(): { user: number; system: number };
  }).cpuUsage();
  return (user + system) / 1000;
}
