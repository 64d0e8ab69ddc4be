/**
 * Issue 31, edge 4: a message over the 4 MiB bound is answered by its
 * top-level id wherever it lies (src/host/line_scan.ts, a streaming scan that
 * keeps nothing of the line), or with `id: null` when none can be told; a
 * notification or a response gets no answer.
 */

import assert from "node:assert/strict";
import { LineScan, scanLine } from "../../src/host/line_scan.ts";
import { LineStdioTransport, MAX_MESSAGE_BYTES } from "../../src/host/stdio_transport.ts";
import { silentLogger } from "../../src/core/log.ts";

const enc = new TextEncoder();

Deno.test("scanLine() takes the top-level id wherever it lies, never a nested one or one inside a string", () => {
  const pad = "p".repeat(3000);
  assert.deepEqual(scanLine(`{"method":"x","params":{"a":"${pad}"},"id":42,"z":"${pad}"}`), {
    answer: true,
    id: 42,
  });
  assert.deepEqual(
    scanLine(`{"method":"x","params":{"id":1,"deep":[{"id":2}]},"id":"top"}`),
    { answer: true, id: "top" },
    "nested ids are skipped",
  );
  assert.deepEqual(
    scanLine(`{"method":"x","params":{"text":"\\"id\\":5,"},"note":"{\\"id\\":6}"}`),
    { answer: false },
    '"id" inside strings is text: a notification',
  );
  assert.deepEqual(
    scanLine(`{"params":{"t":"},\\"id\\":9,{"},"method":"x","id":3}`),
    { answer: true, id: 3 },
    "braces and quotes inside strings do not end anything",
  );
  assert.deepEqual(scanLine(`{"\\u0069d":"escaped","method":"x"}`), {
    answer: true,
    id: "escaped",
  });
  assert.deepEqual(scanLine(`{"id":1,"method":"x","id":2}`), { answer: true, id: 2 }, "the last");
  assert.deepEqual(scanLine(`  { "jsonrpc" : "2.0" , "id" : -12 , "method":"x" }\r`), {
    answer: true,
    id: -12,
  });
});

Deno.test("scanLine() answers with id null when no id can be told, and not at all a notification or a response", () => {
  const nullId = { answer: true, id: null };
  assert.deepEqual(scanLine(`{"method":"x","params":{"id":1}}`), { answer: false }, "notification");
  assert.deepEqual(scanLine(`{"id":1,"result":{"id":2}}`), { answer: false }, "response");
  assert.deepEqual(scanLine(`{"id":1,"error":{}}`), { answer: false }, "error response");
  assert.deepEqual(scanLine(`{"method":"x","id":{"a":1}}`), nullId, "an object id");
  assert.deepEqual(scanLine(`{"method":"x","id":true}`), nullId);
  assert.deepEqual(scanLine(`{"method":"x","id":"bad\\u12"}`), nullId, "not JSON");
  assert.deepEqual(scanLine(`{"method":"x","id":9007199254740993}`), nullId, "not exact");
  assert.deepEqual(scanLine(`{"method":"x","id":1e3}`), nullId, "not as written");
  assert.deepEqual(scanLine(`{"method":"x","id":"${"q".repeat(1100)}"}`), nullId, "too long");
  assert.deepEqual(scanLine(`{"method":"x","id":"${"q".repeat(1000)}"}`), {
    answer: true,
    id: "q".repeat(1000),
  });
  assert.deepEqual(scanLine(`{"params":{}}`), nullId, "neither request nor notification");
  assert.deepEqual(scanLine(`{"method":"x","id":1`), nullId, "cut short");
  assert.deepEqual(scanLine(`{"method":"x","id":1} x`), nullId, "text after the object");
  assert.deepEqual(scanLine(`[{"method":"x","id":1}]`), nullId, "a batch");
  assert.deepEqual(scanLine(`{"method":"x",}`), nullId, "a trailing comma");
  assert.deepEqual(scanLine(`{"method" "x"}`), nullId, "no colon");
  assert.deepEqual(scanLine(`{}`), nullId);
  assert.deepEqual(scanLine(``), nullId);
});

