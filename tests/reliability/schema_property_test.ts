/**
 * issue 39, Deliver 5: a fast-check property over random outputSchemas (deep, wide, recursive,
 * hostile patterns) and random answers: each check ends within its bound, never throws, and the
 * heap is back at its level after the run. It runs in a child with the relay's own V8 flags (the
 * linear-time regexp engine is one of them) plus `--expose-gc`: `_schema_property.ts`.
 */

import assert from "assert";
import { RELAY_V8_FLAGS } from "../../src/install/launch.ts";
import { CACHED_ONLY, denoChildEnv } from "../../testing/child_env.ts";
import { ROOT } from "../../testing/paths.ts";
import { BOUND_MS } from "./_schema_property.ts";

/** How long the whole child may run (its 450 checks take about 2 s). */
const CHILD_MS = 60_000;

Deno.test("random schemas and answers: every check within its bound, the heap back at its level", async () => {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-P",
      CACHED_ONLY,
      "--quiet",
      `${RELAY_V8_FLAGS},--expose-gc`,
      "--config",
      `${ROOT}/deno.json`,
      `${ROOT}/tests/reliability/_schema_property.ts`,
      String(Date.now() % 100_000),
      "400",
    ],
    env: denoChildEnv({}),
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), CHILD_MS);
  const out = await child.output();
  clearTimeout(timer);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `the property run failed (or ran past ${CHILD_MS} ms):\n${stderr}`);
  const figures = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.ok(figures.checked > 50 && figures.refused > 50, JSON.stringify(figures));
  assert.ok(figures.maxMs <= BOUND_MS, JSON.stringify(figures));
  assert.ok(
    figures.heapAfterMiB - figures.heapBeforeMiB < 2,
    `the heap is back at its level: ${JSON.stringify(figures)}`,
  );
  assert.ok(figures.hostile40Ms < 50, `^(a+)+$ on 40 a's and "!": ${figures.hostile40Ms} ms`);
});
