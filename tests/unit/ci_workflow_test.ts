/**
 * Protects: every push is tested on the platforms users run the relay on (Linux, macOS, Windows).
 *
 * Linux runs `.ci/run` (the whole suite, both ends of the supported Codex range); macOS and Windows
 * run the checks and the tests that need no real Codex, on the pinned deno. Reads the workflow as
 * GitHub does (YAML).
 * @module
 */

import assert from "assert";
import { parse } from "yaml";
import { ROOT } from "../../testing/paths.ts";
import { PORTABLE_DIRS, portablePlan } from "../../testing/platform.ts";

interface Job {
  "runs-on": string;
  strategy?: { matrix?: { os?: string[] } };
  steps: { uses?: string; run?: string; with?: Record<string, unknown> }[];
}

const workflow = parse(await Deno.readTextFile(`${ROOT}/.github/workflows/ci.yml`)) as {
  on: Record<string, unknown>;
  jobs: Record<string, Job>;
};

const runs = (job: Job) => job.steps.flatMap((s) => (s.run ? [s.run.trim()] : []));

Deno.test("CI runs .ci/run on Linux, and the checks and test:portable on macOS and Windows, on every push and pull request", () => {
  assert.deepEqual(Object.keys(workflow.on).sort(), ["pull_request", "push"]);
  const { linux, portable } = workflow.jobs;
  assert.equal(linux["runs-on"], "ubuntu-latest");
  assert.deepEqual(runs(linux), ["bash .ci/run"]);
  assert.deepEqual(portable.strategy?.matrix?.os, ["macos-latest", "windows-latest"]);
  assert.deepEqual(runs(portable).slice(-2), ["deno task check", "deno task test:portable"]);
  const setup = portable.steps.find((s) => s.uses?.startsWith("denoland/setup-deno@"));
  assert.equal(setup?.with?.["deno-version"], "v2.9.6");
});

Deno.test("Windows runs the Codex resolution's tests (simulated PATH, PATHEXT and npm layouts)", async () => {
  const files: string[] = [];
  for (const dir of PORTABLE_DIRS) {
    for await (const e of Deno.readDir(`${ROOT}/${dir}`)) files.push(`${dir}/${e.name}`);
  }
  const { run } = portablePlan(files, "windows");
  for (
    const file of [
      "tests/unit/codex_binary_test.ts",
      "tests/unit/doctor_which_test.ts",
      "tests/unit/codex_flag_test.ts",
    ]
  ) {
    assert.ok(run.includes(file), `${file} runs on Windows`);
  }
});

Deno.test(".ci/run runs the whole suite once more with an npm-style deno shim (testing/npm_deno_shim.cjs) first on PATH", async () => {
  const run = await Deno.readTextFile(`${ROOT}/.ci/run`);
  assert.match(
    run,
    /sed "s\|__DENO_EXE__\|\$real_deno\|" testing\/npm_deno_shim\.cjs >"\$ci_tmp\/npm-shim\/deno"/,
  );
  // Also npm's codex on PATH and a long TMPDIR (issue 38): no test may depend on either.
  assert.match(
    run,
    /PATH="\$ci_tmp\/npm-shim:\$PWD\/\.codex-npm\/node_modules\/\.bin:\$PATH" TMPDIR="\$long_tmp" fresh_home deno task test\n/,
  );
  const long = run.match(/long_tmp="\$ci_tmp(\/[^"]+)"/)?.[1] ?? "";
  assert.ok("/tmp/codex-relay-ci-XXXXXX".length + long.length >= 60, long);
  const shim = await Deno.readTextFile(`${ROOT}/testing/npm_deno_shim.cjs`);
  assert.ok(shim.startsWith("#!/usr/bin/env node\n"), "a Node script, as npm's deno/bin.cjs");
  assert.ok(shim.includes('"__DENO_EXE__"'), "the real binary's path goes in place of the marker");
});
