/**
 * issue 39: an outputSchema check is bounded. The strict rules run on the raw schema before
 * anything is compiled (nested $ids leave nothing behind), nesting past MAX_SCHEMA_DEPTH is the
 * `depth` rule, $ref loops that never enter a property or an item are the `recursion` rule,
 * answers deeper than MAX_ANSWER_DEPTH or costlier than MAX_CHECK_STEPS are `valid: false`.
 * The unit tests run with the relay's linear-time regexp flag (`deno task test:unit`), as users
 * run the relay.
 */
import assert from "assert";
import {
  checkOutputSchema,
  MAX_ANSWER_DEPTH,
  MAX_CHECK_STEPS,
  MAX_SCHEMA_DEPTH,
  structuredAnswer,
} from "../../src/reply/structured.ts";
import { LINEAR_REGEXP, patternProblem } from "../../src/reply/linear_regexp.ts";

type Obj = Record<string, unknown>;
const closed = (properties: Obj, extra: Obj = {}): Obj => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});
const rule = (schema: unknown) => {
  const p = checkOutputSchema(schema);
  return p && [p.path, p.rule];
};

Deno.test("a schema with 1,700 nested $ids is refused by the keyword rule and leaves no heap behind", () => {
  const withIds = (n: number) => {
    const properties: Obj = {};
    for (let i = 0; i < 1_700; i++) {
      properties[`p${i}`] = { $id: `${n}/${i}` };
    }
    return closed({ a: closed(properties) });
  };
  assert.deepEqual(rule(withIds(0)), ["/properties/a/properties/p0", "supported_keywords"]);
  const before = Deno.memoryUsage().heapUsed;
  for (let n = 1; n <= 150; n++) assert.equal(rule(withIds(n))?.[1], "supported_keywords");
  const grown = (Deno.memoryUsage().heapUsed - before) / 2 ** 20;
  assert.ok(grown < 24, `the heap grew ${grown.toFixed(1)} MiB over 150 refused schemas`);
});

Deno.test("arrays 1,000 deep and objects 600 deep are refused by the depth rule, not a stack overflow", () => {
  let array: Obj = { type: "string" };
  for (let i = 0; i < 1_000; i++) array = { type: "array", items: array };
  let object: Obj = { type: "string" };
  for (let i = 0; i < 600; i++) object = closed({ o: object });
  for (const schema of [closed({ a: array }), object]) {
    const problem = checkOutputSchema(schema);
    assert.deepEqual([problem?.path, problem?.rule], ["", "depth"]);
    assert.match(problem!.message, new RegExp(`deeper than the ${MAX_SCHEMA_DEPTH} allowed`));
  }
  let fits: Obj = { type: "string" };
  for (let i = 0; i < (MAX_SCHEMA_DEPTH - 2) / 2; i++) fits = closed({ o: fits });
  assert.equal(checkOutputSchema(fits), undefined, "a schema within the depth is taken");
});

Deno.test("mutually recursive $defs: a loop on one value is refused, a tree is taken and bounded", () => {
  const loop = closed({ a: { $ref: "#/$defs/a" } }, {
    $defs: { a: { anyOf: [{ $ref: "#/$defs/b" }, { type: "null" }] }, b: { $ref: "#/$defs/a" } },
  });
  assert.deepEqual(rule(loop)?.[1], "recursion");
  const tree = closed({ n: { $ref: "#/$defs/node" } }, {
    $defs: {
      node: closed({ kids: { type: "array", items: { $ref: "#/$defs/other" } } }),
      other: closed({ kids: { type: "array", items: { $ref: "#/$defs/node" } } }),
    },
  });
  assert.equal(checkOutputSchema(tree), undefined);
  const nest = (depth: number) =>
    `{"n":${'{"kids":['.repeat(depth)}${"]}".repeat(depth)}}`.replace("[]", "[]");
  assert.equal(structuredAnswer(tree, nest(20)).valid, true);
  const deep = structuredAnswer(tree, nest(MAX_ANSWER_DEPTH));
  assert.deepEqual(deep, {
    valid: false,
    error: `the answer nests JSON objects and arrays deeper than the ${MAX_ANSWER_DEPTH} allowed`,
  });
});

