/**
 * issue 48: the answer checker's rules, one by one (the `answer-match` and `answer-rules` mutation
 * groups): which patterns the linear-time engine runs, how `$ref`s resolve, which schemas strict
 * mode takes, and the words of each refusal. Runs with the relay's V8 flag, as users run it.
 */
import assert from "assert";
import {
  LINEAR_REGEXP,
  linearRegExp,
  MAX_PATTERN_LENGTH,
  patternProblem,
  withoutCaptures,
} from "../../src/reply/linear_regexp.ts";
import {
  children,
  jsonDepth,
  referenceProblem,
  resolveRef,
  strictProblem,
} from "../../src/reply/schema_rules.ts";
import {
  checkOutputSchema,
  MAX_OUTPUT_SCHEMA_BYTES,
  structuredAnswer,
} from "../../src/reply/structured.ts";

Deno.test("patternProblem: the length bound, validity, the u flag's features, linear time", () => {
  assert.equal(LINEAR_REGEXP, true);
  assert.equal(MAX_PATTERN_LENGTH, 512);
  assert.equal(patternProblem("a".repeat(512)), undefined);
  assert.equal(
    patternProblem("a".repeat(513)),
    "the pattern is 513 characters, over the 512 allowed",
  );
  assert.match(
    patternProblem("a{") ?? "",
    /^the pattern is not a valid regular expression: Invalid regular expression: \/a\{\/u: /,
  );
  const uOnly =
    "the pattern uses what only the u flag gives (\\p{…}, \\u{…}, characters past U+FFFF)";
  for (const p of ["\\p{L}", "x\\P{L}", "\\u{61}", "😀"]) assert.equal(patternProblem(p), uOnly, p);
  assert.equal(patternProblem("\\\\p\\{"), undefined, "an escaped backslash, then p and {");
  assert.equal(
    patternProblem("^a$", false),
    "this relay runs without V8's linear-time regexp engine " +
      "(--v8-flags=--enable-experimental-regexp-engine), so no pattern can be checked in bounded time",
  );
  for (const p of ["(a)\\1", "a(?=b)", "a(?!b)"]) {
    assert.equal(
      patternProblem(p),
      "the pattern cannot be run in linear time (backreferences, lookahead, large counted repeats)",
      p,
    );
  }
  assert.equal(patternProblem("^(a+)+$"), undefined);
});

Deno.test("linearRegExp: the linear-time engine, so a backtracking pattern ends at once", () => {
  const re = linearRegExp("^(a+)+$");
  assert.equal(re.flags, "l");
  const t0 = performance.now();
  assert.equal(re.test(`${"a".repeat(40)}!`), false);
  assert.ok(performance.now() - t0 < 1_000);
  assert.equal(re.test("aaa"), true);
  assert.equal(re.source, "^(?:a+)+$", "no captures");
});

Deno.test("withoutCaptures: every capturing group, named or not, and nothing else", () => {
  const same = [
    "(?:a)",
    "(?=a)",
    "(?!a)",
    "(?<=a)",
    "(?<!a)",
    "\\(a\\)",
    "[(]",
    "[\\]()]",
    "[]]",
    "a>b",
    "",
    "[ab(]",
    "a?<b",
    "ab<c",
    "(?<",
  ];
  for (const p of same) assert.equal(withoutCaptures(p), p, p);
  assert.equal(withoutCaptures("(a)"), "(?:a)");
  assert.equal(withoutCaptures("((a))"), "(?:(?:a))");
  assert.equal(withoutCaptures("(?<name>a)"), "(?:a)");
  assert.equal(withoutCaptures("a>(?<n>b)>(c)"), "a>(?:b)>(?:c)");
  assert.equal(withoutCaptures("[a](b)"), "[a](?:b)");
  assert.equal(withoutCaptures("[\\]](b)"), "[\\]](?:b)");
  assert.equal(withoutCaptures("\\[(b)"), "\\[(?:b)");
  assert.equal(withoutCaptures("\\\\(b)"), "\\\\(?:b)");
  assert.equal(withoutCaptures("a\\"), "a\\");
});

type Obj = Record<string, unknown>;
const closed = (properties: Obj, extra: Obj = {}): Obj => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});