Deno.test("LineScan gives the same verdict whatever the chunks", () => {
  const line =
    `{"jsonrpc":"2.0","params":{"a":"x\\\\\\"y","id":[1,{"id":2}]},"id":"é-7","method":"m"}`;
  const bytes = enc.encode(line);
  for (let size = 1; size <= bytes.length; size++) {
    const scan = new LineScan();
    for (let i = 0; i < bytes.length; i += size) scan.push(bytes.subarray(i, i + size));
    assert.deepEqual(scan.verdict(), { answer: true, id: "é-7" }, `chunks of ${size}`);
  }
});

/** The answers the transport writes for `lines`, at its own 4 MiB bound. */
async function answersAtBound(lines: Uint8Array[]): Promise<Record<string, unknown>[]> {
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const line of lines) {
        for (let i = 0; i < line.length; i += 65_536) c.enqueue(line.subarray(i, i + 65_536));
      }
      c.close();
    },
  });
  const written: string[] = [];
  const output = new WritableStream<Uint8Array>({
    write: (b) => void written.push(new TextDecoder().decode(b)),
  });
  const t = new LineStdioTransport({ input, output, log: silentLogger });
  const passed: unknown[] = [];
  t.onmessage = (m) => void passed.push(m);
  const ended = new Promise<void>((resolve) => (t.oninputend = resolve));
  await t.start();
  await ended;
  await t.send({ jsonrpc: "2.0", method: "flushed" });
  written.pop();
  return [...passed.map((m) => ({ passed: m })), ...written.map((l) => JSON.parse(l))];
}

/** A request line of exactly `bytes` bytes with its top-level id in its middle. */
function middleIdLine(bytes: number, id: string): Uint8Array {
  const shell = (a: string, b: string) =>
    `{"jsonrpc":"2.0","params":{"a":"${a}"},"id":"${id}","method":"tools/call${b}"}`;
  const room = bytes - shell("", "").length;
  const half = Math.floor(room / 2);
  const line = shell("a".repeat(half), "b".repeat(room - half));
  // The id sits past the first KiB and before the last KiB: neither end shows it.
  assert.ok(line.indexOf(`"id"`) > 1024 && line.length - line.indexOf(`"id"`) > 1024);
  return enc.encode(line + "\n");
}

Deno.test(`stdio: at ${MAX_MESSAGE_BYTES} bytes a request is served; one byte more, with its id in the middle, it is answered by that id`, async () => {
  const at = middleIdLine(MAX_MESSAGE_BYTES, "at");
  const over = middleIdLine(MAX_MESSAGE_BYTES + 1, "over");
  const out = await answersAtBound([at, over]);
  assert.equal(out.length, 2);
  assert.equal((out[0].passed as { id: string }).id, "at", "the message at the bound is passed on");
  assert.deepEqual(out[1], {
    jsonrpc: "2.0",
    id: "over",
    error: {
      code: -32600,
      message: `Invalid request: the message is ${
        MAX_MESSAGE_BYTES + 1
      } bytes, over codex-relay's limit of ${MAX_MESSAGE_BYTES} bytes`,
      data: { limitBytes: MAX_MESSAGE_BYTES },
    },
  });
});

Deno.test("stdio: past the bound, an id only nested in params is no id (a notification: no answer); a line cut short is answered with id null", async () => {
  const pad = "n".repeat(MAX_MESSAGE_BYTES);
  const nested = enc.encode(`{"jsonrpc":"2.0","method":"x","params":{"id":5,"p":"${pad}"}}\n`);
  const quoted = enc.encode(`{"jsonrpc":"2.0","method":"x","params":{"p":"\\"id\\":6,${pad}"}}\n`);
  const cut = enc.encode(`{"jsonrpc":"2.0","method":"x","params":{"p":"${pad}\n`);
  const out = await answersAtBound([nested, quoted, cut]);
  assert.deepEqual(out.map((a) => a.id), [null]);
  assert.match(String((out[0].error as { message: string }).message), /over codex-relay's limit/);
});
