// deno-lint-ignore-file no-console
/**
 * `deno task test:portable`: the tests that need no real Codex (tests/unit/
 * and tests/integration/, with the fixture app-server), less the files this
 * platform cannot run yet (testing/platform.ts names each with its reason,
 * printed here). What the CI workflow runs on macOS and Windows.
 * @module
 */

import { PORTABLE_DIRS, portablePlan } from "../testing/platform.ts";
import { RELAY_REGEXP_FLAG } from "../src/install/launch.ts";

const files: string[] = [];
for (const dir of PORTABLE_DIRS) {
  for (const entry of Deno.readDirSync(dir)) {
    if (entry.isFile && entry.name.endsWith("_test.ts")) files.push(`${dir}/${entry.name}`);
  }
}
const { run, skipped } = portablePlan(files, Deno.build.os);
for (const { file, reason } of skipped) {
  console.error(`test:portable: skipped on ${Deno.build.os}: ${file} (${reason})`);
}
console.error(`test:portable: ${run.length} test files, ${skipped.length} skipped`);
const { code } = await new Deno.Command("deno", {
  // The relay's V8 flag: the answer checker's tests run as users run it (issue 48).
  args: ["test", "-P", "--quiet", `--v8-flags=${RELAY_REGEXP_FLAG}`, ...run],
  stdin: "null",
  stdout: "inherit",
  stderr: "inherit",
}).output();
Deno.exit(code);
