/**
 * outputSchema: a schema that breaks JSON Schema or one of strict mode's rules is refused with
 * its path and rule; the final answer is checked against the schema and never throws.
 */
import { VERDICT_SCHEMA } from "../../testing/verdict_schema.ts";
import assert from "assert";
import {
  checkOutputSchema,
  MAX_OUTPUT_SCHEMA_BYTES,
  structuredAnswer,
} from "../../src/reply/structured.ts";

type Schema = {
  type: string;
  properties: Record<string, unknown>;
  required: string[];
  additionalProperties: boolean;
};

/** The schema of transcript 23. */
const VERDICT: Schema = VERDICT_SCHEMA;

const rule = (schema: unknown) => {
  const p = checkOutputSchema(schema);
  return p && [p.path, p.rule];
};

Deno.test("checkOutputSchema: the captured strict schema passes, nested and with $defs too", () => {
  assert.equal(checkOutputSchema(VERDICT), undefined);
  assert.equal(
    checkOutputSchema({
      type: "object",
      properties: {
        item: { $ref: "#/$defs/item" },
        maybe: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
      required: ["item", "maybe"],
      additionalProperties: false,
      $defs: {
        item: {
          type: "object",
          properties: { n: { type: "number", minimum: 0 } },
          required: ["n"],
          additionalProperties: false,
        },
      },
    }),
    undefined,
  );
});

Deno.test("checkOutputSchema: not a JSON Schema (transcript 23's 'not a schema' and {type: 5})", () => {
  assert.deepEqual(rule("not a schema"), ["", "root_object"]);
  assert.deepEqual(rule({ type: 5 }), ["/type", "json_schema"]);
  const closed = { type: "object", required: ["a"], additionalProperties: false };
  assert.deepEqual(
    rule({ ...closed, properties: { a: { $ref: "#/$defs/none" } } }),
    ["/properties/a", "json_schema"],
  );
  assert.deepEqual(
    rule({ ...closed, properties: { a: { $ref: "https://x/s" } } })?.[1],
    "json_schema",
  );
});

Deno.test("checkOutputSchema: the root must be an object", () => {
  assert.deepEqual(rule({ type: "string" }), ["", "root_object"]);
  assert.deepEqual(rule([VERDICT]), ["", "root_object"]);
  assert.deepEqual(rule({ anyOf: [VERDICT] }), ["", "root_object"]);
});

Deno.test("checkOutputSchema: every object closed (transcript 23's loose schema)", () => {
  assert.deepEqual(
    rule({ type: "object", properties: { a: { type: "string" } }, required: ["a"] }),
    ["", "additional_properties"],
  );
  const nested = structuredClone(VERDICT);
  nested.properties.issues = {
    type: "array",
    items: { type: "object", properties: {}, required: [] },
  };
  assert.deepEqual(rule(nested), ["/properties/issues/items", "additional_properties"]);
  nested.properties.issues = {
    type: "array",
    items: { type: "object", additionalProperties: true },
  };
  assert.deepEqual(rule(nested), ["/properties/issues/items", "additional_properties"]);
});

Deno.test("checkOutputSchema: every property required", () => {
  const loose = { ...VERDICT, required: ["verdict", "issues"] };
  const problem = checkOutputSchema(loose);
  assert.deepEqual([problem?.path, problem?.rule], ["", "all_required"]);
  assert.match(problem!.message, /"count"/);
  const deep = {
    type: "object",
    properties: {
      "a/b": { type: "object", properties: { x: { type: "string" } }, additionalProperties: false },
    },
    required: ["a/b"],
    additionalProperties: false,
  };
  assert.deepEqual(rule(deep), ["/properties/a~1b", "all_required"]);
});

Deno.test("checkOutputSchema: only the keywords strict mode supports", () => {
  for (
    const [keyword, value] of [["minLength", 1], ["oneOf", [{ type: "string" }]], [
      "patternProperties",
      {},
    ], ["default", "x"]] as const
  ) {
    const schema = structuredClone(VERDICT);
    schema.properties.verdict = { type: "string", [keyword]: value };
    const problem = checkOutputSchema(schema);
    assert.deepEqual(
      [problem?.path, problem?.rule],
      ["/properties/verdict", "supported_keywords"],
      keyword,
    );
    assert.match(problem!.message, new RegExp(keyword));
  }
  const boolean = structuredClone(VERDICT);
  boolean.properties.count = true;
  assert.deepEqual(rule(boolean), ["/properties/count", "supported_keywords"]);
});

Deno.test("checkOutputSchema: at most 64 KiB", () => {
  const big = structuredClone(VERDICT);
  big.properties.verdict = { type: "string", description: "d".repeat(MAX_OUTPUT_SCHEMA_BYTES) };
  assert.deepEqual(rule(big), ["", "size"]);
  big.properties.verdict = {
    type: "string",
    description: "d".repeat(MAX_OUTPUT_SCHEMA_BYTES - 400),
  };
  assert.equal(checkOutputSchema(big), undefined);
});

Deno.test("structuredAnswer: a valid answer, a wrong one, and text that is not JSON", () => {
  assert.deepEqual(structuredAnswer(VERDICT, '{"verdict":"pass","issues":["mock"],"count":42}'), {
    valid: true,
    value: { verdict: "pass", issues: ["mock"], count: 42 },
  });
  const wrong = structuredAnswer(VERDICT, '{"verdict":"maybe","issues":[],"count":1}');
  assert.equal(wrong.valid, false);
  assert.match(!wrong.valid ? wrong.error : "", /\/verdict/);
  const plain = structuredAnswer(VERDICT, "this is not json at all");
  assert.equal(plain.valid, false);
  assert.match(!plain.valid ? plain.error : "", /not JSON/);
  // Transcript 23's answers to invalid schemas: JSON, but not the object asked for.
  assert.equal(structuredAnswer(VERDICT, "null").valid, false);
  assert.equal(structuredAnswer(VERDICT, '"mock"').valid, false);
});

Deno.test("structuredAnswer: never throws, whatever the schema", () => {
  assert.equal(structuredAnswer({ type: 5 }, "{}").valid, false);
  assert.equal(structuredAnswer({ $ref: "#/nowhere" }, "{}").valid, false);
  assert.equal(structuredAnswer("not a schema", "1").valid, false);
});
