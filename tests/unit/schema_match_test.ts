/**
 * issue 46 item 1, the fast part (the `answer-match` and `answer-rules` mutation groups run it for
 * each mutant; tests/unit/answer_check_test.ts times the costly checks): a pattern test is charged
 * by pattern × answer length, an object by its keys; `$ref` leads only to schema positions;
 * patterns run without captures. Runs with the relay's V8 flag (`deno task test:unit` passes it).
 */
import assert from "assert";
import { checkOutputSchema, structuredAnswer } from "../../src/reply/structured.ts";
import { matchSchema, MAX_CHECK_STEPS, patternSteps } from "../../src/reply/schema_match.ts";
import { resolveRef } from "../../src/reply/schema_rules.ts";
import { linearRegExp, withoutCaptures } from "../../src/reply/linear_regexp.ts";
import { ANSWER_BYTES, closed, NESTED_511 } from "../../testing/hostile_checks.ts";

const EXHAUSTED = `the answer could not be checked within ${MAX_CHECK_STEPS} steps of the schema`;

Deno.test("a pattern test is charged by pattern length × answer length; one step per key", () => {
  assert.equal(patternSteps("^[a-z]+$", "x".repeat(1023)), 128);
  assert.equal(patternSteps("ab", ""), 1);
  assert.equal(patternSteps(NESTED_511, "a".repeat(ANSWER_BYTES)), 130_824);
  // Two tests of the longest pattern on the longest answer are past the bound; one is not.
  const cheap511 = `^[a${"b".repeat(505)}]*$`;
  const one = closed({ v: { type: "string", pattern: cheap511 } });
  const v = "a".repeat(ANSWER_BYTES - 16);
  assert.equal(structuredAnswer(one, JSON.stringify({ v })).valid, true);
  const two = closed({
    v: {
      anyOf: [{ type: "string", pattern: `${cheap511}x` }, {
        type: "string",
        pattern: cheap511,
      }],
    },
  });
  assert.equal(checkOutputSchema(two), undefined);
  assert.deepEqual(structuredAnswer(two, JSON.stringify({ v })), {
    valid: false,
    error: EXHAUSTED,
  });
  // A wide answer checks at one step per key.
  const keys = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [i.toString(36), 0]));
  // Listing its keys is 2,000 steps: with the root's and the first name's, 2,002 to refuse it.
  const none = { type: "object", properties: {}, required: [], additionalProperties: false };
  const extra = { at: "", message: "must NOT have additional properties" };
  assert.deepEqual(matchSchema(none, keys, 2_002), extra);
  assert.equal(matchSchema(none, keys, 2_001), "exhausted");
});

Deno.test("a $ref into data names no subschema: refused, so its pattern and object rules hold", () => {
  const hidden = (target: unknown) =>
    closed({ v: { $ref: "#/$defs/x/enum/0" } }, { $defs: { x: { enum: [target] } } });
  for (
    const target of [
      { type: "string", pattern: "a".repeat(30_000) },
      { type: "object", properties: { a: { type: "string" } } },
    ]
  ) {
    const problem = checkOutputSchema(hidden(target));
    assert.deepEqual([problem?.path, problem?.rule], ["/properties/v", "json_schema"]);
    assert.match(problem!.message, /"#\/\$defs\/x\/enum\/0" names no subschema/);
  }
  assert.equal(structuredAnswer(hidden({ type: "string" }), '{"v":1}').valid, false);
  const root = {
    $defs: { x: { enum: [{}], anyOf: [{ type: "null" }], items: { type: "string" } } },
    properties: { "a/b": { type: "null" }, "c~d": { type: "null" } },
    additionalProperties: { const: 1 },
  };
  const at = (ref: string) => resolveRef(root, ref);
  assert.equal(at("#"), root);
  assert.deepEqual(at("#/$defs/x/anyOf/0"), { type: "null" });
  assert.deepEqual(at("#/$defs/x/items"), { type: "string" });
  assert.deepEqual(at("#/properties/a~1b"), { type: "null" });
  assert.deepEqual(at("#/properties/c~0d"), { type: "null" });
  assert.deepEqual(at("#/additionalProperties"), { const: 1 });
  for (
    const ref of [
      "#/$defs/x/enum/0",
      "#/$defs",
      "#/$defs/x/anyOf",
      "#/$defs/x/anyOf/1",
      "#/$defs/y",
      "#/properties",
      "#/$defs/x/anyOf/length",
      "#/%E0",
      "x",
      "#x",
      1,
    ]
  ) {
    assert.equal(at(ref as string), undefined, String(ref));
  }
});