Deno.test("jsonDepth: objects and arrays counted without recursion, stopping past the limit", () => {
  assert.equal(jsonDepth(1, 64), 0);
  assert.equal(jsonDepth(null, 64), 0);
  assert.equal(jsonDepth({}, 64), 1);
  assert.equal(jsonDepth({ a: [1] }, 64), 2);
  assert.equal(jsonDepth([[], [[{}]]], 64), 4);
  assert.equal(jsonDepth([[[[[]]]]], 2), 3, "stops once past the limit");
  assert.equal(jsonDepth([[[]]], 3), 3);
});

Deno.test("strictProblem: keywords, closed objects, all required, depth first in document order", () => {
  assert.deepEqual(strictProblem(true, "/x"), {
    path: "/x",
    rule: "supported_keywords",
    message: "a boolean schema is not supported in strict mode",
  });
  assert.deepEqual(strictProblem({ type: "string", minLength: 1 }, ""), {
    path: "",
    rule: "supported_keywords",
    message: 'the keyword "minLength" is not supported in strict mode',
  });
  const open = { path: "", rule: "additional_properties" };
  const message = "every object must have additionalProperties: false (strict mode)";
  assert.deepEqual(strictProblem({ type: "object" }, ""), { ...open, message });
  assert.deepEqual(strictProblem({ type: ["null", "object"] }, ""), { ...open, message });
  assert.deepEqual(strictProblem({ properties: {} }, ""), { ...open, message });
  assert.deepEqual(strictProblem({ type: "object", additionalProperties: true }, ""), {
    ...open,
    message,
  });
  assert.equal(strictProblem({ type: ["string", "null"] }, ""), undefined);
  assert.deepEqual(strictProblem(closed({ a: {}, b: {} }, { required: ["a"] }), "/r"), {
    path: "/r",
    rule: "all_required",
    message: 'every property must be required (strict mode): "b" is not; make it nullable instead',
  });
  assert.equal(
    strictProblem({ type: "object", additionalProperties: false, required: ["a"] }, ""),
    undefined,
  );
  assert.equal(strictProblem({ type: "object", additionalProperties: false }, ""), undefined);
  // Depth first, in document order: properties before $defs when written first, and back.
  const bad = { type: "string", x: 1 };
  const p1 = strictProblem(closed({ a: closed({ b: bad }) }, { $defs: { d: bad } }), "");
  assert.equal(p1?.path, "/properties/a/properties/b");
  const p2 = strictProblem({ $defs: { d: bad }, ...closed({ a: bad }) }, "");
  assert.equal(p2?.path, "/$defs/d");
});

Deno.test("children: every subschema position with its JSON Pointer, in document order", () => {
  const node = {
    anyOf: [{ a: 1 }, { b: 1 }],
    properties: { "a/b~c": { c: 1 } },
    $defs: { d: { d: 1 } },
    definitions: { e: { e: 1 } },
    items: { f: 1 },
    additionalProperties: { g: 1 },
    enum: [{ h: 1 }],
    const: { i: 1 },
  };
  assert.deepEqual(children(node, "/n"), [
    [{ a: 1 }, "/n/anyOf/0"],
    [{ b: 1 }, "/n/anyOf/1"],
    [{ c: 1 }, "/n/properties/a~1b~0c"],
    [{ d: 1 }, "/n/$defs/d"],
    [{ e: 1 }, "/n/definitions/e"],
    [{ f: 1 }, "/n/items"],
    [{ g: 1 }, "/n/additionalProperties"],
  ]);
  assert.deepEqual(children({ items: [1], additionalProperties: false }, ""), [[[1], "/items"]]);
  assert.deepEqual(children({ items: true }, ""), [[true, "/items"]]);
  assert.deepEqual(children({ properties: [1], anyOf: {}, $defs: 1, definitions: null }, ""), []);
  assert.deepEqual(strictProblem({ items: [{}] }, "")?.path, "/items");
});

