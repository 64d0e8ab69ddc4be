// deno-lint-ignore-file no-console
/**
 * The property run of `schema_property_test.ts`, in a child started with the relay's V8 flags
 * (and `--expose-gc`): random deep, wide, recursive schemas with hostile patterns, and random
 * answers (some shaped by their schema, some hostile strings); each check must end within
 * `BOUND_MS` and never throw, and after the run the heap must be back at its level. Prints one
 * JSON line of figures; exits 1 with fast-check's counterexample on stderr.
 * @module
 */

import fc from "fast-check";
import { checkOutputSchema, structuredAnswer } from "../../src/reply/structured.ts";
import { LINEAR_REGEXP } from "../../src/reply/linear_regexp.ts";

type Obj = Record<string, unknown>;

/** The longest one check (schema and answer) may take, on a loaded 2-core machine. */
export const BOUND_MS = 1_500;

const PATTERNS = [
  "^(a+)+$",
  "^(a|aa)*$",
  "^(a*)*b$",
  "(x+x+)+y",
  "^[a-z]{1,8}$",
  "^\\d{3}-\\d{4}$",
  "(a)\\1",
  "^(?=a)a+$",
  "a{1000}",
  "\\p{L}+",
  "(",
];

const HOSTILE = [
  "a".repeat(40) + "!",
  "a".repeat(16_000) + "!",
  "x".repeat(5_000),
  "aaab",
  "123-4567",
];

const closed = (properties: Obj): Obj => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

const name = fc.string({ minLength: 1, maxLength: 6 });

/** Subschemas: scalars, hostile patterns, arrays, closed objects (some wide), anyOf, refs. */
const { node } = fc.letrec<{ node: Obj }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constantFrom<Obj>({ type: "integer" }, { type: "boolean" }, { type: "null" }),
    fc.record({ type: fc.constant("number"), minimum: fc.integer(), multipleOf: fc.constant(1) }),
    fc.record({ type: fc.constant("string"), pattern: fc.constantFrom(...PATTERNS) }),
    fc.record({ enum: fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 1, maxLength: 5 }) }),
    fc.constant<Obj>({ $ref: "#/$defs/tree" }),
    fc.record({ type: fc.constant("array"), items: tie("node"), maxItems: fc.nat(50) }),
    fc.dictionary(name, tie("node"), { maxKeys: 5 }).map(closed),
    fc.record({ anyOf: fc.array(tie("node"), { minLength: 1, maxLength: 4 }) }),
  ),
}));

/** A wide object: up to 300 scalar properties. */
const wide = fc.dictionary(
  name,
  fc.constantFrom<Obj>({ type: "string", pattern: "^(a+)+$" }, { type: "integer" }),
  { maxKeys: 300 },
).map(closed);

/** A chain of `depth` nested objects or arrays around `inner` (past 64 it must be refused). */
const deep = fc.tuple(fc.nat(120), fc.boolean(), node).map(([depth, arrays, inner]) => {
  let s = inner;
  for (let i = 0; i < depth; i++) s = arrays ? { type: "array", items: s } : closed({ d: s });
  return s;
});

/** A root schema with a recursive `$defs.tree` (and sometimes a loop that stays on one value). */
const schema = fc.tuple(fc.oneof(node, wide, deep), fc.boolean()).map(([inner, loop]) => ({
  ...closed({ v: inner }),
  $defs: {
    tree: loop
      ? { anyOf: [{ $ref: "#/$defs/tree" }, { type: "null" }] }
      : closed({ kids: { type: "array", items: { $ref: "#/$defs/tree" } } }),
  },
}));

/** A value shaped like `s` (its keys, hostile strings at its leaves), or any JSON. */
function shaped(s: unknown, depth = 0): fc.Arbitrary<unknown> {
  const o = (s ?? {}) as Obj;
  if (depth > 80) return fc.constant(null);
  if (o.properties && typeof o.properties === "object") {
    const props = o.properties as Obj;
    return fc.record(Object.fromEntries(
      Object.entries(props).map(([k, v]) => [k, shaped(v, depth + 1)]),
    ));
  }
  if (o.items) return fc.array(shaped(o.items, depth + 1), { maxLength: depth < 4 ? 3 : 1 });
  if (o.type === "string") return fc.constantFrom(...HOSTILE.filter((h) => h.length < 100));
  if (Array.isArray(o.anyOf)) return fc.oneof(...o.anyOf.map((b) => shaped(b, depth + 1)));
  if (o.$ref) return fc.constantFrom({ kids: [] }, { kids: [{ kids: [] }] }, null);
  return fc.jsonValue({ maxDepth: 3 });
}

const answerFor = (s: Obj) =>
  fc.oneof(
    shaped(s).map((v) => JSON.stringify(v)),
    fc.constantFrom(...HOSTILE).map((h) => JSON.stringify({ v: h })),
    fc.nat(200).map((n) => `{"v":${"[".repeat(n)}${"]".repeat(n)}}`),
    fc.string({ maxLength: 40 }),
  );

/** The run: figures on stdout, exit 1 on a counterexample. */
function main(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc || !LINEAR_REGEXP) {
    console.error("run with the relay's V8 flags and --expose-gc");
    Deno.exit(2);
  }
  const heap = () => {
    gc();
    return Deno.memoryUsage().heapUsed / 2 ** 20;
  };

  let maxMs = 0;
  let runs = 0;
  let refused = 0;
  let checked = 0;
  const property = fc.property(
    schema.chain((s) => fc.tuple(fc.constant(s), answerFor(s))),
    ([s, a]) => {
      fc.pre(a.length <= 16 * 1024); // the relay judges no longer answer (the page bound)
      const t0 = performance.now();
      const problem = checkOutputSchema(s);
      const out = structuredAnswer(s, a);
      const ms = performance.now() - t0;
      maxMs = Math.max(maxMs, ms);
      runs++;
      if (problem) refused++;
      else checked++;
      if (ms > BOUND_MS) throw new Error(`a check took ${ms.toFixed(0)} ms`);
      const shape = out.valid ? "value" in out : typeof out.error === "string";
      if (!shape) throw new Error(`not {valid, value | error}: ${JSON.stringify(out)}`);
      if (problem && out.valid) throw new Error("an answer passed a refused schema");
    },
  );

  fc.assert(property, { numRuns: 50, seed: Number(Deno.args[0] ?? 1) });
  const before = heap();
  fc.assert(property, {
    numRuns: Number(Deno.args[1] ?? 400),
    seed: Number(Deno.args[0] ?? 1) + 1,
  });
  const after = heap();
  const hostileMs = (text: string) => {
    const s = closed({ v: { type: "string", pattern: "^(a+)+$" } });
    const t0 = performance.now();
    structuredAnswer(s, JSON.stringify({ v: text }));
    return performance.now() - t0;
  };
  console.log(JSON.stringify({
    runs,
    refused,
    checked,
    maxMs,
    heapBeforeMiB: before,
    heapAfterMiB: after,
    hostile40Ms: hostileMs("a".repeat(40) + "!"),
    hostile16KiBMs: hostileMs("a".repeat(16_000) + "!"),
  }));
}

if (import.meta.main) main();
