import assert from "assert";
import { FixtureHome } from "../../testing/fixture_home.ts";
import { DeadlineError, within } from "../../testing/deadline.ts";

Deno.test("a barrier the fixture never reaches fails in bounded time with its name", async () => {
  const f = await FixtureHome.create({ threads: [] });
  try {
    const stuck = await f.barrier("never-reached");
    const error = await stuck.reached(300).then(() => undefined, (e) => e);
    assert.ok(error instanceof DeadlineError);
    assert.equal(
      error.message,
      "The fixture reaching barrier never-reached did not happen within 300 ms",
    );
    await assert.rejects(() => stuck.release(), /released before it was reached/);
  } finally {
    await f.dispose();
  }
  // The test sanitizers (ops, resources) prove the stuck open of the FIFO was undone.
});

Deno.test("within() passes a value through and clears its timer", async () => {
  assert.equal(await within(Promise.resolve(7), "seven", 10_000), 7);
  await assert.rejects(() => within(Promise.reject(new Error("boom")), "x", 10_000), /boom/);
});

Deno.test("within() fails a promise that never settles, after running its unblocker", async () => {
  let unblocked = false;
  const never = new Promise<never>(() => {});
  await assert.rejects(
    () => within(never, "Nothing", 50, () => void (unblocked = true)),
    (e) => e instanceof DeadlineError && e.message === "Nothing did not happen within 50 ms",
  );
  assert.equal(unblocked, true);
});
