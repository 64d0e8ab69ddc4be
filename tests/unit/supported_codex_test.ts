/** Protects: the Codex versions the README says are supported are the ones CI tests. */
import assert from "assert";
import { SUPPORTED_CODEX, supportOf } from "../../src/codex/supported.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

Deno.test("supportOf: the range includes both ends, and nothing past them", () => {
  assert.equal(supportOf("0.169.0"), "supported");
  assert.equal(supportOf("0.170.3"), "supported");
  assert.equal(supportOf("0.171.0"), "supported");
  assert.equal(supportOf("0.168.9"), "older");
  assert.equal(supportOf("0.171.1"), "newer");
  assert.equal(supportOf("1.0.0"), "newer");
});

Deno.test("CI tests both ends of the supported range, and the README states it", async () => {
  const ci = await Deno.readTextFile(`${ROOT}.ci/run`);
  const readme = (await Deno.readTextFile(`${ROOT}README.md`)).replace(/\s+/g, " ");
  for (const version of [SUPPORTED_CODEX.oldest, SUPPORTED_CODEX.newest]) {
    assert.match(
      ci,
      new RegExp(`^install_codex ${version.replaceAll(".", "\\.")} `, "m"),
      `.ci/run installs Codex ${version}`,
    );
  }
  assert.ok(
    readme.includes(`Codex ${SUPPORTED_CODEX.oldest} to ${SUPPORTED_CODEX.newest}`),
    "the README states the supported range",
  );
});
