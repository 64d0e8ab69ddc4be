/**
 * The relay's permission set as users start it (`deno run -P`, deno.json
 * `permissions.default`): a probe under exactly that set may spawn `codex`
 * and nothing else (`NotCapable`), has no network, file or foreign-env access.
 */

import assert from "assert";
import { FIXTURE_BIN, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { ROOT, startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";
import { startCommand } from "../../src/install/launch.ts";
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

Deno.test("the start line install writes for a resolved Codex: serve --codex runs that binary, with no codex on PATH", async () => {
  const t = thread({ name: "named" });
  const f = await FixtureHome.create({ threads: [t] });
  const empty = await Deno.makeTempDir({ prefix: "codex-relay-no-codex-" });
  const codex = `${FIXTURE_BIN}/codex`;
  // Exactly the words startCommand() puts between -P and the entry, and after serve.
  const line = startCommand(
    { kind: "checkout", root: ROOT },
    { replyRead: false, turnStart: false },
    "deno",
    codex,
  );
  const permissions = line.slice(line.indexOf("-P") + 1, line.indexOf("--no-prompt"));
  assert.deepEqual(permissions, [`--allow-run=${codex},/bin/kill`]);
  const relay = await startRelay({
    fixture: f,
    env: { ...f.env, PATH: f.env.PATH.replace(FIXTURE_BIN, empty) },
    flags: line.slice(line.indexOf("serve") + 1),
    permissions,
    protocol: "2026-07-28",
  });
  try {
    const listed = await callTool(relay.client, "codex_list_threads", {});
    assert.equal(listed.isError, undefined, JSON.stringify(listed.structuredContent));
    assert.match(JSON.stringify(listed.structuredContent), new RegExp(t.id));
  } finally {
    const { code } = await relay.close();
    assert.equal(code, 0);
    await f.dispose();
    await Deno.remove(empty, { recursive: true });
  }
});
