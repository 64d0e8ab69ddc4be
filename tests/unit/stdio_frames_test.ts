import assert from "assert";
import {
  LineStdioTransport,
  MAX_MESSAGE_BYTES,
  SHUT_DOWN,
} from "../../src/host/stdio_transport.ts";
import { WireBudget } from "../../src/host/wire_budget.ts";
import { silentLogger } from "../../src/core/log.ts";

/** Runs the transport over `chunks` to stdin EOF; what it passed on, wrote, and logged. */
async function run(
  chunks: string[],
  options: { maxMessageBytes?: number; budget?: WireBudget } = {},
) {
  const enc = new TextEncoder();
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  });
  const lines: string[] = [];
  const output = new WritableStream<Uint8Array>({
    write: (b) => void lines.push(new TextDecoder().decode(b)),
  });
  const logged: [string, Record<string, unknown> | undefined][] = [];
  const log = {
    ...silentLogger,
    warn: (event: string, fields?: Record<string, unknown>) => void logged.push([event, fields]),
  };
  const t = new LineStdioTransport({ input, output, log, ...options });
  const messages: unknown[] = [];
  const ended = new Promise<void>((resolve) => (t.oninputend = resolve));
  t.onmessage = (m) => void messages.push(m);
  await t.start();
  await ended;
  // Written in order: once this notification is out, every earlier line is.
  await t.send({ jsonrpc: "2.0", method: "flushed" });
  lines.pop();
  return { t, messages, lines, answers: () => lines.map((l) => JSON.parse(l)), logged };
}

const request = (id: unknown, method = "tools/list") =>
  JSON.stringify({ jsonrpc: "2.0", id, method });

Deno.test("stdio: a line that is not JSON, a batch, an id of null: each gets the spec's error, by itself, and serving goes on", async () => {
  const r = await run([
    "not json\n",
    `[${request(1)}]\n`,
    `{"jsonrpc":"2.0","id":null,"method":"x"}\n`,
    `{"jsonrpc":"2.0","id":7}\n`,
    `{"jsonrpc":"1.0","id":8,"method":"x"}\n`,
    `${request(2)}\n`,
  ]);
  assert.deepEqual(r.answers(), [
    {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32700, message: "Parse error: the message is not JSON" },
    },
    {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: "Invalid request: codex-relay does not support batches" },
    },
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: "Invalid request: the id must be a string or a number, not null",
      },
    },
    {
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32600,
        message: "Invalid request: not a JSON-RPC 2.0 request or notification",
      },
    },
    {
      jsonrpc: "2.0",
      id: 8,
      error: {
        code: -32600,
        message: "Invalid request: not a JSON-RPC 2.0 request or notification",
      },
    },
  ]);
  assert.deepEqual(r.messages, [{ jsonrpc: "2.0", id: 2, method: "tools/list" }]);
  assert.deepEqual(r.logged.map(([e, f]) => [e, f?.why]), [
    ["mcp message refused", "not JSON"],
    ["mcp message refused", "batch"],
    ["mcp message refused", "id null"],
    ["mcp message refused", "invalid request"],
    ["mcp message refused", "invalid request"],
  ]);
  assert.equal(r.logged[0][1]?.bytes, 8);
  assert.equal(r.t.budget.unanswered, 1, "only the request passed on is owed");
});

Deno.test("stdio: a malformed response is dropped unanswered; CRLF lines and blank lines are fine; odd ids are not answered by them", async () => {
  const r = await run([
    `{"jsonrpc":"2.0","result":{}}\n`,
    `{"jsonrpc":"2.0","error":{"code":1}}\n`,
    `${request(3)}\r\n`,
    "\r\n   \n",
    `{"jsonrpc":"2.0","id":{"a":1},"method":7}\n`,
    `{"jsonrpc":"2.0","id":1e999,"method":7}\n`,
    `{"jsonrpc":"2.0","method":"x","result":1}\n`,
    "5\n",
  ]);
  assert.deepEqual(r.messages, [{ jsonrpc: "2.0", id: 3, method: "tools/list" }]);
  assert.deepEqual(r.answers().map((a) => [a.id, a.error.code]), [[null, -32600], [null, -32600], [
    null,
    -32600,
  ], [null, -32600]]);
  assert.deepEqual(r.logged.slice(0, 2).map(([, f]) => f?.why), [
    "malformed response",
    "malformed response",
  ]);
});