Deno.test("patterns run without captures: the same matches, the cost of a capture-free pattern", () => {
  assert.equal(withoutCaptures("^(a|[(])(?<n>b)\\($"), "^(?:a|[(])(?:b)\\($");
  assert.equal(withoutCaptures("[]](a)[^]](b)[\\]](c)"), "[]](?:a)[^]](?:b)[\\]](?:c)");
  assert.equal(withoutCaptures("(?=x)(?!y)(?<=z)(?<!w)(?:v)"), "(?=x)(?!y)(?<=z)(?<!w)(?:v)");
  assert.equal(withoutCaptures("\\\\(c)\\(d"), "\\\\(?:c)\\(d");
  const cases: [string, string[]][] = [
    ["^(a|b)+$", ["abab", "abc", ""]],
    ["^[(](x)[)]$", ["(x)", "x"]],
    ["^(?<y>\\d{4})-(\\d\\d)$", ["2026-12", "2026-1"]],
    ["^[]]?(a)$", ["a", "]a"]],
  ];
  for (const [pattern, texts] of cases) {
    for (const text of texts) {
      assert.equal(linearRegExp(pattern).test(text), new RegExp(pattern).test(text), pattern);
    }
  }
  assert.equal(withoutCaptures(NESTED_511).includes("(a"), false);
});

Deno.test("matchSchema: the step bound is exact: a step per subschema, key, required name, item", () => {
  const schema = closed({ v: { type: "array", items: { type: "number" } } });
  // The root (1), its one key (1), one required name (1), the name "v" (1), v itself (1), each item.
  const items = (n: number) => ({ v: new Array(n).fill(0) });
  assert.equal(matchSchema(schema, items(95), 100), undefined);
  assert.equal(matchSchema(schema, items(96), 100), "exhausted");
  // A name is a step per 64 characters.
  const named = (length: number) => closed({ ["n".repeat(length)]: { type: "array", items: {} } });
  const answer = (length: number, n: number) => ({ ["n".repeat(length)]: new Array(n).fill(0) });
  assert.equal(matchSchema(named(65), answer(65, 94), 100), undefined);
  assert.equal(matchSchema(named(65), answer(65, 95), 100), "exhausted");
  assert.equal(matchSchema(named(64), answer(64, 95), 100), undefined);
  // Two required names are two steps; each key of the answer one.
  const two = closed({ a: {}, b: {} });
  assert.equal(matchSchema(two, { a: 0, b: 0 }, 9), undefined);
  assert.equal(matchSchema(two, { a: 0, b: 0 }, 8), "exhausted");
});

