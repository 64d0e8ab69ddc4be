/**
 * The rules an `outputSchema` is checked against on its raw JSON, before
 * anything uses it: its depth, strict mode's rules (keywords, closed
 * objects, every property required), its references (local, resolvable, no
 * loop that stays on one value) and its patterns (`linear_regexp.ts`). Pure:
 * no I/O; nothing here recurses deeper than {@linkcode MAX_SCHEMA_DEPTH}.
 * @module
 */

import { patternProblem } from "./linear_regexp.ts";

/** The deepest `outputSchema`, in nested JSON objects and arrays (the root is 1). */
export const MAX_SCHEMA_DEPTH = 64;

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
  | "depth"
  | "json_schema"
  | "root_object"
  | "supported_keywords"
  | "additional_properties"
  | "all_required"
  | "recursion"
  | "pattern";

/** Why a schema is refused: where, which rule, and a sentence. */
export interface SchemaProblem {
  /** A JSON Pointer to the subschema (`""` is the root). */
  path: string;
  rule: SchemaRule;
  message: string;
}

/**
 * How deep `value` nests JSON objects and arrays (a scalar is 0), counted
 * without recursion and stopping once past `limit`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(jsonDepth({ a: [1] }, 64), 2);
 * ```
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * The first strict-mode problem of the subschema at `path`, depth first in
 * document order (keywords, closed objects, all required), or undefined.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const problem = strictProblem({ type: "object", properties: {} }, "");
 * assert.equal(problem?.path, "");
 * assert.equal(problem?.rule, "additional_properties");
 * ```
 */
