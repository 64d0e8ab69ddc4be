/**
 * Answers in a JSON schema (`codex_run` with `outputSchema`): the check of
 * the schema before anything is sent, and the check of the final answer
 * against it. Pure: no I/O.
 *
 * Codex forwards `turn/start.outputSchema` unchanged to the Responses API as
 * `text.format: {type: "json_schema", strict: true, ...}` and checks nothing
 * itself (docs/codex-protocol.md, "Structured answers"; transcripts 23), so
 * the relay checks what strict mode demands: a valid JSON Schema (Ajv's
 * meta-schema, draft 2020-12), an object at the root, every object closed
 * with `additionalProperties: false` and all its properties required, only
 * the keywords strict mode supports.
 *
 * Every check is bounded (docs/design.md, Bounds): the depth is measured
 * first, without recursion; the user's schema is never compiled (Ajv only
 * validates it against the meta-schema, its one compiled schema); an answer
 * is interpreted by `schema_match.ts` within a step budget, its patterns in
 * V8's linear-time engine (`linear_regexp.ts`). Nothing outlives the call.
 * @module
 */

import { Ajv2020 } from "ajv";
import {
  isObject,
  jsonDepth,
  MAX_SCHEMA_DEPTH,
  referenceProblem,
  type SchemaProblem,
  strictProblem,
} from "./schema_rules.ts";
import { matchSchema, MAX_ANSWER_DEPTH, MAX_CHECK_STEPS } from "./schema_match.ts";

export {
  MAX_SCHEMA_DEPTH,
  type SchemaProblem,
  type SchemaRule,
  STRICT_KEYWORDS,
} from "./schema_rules.ts";
export { MAX_ANSWER_DEPTH, MAX_CHECK_STEPS } from "./schema_match.ts";
export { MAX_PATTERN_LENGTH } from "./linear_regexp.ts";

/** The longest `outputSchema`, in UTF-8 bytes of its JSON. */
export const MAX_OUTPUT_SCHEMA_BYTES = 64 * 1024;

/** What the final answer of a structured run is against its schema. */
export type Structured =
  | { valid: true; value: unknown }
  | { valid: false; error: string };

/** The meta-schema's validator: its one compiled schema, made once, never added to. */
// Stryker disable next-line ObjectLiteral,BooleanLiteral: only the meta-schema is compiled; the user's schema is validated as data, so strict mode, all errors (the first is the same) and formats (none added) change no verdict
const META = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });

/**
 * Checks `schema` for `codex_run`'s `outputSchema`: undefined when Codex's
 * strict mode would take it, else the first problem found (root, depth,
 * size, JSON Schema validity, the strict rules depth first in document
 * order, then references and patterns). Never compiles `schema`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const problem = checkOutputSchema({ type: "object", properties: { a: { type: "string" } } });
 * assert.equal(problem?.rule, "additional_properties");
 * ```
 */
export function checkOutputSchema(schema: unknown): SchemaProblem | undefined {
  if (!isObject(schema)) {
    return { path: "", rule: "root_object", message: "the schema must be a JSON object" };
  }
  const depth = jsonDepth(schema, MAX_SCHEMA_DEPTH);
  if (depth > MAX_SCHEMA_DEPTH) {
    return {
      path: "",
      rule: "depth",
      message:
        `the schema nests JSON objects and arrays deeper than the ${MAX_SCHEMA_DEPTH} allowed`,
    };
  }
  const bytes = new TextEncoder().encode(JSON.stringify(schema)).length;
  if (bytes > MAX_OUTPUT_SCHEMA_BYTES) {
    return {
      path: "",
      rule: "size",
      message: `the schema is ${bytes} bytes of JSON, over the ${MAX_OUTPUT_SCHEMA_BYTES} allowed`,
    };
  }
  const invalid = metaProblem(schema);
  if (invalid) return invalid;
  if (schema.type !== "object") {
    return {
      path: "",
      rule: "root_object",
      message: 'the root of the schema must have type "object" (strict mode)',
    };
  }
  return strictProblem(schema, "") ?? referenceProblem(schema);
}

/** The meta-schema's verdict on the schema (validated as data: nothing is compiled or kept). */
function metaProblem(schema: Record<string, unknown>): SchemaProblem | undefined {
  try {
    if (META.validateSchema(schema)) return undefined;
    // Stryker disable next-line OptionalChaining: a refused schema always leaves errors
    const first = META.errors?.[0];
    return {
      // Stryker disable next-line OptionalChaining,StringLiteral: a schema the meta-schema refuses always has a first error with its path
      path: first?.instancePath ?? "",
      rule: "json_schema",
      // Stryker disable next-line OptionalChaining,StringLiteral: a schema the meta-schema refuses always has a first error with its message
      message: `not a valid JSON Schema: ${first?.message ?? "rejected by the meta-schema"}`,
    };
  } catch (error) {
    return {
      path: "",
      rule: "json_schema",
      // Stryker disable next-line ConditionalExpression: Ajv throws only Errors
      message: `not a valid JSON Schema: ${error instanceof Error ? error.message : error}`,
    };
  }
}

/**
 * The final answer `text` of a structured run against `schema`:
 * `{valid: true, value}` when it is JSON that the schema accepts, else
 * `{valid: false, error}` (an answer that is not JSON, nests deeper than
 * {@linkcode MAX_ANSWER_DEPTH}, or takes more than
 * {@linkcode MAX_CHECK_STEPS} steps to check included). Never throws.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const schema = { type: "object", properties: { ok: { type: "boolean" } },
 *   required: ["ok"], additionalProperties: false };
 * assert.deepEqual(structuredAnswer(schema, '{"ok":true}'), { valid: true, value: { ok: true } });
 * const refused = structuredAnswer(schema, "not json");
 * assert.match(refused.valid ? "" : refused.error, /^the answer is not JSON/);
 * ```
 */
export function structuredAnswer(schema: unknown, text: string): Structured {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return {
      valid: false,
      // Stryker disable next-line ConditionalExpression: JSON.parse throws only SyntaxErrors
      error: `the answer is not JSON: ${error instanceof Error ? error.message : error}`,
    };
  }
  if (jsonDepth(value, MAX_ANSWER_DEPTH) > MAX_ANSWER_DEPTH) {
    return {
      valid: false,
      error: `the answer nests JSON objects and arrays deeper than the ${MAX_ANSWER_DEPTH} allowed`,
    };
  }
  const problem = checkOutputSchema(schema);
  if (problem) {
    return { valid: false, error: `the schema could not be applied: ${problem.message}` };
  }
  const miss = applied(schema as Record<string, unknown>, value);
  // Stryker disable all: unreachable (applied(), below)
  if (miss instanceof Error) {
    return { valid: false, error: `the schema could not be applied: ${miss.message}` };
  }
  // Stryker restore all
  if (miss === undefined) return { valid: true, value };
  if (miss === "exhausted") {
    return {
      valid: false,
      error: `the answer could not be checked within ${MAX_CHECK_STEPS} steps of the schema`,
    };
  }
  return {
    valid: false,
    error: `the answer does not match the schema: ${miss.at || "(root)"} ${miss.message}`,
  };
}

// Stryker disable all: unreachable: checkOutputSchema took the schema, so its patterns compile in the linear-time engine and matchSchema throws only at its bound (its nesting keeps the stack small); the catch only keeps structuredAnswer from ever throwing
/** What matchSchema says, or what it threw. */
function applied(
  schema: Record<string, unknown>,
  value: unknown,
): ReturnType<typeof matchSchema> | Error {
  try {
    return matchSchema(schema, value);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
// Stryker restore all