Deno.test("a schema whose anyOf branches multiply is judged within its step bound", () => {
  const defs: Obj = { d40: { type: "string" } };
  for (let i = 0; i < 40; i++) {
    defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  }
  const schema = closed({ v: { $ref: "#/$defs/d0" } }, { $defs: defs });
  assert.equal(checkOutputSchema(schema), undefined);
  const t0 = performance.now();
  const out = structuredAnswer(schema, '{"v":1}');
  const ms = performance.now() - t0;
  assert.deepEqual(out, {
    valid: false,
    error: `the answer could not be checked within ${MAX_CHECK_STEPS} steps of the schema`,
  });
  assert.ok(ms < 2_000, `judged in ${ms.toFixed(0)} ms`);
  assert.deepEqual(structuredAnswer(schema, '{"v":"x"}'), { valid: true, value: { v: "x" } });
});

Deno.test("patterns: refused without the linear-time engine; with it, what it cannot run is refused", () => {
  assert.match(patternProblem("^(a+)+$", false) ?? "", /--enable-experimental-regexp-engine/);
  assert.ok(LINEAR_REGEXP, "the unit tests run with the relay's V8 flag");
  const hostile = closed({ v: { type: "string", pattern: "^(a+)+$" } });
  assert.equal(checkOutputSchema(hostile), undefined, "the engine runs it in linear time");
  assert.equal(structuredAnswer(hostile, `{"v":"${"a".repeat(40)}!"}`).valid, false);
  const backreference = checkOutputSchema(closed({ v: { type: "string", pattern: "(a)\\1" } }));
  assert.deepEqual([backreference?.path, backreference?.rule], [
    "/properties/v/pattern",
    "pattern",
  ]);
  assert.match(backreference!.message, /cannot be run in linear time/);
  assert.match(patternProblem("(", true) ?? "", /not a valid regular expression/);
  assert.match(patternProblem("\\p{L}+", true) ?? "", /only the u flag/);
  assert.match(patternProblem("x".repeat(513), true) ?? "", /over the 512 allowed/);
});

Deno.test("structuredAnswer: the keywords of strict mode, one by one", () => {
  const schema = closed({
    s: { type: "string", enum: ["a", "b"] },
    n: { type: "number", minimum: 0, exclusiveMaximum: 10, multipleOf: 0.5 },
    i: { anyOf: [{ type: "integer", maximum: 3 }, { type: "null" }] },
    l: { type: "array", items: { const: { k: [1] } }, minItems: 1, maxItems: 2 },
  });
  const check = (answer: Obj) => {
    const out = structuredAnswer(schema, JSON.stringify(answer));
    return out.valid ? "ok" : out.error.replace("the answer does not match the schema: ", "");
  };
  const good = { s: "a", n: 9.5, i: null, l: [{ k: [1] }] };
  assert.equal(check(good), "ok");
  assert.equal(check({ ...good, i: 3 }), "ok");
  assert.equal(check({ ...good, s: "c" }), "/s must be equal to one of the allowed values");
  assert.equal(check({ ...good, n: 10 }), "/n must be < 10");
  assert.equal(check({ ...good, n: -1 }), "/n must be >= 0");
  assert.equal(check({ ...good, n: 0.2 }), "/n must be multiple of 0.5");
  assert.equal(check({ ...good, i: 1.5 }), "/i must match a schema in anyOf");
  assert.equal(check({ ...good, l: [] }), "/l must NOT have fewer than 1 items");
  assert.equal(check({ ...good, l: [1, 2, 3] }), "/l must NOT have more than 2 items");
  assert.equal(check({ ...good, l: [{ k: [2] }] }), "/l/0 must be equal to constant");
  assert.equal(check({ ...good, x: 1 }), "(root) must NOT have additional properties");
  const { s: _, ...noS } = good;
  assert.equal(check(noS), '(root) must have required property "s"');
  assert.equal(check({ ...good, s: 1 }), "/s must be string");
});
