/**
 * The relay's permission set as users start it (`deno run -P`, deno.json
 * `permissions.default`): a probe under exactly that set may spawn `codex`
 * and nothing else (`NotCapable`), has no network, file or foreign-env access.
 */

import assert from "assert";
import { FixtureHome } from "../../testing/fixture_home.ts";
import { ROOT } from "../../testing/relay.ts";
import { EXPECTED_OUTCOMES, runProbe } from "../dist/_probe.ts";

Deno.test("under deno run -P (permissions.default) only codex may be spawned; sh, sockets, files are NotCapable", async () => {
  const f = await FixtureHome.create({ threads: [] });
  const dir = await Deno.makeTempDir({ prefix: "codex-relay-probe-" });
  try {
    const target = `${dir}/written-by-probe`;
    const outcomes = await runProbe(["-P", "--config", `${ROOT}/deno.json`], f.env, target, {
      cwd: ROOT,
    });
    assert.deepEqual(outcomes, EXPECTED_OUTCOMES);
    await assert.rejects(Deno.stat(target), Deno.errors.NotFound);
  } finally {
    await f.dispose();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the probe itself can fail: under -A no attempt is refused by permissions", async () => {
  const f = await FixtureHome.create({ threads: [] });
  const dir = await Deno.makeTempDir({ prefix: "codex-relay-probe-" });
  try {
    const outcomes = await runProbe(["-A"], f.env, `${dir}/written-by-probe`, { cwd: dir });
    assert.deepEqual(Object.keys(outcomes), Object.keys(EXPECTED_OUTCOMES));
    for (const [name, outcome] of Object.entries(outcomes)) {
      assert.notEqual(outcome, "NotCapable", `${name} under -A`);
    }
    assert.equal(outcomes["write file"], "allowed");
    assert.equal(outcomes["spawn sh"], "allowed");
  } finally {
    await f.dispose();
    await Deno.remove(dir, { recursive: true });
  }
});
