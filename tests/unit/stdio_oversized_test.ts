/**
 * Issue 31, edge 4, through the transport: a message over the 4 MiB bound is
 * answered by its top-level id wherever it lies (the scan itself:
 * line_scan_test.ts), or with `id: null` when none can be told; a
 * notification gets no answer.
 */

import assert from "node:assert/strict";
import { LineStdioTransport, MAX_MESSAGE_BYTES } from "../../src/host/stdio_transport.ts";
import { silentLogger } from "../../src/core/log.ts";

const enc = new TextEncoder();

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
