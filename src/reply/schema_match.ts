/**
 * An answer against a strict `outputSchema` (one `checkOutputSchema`
 * accepted), interpreted keyword by keyword: nothing is compiled or kept
 * past the call, every check is bounded in steps and in depth, and patterns
 * run in V8's linear-time engine. Pure: no I/O.
 * @module
 */

import { linearRegExp } from "./linear_regexp.ts";
import { isObject, resolveRef } from "./schema_rules.ts";

/**
 * The most steps one check takes. A step is a subschema applied to a value, a
 * key or item visited, 64 characters compared, or {@linkcode PATTERN_WORK_PER_STEP}
 * of a pattern test's work (see {@linkcode patternSteps}).
 */
export const MAX_CHECK_STEPS = 200_000;

/**
 * A pattern test's work per step, in pattern units × answer characters: the
 * linear-time engine's cost grows with both (measured at most 25 ns per unit
 * and character, captures removed), so 200,000 steps of it stay under 0.4 s.
 */
export const PATTERN_WORK_PER_STEP = 64;

/**
 * The steps a test of `pattern` on `text` is charged: its work, the pattern's
 * length times the text's (plus one), in {@linkcode PATTERN_WORK_PER_STEP}s.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(patternSteps("^[a-z]+$", "x".repeat(1023)), 128);
 * ```
 */
export function patternSteps(pattern: string, text: string): number {
  return Math.ceil(pattern.length * (text.length + 1) / PATTERN_WORK_PER_STEP);
}

/** The deepest an answer nests JSON objects and arrays. */
export const MAX_ANSWER_DEPTH = 64;

/** The most nested subschemas one check enters (`$ref` chains included). */
const MAX_CHECK_NESTING = 1_000;

/** A check that stopped at its bound, not at a mismatch. */
class Exhausted extends Error {}

/** Where a value fails its schema: a JSON Pointer into the answer and why. */
export interface Mismatch {
  at: string;
  message: string;
}

/**
 * The first place `value` breaks `schema` (resolving `$ref` in `schema`),
 * or undefined when it matches; `"exhausted"` when the check met its bound
 * of steps (`maxSteps`, default {@linkcode MAX_CHECK_STEPS}) or nesting first.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(matchSchema({ type: "string", pattern: "^(a+)+$" }, "a".repeat(40) + "!"), {
 *   at: "",
 *   message: 'must match pattern "^(a+)+$"',
 * });
 * ```
 */
export function matchSchema(
  schema: Record<string, unknown>,
  value: unknown,
  maxSteps: number = MAX_CHECK_STEPS,
): Mismatch | undefined | "exhausted" {
  const run = new Check(schema, maxSteps);
  try {
    return run.match(schema, value, "", 0);
  } catch (error) {
    if (error instanceof Exhausted) return "exhausted";
    throw error;
  }
}

/** One check: its step count and the patterns it compiled (dropped with it). */
class Check {
  #steps = 0;
  readonly #patterns = new Map<string, RegExp>();
  constructor(readonly root: Record<string, unknown>, readonly maxSteps: number) {}

  #spend(steps: number, nesting: number): void {
    this.#steps += steps;
    if (this.#steps > this.maxSteps || nesting > MAX_CHECK_NESTING) throw new Exhausted();
  }

  match(node: unknown, value: unknown, at: string, nesting: number): Mismatch | undefined {
    this.#spend(1, nesting);
    if (!isObject(node)) return node === false ? { at, message: "is not allowed" } : undefined;
    if (node.$ref !== undefined) {
      const target = resolveRef(this.root, node.$ref);
      const miss = this.match(target ?? false, value, at, nesting + 1);
      if (miss) return miss;
    }
    return typeProblem(node, value, at) ?? this.#value(node, value, at) ??
      this.#scalar(node, value, at) ?? this.#anyOf(node, value, at, nesting) ??
      this.#array(node, value, at, nesting) ?? this.#object(node, value, at, nesting);
  }

  #value(node: Record<string, unknown>, value: unknown, at: string): Mismatch | undefined {
    if (node.const !== undefined && !this.#equal(node.const, value)) {
      return { at, message: "must be equal to constant" };
    }
    if (Array.isArray(node.enum) && !node.enum.some((option) => this.#equal(option, value))) {
      return { at, message: "must be equal to one of the allowed values" };
    }
    return undefined;
  }

  /**
   * JSON equality: one step per pair of values compared, per 64 characters of
   * a string and per key listed (both values are at most 64 deep).
   */
  #equal(a: unknown, b: unknown): boolean {
    this.#spend(1 + (typeof a === "string" ? Math.ceil(a.length / 64) : 0), 0);
    if (a === b) return true;
    if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
    if (Array.isArray(a) !== Array.isArray(b)) return false;
    const ka = this.#keys(a);
    if (ka.length !== this.#keys(b).length) return false;
    return ka.every((k) =>
      Object.hasOwn(b, k) &&
      this.#equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])
    );
  }

