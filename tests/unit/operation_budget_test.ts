import assert from "assert";
import { RelayError } from "../../src/core/errors.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { type HeldConnection, heldSession } from "../../src/connect/connection.ts";
import { SpawnConnection } from "../../src/connect/spawn/spawn_connection.ts";

/** An operation that sends nothing and ends when its budget is spent. */
function idle(
  connection: SpawnConnection,
  budgetMs?: number,
): { signal: AbortSignal; ended: Promise<unknown> } {
  let signal: AbortSignal | undefined;
  const ended = connection.operation(
    (s) => {
      signal = s.signal;
      return new Promise<unknown>((resolve) =>
        s.signal.addEventListener("abort", () => resolve(s.signal.reason), { once: true })
      );
    },
    budgetMs === undefined ? {} : { budgetMs },
  );
  assert.ok(signal, "the operation's function runs at once");
  return { signal, ended };
}

function connectionWith(clock: ManualClock): SpawnConnection {
  return new SpawnConnection({ allowlist: new Set(), version: "0.0.0-test", clock, env: {} });
}

async function budgetOf(
  connection: SpawnConnection,
  clock: ManualClock,
  budgetMs?: number,
): Promise<number> {
  const start = clock.now();
  const op = idle(connection, budgetMs);
  while (!op.signal.aborted) clock.advance(1);
  const why = await op.ended;
  assert.ok(why instanceof RelayError && why.reason === "timeout");
  return clock.now() - start;
}

Deno.test("SpawnConnection.operation() keeps the 20 s budget unless asked otherwise", async () => {
  const clock = new ManualClock();
  assert.equal(await budgetOf(connectionWith(clock), clock), 20_000);
});

Deno.test("SpawnConnection.operation() grants an explicit budget up to maxOperationMs (60 s), not beyond", async () => {
  const clock = new ManualClock();
  const connection = connectionWith(clock);
  assert.equal(connection.limits.maxOperationMs, 60_000);
  assert.equal(connection.clock, clock, "operations that wait pause on the connection's clock");
  assert.equal(await budgetOf(connection, clock, 59_000), 59_000);
  assert.equal(await budgetOf(connection, clock, 60_000), 60_000);
  assert.equal(await budgetOf(connection, clock, 60_001), 60_000);
  assert.equal(await budgetOf(connection, clock, 5_000), 5_000);
});

Deno.test("heldSession() gives its RPCs what is left of one budget, and sends none once it is spent", async () => {
  const clock = new ManualClock();
  const sent: { method: string; timeoutMs?: number }[] = [];
  const conn = {
    call: (method: string, _params: unknown, options: { timeoutMs?: number } = {}) => {
      sent.push({ method, timeoutMs: options.timeoutMs });
      return Promise.resolve({});
    },
  } as unknown as HeldConnection;
  const session = heldSession(conn, new AbortController().signal, 20_000, clock);
  await session.call("config/read", {});
  clock.advance(12_000); // thread/queue/add took its whole RPC timeout
  await session.call("thread/queue/list", { threadId: "t" });
  clock.advance(8_000 - 1);
  await session.call("thread/queue/list", { threadId: "t" });
  assert.deepEqual(sent.map((s) => s.timeoutMs), [20_000, 8_000, 1]);
  clock.advance(1);
  await assert.rejects(
    session.call("thread/queue/list", { threadId: "t" }),
    (e: RelayError) => e.reason === "timeout" && !e.written,
  );
  assert.equal(sent.length, 3, "nothing is sent once the budget is spent");
});