export function strictProblem(node: unknown, path: string): SchemaProblem | undefined {
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
  // Stryker disable next-line ArrayDeclaration: the meta-schema refuses a required list that is no array
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

/**
 * The problem of the schema's references and patterns (a strict schema, at
 * most {@linkcode MAX_SCHEMA_DEPTH} deep): a `$ref` that is not a local
 * JSON Pointer to a subschema ({@linkcode resolveRef}), a loop of `$ref`/`anyOf` that never enters a
 * property or an item, a pattern {@linkcode patternProblem} refuses.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const problem = referenceProblem({ $defs: { a: { $ref: "#/$defs/a" } }, $ref: "#/$defs/a" });
 * assert.equal(problem?.path, "/$defs/a");
 * assert.equal(problem?.rule, "recursion");
 * ```
 */
export function referenceProblem(root: Record<string, unknown>): SchemaProblem | undefined {
  const paths = new Map<Record<string, unknown>, string>();
  const walk = (node: unknown, path: string): SchemaProblem | undefined => {
    if (!isObject(node)) return undefined;
    paths.set(node, path);
    if (node.$ref !== undefined && resolveRef(root, node.$ref) === undefined) {
      const message = `the reference ${JSON.stringify(node.$ref)} names no subschema of this ` +
        "schema (a local pointer through properties, $defs, definitions, items, " +
        "additionalProperties or anyOf)";
      return { path, rule: "json_schema", message };
    }
    // Stryker disable next-line ConditionalExpression: the meta-schema takes only a string pattern, and patternProblem finds nothing in another value either
    if (typeof node.pattern === "string") {
      const why = patternProblem(node.pattern);
      if (why) return { path: `${path}/pattern`, rule: "pattern", message: why };
    }
    for (const [child, at] of children(node, path)) {
      const problem = walk(child, at);
      if (problem) return problem;
    }
    return undefined;
  };
  return walk(root, "") ?? loopProblem(root, paths);
}

/**
 * The subschema a local `$ref` names (`#` or `#/a/b`), or undefined. The
 * pointer is followed only through schema positions (`properties/<name>`,
 * `$defs/<name>`, `definitions/<name>`, `items`, `additionalProperties`,
 * `anyOf/<i>`): a pointer into data (`#/$defs/x/enum/0`) names no subschema,
 * so every subschema a check can reach is one the strict rules have checked.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const root = { $defs: { x: { enum: [{ type: "string" }] } } };
 * assert.deepEqual(resolveRef(root, "#/$defs/x"), { enum: [{ type: "string" }] });
 * assert.equal(resolveRef(root, "#/$defs/x/enum/0"), undefined);
 * ```
 */
export function resolveRef(root: Record<string, unknown>, ref: unknown): unknown {
  if (typeof ref !== "string" || (ref !== "#" && !ref.startsWith("#/"))) return undefined;
  const keys: string[] = [];
  for (const raw of ref === "#" ? [] : ref.slice(2).split("/")) {
    try {
      keys.push(decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~"));
    } catch {
      return undefined;
    }
  }
  let node: unknown = root;
  for (let i = 0; i < keys.length; i++) {
    if (!isObject(node)) return undefined;
    const keyword = keys[i];
    node = node[keyword];
    if (NAMED.has(keyword) || (keyword === "anyOf" && Array.isArray(node))) {
      i++;
      if (i === keys.length || typeof node !== "object" || node === null) return undefined;
      node = (node as Record<string, unknown>)[keys[i]];
    } else if (!SINGLE.has(keyword)) {
      return undefined;
    }
  }
  return isObject(node) ? node : undefined;
}

/** The keywords whose value maps names to subschemas. */
const NAMED = new Set(["properties", "$defs", "definitions"]);
/** The keywords whose value is one subschema. */
const SINGLE = new Set(["items", "additionalProperties"]);

/** The steps that stay on the same value: a `$ref`'s target and `anyOf`'s branches. */
function sameValueSteps(root: Record<string, unknown>, node: Record<string, unknown>): unknown[] {
  // Stryker disable next-line ArrayDeclaration: the filter below keeps only objects
  const out: unknown[] = [];
  // Stryker disable next-line ConditionalExpression: without a $ref, resolveRef gives undefined, which the filter below drops
  if (node.$ref !== undefined) out.push(resolveRef(root, node.$ref));
  if (Array.isArray(node.anyOf)) out.push(...node.anyOf);
  // Stryker disable next-line MethodExpression: walk() refused every $ref that names no subschema and strictProblem every boolean subschema before this runs
  return out.filter(isObject);
}

/** A loop of same-value steps (three-colour depth-first search, without recursion). */
function loopProblem(
  root: Record<string, unknown>,
  paths: Map<Record<string, unknown>, string>,
): SchemaProblem | undefined {
  const state = new Map<Record<string, unknown>, "open" | "done">();
  for (const start of paths.keys()) {
    // Stryker disable next-line ConditionalExpression: searching again from a node already searched finds no loop it did not find before
    if (state.has(start)) continue;
    const stack: [Record<string, unknown>, unknown[]][] = [[start, sameValueSteps(root, start)]];
    state.set(start, "open");
    while (stack.length > 0) {
      const [node, next] = stack.at(-1)!;
      const child = next.pop() as Record<string, unknown> | undefined;
      if (child === undefined) {
        // Stryker disable next-line StringLiteral: only "open" is compared; any other mark means searched
        state.set(node, "done");
        stack.pop();
      } else if (state.get(child) === "open") {
        return {
          // Stryker disable next-line StringLiteral: every subschema a step reaches was walked, so it has a path
          path: paths.get(child) ?? "",
          rule: "recursion",
          message: "$ref and anyOf loop back to this subschema without entering a property or " +
            "an item: no answer could ever be checked against it",
        };
      } else if (
        // Stryker disable next-line ConditionalExpression: a searched node leads to no open one (that would have been a loop), so searching it again finds none
        !state.has(child)
      ) {
        state.set(child, "open");
        stack.push([child, sameValueSteps(root, child)]);
      }
    }
  }
  return undefined;
}

/** The subschemas of `node`, with their paths, in document order. */
export function children(node: Record<string, unknown>, path: string): [unknown, string][] {
  const out: [unknown, string][] = [];
  for (const key of Object.keys(node)) {
    const value = node[key];
    if ((key === "properties" || key === "$defs" || key === "definitions") && isObject(value)) {
      for (const [name, child] of Object.entries(value)) {
        out.push([child, `${path}/${key}/${pointer(name)}`]);
      }
    } else if (key === "additionalProperties" && isObject(value)) {
      out.push([value, `${path}/${key}`]);
    } else if (key === "items") {
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

/**
 * Whether `value` is a JSON object (not an array, not null).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(isObject({}), true);
 * assert.equal(isObject([]), false);
 * ```
 */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
