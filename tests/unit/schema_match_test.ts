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
import { ANSWER_BYTES, closed, fanOut, NESTED_511 } from "../../testing/hostile_checks.ts";

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
  // A wide answer checks once at one step per key; 100 times over it is past the bound.
  const keys = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [i.toString(36), 0]));
  const named = closed(Object.fromEntries(Object.keys(keys).map((k) => [k, { type: "number" }])));
  assert.equal(structuredAnswer(closed({ v: named }), JSON.stringify({ v: keys })).valid, true);
  const wide = fanOut(
    { type: "object", properties: {}, required: [], additionalProperties: false },
    7,
  );
  assert.deepEqual(structuredAnswer(wide, JSON.stringify({ v: keys })), {
    valid: false,
    error: EXHAUSTED,
  });
  assert.equal(structuredAnswer(wide, '{"v":{}}').valid, true);
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
  assert.equal(matchSchema(schema, items(MAX_CHECK_STEPS - 5)), undefined);
  assert.equal(matchSchema(schema, items(MAX_CHECK_STEPS - 4)), "exhausted");
  // A name is a step per 64 characters.
  const named = (length: number) => closed({ ["n".repeat(length)]: { type: "array", items: {} } });
  const answer = (length: number, n: number) => ({ ["n".repeat(length)]: new Array(n).fill(0) });
  assert.equal(matchSchema(named(65), answer(65, MAX_CHECK_STEPS - 6)), undefined);
  assert.equal(matchSchema(named(65), answer(65, MAX_CHECK_STEPS - 5)), "exhausted");
  assert.equal(matchSchema(named(64), answer(64, MAX_CHECK_STEPS - 5)), undefined);
});

Deno.test("matchSchema: an enum costs a step per option and per 64 characters of a string option", () => {
  const options = (m: number) => ({ enum: new Array(m).fill("o".repeat(65)) });
  // The root (1), then 3 steps per option of 65 characters.
  assert.deepEqual(matchSchema(options(66_666), "x"), {
    at: "",
    message: "must be equal to one of the allowed values",
  });
  assert.equal(matchSchema(options(66_667), "x"), "exhausted");
  const numbers = (m: number) => ({ enum: new Array(m).fill(1) });
  assert.notEqual(matchSchema(numbers(199_999), 2), "exhausted");
  assert.equal(matchSchema(numbers(200_000), 2), "exhausted");
});