  /** The keys of an object or an array, one step per key (a 2,000-key answer is 2,000 steps). */
  #keys(value: object): string[] {
    const keys = Object.keys(value);
    this.#spend(keys.length, 0);
    return keys;
  }

  #scalar(node: Record<string, unknown>, value: unknown, at: string): Mismatch | undefined {
    if (typeof value === "number") return numberProblem(node, value, at);
    if (typeof value !== "string" || typeof node.pattern !== "string") return undefined;
    this.#spend(patternSteps(node.pattern, value), 0);
    let re = this.#patterns.get(node.pattern);
    // Stryker disable next-line ConditionalExpression: compiling again gives the same expression: the cache only spares the work
    if (!re) this.#patterns.set(node.pattern, re = linearRegExp(node.pattern));
    return re.test(value)
      ? undefined
      : { at, message: `must match pattern ${JSON.stringify(node.pattern)}` };
  }

  #anyOf(node: Record<string, unknown>, value: unknown, at: string, nesting: number) {
    if (!Array.isArray(node.anyOf)) return undefined;
    for (const branch of node.anyOf) {
      if (!this.match(branch, value, at, nesting + 1)) return undefined;
    }
    return { at, message: "must match a schema in anyOf" };
  }

  #array(node: Record<string, unknown>, value: unknown, at: string, nesting: number) {
    if (!Array.isArray(value)) return undefined;
    if (typeof node.minItems === "number" && value.length < node.minItems) {
      return { at, message: `must NOT have fewer than ${node.minItems} items` };
    }
    if (typeof node.maxItems === "number" && value.length > node.maxItems) {
      return { at, message: `must NOT have more than ${node.maxItems} items` };
    }
    if (node.items === undefined) return undefined;
    for (const [i, item] of value.entries()) {
      const miss = this.match(node.items, item, `${at}/${i}`, nesting + 1);
      if (miss) return miss;
    }
    return undefined;
  }

  #object(node: Record<string, unknown>, value: unknown, at: string, nesting: number) {
    if (!isObject(value)) return undefined;
    const required = Array.isArray(node.required) ? node.required : [];
    this.#spend(required.length, nesting);
    const missing = required.find((name) => !Object.hasOwn(value, name));
    if (missing !== undefined) {
      return { at, message: `must have required property ${JSON.stringify(missing)}` };
    }
    const properties = isObject(node.properties) ? node.properties : {};
    for (const name of this.#keys(value)) {
      const child = value[name];
      this.#spend(Math.ceil(name.length / 64), nesting);
      const at2 = `${at}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
      const schema = Object.hasOwn(properties, name) ? properties[name] : node.additionalProperties;
      if (schema === false) return { at, message: "must NOT have additional properties" };
      const miss = schema === undefined ? undefined : this.match(schema, child, at2, nesting + 1);
      if (miss) return miss;
    }
    return undefined;
  }
}

const TYPES: Record<string, (v: unknown) => boolean> = {
  object: isObject,
  array: Array.isArray,
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number",
  integer: (v) => Number.isInteger(v),
  boolean: (v) => typeof v === "boolean",
  null: (v) => v === null,
};

function typeProblem(node: Record<string, unknown>, value: unknown, at: string) {
  if (node.type === undefined) return undefined;
  const types: unknown[] = Array.isArray(node.type) ? node.type : [node.type];
  // Stryker disable next-line ConditionalExpression: a type that is no string names no key of TYPES either
  if (types.some((t) => typeof t === "string" && Object.hasOwn(TYPES, t) && TYPES[t](value))) {
    return undefined;
  }
  return { at, message: `must be ${types.join(",")}` };
}

function numberProblem(node: Record<string, unknown>, value: number, at: string) {
  const bound = (key: string, fails: (limit: number) => boolean, words: string) => {
    const limit = node[key];
    return typeof limit === "number" && fails(limit)
      ? { at, message: `must be ${words} ${limit}` }
      : undefined;
  };
  const multiple = node.multipleOf;
  if (typeof multiple === "number" && !Number.isInteger(value / multiple)) {
    return { at, message: `must be multiple of ${multiple}` };
  }
  return bound("minimum", (l) => value < l, ">=") ?? bound("maximum", (l) => value > l, "<=") ??
    bound("exclusiveMinimum", (l) => value <= l, ">") ??
    bound("exclusiveMaximum", (l) => value >= l, "<");
}
