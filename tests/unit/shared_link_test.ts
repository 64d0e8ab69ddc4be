import assert from "assert";
import { type LinkParts, SharedLink } from "../../src/connect/shared_link.ts";
import { RelayError } from "../../src/core/errors.ts";

interface Link {
  id: number;
  failed: boolean;
}

/** A link whose openings the test finishes by hand, counting what opened and ended. */
function rig(stop = new AbortController()) {
  const openings: PromiseWithResolvers<void>[] = [];
  const ended: [number, string][] = [];
  let next = 0;
  const parts: LinkParts<Link> = {
    open: async (track) => {
      const link = { id: ++next, failed: false };
      track(link);
      const gate = Promise.withResolvers<void>();
      openings.push(gate);
      await gate.promise;
      return link;
    },
    usable: (link) => !link.failed,
    end: (link, why) => {
      ended.push([link.id, why.message]);
      return Promise.resolve();
    },
    stop: stop.signal,
  };
  return { link: new SharedLink(parts), openings, ended, stop };
}

const never = new AbortController().signal;
const lost = new RelayError("connection_lost", "gone");

Deno.test("SharedLink: callers arriving together share one opening, then the open link", async () => {
  const { link, openings } = rig();
  const both = Promise.all([link.get(never), link.get(never)]);
  assert.equal(openings.length, 1, "one opening for both");
  openings[0].resolve();
  const [a, b] = await both;
  assert.equal(a, b);
  assert.equal(await link.get(never), a, "the open link, no new opening");
  assert.equal(openings.length, 1);
});

Deno.test("SharedLink: a caller that stops waiting does not cancel the opening the others share", async () => {
  const { link, openings } = rig();
  const caller = new AbortController();
  const gaveUp = link.get(caller.signal);
  const stays = link.get(never);
  caller.abort(new RelayError("cancelled", "caller left"));
  await assert.rejects(gaveUp, (e: RelayError) => e.message === "caller left" && !e.written);
  openings[0].resolve();
  assert.equal((await stays).id, 1);
});

Deno.test("SharedLink: a failed link is not handed out again; the next caller opens a new one", async () => {
  const { link, openings } = rig();
  const first = link.get(never);
  openings[0].resolve();
  (await first).failed = true;
  const second = link.get(never);
  assert.equal(openings.length, 2);
  openings[1].resolve();
  assert.equal((await second).id, 2);
});

Deno.test("SharedLink: closed while it opens, a link is never kept as the current one", async () => {
  const { link, openings, ended } = rig();
  const first = link.get(never);
  const opening = [...link.links][0];
  await link.close(opening, lost);
  openings[0].resolve();
  assert.equal(await first, opening, "those waiting get it (their calls fail on it)");
  assert.equal(link.current, undefined);
  const next = link.get(never);
  openings[1].resolve();
  assert.equal((await next).id, 2);
  assert.deepEqual(ended, [[1, "gone"]]);
});

Deno.test("SharedLink: a link closes once, however many ask, and leaves the links when ended", async () => {
  const { link, openings, ended } = rig();
  const got = link.get(never);
  openings[0].resolve();
  const open = await got;
  const a = link.close(open, lost);
  const b = link.close(open, new RelayError("cancelled", "again"));
  assert.equal(a, b, "the same closing");
  await a;
  assert.deepEqual(ended, [[1, "gone"]]);
  assert.equal(link.links.size, 0);
  assert.equal(link.closing(open), a);
});

Deno.test("SharedLink: shut down while opening, the opened link is closed and nobody gets it", async () => {
  const { link, openings, ended, stop } = rig();
  const waiting = link.get(never);
  stop.abort(new RelayError("cancelled", "codex-relay is shutting down"));
  const down = link.shutdown(new RelayError("cancelled", "bye"));
  openings[0].resolve();
  await assert.rejects(waiting, (e: RelayError) => e.reason === "cancelled" && !e.written);
  await down;
  assert.equal(ended.length, 1, "closed once");
  assert.equal(link.links.size, 0);
  await assert.rejects(link.get(never), /shutting down/, "nothing opens after");
  assert.equal(openings.length, 1);
});

Deno.test("SharedLink: kill reaches a link still opening and stops further openings", async () => {
  const { link, openings } = rig();
  void link.get(never).catch(() => undefined);
  const killed: number[] = [];
  assert.equal(await link.kill((l) => Promise.resolve(void killed.push(l.id))), 1);
  assert.deepEqual(killed, [1]);
  assert.equal(link.stopped, true);
  openings[0].resolve();
  await assert.rejects(link.get(never), /shutting down/);
});
