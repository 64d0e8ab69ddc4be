/**
 * A frame from the app-server over the frame bound (issue 46, item 2): the line reader (spawn) and
 * the WebSocket skipper (daemon) skip it unbuffered and go on with the next; what the relay tells
 * from its ends.
 */

import assert from "assert";
import { readLines } from "../../src/connect/spawn/line_reader.ts";
import {
  classifyCut,
  CUT_KEEP_BYTES,
  type CutFrame,
  CutKeeper,
} from "../../src/connect/cut_frame.ts";
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

Deno.test("CutKeeper keeps the ends of a frame of many small pieces in bounded memory, and its own copy of them", () => {
  // Small pieces: each kept one would cost its object too (about 300 MiB if none were let go).
  const piece = new Uint8Array(256).fill(0x78);
  const before = Deno.memoryUsage().rss;
  const keep = new CutKeeper();
  keep.add(enc.encode(HEAD));
  for (let i = 0; i < 262144; i++) keep.add(piece);
  const grown = Deno.memoryUsage().rss - before;
  const reused = enc.encode(TAIL);
  keep.add(reused);
  reused.fill(0x20); // The reader reuses its buffer: what was kept stays.
  const cut = keep.frame();
  assert.equal(cut.bytes, HEAD.length + 262144 * 256 + TAIL.length);
  assert.equal(cut.tail, ("x".repeat(CUT_KEEP_BYTES) + TAIL).slice(-CUT_KEEP_BYTES));
  assert.ok(grown < 64 * 1024 * 1024, `RSS grew ${grown} bytes for a 64 MiB frame`);
});

Deno.test("classifyCut reads JSON with whitespace anywhere, and only at the frame's top level", () => {
  const spaced =
    ' \n{ "method" : "item/completed" , "params" : { "item" : { "type" : "commandExecution" , ' +
    '"id" : "call_9" , "aggregatedOutput" : "xx';
  const tail = 'xx" } , "threadId" : "th-1" , "turnId" : "tu-1" } }';
  assert.deepEqual(classifyCut({ bytes: 3e6, head: spaced, tail }), {
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
  assert.deepEqual(
    classifyCut({ bytes: 3e6, head: '\r\n { "id" : 17 , "result" : {', tail: "}" }),
    {
      kind: "response",
      id: 17,
    },
  );
  assert.deepEqual(
    classifyCut({ bytes: 3e6, head: '\t{ "method" : "x/y" , "id" : 4 , "params" : {', tail: "}}" }),
    { kind: "unknown" },
    "a server request, spaced",
  );
  // Nested look-alikes tell nothing: the kind is the top level's.
  const nested = '{"params":{"item":{"id":3,"result":{},"x":{"method":"item/completed","params":{';
  assert.deepEqual(classifyCut({ bytes: 3e6, head: nested, tail: "}}" }), { kind: "unknown" });
  const inNote =
    '{"method":"item/completed","params":{"item":{"id":"call_1","result":{"method":"a","id":1,';
  const note = classifyCut({ bytes: 3e6, head: inNote, tail: "}}}" });
  assert.equal(note.kind, "notification", "an answer-like item is still a notification");
});

Deno.test("classifyCut: a notification names only what its ends show: no thread, turn or item otherwise", () => {
  const bare = classifyCut({
    bytes: 3e6,
    head: '{"method":"thread/tokenUsage/updated","params":{"tokenUsage":{"x":"',
    tail: '"}}}',
  });
  assert.deepEqual(bare, {
    kind: "notification",
    notice: { method: "thread/tokenUsage/updated", bytes: 3e6 },
  });
  const noIds = classifyCut({
    bytes: 3e6,
    head: '{"method":"item/completed","params":{"item":{"aggregatedOutput":"',
    tail: '"}}}',
  });
  assert.deepEqual(noIds, {
    kind: "notification",
    notice: { method: "item/completed", bytes: 3e6 },
  });
  // The last threadId of the tail is the notification's own (an item's output may name others).
  const twice = classifyCut({
    bytes: 3e6,
    head: HEAD,
    tail: 'x \\"threadId\\":\\"fake\\" "threadId":"inner"},"threadId":"th-1","turnId":"tu-1"}}',
  });
  assert.equal(twice.kind === "notification" && twice.notice.threadId, "th-1");
});

/** A masked frame (as a client sends): its 4-byte key after the length. */
function masked(opcode: number, payload: Uint8Array, fin = true): Uint8Array {
  const frame = wsFrame(opcode, payload);
  const at = payload.length < 126 ? 2 : payload.length < 65536 ? 4 : 10;
  const out = Uint8Array.of(...frame.subarray(0, at), 1, 2, 3, 4, ...frame.subarray(at));
  out[0] = (fin ? 0x80 : 0) | opcode;
  out[1] |= 0x80;
  return out;
}

function through(skip: WsSkipper, bytes: Uint8Array, chunk: number) {
  const passed: number[] = [];
  const cuts: CutFrame[] = [];
  for (let at = 0; at < bytes.length; at += chunk) {
    for (const part of skip.push(bytes.subarray(at, at + chunk))) {
      if (part instanceof Uint8Array) passed.push(...part);
      else cuts.push(part);
    }
  }
  return { passed: Uint8Array.from(passed), cuts };
}

const join = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));

