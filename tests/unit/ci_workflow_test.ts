/**
 * The CI workflow cannot run here; this reads it as GitHub does (YAML) and
 * checks what it promises: on push and pull request, Linux runs `.ci/run`,
 * macOS and Windows run the checks and the tests that need no real Codex.
 * @module
 */

import assert from "assert";
import { parse } from "yaml";
import { ROOT } from "../../testing/paths.ts";
import denoJson from "../../deno.json" with { type: "json" };

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
}
interface Job {
  "runs-on": string;
  strategy?: { matrix?: { os?: string[] } };
  steps: Step[];
}

const workflow = parse(await Deno.readTextFile(`${ROOT}/.github/workflows/ci.yml`)) as {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
};

const runs = (job: Job) => job.steps.flatMap((s) => (s.run ? [s.run.trim()] : []));

Deno.test("CI runs on every push and pull request", () => {
  assert.deepEqual(Object.keys(workflow.on).sort(), ["pull_request", "push"]);
  assert.deepEqual(Object.keys(workflow.jobs).sort(), ["linux", "portable"]);
});

Deno.test("Linux runs .ci/run (node for its npm installs), nothing else", () => {
  const linux = workflow.jobs.linux;
  assert.equal(linux["runs-on"], "ubuntu-latest");
  assert.deepEqual(runs(linux), ["bash .ci/run"]);
  assert.ok(linux.steps.some((s) => s.uses?.startsWith("actions/checkout@")));
  assert.ok(linux.steps.some((s) => s.uses?.startsWith("actions/setup-node@")));
});

Deno.test("macOS and Windows run the checks and the tests without a real Codex, on the pinned deno", () => {
  const portable = workflow.jobs.portable;
  assert.equal(portable["runs-on"], "${{ matrix.os }}");
  assert.deepEqual(portable.strategy?.matrix?.os, ["macos-latest", "windows-latest"]);
  const commands = runs(portable);
  assert.deepEqual(commands.slice(-2), ["deno task check", "deno task test:portable"]);
  const setup = portable.steps.find((s) => s.uses?.startsWith("denoland/setup-deno@"));
  assert.equal(setup?.with?.["deno-version"], "v2.9.6");
  // The tasks they run exist, and the portable one runs the unit and integration tests.
  assert.ok(denoJson.tasks.check.startsWith("deno fmt --check"));
  assert.match(denoJson.tasks["test:portable"], /scripts\/portable_tests\.ts$/);
});

Deno.test(".ci/run runs the whole suite once more with an npm-style deno shim (testing/npm_deno_shim.cjs) first on PATH", async () => {
  const run = await Deno.readTextFile(`${ROOT}/.ci/run`);
  assert.match(
    run,
    /sed "s\|__DENO_EXE__\|\$real_deno\|" testing\/npm_deno_shim\.cjs >"\$ci_tmp\/npm-shim\/deno"/,
  );
  assert.match(run, /PATH="\$ci_tmp\/npm-shim:\$PATH" fresh_home deno task test\n/);
  const shim = await Deno.readTextFile(`${ROOT}/testing/npm_deno_shim.cjs`);
  assert.ok(shim.startsWith("#!/usr/bin/env node\n"), "a Node script, as npm's deno/bin.cjs");
  assert.ok(shim.includes('"__DENO_EXE__"'), "the real binary's path goes in place of the marker");
});
