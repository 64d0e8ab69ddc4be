import assert from "assert";
import { LISTED_SOURCE_KINDS } from "../../src/codex/types.ts";
import { RelayError } from "../../src/core/errors.ts";
import { type Connection, type Session, typedCall } from "../../src/connect/connection.ts";
import { resolveRef, resolveThread } from "../../src/ops/resolve_thread.ts";

const ID = (n: number) => `01a22a5b-0000-7000-8000-${String(n).padStart(12, "0")}`;
type Params = Record<string, unknown>;

/** A session whose `thread/list` pages are `pages` (names per page), chained by cursors. */
function listing(pages: (string | null)[][], fail?: RelayError | Error) {
  const calls: Params[] = [];
  const session: Session = {
    call: typedCall((method, params) => {
      assert.equal(method, "thread/list");
      calls.push(params as Params);
      if (fail) return Promise.reject(fail);
      const at = calls.length - 1;
      const base = pages.slice(0, at).reduce((n, p) => n + p.length, 0);
      return Promise.resolve({
        data: (pages[at] ?? []).map((name, i) => ({
          id: ID(base + i),
          name,
          status: { type: "notLoaded" },
          updatedAt: 1,
        })),
        nextCursor: at + 1 < pages.length ? `c${at + 1}` : null,
      });
    }),
    signal: new AbortController().signal,
    remainingMs: () => 10_000,
  };
  return { session, calls };
}

const reasonOf = (r: string | RelayError) => r instanceof RelayError ? r.reason : r;

Deno.test("resolveThread: an exact unique name on a later page is found, pages asked for by cursor", async () => {
  const l = listing([["a", null], ["b", "x"], ["c"]]);
  assert.equal(await resolveThread(l.session, "x"), ID(3));
  const sourceKinds = LISTED_SOURCE_KINDS;
  assert.deepEqual(l.calls, [{ limit: 100, sourceKinds }, {
    limit: 100,
    cursor: "c1",
    sourceKinds,
  }, {
    limit: 100,
    cursor: "c2",
    sourceKinds,
  }], "all pages were searched (threads of every listed source): another match could come later");
});

Deno.test("resolveThread: two threads of the name are ambiguous, found without reading further", async () => {
  const l = listing([["x"], ["x"], ["x"], ["y"]]);
  const r = await resolveThread(l.session, "x");
  assert.ok(r instanceof RelayError);
  assert.equal(r.reason, "ambiguous_name");
  assert.match(r.message, /^Several threads have this name\. Give the thread's id/);
  assert.equal(r.written, false);
  assert.equal(l.calls.length, 2);
  assert.equal(reasonOf(await resolveThread(listing([["x", "x"]]).session, "x")), "ambiguous_name");
});

Deno.test("resolveThread: no thread of the name is not found; past the 20-page bound it says where it looked", async () => {
  const all = listing([["a"], ["b"]]);
  const none = await resolveThread(all.session, "x");
  assert.ok(none instanceof RelayError && none.reason === "thread_not_found");
  assert.equal(
    none.message,
    "No thread has exactly this name. Give the thread's id (codex_list_threads lists them)",
  );
  const pages = (n: number) => Array.from({ length: n }, () => ["a"]);
  const at = listing(pages(20));
  assert.equal(reasonOf(await resolveThread(at.session, "x")), "thread_not_found");
  assert.equal(at.calls.length, 20, "at the bound: all 20 pages");
  const past = listing([...pages(20), ["x"]]);
  const beyond = await resolveThread(past.session, "x");
  assert.ok(beyond instanceof RelayError && beyond.reason === "thread_not_found");
  assert.equal(past.calls.length, 20, "one past the bound: never read");
  assert.match(
    beyond.message,
    /^No thread has exactly this name in the 2000 most recent threads\./,
  );
  const found = listing([...pages(19), ["x"], ["x"]]);
  assert.equal(await resolveThread(found.session, "x"), ID(19), "the 20th page is read");
});

Deno.test("resolveThread: a UUID is the id (lowercase), with nothing sent; a failed lookup wrote nothing", async () => {
  const l = listing([["x"]]);
  assert.equal(await resolveThread(l.session, ID(1).toUpperCase()), ID(1));
  assert.deepEqual(l.calls, []);
  const lost = new RelayError("timeout", "No answer", { written: true });
  const failed = await resolveThread(listing([], lost).session, "x");
  assert.ok(failed instanceof RelayError);
  assert.deepEqual([failed.reason, failed.message, failed.written], [
    "timeout",
    "No answer",
    false,
  ]);
  const odd = await resolveThread(listing([], new Error("bad")).session, "x");
  assert.ok(odd instanceof RelayError && odd.reason === "protocol_error" && !odd.written);
});

Deno.test("resolveRef: a UUID costs no operation; a name one labelled operation; its failure wrote nothing", async () => {
  const labels: unknown[] = [];
  const state: { fail?: Error } = {};
  const l = listing([["x"]]);
  const connection = {
    operation: (fn: (s: Session) => Promise<unknown>, options: { label?: string }) => {
      labels.push(options.label);
      return state.fail ? Promise.reject(state.fail) : fn(l.session);
    },
  } as unknown as Connection;
  const signal = new AbortController().signal;
  assert.equal(await resolveRef(connection, ID(5).toUpperCase(), signal), ID(5));
  assert.deepEqual(labels, []);
  assert.equal(await resolveRef(connection, "x", signal), ID(0));
  assert.deepEqual(labels, ["resolve"]);
  state.fail = new RelayError("busy", "Too many", { written: true });
  const busy = await resolveRef(connection, "x", signal);
  assert.ok(busy instanceof RelayError);
  assert.deepEqual([busy.reason, busy.message, busy.written], ["busy", "Too many", false]);
});
