/**
 * Deno installed by `npm install -g deno` can put a Node shim named `deno`
 * first on PATH, which starts the real binary: every Deno process then shows
 * twice in the process table. The suite counts helpers by process group, so
 * it passes either way; here the relay and the fixture are both started
 * through such a shim.
 */
import assert from "assert";
import { delimiter } from "node:path";
import { FIXTURE_BIN, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, ROOT, startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";
import { makeNpmShim } from "../../testing/npm_shim.ts";
import { processTableSync } from "../../testing/process_table.ts";

Deno.test("behind an npm-style deno shim the relay serves, each helper counts once, and none is left", async () => {
  const shim = await makeNpmShim();
  const t = thread({ name: "behind-the-shim" });
  const f = await FixtureHome.create({
    threads: [t],
    faults: [{ method: "thread/list", nth: 1, barrier: "hold" }],
  });
  try {
    // The fixture's `exec deno run ...` finds the shim first too, as on such a machine.
    const env = { ...f.env, PATH: [FIXTURE_BIN, shim.dir, Deno.env.get("PATH")].join(delimiter) };
    const relay = await startRelay({ env, command: shim.deno, protocol: "2026-07-28" });
    const { code, left } = await closeAfter(relay, f, async () => {
      const relays = processTableSync().filter((r) => r.args.includes(`${ROOT}/mod.ts serve`));
      assert.equal(relays.length, 2, "the shim (Node) and the real relay it started");
      const hold = await f.barrier("hold");
      const listing = callTool(relay.client, "codex_list_threads", {});
      await hold.reached();
      const rows = processTableSync().filter((r) => r.args.includes(f.home));
      assert.equal(rows.length, 2, "one helper is two processes behind the shim");
      assert.equal(f.alive().length, 1, "and counts as one helper");
      await hold.release();
      const list = await listing;
      assert.deepEqual(list.structuredContent.threads.map((x) => x.id), [t.id]);
      const queued = await callTool(relay.client, "codex_queue_message", {
        threadId: t.id,
        text: "through the shim",
      });
      assert.equal(queued.structuredContent.status, "queued");
    });
    assert.equal(code, 0, "the relay exits 0 on stdin EOF, through the shim");
    assert.deepEqual(left, [], "no helper is left");
  } finally {
    await shim.remove();
  }
});