Deno.test("stdio: notifications/cancelled withdraws the owed answer, only for an id it can use", async () => {
  const cancel = (requestId: unknown) =>
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
  const r = await run([
    `${request(1)}\n${request(2)}\n${request("3")}\n`,
    `${cancel(1)}\n${cancel(null)}\n${cancel(3)}\n`,
    `{"jsonrpc":"2.0","method":"notifications/cancelled"}\n`,
    `{"jsonrpc":"2.0","method":"notifications/other","params":{"requestId":2}}\n`,
  ]);
  assert.equal(r.messages.length, 8, "the notifications pass on too");
  assert.deepEqual(r.t.budget.owed(), [2, "3"]);
  await r.t.send({ jsonrpc: "2.0", id: 1, result: {} });
  await r.t.send({ jsonrpc: "2.0", id: 2, result: {} });
  assert.deepEqual(r.answers().map((a) => a.id), [2], "the cancelled one's answer is not written");
});

Deno.test("stdio: an oversized line is refused by the id either end shows, with the bound in its data", async () => {
  const max = 64;
  const big = `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"x":"${
    "y".repeat(100)
  }"}}`;
  const tailId = `{"method":"tools/call","params":{"x":"${"y".repeat(100)}"},"id":9}`;
  const noId = `{"method":"tools/call","params":{"x":"${"y".repeat(100)}"}}`;
  const r = await run([
    big.slice(0, 50),
    big.slice(50) + "\n",
    tailId + "\n",
    noId + "\n",
    `${request(4)}\n`,
  ], {
    maxMessageBytes: max,
  });
  assert.deepEqual(r.answers(), [
    {
      jsonrpc: "2.0",
      id: "big",
      error: {
        code: -32600,
        message:
          `Invalid request: the message is ${big.length} bytes, over codex-relay's limit of 64 bytes`,
        data: { limitBytes: 64 },
      },
    },
    {
      jsonrpc: "2.0",
      id: 9,
      error: {
        code: -32600,
        message:
          `Invalid request: the message is ${tailId.length} bytes, over codex-relay's limit of 64 bytes`,
        data: { limitBytes: 64 },
      },
    },
  ]);
  assert.deepEqual(r.messages, [{ jsonrpc: "2.0", id: 4, method: "tools/list" }]);
  assert.deepEqual(r.logged.map(([, f]) => [f?.why, f?.bytes, f?.limitBytes, f?.answered]), [
    ["too large", big.length, 64, true],
    ["too large", tailId.length, 64, true],
    ["too large", noId.length, 64, false],
  ]);
});

Deno.test("stdio: the bound on one message is 4 MiB and can only be lowered", async () => {
  assert.equal(MAX_MESSAGE_BYTES, 4 * 1024 * 1024);
  const line = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"${
    "z".repeat(MAX_MESSAGE_BYTES)
  }"}}`;
  const r = await run([line + "\n"], { maxMessageBytes: MAX_MESSAGE_BYTES * 2 });
  assert.equal(r.messages.length, 0, "a higher bound is not taken");
  assert.equal(r.answers()[0].error.data.limitBytes, MAX_MESSAGE_BYTES);
});

Deno.test("stdio: at shutdown every owed request gets one shut-down error; a closed transport sends nothing", async () => {
  const r = await run([`${request(1)}\n${request(1)}\n${request("a")}\n`]);
  assert.equal(r.t.answerOwed(), 3);
  await r.t.idle();
  assert.equal(r.t.budget.unanswered, 0);
  assert.deepEqual(
    r.answers(),
    [1, 1, "a"].map((id) => ({
      jsonrpc: "2.0",
      id,
      error: { code: SHUT_DOWN, message: "codex-relay shut down before answering this request" },
    })),
  );
  assert.equal(SHUT_DOWN, -32000);
  assert.equal(r.t.answerOwed(), 0);
  let closed = 0;
  r.t.onclose = () => closed++;
  await r.t.close();
  await r.t.close();
  assert.equal(closed, 1);
  await assert.rejects(() => r.t.send({ jsonrpc: "2.0", method: "x" }), /closed/);
  await assert.rejects(() => r.t.start(), /already started/);
});