Deno.test("matchSchema: an enum costs a step per option and per 64 characters of a string option", () => {
  const options = (m: number) => ({ enum: new Array(m).fill("o".repeat(65)) });
  // The root (1), then 3 steps per option of 65 characters.
  assert.deepEqual(matchSchema(options(33), "x", 100), {
    at: "",
    message: "must be equal to one of the allowed values",
  });
  assert.equal(matchSchema(options(34), "x", 100), "exhausted");
  assert.notEqual(matchSchema({ enum: new Array(99).fill(1) }, 2, 100), "exhausted");
  assert.equal(matchSchema({ enum: new Array(100).fill(1) }, 2, 100), "exhausted");
  // Values compared: a step per pair and per key listed on both sides; then the answer's own keys
  // (1 each, and 1 per 64 characters of each name): 1 + 1 + 2 + 2 + 2 + 2 + 2.
  const keys = { a: 1, b: 1 };
  assert.equal(matchSchema({ const: keys }, { a: 1, b: 1 }, 12), undefined);
  assert.equal(matchSchema({ const: keys }, { a: 1, b: 1 }, 11), "exhausted");
  assert.equal(matchSchema({ const: [1, 2] }, [1, 2], 8), undefined);
  assert.equal(matchSchema({ const: [1, 2] }, [1, 2], 7), "exhausted");
  // A string: 1 + 1 per 64 characters.
  assert.equal(matchSchema({ const: "o".repeat(65) }, "o".repeat(65), 4), undefined);
  assert.equal(matchSchema({ const: "o".repeat(65) }, "o".repeat(65), 3), "exhausted");
  // A pattern test: its work in steps (the root's step, then 2 * 65 / 64 rounded up).
  assert.equal(matchSchema({ pattern: "^o" }, "o".repeat(64), 4), undefined);
  assert.equal(matchSchema({ pattern: "^o" }, "o".repeat(64), 3), "exhausted");
});

Deno.test("matchSchema: each keyword's mismatch, where and why", () => {
  const miss = (schema: unknown, value: unknown) =>
    matchSchema(schema as Record<string, unknown>, value);
  const at = (message: string, where = "") => ({ at: where, message });
  assert.deepEqual(miss({ type: "string" }, 1), at("must be string"));
  assert.deepEqual(miss({ type: ["string", "null"] }, 1), at("must be string,null"));
  assert.deepEqual(miss({ type: ["nothing", 5] }, 1), at("must be nothing,5"));
  assert.equal(miss({ type: ["string", "null"] }, null), undefined, "one of the types is enough");
  for (
    const [type, yes, no] of [
      ["object", {}, []],
      ["array", [], {}],
      ["string", "", 0],
      ["number", 1.5, "1"],
      ["integer", 2, 2.5],
      ["boolean", false, 0],
      ["null", null, 0],
    ] as const
  ) {
    assert.equal(miss({ type }, yes), undefined, type);
    assert.deepEqual(miss({ type }, no), at(`must be ${type}`), type);
  }
  assert.deepEqual(miss({ type: "toString" }, 1), at("must be toString"));
  assert.deepEqual(miss({ const: 1 }, 2), at("must be equal to constant"));
  assert.equal(miss({ const: null }, null), undefined);
  assert.deepEqual(miss({ const: null }, 0), at("must be equal to constant"));
  assert.deepEqual(miss({ enum: [1, "a"] }, "b"), at("must be equal to one of the allowed values"));
  assert.equal(miss({ enum: [1, "a"] }, "a"), undefined);
  assert.equal(miss({ enum: "a" }, "b"), undefined, "an enum that is no array is no rule");
  const bounds: [string, number, number, string][] = [
    ["minimum", 1, 0.5, "must be >= 1"],
    ["maximum", 1, 1.5, "must be <= 1"],
    ["exclusiveMinimum", 1, 1, "must be > 1"],
    ["exclusiveMaximum", 1, 1, "must be < 1"],
  ];
  for (const [key, limit, bad, message] of bounds) {
    assert.deepEqual(miss({ [key]: limit }, bad), at(message), key);
    assert.equal(miss({ [key]: "1" }, bad), undefined, `${key} that is no number`);
  }
  assert.equal(miss({ minimum: 1 }, 1), undefined);
  assert.equal(miss({ maximum: 1 }, 1), undefined);
  assert.equal(miss({ exclusiveMinimum: 1 }, 1.5), undefined);
  assert.equal(miss({ exclusiveMaximum: 1 }, 0.5), undefined);
  assert.deepEqual(miss({ multipleOf: 0.5 }, 0.2), at("must be multiple of 0.5"));
  assert.equal(miss({ multipleOf: 0.5 }, 1.5), undefined);
  assert.equal(miss({ multipleOf: "2" }, 3), undefined);
  assert.equal(miss({ minimum: 5 }, "1"), undefined, "number rules only for numbers");
  assert.deepEqual(miss({ pattern: "^a$" }, "b"), at('must match pattern "^a$"'));
  assert.equal(miss({ pattern: "^a$" }, 1), undefined);
  for (const v of [true, null, {}, []]) assert.equal(miss({ pattern: "^a$" }, v), undefined);
  assert.equal(miss({ pattern: 5 }, "b"), undefined);
  assert.deepEqual(miss({ minItems: 2 }, [1]), at("must NOT have fewer than 2 items"));
  assert.deepEqual(miss({ maxItems: 1 }, [1, 2]), at("must NOT have more than 1 items"));
  assert.equal(miss({ minItems: 1, maxItems: 1 }, [1]), undefined);
  assert.equal(miss({ minItems: "3", maxItems: "0" }, [1]), undefined);
  assert.equal(miss({ minItems: 3 }, "ab"), undefined);
  assert.deepEqual(miss({ items: { type: "string" } }, ["a", 1]), at("must be string", "/1"));
  assert.deepEqual(
    miss({ anyOf: [{ type: "string" }, { type: "null" }] }, 1),
    at(
      "must match a schema in anyOf",
    ),
  );
  assert.equal(miss({ anyOf: [{ type: "string" }, { type: "null" }] }, null), undefined);
  assert.equal(miss({ anyOf: {} }, 1), undefined);
  assert.deepEqual(miss(false, 1), at("is not allowed"));
  assert.equal(miss(true as never, 1), undefined);
});

