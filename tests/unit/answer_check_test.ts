/**
 * issue 46 item 1: one answer check, whatever the schema and the answer within the input limits,
 * ends within 1 s of CPU. Work is charged by its real size (a pattern test by pattern × answer
 * length, an object by its keys) and `$ref` leads only to schema positions, so no subschema
 * escapes the strict rules (the fast tests of that: tests/unit/schema_match_test.ts). Runs with the relay's V8 flag (`deno task test:unit` passes it), as
 * users run the relay: patterns run in the linear-time engine.
 */
import assert from "assert";
import { checkOutputSchema, structuredAnswer } from "../../src/reply/structured.ts";
import { matchSchema, MAX_CHECK_STEPS } from "../../src/reply/schema_match.ts";
import { LINEAR_REGEXP } from "../../src/reply/linear_regexp.ts";
import { ANSWER_BYTES, closed, cpuMs, hostileChecks } from "../../testing/hostile_checks.ts";

/** The one-check bound of docs/design.md, in ms of CPU. */
const ONE_CHECK_MS = 1_000;
const EXHAUSTED = `the answer could not be checked within ${MAX_CHECK_STEPS} steps of the schema`;

Deno.test("the tests run as users run the relay: with the linear-time regexp engine", () => {
  assert.ok(LINEAR_REGEXP, "run with --v8-flags=--enable-experimental-regexp-engine");
});

Deno.test("each costly check known ends within 1 s of CPU, refused as past its step bound", () => {
  for (const [what, { schema, answer }] of Object.entries(hostileChecks())) {
    assert.ok(new TextEncoder().encode(answer).length <= ANSWER_BYTES, `${what}: within the page`);
    assert.equal(checkOutputSchema(schema), undefined, `${what}: a schema the relay takes`);
    const t0 = cpuMs();
    const out = structuredAnswer(schema, answer);
    const ms = cpuMs() - t0;
    assert.deepEqual(out, { valid: false, error: EXHAUSTED }, what);
    assert.ok(ms < ONE_CHECK_MS, `${what}: ${ms.toFixed(0)} ms of CPU`);
  }
});

Deno.test("the whole bound: 200,000 steps of a plain answer are taken, one more is not", () => {
  const schema = closed({ v: { type: "array", items: { type: "number" } } });
  // The root (1), its one key (1), one required name (1), the name "v" (1), v itself (1), each item.
  const items = (n: number) => ({ v: new Array(n).fill(0) });
  assert.equal(matchSchema(schema, items(MAX_CHECK_STEPS - 5)), undefined);
  assert.equal(matchSchema(schema, items(MAX_CHECK_STEPS - 4)), "exhausted");
  assert.deepEqual(structuredAnswer(schema, JSON.stringify(items(MAX_CHECK_STEPS))), {
    valid: false,
    error: EXHAUSTED,
  });
  // A 2,000-key answer against 2,000 named properties: about 6,000 steps.
  const keys = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [i.toString(36), 0]));
  const named = closed(Object.fromEntries(Object.keys(keys).map((k) => [k, { type: "number" }])));
  assert.equal(structuredAnswer(closed({ v: named }), JSON.stringify({ v: keys })).valid, true);
});
