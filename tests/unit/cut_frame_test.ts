/**
 * A frame from the app-server over the frame bound (issue 46, item 2): the line reader (spawn) and
 * the WebSocket skipper (daemon) skip it unbuffered and go on with the next; what the relay tells
 * from its ends.
 */

import assert from "assert";
import { readLines } from "../../src/connect/spawn/line_reader.ts";
import { classifyCut, CUT_KEEP_BYTES, type CutFrame } from "../../src/connect/cut_frame.ts";
import { WsSkipper } from "../../src/connect/daemon/ws_skip.ts";

const enc = new TextEncoder();

/** A stream of `parts` (strings, or generated runs of `x` of a length), cut into `chunk`-byte reads. */
function stream(parts: (string | number)[], chunk: number): ReadableStream<Uint8Array> {
  const filler = new Uint8Array(chunk).fill(0x78);
  let i = 0;
  let left = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (left === 0 && i < parts.length && typeof parts[i] === "number") {
        left = parts[i++] as number;
      }
      if (left > 0) {
        const n = Math.min(left, chunk);
        left -= n;
        return c.enqueue(n === chunk ? filler : filler.subarray(0, n)); // One buffer, never copied.
      }
      if (i === parts.length) return c.close();
      const bytes = enc.encode(parts[i++] as string);
      for (let at = 0; at < bytes.length; at += chunk) c.enqueue(bytes.slice(at, at + chunk));
    },
  }, { highWaterMark: 0 });
}

async function all(s: ReadableStream<Uint8Array>, max: number): Promise<(string | CutFrame)[]> {
  const out: (string | CutFrame)[] = [];
  for await (const line of readLines(s, max)) out.push(line);
  return out;
}

const HEAD =
  '{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"call_9",' +
  '"commandActions":[{"type":"unknown"}],"aggregatedOutput":"';
const TAIL = '"},"threadId":"th-1","turnId":"tu-1","completedAtMs":1}}';

Deno.test("readLines skips a line over the bound and reads the lines after it; a line at the bound passes", async () => {
  for (const chunk of [1, 7, 4096, 65536]) {
    const at = "a".repeat(100);
    const over = 20_000;
    const lines = await all(stream([`${at}\n`, HEAD, over, TAIL + "\n", "next\n"], chunk), 100);
    assert.equal(lines.length, 3, `chunk ${chunk}`);
    assert.equal(lines[0], at);
    const cut = lines[1] as CutFrame;
    assert.equal(cut.bytes, HEAD.length + over + TAIL.length);
    assert.equal(cut.head, (HEAD + "x".repeat(CUT_KEEP_BYTES)).slice(0, CUT_KEEP_BYTES));
    assert.equal(cut.tail, ("x".repeat(CUT_KEEP_BYTES) + TAIL).slice(-CUT_KEEP_BYTES));
    assert.equal(lines[2], "next", `chunk ${chunk}: the connection goes on`);
  }
});

Deno.test("readLines skips a 256 MiB line without buffering it (memory stays far below it)", async () => {
  const before = Deno.memoryUsage().rss;
  const lines = await all(
    stream([HEAD, 256 * 1024 * 1024, TAIL + "\n", "after\n"], 65536),
    1 << 20,
  );
  const grown = Deno.memoryUsage().rss - before;
  assert.equal((lines[0] as CutFrame).bytes, HEAD.length + 256 * 1024 * 1024 + TAIL.length);
  assert.equal(lines[1], "after");
  assert.ok(grown < 64 * 1024 * 1024, `RSS grew ${grown} bytes`);
});

Deno.test("classifyCut tells a notification (method, item, thread, turn), an answer by its id, and a server request", () => {
  const note = classifyCut({ bytes: 3e6, head: HEAD + "xxxx", tail: "xxxx" + TAIL });
  assert.deepEqual(note, {
    kind: "notification",
    notice: {
      method: "item/completed",
      bytes: 3e6,
      threadId: "th-1",
      turnId: "tu-1",
      itemType: "commandExecution",
      itemId: "call_9",
    },
  });
  assert.deepEqual(classifyCut({ bytes: 3e6, head: '{"id":17,"result":{"data":[', tail: "]}}" }), {
    kind: "response",
    id: 17,
  });
  assert.deepEqual(classifyCut({ bytes: 3e6, head: '{"id":"a-1","error":{', tail: "}}" }), {
    kind: "response",
    id: "a-1",
  });
  for (
    const head of [
      '{"method":"item/x/requestApproval","id":3,"params":{',
      '{"id":3,"method":"x"',
      "xx",
    ]
  ) {
    assert.deepEqual(classifyCut({ bytes: 3e6, head, tail: "}}" }), { kind: "unknown" }, head);
  }
});

/** A server frame (unmasked): FIN + `opcode`, the payload's length in 7, 16 or 64 bits. */
function wsFrame(opcode: number, payload: Uint8Array): Uint8Array {
  const n = payload.length;
  const head = n < 126 ? [0x80 | opcode, n] : n < 65536 ? [0x80 | opcode, 126, n >> 8, n & 0xff] : [
    0x80 | opcode,
    127,
    0,
    0,
    0,
    0,
    (n >>> 24) & 0xff,
    (n >> 16) & 0xff,
    (n >> 8) & 0xff,
    n & 0xff,
  ];
  return Uint8Array.of(...head, ...payload);
}

Deno.test("WsSkipper drops a whole text message over the bound (16- and 64-bit lengths), in any chunking; the rest passes byte for byte", () => {
  const http = enc.encode("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\n");
  const small = wsFrame(1, enc.encode('{"id":1,"result":{}}'));
  const ping = wsFrame(9, enc.encode("p"));
  const mid = enc.encode(HEAD + "x".repeat(300) + TAIL);
  const big = enc.encode(HEAD + "x".repeat(70_000) + TAIL);
  const atBound = wsFrame(1, enc.encode(`{"p":"${"x".repeat(248)}"}`)); // 256 bytes: passes
  const stream = [http, small, wsFrame(1, mid), ping, atBound, wsFrame(1, big), small];
  const all = new Uint8Array(stream.reduce((n, b) => n + b.length, 0));
  stream.reduce((at, b) => (all.set(b, at), at + b.length), 0);
  const kept = [http, small, ping, atBound, small];
  const expected = Uint8Array.from(kept.flatMap((b) => [...b]));
  for (const chunk of [1, 2, 5, 13, 4096, all.length]) {
    const skip = new WsSkipper(256);
    const passed: number[] = [];
    const cuts: CutFrame[] = [];
    for (let at = 0; at < all.length; at += chunk) {
      for (const part of skip.push(all.subarray(at, at + chunk))) {
        if (part instanceof Uint8Array) passed.push(...part);
        else cuts.push(part);
      }
    }
    assert.deepEqual(Uint8Array.from(passed), expected, `chunk ${chunk}`);
    assert.deepEqual(cuts.map((c) => c.bytes), [mid.length, big.length], `chunk ${chunk}`);
    assert.equal(classifyCut(cuts[1]).kind, "notification");
  }
});
