/** Protects: macOS and Windows skip only the test files named with a reason (testing/platform.ts). */
import assert from "assert";
import { PORTABLE_DIRS, portablePlan, WINDOWS_GAPS } from "../../testing/platform.ts";
import { ROOT } from "../../testing/paths.ts";

Deno.test("every test file skipped on Windows exists and says why", async () => {
  for (const [file, reason] of Object.entries(WINDOWS_GAPS)) {
    assert.ok((await Deno.stat(`${ROOT}/${file}`)).isFile, `${file} exists`);
    assert.ok(
      PORTABLE_DIRS.some((d) => file.startsWith(`${d}/`)),
      `${file} is a portable folder's`,
    );
    assert.ok(reason.length > 10, `${file} has a reason`);
  }
});

Deno.test("Windows skips exactly its gaps, by name with the reason; other systems run everything", () => {
  const files = ["tests/unit/b_test.ts", "tests/integration/turn_test.ts", "tests/unit/a_test.ts"];
  const windows = portablePlan(files, "windows");
  assert.deepEqual(windows.run, ["tests/unit/a_test.ts", "tests/unit/b_test.ts"]);
  assert.deepEqual(windows.skipped, [{
    file: "tests/integration/turn_test.ts",
    reason: WINDOWS_GAPS["tests/integration/turn_test.ts"],
  }]);
  for (const os of ["linux", "darwin"] as const) {
    assert.deepEqual(portablePlan(files, os), { run: [...files].sort(), skipped: [] });
  }
});