Deno.test("referenceProblem: unresolved refs, patterns, and loops that stay on one value", () => {
  assert.deepEqual(referenceProblem(closed({ a: { $ref: "#/$defs/none" } })), {
    path: "/properties/a",
    rule: "json_schema",
    message: 'the reference "#/$defs/none" names no subschema of this schema (a local pointer ' +
      "through properties, $defs, definitions, items, additionalProperties or anyOf)",
  });
  assert.deepEqual(referenceProblem(closed({ a: { $ref: 5 } }))?.rule, "json_schema");
  assert.deepEqual(referenceProblem(closed({ a: { type: "string", pattern: "(a)\\1" } })), {
    path: "/properties/a/pattern",
    rule: "pattern",
    message:
      "the pattern cannot be run in linear time (backreferences, lookahead, large counted repeats)",
  });
  assert.equal(referenceProblem(closed({ a: { type: "string", pattern: 5 } })), undefined);
  assert.equal(referenceProblem(closed({ a: { $ref: "#" } })), undefined, "# enters a property");
  const loop = {
    path: "/$defs/a",
    rule: "recursion",
    message: "$ref and anyOf loop back to this subschema without entering a property or " +
      "an item: no answer could ever be checked against it",
  };
  assert.deepEqual(
    referenceProblem(closed({ v: { $ref: "#/$defs/a" } }, { $defs: { a: { $ref: "#/$defs/a" } } })),
    loop,
  );
  assert.deepEqual(
    referenceProblem(
      closed({ v: { $ref: "#/$defs/a" } }, {
        $defs: {
          a: { anyOf: [{ type: "null" }, { $ref: "#/$defs/b" }] },
          b: { $ref: "#/$defs/a" },
        },
      }),
    ),
    loop,
  );
  // Two refs to one subschema that is no loop (a diamond), and a loop through an item.
  assert.equal(
    referenceProblem(
      closed({ v: { anyOf: [{ $ref: "#/$defs/a" }, { $ref: "#/$defs/a" }] } }, {
        $defs: { a: { type: "array", items: { $ref: "#/properties/v" } } },
      }),
    ),
    undefined,
  );
  assert.deepEqual(referenceProblem({ anyOf: [{ $ref: "#" }] })?.path, "");
});

Deno.test("strictProblem: every keyword strict mode supports is taken; required must be an array", () => {
  const all = {
    type: "object",
    properties: {},
    required: [],
    additionalProperties: false,
    items: {},
    enum: [1],
    const: 1,
    anyOf: [],
    $ref: "#",
    $defs: {},
    definitions: {},
    description: "d",
    title: "t",
    pattern: "a",
    format: "date",
    minimum: 0,
    maximum: 1,
    exclusiveMinimum: 0,
    exclusiveMaximum: 1,
    multipleOf: 1,
    minItems: 0,
    maxItems: 1,
  };
  assert.equal(strictProblem(all, ""), undefined);
  assert.equal(Object.keys(all).length, 22);
  const notArray = { type: "object", additionalProperties: false, properties: { a: {} } };
  assert.equal(strictProblem({ ...notArray, required: "a" }, "")?.rule, "all_required");
  assert.equal(strictProblem({ ...notArray, properties: [{}] }, ""), undefined);
  assert.equal(jsonDepth([[[[]]]], 3), 4, "the depth found past the limit, not the limit");
});

Deno.test("resolveRef: definitions, escapes in order, and no path through data or null", () => {
  const root = {
    definitions: { d: { type: "null" } },
    properties: { "~1": { const: 1 } },
    anyOf: [{ const: 2 }],
    $defs: null,
  };
  assert.deepEqual(resolveRef(root, "#/definitions/d"), { type: "null" });
  assert.deepEqual(resolveRef(root, "#/properties/~01"), { const: 1 });
  assert.deepEqual(resolveRef(root, "#/anyOf/0"), { const: 2 });
  assert.equal(resolveRef(root, "#/$defs/x"), undefined);
  assert.equal(resolveRef({ anyOf: { 0: { type: "null" } } }, "#/anyOf/0"), undefined);
  assert.equal(resolveRef({ properties: { a: 1 } }, "#/properties/a"), undefined);
  assert.equal(resolveRef({ items: { items: {} } }, "#/items/items/x"), undefined);
  assert.deepEqual(resolveRef({ items: { items: {} } }, "#/items/items"), {});
  assert.equal(resolveRef({ items: [{}] }, "#/items/0"), undefined);
  assert.equal(resolveRef({ properties: { a: {} } }, "x/properties/a"), undefined, "not local");
  assert.equal(resolveRef({ items: null }, "#/items/items"), undefined);
  assert.equal(resolveRef({}, "#/items"), undefined);
  assert.equal(resolveRef({ $defs: {} }, "#/$defs/__proto__"), undefined, "own names only");
  assert.equal(resolveRef({ properties: { undefined: {} } }, "#/properties"), undefined);
});

