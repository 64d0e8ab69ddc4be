/**
 * The method map (`src/codex/methods.ts`) is the one list of what the relay
 * sends: every method the code calls is in it, every method in it is called,
 * and a result arrives parsed (a malformed one fails as its parser says).
 */
import assert from "assert";
import {
  allowedMethods,
  isMethod,
  levelOf,
  MalformedResult,
  type Method,
  METHOD_NAMES,
  parseResult,
} from "../../src/codex/methods.ts";
import { RelayError } from "../../src/core/errors.ts";
import { type Session, typedCall } from "../../src/connect/connection.ts";

const SRC = new URL("../../src/", import.meta.url);

/** Every method name `src/` passes to a `call(...)`, with the modules that do. */
async function calledMethods(): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  const walk = async (dir: URL, prefix: string) => {
    for await (const entry of Deno.readDir(dir)) {
      if (entry.isDirectory) await walk(new URL(entry.name + "/", dir), prefix + entry.name + "/");
      else if (entry.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(new URL(entry.name, dir));
        for (const m of text.matchAll(/\bcall\(\s*"([^"]+)"/g)) {
          found.set(m[1], [...(found.get(m[1]) ?? []), prefix + entry.name]);
        }
      }
    }
  };
  await walk(SRC, "");
  return found;
}

Deno.test("methods: every method src/ calls is in the map, and every method of the map is called", async () => {
  const called = await calledMethods();
  const unknown = [...called].filter(([m]) => !isMethod(m)).map(([m, at]) => `${m} (${at})`);
  assert.deepEqual(unknown, [], "methods called but missing from the map");
  assert.deepEqual(
    METHOD_NAMES.filter((m) => !called.has(m)),
    [],
    "methods in the map (so allowed) that no code sends",
  );
});

Deno.test("methods: isMethod() knows the map's names and no other", () => {
  assert.equal(isMethod("thread/list"), true);
  for (
    const name of ["thread/goal/set", "initialize", "thread/archive", "toString", "constructor", ""]
  ) {
    assert.equal(isMethod(name), false, name);
  }
});

Deno.test("methods: each level adds its own methods, in the map's order", () => {
  const none = allowedMethods({ replyRead: false, turnStart: false });
  const all = allowedMethods({ replyRead: true, turnStart: true });
  assert.deepEqual([...all], [...METHOD_NAMES], "both flags allow every method of the map");
  for (const method of METHOD_NAMES) {
    const level = levelOf(method);
    assert.equal(none.has(method), level === "queue", method);
    const only = level === "queue" ? none : allowedMethods({
      replyRead: level === "replyRead",
      turnStart: level === "turnStart",
    });
    assert.ok(only.has(method), `${method} at its level ${level}`);
  }
});

