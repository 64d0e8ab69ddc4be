/**
 * A compatibility call follows a turn longer than one 55 s wait to its end (the old tools had
 * no waitSeconds): in process, the wait on a manual clock, the fixture holding the turn.
 */
import assert from "assert";
import { agentItem, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { rigCallContext, turnRig } from "../../testing/turn_rig.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import type { Timer } from "../../src/core/clock.ts";
import { codexReplyTool } from "../../src/host/tools/compat_tools.ts";
import { within } from "../../testing/deadline.ts";

/** A manual clock that tells when a timer is armed at or past a time. */
class WatchedClock extends ManualClock {
  #waiters: { at: number; resolve: () => void }[] = [];
  override after(ms: number, fn: () => void): Timer {
    const timer = super.after(ms, fn);
    const at = this.now() + ms;
    this.#waiters = this.#waiters.filter((w) => at >= w.at ? (w.resolve(), false) : true);
    return timer;
  }
  /** Resolves once a timer is armed at `at` or later. */
  armedAt(at: number): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#waiters.push({ at, resolve });
    return within(promise, `a timer armed at ${at} ms`);
  }
}

Deno.test("compat: codex-reply follows a turn past its first 55 s wait to the answer", async () => {
  const t = thread({
    scripts: [[{ barrier: "hold" }, { item: agentItem("m", "Late answer.") }, {
      end: "completed",
    }]],
  });
  const f = await FixtureHome.create({ threads: [t] });
  const hold = await f.barrier("hold");
  const rig = turnRig(f, { caps: { replyRead: true, turnStart: true } });
  const clock = new WatchedClock();
  const caps = { replyRead: true, turnStart: true, compat: "codex-mcp-server" } as const;
  const ctx = rigCallContext(rig, caps, { clock });
  let left: number[] = [];
  try {
    const firstWait = clock.armedAt(55_000);
    const call = codexReplyTool.run({ prompt: "take long", threadId: t.id }, ctx);
    await hold.reached();
    await firstWait;
    const secondWait = clock.armedAt(110_000);
    clock.advance(55_000); // The first wait ends with the turn still running.
    await secondWait; // The call waits again instead of returning.
    await hold.release();
    assert.deepEqual(await call, { threadId: t.id, content: "Late answer." });
  } finally {
    await rig.turns.shutdown();
    await rig.connection.shutdown();
    left = f.alive();
    await f.dispose();
  }
  assert.deepEqual(left, [], "no helper is left");
});