Deno.test("stdio: an oversized line of many KiB in many chunks is answered by its top-level id at its start or its very end, never by a nested one", async () => {
  const pad = "y".repeat(5000);
  const head = `{"jsonrpc":"2.0","id":"${
    "h".repeat(200)
  }","method":"tools/call","params":{"x":"${pad}"}}`;
  const tail = `{"method":"tools/call","params":{"x":"${pad}"},"jsonrpc":"2.0","id":"${
    "t".repeat(200)
  }"}`;
  const middle = `{"method":"tools/call","params":{"x":"${pad}","id":5,"y":"${pad}"}}`;
  const chunks = (line: string, size: number) => {
    const out: string[] = [];
    for (let i = 0; i < line.length; i += size) out.push(line.slice(i, i + size));
    return out;
  };
  for (const size of [7, 100, 3000]) {
    const r = await run([
      ...chunks(head + "\n", size),
      ...chunks(tail + "\n", size),
      ...chunks(middle + "\n", size),
      `${request(1)}\n`,
    ], { maxMessageBytes: 100 });
    assert.deepEqual(r.answers().map((a) => [a.id, a.error.message]), [
      [
        "h".repeat(200),
        `Invalid request: the message is ${head.length} bytes, over codex-relay's limit of 100 bytes`,
      ],
      [
        "t".repeat(200),
        `Invalid request: the message is ${tail.length} bytes, over codex-relay's limit of 100 bytes`,
      ],
    ], `chunks of ${size}`);
    assert.deepEqual(r.logged.map(([, f]) => f?.bytes), [head.length, tail.length, middle.length]);
    assert.deepEqual(r.messages, [{ jsonrpc: "2.0", id: 1, method: "tools/list" }]);
  }
});

Deno.test("stdio: a line split over many chunks is passed on whole, at exactly the bound", async () => {
  const line = `{"jsonrpc":"2.0","id":1,"method":"x","params":{"p":"${"z".repeat(300)}"}}`;
  const parts = [
    line.slice(0, 10),
    line.slice(10, 200),
    line.slice(200) + "\n" + request(2).slice(0, 5),
    request(2).slice(5) + "\n",
  ];
  const r = await run(parts, { maxMessageBytes: line.length });
  assert.deepEqual(r.messages.map((m) => (m as { id: number }).id), [1, 2]);
  assert.deepEqual(r.answers(), []);
});

Deno.test("stdio: reading stops between the lines of one chunk at the bound of unanswered requests", async () => {
  const enc = new TextEncoder();
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(enc.encode([1, 2, 3, 4, 5, 6].map((id) => request(id) + "\n").join("")));
      c.close();
    },
  });
  const paused = Promise.withResolvers<void>();
  const log = {
    ...silentLogger,
    debug: (event: string) => void (event === "stdin paused" && paused.resolve()),
  };
  const t = new LineStdioTransport({
    input,
    output: new WritableStream(),
    log,
    budget: new WireBudget(4, 1 << 20),
  });
  const ids: unknown[] = [];
  t.onmessage = (m) => void ids.push((m as { id: unknown }).id);
  const ended = new Promise<void>((resolve) => (t.oninputend = resolve));
  await t.start();
  await paused.promise;
  assert.deepEqual(ids, [1, 2, 3, 4], "the rest of the chunk waits");
  await t.send({ jsonrpc: "2.0", id: 1, result: {} });
  await t.send({ jsonrpc: "2.0", id: 2, result: {} });
  await t.send({ jsonrpc: "2.0", id: 3, result: {} });
  await ended;
  assert.deepEqual(ids, [1, 2, 3, 4, 5, 6]);
  await t.close();
});

