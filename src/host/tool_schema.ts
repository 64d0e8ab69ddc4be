/**
 * The JSON Schemas `tools/list` advertises, derived from each tool's zod
 * schema (the one source of its shape) and kept small: no `$schema` (MCP
 * defaults to draft 2020-12), and in output schemas reason codes as strings
 * (the codes are listed once, in the server instructions), no descriptions
 * (the tool description explains the result) and no `additionalProperties:
 * false` (results never carry other fields), and only the top level of a
 * result spelled out: each field with its type (and enum or const), nested
 * objects and arrays by their type alone (the tool description names their
 * fields). Input schemas keep every field's type, numeric bounds and
 * description but not its regex `pattern` nor a string's length bounds (the
 * description says what the field takes and, where it matters, how long: a
 * bound the model never nears only costs bytes; issue 42 keeps the full level
 * within 16 KiB). Calls are still validated
 * by the zod schema itself, so every value it accepts matches what is
 * advertised.
 * @module
 */

import { z } from "zod";
import { REASON_CODES } from "../core/errors.ts";

type Json = Record<string, unknown>;

const REASONS = JSON.stringify(REASON_CODES);

function compact(node: unknown, output: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => compact(n, output));
  if (typeof node !== "object" || node === null) return node;
  const o = node as Json;
  if (output && Array.isArray(o.enum) && JSON.stringify(o.enum) === REASONS) {
    return { type: "string" };
  }
  // {anyOf: [{type: T, ...}, {type: "null"}]} says the same as {type: [T, "null"], ...}.
  if (Array.isArray(o.anyOf) && o.anyOf.length === 2 && Object.keys(o).length === 1) {
    const [a, b] = o.anyOf as Json[];
    const plain = typeof a?.type === "string" && !("enum" in a) && !("const" in a);
    if (JSON.stringify(b) === '{"type":"null"}' && plain) {
      return compact({ ...a, type: [a.type, "null"] }, output);
    }
  }
  // An anyOf of identical branches says the same as one of them.
  if (Array.isArray(o.anyOf) && Object.keys(o).length === 1 && o.anyOf.length > 1) {
    const [first, ...rest] = (o.anyOf as unknown[]).map((b) => JSON.stringify(compact(b, output)));
    if (rest.every((b) => b === first)) return JSON.parse(first);
  }
  // A record's keys are strings and its values anything: what an object schema says by default.
  if (
    JSON.stringify(o.propertyNames) === '{"type":"string"}' &&
    JSON.stringify(o.additionalProperties) === "{}"
  ) {
    const { propertyNames: _keys, additionalProperties: _values, ...rest } = o;
    return compact(rest, output);
  }
  const out: Json = {};
  for (const [key, value] of Object.entries(o)) {
    if (key === "$schema") continue;
    if (output && key === "additionalProperties" && value === false) continue;
    if (output && key === "description" && typeof value === "string") continue;
    if (!output && key === "pattern" && typeof value === "string") continue;
    if (!output && o.type === "string" && (key === "minLength" || key === "maxLength")) continue;
    out[key] = compact(value, output);
  }
  return out;
}

/** A zod schema whose advertised JSON Schema is compacted; validation stays the zod schema's. */
export function advertised<S extends z.ZodType>(schema: S): S {
  const std = schema["~standard"];
  const jsonSchema = {
    input: (options?: { target?: string }) =>
      compact(toJson(schema, "input", options?.target), false) as Json,
    output: (options?: { target?: string }) =>
      outline(compact(toJson(schema, "output", options?.target), true) as Json),
  };
  return { "~standard": { ...std, jsonSchema } } as unknown as S;
}

/** A zod schema advertised as `json` exactly (another server's surface); validation stays the zod schema's. */
export function fixedSchema<S extends z.ZodType>(schema: S, json: Json): S {
  const std = schema["~standard"];
  const jsonSchema = { input: () => structuredClone(json), output: () => structuredClone(json) };
  return { "~standard": { ...std, jsonSchema } } as unknown as S;
}

/** A result schema with its top level kept and every nested field reduced to its type. */
export function outline(schema: Json): Json {
  const properties = schema.properties as Record<string, Json> | undefined;
  if (!properties) return schema;
  const fields: Record<string, Json> = {};
  for (const [name, field] of Object.entries(properties)) fields[name] = typeOnly(field);
  return { ...schema, properties: fields };
}

function typeOnly(field: Json): Json {
  const out: Json = {};
  for (const key of ["type", "enum", "const"]) if (key in field) out[key] = field[key];
  if (Object.keys(out).length > 0) return out;
  if (Array.isArray(field.anyOf)) {
    const branches = (field.anyOf as Json[]).map(typeOnly);
    const one = JSON.stringify(branches[0]);
    // Branches alike once reduced to their types say the same as one of them.
    return branches.every((b) => JSON.stringify(b) === one) ? branches[0] : { anyOf: branches };
  }
  return field;
}

function toJson(schema: z.ZodType, io: "input" | "output", target?: string): Json {
  return z.toJSONSchema(schema, {
    io,
    // deno-lint-ignore no-explicit-any
    target: (target ?? "draft-2020-12") as any,
  }) as Json;
}

/** MCP's defaults of the annotation hints (a client assumes them when absent). */
const HINT_DEFAULTS: Record<string, boolean> = {
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** The hints MCP gives meaning only when `readOnlyHint` is false. */
const WRITE_HINTS = new Set(["destructiveHint", "idempotentHint"]);

/**
 * The annotations as advertised: `readOnlyHint` always, the other hints when
 * not the default (and, for a read-only tool, not the hints that only mean
 * something for a tool that writes).
 */
export function advertisedAnnotations<A extends object>(annotations: A): Partial<A> {
  const readOnly = (annotations as { readOnlyHint?: boolean }).readOnlyHint === true;
  return Object.fromEntries(
    Object.entries(annotations).filter(([key, value]) =>
      HINT_DEFAULTS[key] !== value && !(readOnly && WRITE_HINTS.has(key))
    ),
  ) as Partial<A>;
}
