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
 * @module
 */

import { Ajv2020 } from "ajv";

/** The longest `outputSchema`, in UTF-8 bytes of its JSON. */
export const MAX_OUTPUT_SCHEMA_BYTES = 64 * 1024;

/** The keywords strict mode supports (OpenAI's Structured Outputs subset). */
export const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "description",
  "title",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minItems",
  "maxItems",
]);

/** The rule a refused schema breaks. */
export type SchemaRule =
  | "size"
  | "json_schema"
  | "root_object"
  | "supported_keywords"
  | "additional_properties"
  | "all_required";

/** Why a schema is refused: where, which rule, and a sentence. */
export interface SchemaProblem {
  /** A JSON Pointer to the subschema (`""` is the root). */
  path: string;
  rule: SchemaRule;
  message: string;
}

/** What the final answer of a structured run is against its schema. */
export type Structured =
  | { valid: true; value: unknown }
  | { valid: false; error: string };

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });

/**
 * Checks `schema` for `codex_run`'s `outputSchema`: undefined when Codex's
 * strict mode would take it, else the first problem found (size, then JSON
 * Schema validity, then the strict rules, depth first in document order).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const problem = checkOutputSchema({ type: "object", properties: { a: { type: "string" } } });
 * assert.equal(problem?.rule, "additional_properties");
 * ```
 */
export function checkOutputSchema(schema: unknown): SchemaProblem | undefined {
  const bytes = new TextEncoder().encode(JSON.stringify(schema) ?? "").length;
  if (bytes > MAX_OUTPUT_SCHEMA_BYTES) {
    return {
      path: "",
      rule: "size",
      message: `the schema is ${bytes} bytes of JSON, over the ${MAX_OUTPUT_SCHEMA_BYTES} allowed`,
    };
  }
  if (!isObject(schema)) {
    return { path: "", rule: "root_object", message: "the schema must be a JSON object" };
  }
  const invalid = jsonSchemaProblem(schema);
  if (invalid) return invalid;
  if (schema.type !== "object") {
    return {
      path: "",
      rule: "root_object",
      message: 'the root of the schema must have type "object" (strict mode)',
    };
  }
  return strictProblem(schema, "");
}

/** Ajv's verdict on the schema as a JSON Schema (meta-schema, then references). */
function jsonSchemaProblem(schema: Record<string, unknown>): SchemaProblem | undefined {
  try {
    if (!ajv.validateSchema(schema)) {
      const first = ajv.errors?.[0];
      return {
        path: first?.instancePath ?? "",
        rule: "json_schema",
        message: `not a valid JSON Schema: ${first?.message ?? "rejected by the meta-schema"}`,
      };
    }
    ajv.compile(schema);
    return undefined;
  } catch (error) {
    return {
      path: "",
      rule: "json_schema",
      message: `not a valid JSON Schema: ${error instanceof Error ? error.message : error}`,
    };
  } finally {
    ajv.removeSchema(schema); // Ajv caches every compiled schema: keep the process bounded.
  }
}

/** The first strict-mode problem of the subschema at `path`, depth first. */
function strictProblem(node: unknown, path: string): SchemaProblem | undefined {
  if (!isObject(node)) {
    return {
      path,
      rule: "supported_keywords",
      message: "a boolean schema is not supported in strict mode",
    };
  }
  const unknown = Object.keys(node).find((key) => !STRICT_KEYWORDS.has(key));
  if (unknown !== undefined) {
    return {
      path,
      rule: "supported_keywords",
      message: `the keyword ${JSON.stringify(unknown)} is not supported in strict mode`,
    };
  }
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes("object") || node.properties !== undefined) {
    const closed = objectProblem(node, path);
    if (closed) return closed;
  }
  for (const [child, at] of children(node, path)) {
    const problem = strictProblem(child, at);
    if (problem) return problem;
  }
  return undefined;
}

function objectProblem(node: Record<string, unknown>, path: string): SchemaProblem | undefined {
  if (node.additionalProperties !== false) {
    return {
      path,
      rule: "additional_properties",
      message: "every object must have additionalProperties: false (strict mode)",
    };
  }
  const properties = isObject(node.properties) ? Object.keys(node.properties) : [];
  const required = new Set(Array.isArray(node.required) ? node.required : []);
  const missing = properties.find((name) => !required.has(name));
  if (missing !== undefined) {
    return {
      path,
      rule: "all_required",
      message: `every property must be required (strict mode): ${
        JSON.stringify(missing)
      } is not; make it nullable instead`,
    };
  }
  return undefined;
}

/** The subschemas of `node`, with their paths, in document order. */
function children(node: Record<string, unknown>, path: string): [unknown, string][] {
  const out: [unknown, string][] = [];
  for (const key of Object.keys(node)) {
    const value = node[key];
    if ((key === "properties" || key === "$defs" || key === "definitions") && isObject(value)) {
      for (const [name, child] of Object.entries(value)) {
        out.push([child, `${path}/${key}/${pointer(name)}`]);
      }
    } else if (key === "items" && value !== undefined) {
      out.push([value, `${path}/items`]);
    } else if (key === "anyOf" && Array.isArray(value)) {
      value.forEach((child, i) => out.push([child, `${path}/anyOf/${i}`]));
    }
  }
  return out;
}

/** `name` escaped for a JSON Pointer. */
function pointer(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The final answer `text` of a structured run against `schema`:
 * `{valid: true, value}` when it is JSON that the schema accepts, else
 * `{valid: false, error}` (an answer that is not JSON included). Never throws.
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
      error: `the answer is not JSON: ${error instanceof Error ? error.message : error}`,
    };
  }
  const compiled = isObject(schema) ? schema : {};
  try {
    const validate = ajv.compile(compiled);
    if (validate(value)) return { valid: true, value };
    const first = validate.errors?.[0];
    return {
      valid: false,
      error: `the answer does not match the schema: ${first?.instancePath || "(root)"} ${
        first?.message ?? "is rejected"
      }`,
    };
  } catch (error) {
    return {
      valid: false,
      error: `the schema could not be applied: ${error instanceof Error ? error.message : error}`,
    };
  } finally {
    ajv.removeSchema(compiled);
  }
}