Deno.test("matchSchema: objects: required, additional, each property at its escaped pointer", () => {
  const schema = {
    type: "object",
    properties: { "a/b~": { type: "string" }, c: { type: "number" } },
    required: ["c"],
    additionalProperties: false,
  };
  assert.deepEqual(matchSchema(schema, {}), {
    at: "",
    message: 'must have required property "c"',
  });
  assert.deepEqual(matchSchema(schema, { c: 1, d: 1 }), {
    at: "",
    message: "must NOT have additional properties",
  });
  assert.deepEqual(matchSchema(schema, { c: 1, "a/b~": 1 }), {
    at: "/a~1b~0",
    message: "must be string",
  });
  assert.equal(matchSchema(schema, { c: 1, "a/b~": "x" }), undefined);
  const nested = { properties: { o: { properties: { p: { type: "null" } } } } };
  assert.deepEqual(matchSchema(nested, { o: { p: 1 } }), { at: "/o/p", message: "must be null" });
  assert.equal(matchSchema({ properties: {} }, { x: 1 }), undefined, "no rule for x");
  assert.deepEqual(matchSchema({ additionalProperties: { type: "null" } }, { x: 1 }), {
    at: "/x",
    message: "must be null",
  });
  assert.equal(matchSchema({ required: "c" }, {}), undefined, "required that is no array");
  assert.equal(matchSchema({ properties: [{ type: "null" }] }, { 0: 1 }), undefined);
  assert.equal(matchSchema({ required: ["x"] }, [1]), undefined, "an array is no object");
  // Properties of the prototype are no properties of the schema.
  assert.equal(
    matchSchema({ properties: {}, additionalProperties: false }, { toString: 1 }) !== undefined,
    true,
  );
});

Deno.test("matchSchema: $ref, its mismatch first; nesting bounded at 1,000 subschemas", () => {
  const root = {
    $defs: { s: { type: "string" }, n: { type: "number" } },
    properties: { v: { $ref: "#/$defs/s", maxItems: 0 }, w: { $ref: "#/nowhere" } },
  };
  assert.deepEqual(matchSchema(root, { v: 1 }), { at: "/v", message: "must be string" });
  assert.equal(matchSchema(root, { v: "x" }), undefined);
  assert.deepEqual(matchSchema(root, { w: 1 }), { at: "/w", message: "is not allowed" });
  const chain = (length: number) => {
    const defs: Record<string, unknown> = { [`c${length}`]: { type: "null" } };
    for (let i = 1; i < length; i++) defs[`c${i}`] = { $ref: `#/$defs/c${i + 1}` };
    return { $ref: "#/$defs/c1", $defs: defs };
  };
  assert.equal(matchSchema(chain(1_000), null), undefined);
  assert.equal(matchSchema(chain(1_001), null), "exhausted");
});

