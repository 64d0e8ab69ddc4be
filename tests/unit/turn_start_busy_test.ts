/**
 * A codex_run that cannot get a connection says why in the backend's own words: past the
 * bound of turns each backend counts turns (tests/reliability/load_test.ts and
 * tests/integration/fanout_test.ts check "8 turns are running ..."); a daemon user never reads
 * about helpers the relay does not have.
 */
import assert from "assert";
import { RelayError } from "../../src/core/errors.ts";
import { silentLogger } from "../../src/core/log.ts";
import { DaemonConnection } from "../../src/connect/daemon/daemon_connection.ts";
import type { Dialed } from "../../src/connect/daemon/proxy_dial.ts";
import { turnMachinery } from "../../src/turn/turn_machinery.ts";
import { ManualClock } from "../../testing/manual_clock.ts";

/** A daemon that answers `initialize` with Codex's overload error (-32001). */
function overloadedDaemon(): () => Promise<Dialed> {
  return () => {
    const frames: string[] = [];
    let wake: (() => void) | undefined;
    let ended = false;
    async function* iterate(): AsyncGenerator<string> {
      while (true) {
        const next = frames.shift();
        if (next !== undefined) yield next;
        else if (ended) return;
        else await new Promise<void>((r) => (wake = r));
      }
    }
    const close = () => {
      ended = true;
      wake?.();
      return Promise.resolve();
    };
    return Promise.resolve({
      transport: {
        write: (frame) => {
          const m = JSON.parse(frame);
          if (m.id !== undefined) {
            frames.push(JSON.stringify({
              id: m.id,
              error: { code: -32001, message: "Server overloaded; retry later" },
            }));
            wake?.();
          }
          return Promise.resolve();
        },
        frames: iterate,
        closed: () => Promise.resolve(new RelayError("connection_lost", "closed")),
      },
      close,
      kill: close,
    });
  };
}

Deno.test("codex_run through an overloaded daemon is busy with the daemon's reason, not a helper count", async () => {
  const clock = new ManualClock();
  const connection = new DaemonConnection({
    allowlist: new Set(["thread/list", "thread/queue/add", "thread/resume", "config/read"]),
    version: "0.0.0-test",
    clock,
    dial: overloadedDaemon(),
  });
  const { starts } = turnMachinery({ connection, clock, log: silentLogger, readsReplies: false });
  try {
    const started = await starts.inThread(
      "019a0000-0000-7000-8000-000000000001",
      "hello",
      new AbortController().signal,
    );
    assert.deepEqual([started.receipt.status, started.reason], ["not_sent", "busy"]);
    assert.match(started.message ?? "", /overloaded/);
    assert.doesNotMatch(started.message ?? "", /helper/);
  } finally {
    await connection.shutdown();
  }
});