Deno.test("WsSkipper: only a whole text message is cut; binary, fragmented and masked frames are counted right and pass", () => {
  const http = enc.encode("HTTP/1.1 101 Switching Protocols\r\n\r\n");
  const big = enc.encode(HEAD + "x".repeat(1000) + TAIL);
  const binary = wsFrame(2, big);
  const first = masked(1, big, false); // A fragment: the driver's own bound decides.
  const last = wsFrame(0, enc.encode("}"));
  const smallMasked = masked(1, enc.encode('{"id":1,"result":{}}'));
  const bigMasked = masked(1, big);
  const after = wsFrame(1, big);
  for (const chunk of [1, 3, 4096]) {
    const { passed, cuts } = through(
      new WsSkipper(256),
      join(http, binary, first, last, smallMasked, bigMasked, after),
      chunk,
    );
    assert.deepEqual(passed, join(http, binary, first, last, smallMasked), `chunk ${chunk}`);
    assert.deepEqual(cuts.map((c) => c.bytes), [big.length, big.length], `chunk ${chunk}`);
    assert.equal(cuts[1].tail, new TextDecoder().decode(big), "the payload, not the mask key");
  }
});

Deno.test("WsSkipper: the upgrade answer ends at its first \\r\\n\\r\\n exactly, whatever comes before it", () => {
  const big = wsFrame(1, enc.encode(HEAD + "x".repeat(1000) + TAIL));
  const small = wsFrame(1, enc.encode("{}"));
  for (
    const answer of [
      "HTTP/1.1 101 Switching Protocols\r\nX: a\r\r\n\r\n",
      "HTTP/1.1 101 Switching Protocols\r\nX: a\n\r\nY: b\r\n\r\n",
      "HTTP/1.1 101 Switching Protocols\r\nX: \r\n\r\r\n\r\n",
    ]
  ) {
    const http = enc.encode(answer);
    for (const chunk of [1, 4096]) {
      const { passed, cuts } = through(new WsSkipper(256), join(http, big, small), chunk);
      assert.deepEqual(passed, join(http, small), JSON.stringify(answer));
      assert.equal(cuts.length, 1, JSON.stringify(answer));
    }
  }
});

/** A stream that hands out `parts` in one buffer it reuses, as a reader of a pipe may. */
function reusing(parts: string[]): ReadableStream<Uint8Array> {
  const buffer = new Uint8Array(64);
  return new ReadableStream<Uint8Array>({
    pull(c) {
      const next = parts.shift();
      if (next === undefined) return c.close();
      const bytes = enc.encode(next);
      buffer.fill(0);
      buffer.set(bytes);
      c.enqueue(buffer.subarray(0, bytes.length));
    },
  }, { highWaterMark: 0 });
}

Deno.test("readLines: a line at one byte over the bound is cut, however it is split; a reused read buffer is copied", async () => {
  for (const chunk of [1, 60, 4096]) {
    const over = "o".repeat(101);
    const lines = await all(stream([`${over}\n`, "next\n"], chunk), 100);
    assert.equal((lines[0] as CutFrame).bytes, 101, `chunk ${chunk}`);
    assert.equal(lines[1], "next");
  }
  assert.deepEqual(await all(reusing(["ab", "cd", "e\nf", "g\n"]), 100), ["abcde", "fg"]);
});

Deno.test("readLines: a line's \\r\\n ends it as \\n does; only the last \\r goes", async () => {
  const lines = await all(stream(["abc\r\n", "\rx\n", "d\r\r\n", "e\n"], 7), 100);
  assert.deepEqual(lines, ["abc", "\rx", "d\r", "e"]);
});

Deno.test("readLines: a stop ends the lines at once, the read in progress cancelled; after the lines, the stream is free", async () => {
  let cancelled = false;
  const silent = () =>
    new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(enc.encode("first\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
  const stop = new AbortController();
  const lines: (string | CutFrame)[] = [];
  for await (const line of readLines(silent(), 100, stop.signal)) {
    lines.push(line);
    stop.abort(); // The next read waits forever on a writer that says nothing: the stop ends it.
  }
  assert.deepEqual(lines, ["first"]);
  assert.ok(cancelled);

  const stopped = new AbortController();
  stopped.abort();
  const none: (string | CutFrame)[] = [];
  for await (const line of readLines(stream(["a\n"], 10), 100, stopped.signal)) none.push(line);
  assert.deepEqual(none, [], "stopped before: no line");

  const s = stream(["a\n", "b\n"], 10);
  const later = new AbortController();
  for await (const _ of readLines(s, 100, later.signal)) break;
  assert.equal(s.locked, false, "released when the lines end");
  later.abort();
  const reader = s.getReader();
  assert.deepEqual(new TextDecoder().decode((await reader.read()).value), "b\n");
  reader.releaseLock();
});
