import assert from "assert";
import { formatBound } from "../../src/core/duration.ts";
import { budgetSpent } from "../../src/connect/budget.ts";

Deno.test("a sub-second bound is printed in milliseconds, never as 0 s", () => {
  assert.equal(formatBound(300), "300 ms");
  assert.equal(formatBound(1), "1 ms");
  assert.equal(formatBound(999), "999 ms");
  assert.equal(formatBound(0), "0 ms");
});

Deno.test("a bound of a second or more is printed in seconds (one decimal when not whole)", () => {
  assert.equal(formatBound(1000), "1 s");
  assert.equal(formatBound(20_000), "20 s");
  assert.equal(formatBound(1500), "1.5 s");
  assert.equal(formatBound(2049), "2 s");
  assert.equal(formatBound(120_000), "120 s");
});

Deno.test("a spent 300 ms budget says 'within 300 ms'", () => {
  assert.equal(budgetSpent(300, true).message, "The operation did not finish within 300 ms");
});