Deno.test("parseResult(): a result arrives parsed: relied-on fields kept, the rest dropped", () => {
  const thread = { id: "t1", name: null, status: { type: "idle" }, updatedAt: 5, cwd: "/w" };
  const page = parseResult("thread/list", {
    data: [{ ...thread, preview: "x" }],
    nextCursor: null,
    backwardsCursor: "b",
  });
  assert.deepEqual(page, {
    data: [{
      id: "t1",
      name: null,
      status: "idle",
      updatedAt: 5,
      cwd: "/w",
      activeFlags: [],
      parentThreadId: null,
    }],
    nextCursor: null,
  });
  // A reviewer's turn names the review's turn R; its thread the thread reviewed for (captures 46).
  const turns = (rootTurnId?: unknown) =>
    parseResult("thread/turns/list", { data: [{ id: "u", status: "completed", rootTurnId }] })
      .data[0].rootTurnId;
  assert.deepEqual([turns("r"), turns(undefined), turns(5)], ["r", null, null]);
  assert.equal(
    parseResult("thread/list", { data: [{ ...thread, parentThreadId: "p1" }] }).data[0]
      .parentThreadId,
    "p1",
  );
  const active = { ...thread, status: { type: "active", activeFlags: ["waitingOnApproval", 3] } };
  assert.deepEqual(parseResult("thread/list", { data: [active] }).data[0].activeFlags, [
    "waitingOnApproval",
  ]);
  assert.deepEqual(
    parseResult("thread/list", { data: [{ ...thread, cwd: 7 }] }).data[0].cwd,
    null,
  );
  assert.deepEqual(parseResult("config/read", { config: { sandbox_mode: "read-only" } }), {
    config: { sandbox_mode: "read-only" },
  });
  assert.equal(parseResult("thread/queue/start", { turn: { id: "u" } }), undefined);
  assert.equal(parseResult("turn/steer", { turnId: "t7" }), "t7");
  assert.equal(parseResult("turn/start", { turn: { id: "t8" } }), "t8");
  assert.equal(parseResult("review/start", { turn: { id: "t9" }, reviewThreadId: "r" }), "t9");
  assert.deepEqual(parseResult("account/read", { account: null, requiresOpenaiAuth: true }), {
    accountType: null,
    requiresOpenaiAuth: true,
  });
  assert.deepEqual(parseResult("account/read", { account: { type: "apiKey" } }), {
    accountType: "apiKey",
    requiresOpenaiAuth: null,
  });
  assert.deepEqual(parseResult("account/read", "odd"), {
    accountType: null,
    requiresOpenaiAuth: null,
  });
});

Deno.test("parseResult(): a malformed result is protocol_error with its parser's message, not written", () => {
  const cases: [Method, unknown, string][] = [
    ["thread/list", { data: {} }, "Unexpected app-server result: thread/list data is not an array"],
    ["thread/queue/add", {}, "Unexpected app-server result: queued submission is not an object"],
    [
      "thread/queue/delete",
      { deleted: "yes" },
      "Unexpected app-server result: thread/queue/delete deleted is not a boolean",
    ],
    [
      "fs/getMetadata",
      null,
      "Unexpected app-server result: fs/getMetadata result is not an object",
    ],
    [
      "thread/read",
      { thread: { cwd: "" } },
      "Unexpected app-server result: thread/read thread.cwd is empty",
    ],
    ["config/read", { config: null }, "config/read returned no config object"],
    ["turn/steer", { turnId: 7 }, "Unexpected app-server result: turnId is not a string"],
    ["turn/steer", null, "Unexpected app-server result: turnId is not a string"],
    ["turn/start", { turn: { id: 7 } }, "Unexpected app-server result: turn.id is not a string"],
    ["review/start", null, "Unexpected app-server result: turn.id is not a string"],
  ];
  for (const [method, value, message] of cases) {
    assert.throws(
      () => parseResult(method, value),
      (e: unknown) =>
        e instanceof MalformedResult && e instanceof RelayError && e.name === "RelayError" &&
        e.reason === "protocol_error" &&
        e.written === false && e.message === message && e.cause instanceof Error,
      method,
    );
  }
});

Deno.test("typedCall(): a backend's raw answer reaches the caller parsed; a refusal passes through", async () => {
  const sent: [string, unknown][] = [];
  const session: Session = {
    call: typedCall((method, params) => {
      sent.push([method, params]);
      if (method === "thread/unsubscribe") {
        return Promise.reject(new RelayError("not_allowed", "refused", { written: false }));
      }
      return Promise.resolve({ isDirectory: false, size: 3 });
    }),
    signal: new AbortController().signal,
    remainingMs: () => 1_000,
  };
  assert.deepEqual(await session.call("fs/getMetadata", { path: "/x" }), { isDirectory: false });
  await assert.rejects(
    session.call("thread/unsubscribe", { threadId: "t" }),
    (e: unknown) => e instanceof RelayError && !(e instanceof MalformedResult),
  );
  await assert.rejects(session.call("thread/start", { cwd: "/x" }), MalformedResult);
  assert.deepEqual(sent, [
    ["fs/getMetadata", { path: "/x" }],
    ["thread/unsubscribe", { threadId: "t" }],
    ["thread/start", { cwd: "/x" }],
  ]);
});