Deno.test("checkOutputSchema: each refusal's words; the 64 KiB bound exact to the byte", () => {
  assert.deepEqual(checkOutputSchema([]), {
    path: "",
    rule: "root_object",
    message: "the schema must be a JSON object",
  });
  let deep: Obj = {};
  for (let i = 0; i < 64; i++) deep = { items: deep };
  assert.deepEqual(checkOutputSchema(closed({ a: deep })), {
    path: "",
    rule: "depth",
    message: "the schema nests JSON objects and arrays deeper than the 64 allowed",
  });
  let fits: Obj = { type: "string" };
  for (let i = 0; i < 31; i++) fits = closed({ o: fits });
  assert.equal(checkOutputSchema(closed({ o: fits }))?.rule, "depth");
  let inner: Obj = { type: "string" };
  for (let i = 0; i < 30; i++) inner = closed({ o: inner });
  const at64 = closed({ a: { type: "array", items: inner } });
  assert.equal(jsonDepth(at64, 64), 64);
  assert.equal(checkOutputSchema(at64), undefined, "64 levels deep is within the bound");
  const sized = (bytes: number) => {
    const base = closed({ a: { type: "string", description: "" } });
    const pad = bytes - JSON.stringify(base).length;
    return closed({ a: { type: "string", description: "d".repeat(pad) } });
  };
  assert.equal(checkOutputSchema(sized(MAX_OUTPUT_SCHEMA_BYTES)), undefined);
  assert.deepEqual(checkOutputSchema(sized(MAX_OUTPUT_SCHEMA_BYTES + 1)), {
    path: "",
    rule: "size",
    message: "the schema is 65537 bytes of JSON, over the 65536 allowed",
  });
  const multiByte = closed({ a: { type: "string", description: "é".repeat(32_760) } });
  assert.equal(checkOutputSchema(multiByte)?.rule, "size", "bytes of UTF-8, not characters");
  assert.deepEqual(checkOutputSchema({ type: 5 }), {
    path: "/type",
    rule: "json_schema",
    message: "not a valid JSON Schema: must be equal to one of the allowed values",
  });
  assert.deepEqual(checkOutputSchema({ $schema: "https://example.com/none" }), {
    path: "",
    rule: "json_schema",
    message: 'not a valid JSON Schema: no schema with key or ref "https://example.com/none"',
  });
  assert.deepEqual(checkOutputSchema({ type: "string" }), {
    path: "",
    rule: "root_object",
    message: 'the root of the schema must have type "object" (strict mode)',
  });
  assert.equal(checkOutputSchema(closed({ a: { $ref: "#/$defs/none" } }))?.rule, "json_schema");
});

Deno.test("structuredAnswer: each verdict's words", () => {
  const schema = closed({ v: { type: "string" } });
  assert.deepEqual(structuredAnswer(schema, '{"v":"x"}'), { valid: true, value: { v: "x" } });
  assert.deepEqual(structuredAnswer(schema, "{"), {
    valid: false,
    error: "the answer is not JSON: Expected property name or '}' in JSON at position 1 " +
      "(line 1 column 2)",
  });
  assert.deepEqual(structuredAnswer(schema, "[".repeat(65) + "]".repeat(65)), {
    valid: false,
    error: "the answer nests JSON objects and arrays deeper than the 64 allowed",
  });
  assert.equal(structuredAnswer(schema, "[".repeat(64) + "]".repeat(64)).valid, false);
  assert.match(
    (structuredAnswer(schema, "[".repeat(64) + "]".repeat(64)) as { error: string }).error,
    /^the answer does not match the schema: \(root\) must be object$/,
  );
  assert.deepEqual(structuredAnswer({ type: "string" }, '"x"'), {
    valid: false,
    error: 'the schema could not be applied: the root of the schema must have type "object" ' +
      "(strict mode)",
  });
  assert.deepEqual(structuredAnswer(schema, '{"v":1}'), {
    valid: false,
    error: "the answer does not match the schema: /v must be string",
  });
});

Deno.test("referenceProblem: a subschema that is no object is skipped, never read", () => {
  assert.equal(
    referenceProblem(closed({ a: null as unknown as Obj, b: { type: "null" } })),
    undefined,
  );
  assert.equal(referenceProblem({ anyOf: [null, true] }), undefined);
});
