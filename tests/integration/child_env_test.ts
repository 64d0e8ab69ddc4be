/**
 * Issue 20, item 5: in spawn mode `codex app-server` gets the environment
 * the MCP client gave the relay (a provider's own key variable, proxies,
 * toolchain variables), less the loader variables Deno refuses to pass,
 * which it gets empty, named once on stderr. Through `mod.ts serve`.
 */

import assert from "assert";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";

/** The RELAY_TEST_* and loader variables each fixture process saw, one record per start. */
async function seen(f: FixtureHome): Promise<Record<string, string>[]> {
  const text = await Deno.readTextFile(`${f.home}/fixture-env.txt`).catch(() => "");
  return text.split("\n").filter((l) => l.trim()).map((line) =>
    Object.fromEntries(
      line.trim().split(" ").map((kv) => {
        const at = kv.indexOf("=");
        return [kv.slice(0, at), kv.slice(at + 1)];
      }),
    )
  );
}

Deno.test("spawn: codex app-server inherits the relay's environment; loader variables reach it empty, named once on stderr", async () => {
  const t = thread();
  // The warm helper ends after its first thread/list, so the next call starts a second helper.
  const f = await FixtureHome.create({
    threads: [t],
    faults: [{ method: "thread/list", nth: 2, action: { exit: 1 } }],
  });
  const relay = await startRelay({
    fixture: f,
    protocol: "2026-07-28",
    env: {
      ...f.env,
      RELAY_TEST_PROVIDER_KEY: "key-in-its-own-variable",
      RELAY_TEST_HTTPS_PROXY: "http://proxy.invalid:3128",
      LD_RELAY_TEST: "1",
      DYLD_RELAY_TEST: "1",
    },
  });
  let stderr = "";
  try {
    for (let i = 0; i < 3; i++) {
      const r = await callTool(relay.client, "codex_list_threads", {});
      if (i === 1) continue; // the call whose helper exited (its status is the fault matrix's)
      assert.equal(r.isError, undefined, JSON.stringify(r));
      assert.deepEqual(
        r.structuredContent.threads.map((x) => x.id),
        [t.id],
      );
    }
  } finally {
    const end = await relay.close();
    stderr = end.stderr;
    assert.equal(end.code, 0);
  }
  try {
    const starts = (await seen(f)).filter((e) => Object.keys(e).length > 0);
    assert.ok(starts.length >= 2, "a helper per start: every one of them is checked");
    for (const env of starts) {
      assert.equal(env.RELAY_TEST_PROVIDER_KEY, "key-in-its-own-variable");
      assert.equal(env.RELAY_TEST_HTTPS_PROXY, "http://proxy.invalid:3128");
      assert.equal(env.LD_RELAY_TEST, "", "a loader variable reaches Codex empty");
      assert.equal(env.DYLD_RELAY_TEST, "");
    }
    const lines = stderr.split("\n").filter((l) => l.includes("LD_RELAY_TEST"));
    assert.equal(lines.length, 1, `one stderr line names them: ${stderr}`);
    assert.match(lines[0], /DYLD_RELAY_TEST, LD_RELAY_TEST are set in codex-relay's environment/);
    assert.ok(!stderr.includes("key-in-its-own-variable"), "no value is logged");
  } finally {
    await f.dispose();
  }
});