Deno.test("matchSchema: JSON equality of const and enum, deep and exact", () => {
  const eq = (a: unknown, b: unknown) => matchSchema({ const: a }, b) === undefined;
  assert.equal(eq({ a: [1, { b: null }] }, { a: [1, { b: null }] }), true);
  assert.equal(eq({ a: 1, b: 2 }, { b: 2, a: 1 }), true);
  assert.equal(eq({ a: [1, { b: null }] }, { a: [1, { b: 0 }] }), false);
  assert.equal(eq({ a: 1 }, { a: 1, b: 2 }), false);
  assert.equal(eq({ a: 1, b: 2 }, { a: 1 }), false);
  assert.equal(eq({ a: 1 }, { b: 1 }), false);
  assert.equal(eq({ a: undefined }, { b: undefined }), false);
  assert.equal(eq([1], { 0: 1 }), false);
  assert.equal(eq({ 0: 1 }, [1]), false);
  assert.equal(eq([], {}), false);
  assert.equal(eq([1, 2], [1, 2]), true);
  assert.equal(eq([1, 2], [2, 1]), false);
  assert.equal(eq(null, {}), false);
  assert.equal(eq({}, null), false);
  assert.equal(eq(1, "1"), false);
  assert.equal(eq(1, 2), false);
  assert.equal(eq(1, {}), false);
  assert.equal(eq({}, 1), false);
  assert.equal(eq(false, true), false);
  assert.equal(eq("a", "b"), false);
  assert.equal(eq("a", "a"), true);
});

Deno.test("matchSchema: only its bound is 'exhausted'; a pattern no check takes throws", () => {
  assert.throws(() => matchSchema({ pattern: "a(?=b)" }, "ab"), SyntaxError);
});

Deno.test("matchSchema: nesting is bounded through anyOf, items and properties alike", () => {
  const deep = (wrap: (inner: unknown) => unknown, n: number, leaf: unknown) => {
    let out = leaf;
    for (let i = 0; i < n; i++) out = wrap(out);
    return out as Record<string, unknown>;
  };
  const anyOf = (n: number) => deep((s) => ({ anyOf: [s] }), n, { type: "null" });
  assert.equal(matchSchema(anyOf(1_000), null), undefined);
  assert.equal(matchSchema(anyOf(1_001), null), "exhausted");
  const items = (n: number) => deep((s) => ({ items: s }), n, {});
  const array = (n: number) => deep((v) => [v], n, null);
  assert.equal(matchSchema(items(1_000), array(1_000)), undefined);
  assert.equal(matchSchema(items(1_001), array(1_001)), "exhausted");
  const props = (n: number) => deep((s) => ({ properties: { p: s } }), n, {});
  const object = (n: number) => deep((v) => ({ p: v }), n, null);
  assert.equal(matchSchema(props(1_000), object(1_000)), undefined);
  assert.equal(matchSchema(props(1_001), object(1_001)), "exhausted");
});

Deno.test("matchSchema: what has no rule costs no step, and a $ref's match leaves its siblings' rules", () => {
  assert.equal(matchSchema({ type: "array" }, new Array(100).fill(0), 1), undefined);
  assert.equal(matchSchema({}, { x: 1 }, 3), undefined, "the root, one key, one name");
  assert.equal(matchSchema({}, { x: 1 }, 2), "exhausted");
  const root = { $defs: { s: { type: "string" } }, $ref: "#/$defs/s", enum: ["y"] };
  assert.deepEqual(matchSchema(root, "x"), {
    at: "",
    message: "must be equal to one of the allowed values",
  });
  assert.equal(matchSchema(root, "y"), undefined);
  // The pattern of a subschema is compiled once per check and kept for its next value.
  const list = { items: { pattern: "^a+$" } };
  assert.equal(matchSchema(list, ["a", "aa", "aaa"]), undefined);
  assert.deepEqual(matchSchema(list, ["a", "b"]), {
    at: "/1",
    message: 'must match pattern "^a+$"',
  });
});