Deno.test("stdio: a stdin that fails ends the input with a log line; a failed write reaches onerror", async () => {
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      c.error(new Error("EIO"));
    },
  });
  const logged: string[] = [];
  const log = { ...silentLogger, warn: (event: string) => void logged.push(event) };
  const output = new WritableStream<Uint8Array>({
    write: () => Promise.reject(new Error("EPIPE")),
  });
  const t = new LineStdioTransport({ input, output, log });
  const ended = new Promise<void>((resolve) => (t.oninputend = resolve));
  const errors: Error[] = [];
  t.onerror = (e) => void errors.push(e);
  await t.start();
  await ended;
  assert.deepEqual(logged, ["stdin failed"]);
  await assert.rejects(() => t.send({ jsonrpc: "2.0", method: "x" }), /EPIPE/);
  await t.idle();
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof Error);
  assert.match(errors[0].message, /EPIPE/);
  await t.close();
});

Deno.test("stdio: closing before start or before stdin ends reads nothing more and fires no input end", async () => {
  const early = new LineStdioTransport({
    input: new ReadableStream(),
    output: new WritableStream(),
    log: silentLogger,
  });
  await early.close();
  const pulls = { n: 0 };
  const input = new ReadableStream<Uint8Array>({
    pull: () => void pulls.n++,
  }, { highWaterMark: 0 });
  const t = new LineStdioTransport({ input, output: new WritableStream(), log: silentLogger });
  let ended = 0;
  t.oninputend = () => ended++;
  await t.start();
  await t.close();
  for (let i = 0; i < 10; i++) await Promise.resolve();
  assert.equal(ended, 0, "closed: no input end");
});

Deno.test("stdio: a request of the server goes out; every line ends with a newline; notifications are owed nothing", async () => {
  const r = await run([
    `{"jsonrpc":"2.0","method":"notifications/initialized"}\n${request(1)}\nnull\n${request(2)}\n`,
  ]);
  assert.deepEqual(
    r.messages.map((m) => (m as { id?: number }).id),
    [undefined, 1, 2],
    "null is refused, reading goes on",
  );
  assert.deepEqual(r.answers().map((a) => [a.id, a.error.code]), [[null, -32600]]);
  assert.deepEqual(r.t.budget.owed(), [1, 2]);
  await r.t.send({ jsonrpc: "2.0", id: 5, method: "elicitation/create", params: {} });
  assert.deepEqual(JSON.parse(r.lines.at(-1)!), {
    jsonrpc: "2.0",
    id: 5,
    method: "elicitation/create",
    params: {},
  });
  assert.ok(
    r.lines.every((l) => l.endsWith("\n") && l.indexOf("\n") === l.length - 1),
    "one line each",
  );
  assert.equal(r.t.answerOwed(), 2);
});

Deno.test("stdio: closing while a chunk's lines are read stops at the line it was closed on", async () => {
  const enc = new TextEncoder();
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(enc.encode(`${request(1)}\n${request(2)}\n${request(3)}\n`));
    },
  });
  const t = new LineStdioTransport({ input, output: new WritableStream(), log: silentLogger });
  const ids: unknown[] = [];
  const first = Promise.withResolvers<void>();
  t.onmessage = (m) => {
    ids.push((m as { id: unknown }).id);
    void t.close();
    first.resolve();
  };
  await t.start();
  await first.promise;
  for (let i = 0; i < 10; i++) await Promise.resolve();
  assert.deepEqual(ids, [1]);
});

Deno.test("stdio: an oversized request is answered wherever its method and id lie", async () => {
  const pad = "y".repeat(2000);
  // "method" starts at byte 1046: past the first KiB, and far from the end.
  const hidden = `{"id":7,"params":{"x":"${"y".repeat(1020)}"},"method":"x","z":"${pad}"}`;
  assert.equal(hidden.indexOf('"method"'), 1046);
  const shown = `{"id":8,"method" : "x","params":{"x":"${pad}"}}`;
  const r = await run([hidden.slice(0, 60), hidden.slice(60) + "\n", shown + "\n"], {
    maxMessageBytes: 100,
  });
  assert.deepEqual(r.answers().map((a) => a.id), [7, 8]);
  assert.deepEqual(r.logged.map(([, f]) => f?.answered), [true, true]);
});

Deno.test("stdio: a transport with no oninputend reaches stdin EOF without an error", async () => {
  const input = new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  const t = new LineStdioTransport({ input, output: new WritableStream(), log: silentLogger });
  await t.start();
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await t.close();
});
