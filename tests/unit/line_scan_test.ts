/**
 * Issue 31, edge 4: a message over the 4 MiB bound is answered by its
 * top-level id wherever it lies (src/host/line_scan.ts, a streaming scan that
 * keeps nothing of the line), or with `id: null` when none can be told; a
 * notification or a response gets no answer. Through the transport, at its
 * bound: stdio_oversized_test.ts.
 */

import assert from "node:assert/strict";
import { LineScan, type LineVerdict } from "../../src/host/line_scan.ts";

/** The verdict on a whole line, pushed as one chunk. */
function scanLine(text: string): LineVerdict {
  const scan = new LineScan();
  scan.push(new TextEncoder().encode(text));
  return scan.verdict();
}

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

Deno.test("scanLine() reads JSON's four whitespace bytes between tokens, and skips a top-level array value whole", () => {
  assert.deepEqual(scanLine(`{\t"id"\n:\r7 ,\t"method" : "x"\n}`), { answer: true, id: 7 });
  assert.deepEqual(
    scanLine(`{"method":"x","params":["a,b","}",[{"c":"]"}]],"id":8}`),
    { answer: true, id: 8 },
    "commas, braces and brackets inside a top-level array are not the object's",
  );
});

Deno.test("scanLine() answers id null for a value that starts with , } : or ]", () => {
  const nullId = { answer: true, id: null };
  for (const line of [`,}`, `}}`, `:1}`, `]}`]) {
    assert.deepEqual(scanLine(`{"method":"x","a":${line}`), nullId, line);
  }
});

Deno.test("scanLine() takes the last top-level id even when it cannot be echoed", () => {
  const nullId = { answer: true, id: null };
  assert.deepEqual(scanLine(`{"id":1,"method":"x","id":{"a":1}}`), nullId, "an object");
  assert.deepEqual(scanLine(`{"id":1,"method":"x","id":[1]}`), nullId, "an array");
  assert.deepEqual(scanLine(`{"id":1,"method":"x","id":"${"q".repeat(1100)}"}`), nullId, "long");
  assert.deepEqual(scanLine(`{"id":1,"method":"x","id":${"9".repeat(1100)}}`), nullId, "long");
});

Deno.test("scanLine() keeps an id of up to 1024 bytes as written, and a long key is no id", () => {
  // 1022 characters and the two quotes: 1024 bytes.
  assert.deepEqual(scanLine(`{"method":"x","id":"${"q".repeat(1022)}"}`), {
    answer: true,
    id: "q".repeat(1022),
  });
  assert.deepEqual(scanLine(`{"method":"x","id":"${"q".repeat(1023)}"}`), {
    answer: true,
    id: null,
  });
  assert.deepEqual(scanLine(`{"id":1,"${"k".repeat(2000)}":2,"method":"x"}`), {
    answer: true,
    id: 1,
  });
  assert.deepEqual(scanLine(`{"${"k".repeat(2000)}":2,"method":"x"}`), { answer: false });
});

Deno.test("scanLine(): a method with an id is a request even beside result or error; result or error alone is a response", () => {
  assert.deepEqual(scanLine(`{"id":1,"method":"x","result":1}`), { answer: true, id: 1 });
  assert.deepEqual(scanLine(`{"id":2,"method":"x","error":{}}`), { answer: true, id: 2 });
  assert.deepEqual(scanLine(`{"result":1}`), { answer: false });
  assert.deepEqual(scanLine(`{"error":{}}`), { answer: false });
});

Deno.test("scanLine() answers id null for a line that is not one whole object, however close", () => {
  const nullId = { answer: true, id: null };
  for (
    const line of [
      `x"method":"x","id":1}`,
      `{id":1,"method":"x"}`,
      `{,"method":"x","id":1}`,
      `{"method":"x",,"id":1}`,
      `{"method":"x","id":1 x`,
      `{"method":"x","id":1,`,
      `{"id":1,"method":"x"`,
    ]
  ) assert.deepEqual(scanLine(line), nullId, line);
});

Deno.test("scanLine(): an empty key is a key; an id without a method is still answered by it", () => {
  assert.deepEqual(scanLine(`{"":0,"id":1,"method":"x"}`), { answer: true, id: 1 });
  assert.deepEqual(scanLine(`{"id":1}`), { answer: true, id: 1 });
});

Deno.test("scanLine() finds a request's top-level id anywhere, and nothing else", () => {
  const id = (text: string) => scanLine(text);
  assert.deepEqual(id('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{}}'), {
    answer: true,
    id: 5,
  });
  assert.deepEqual(id('{"id":"a\\"b","method":"x"}'), { answer: true, id: 'a"b' });
  assert.deepEqual(id('{"method":"tools/call","params":{"x":""},"jsonrpc":"2.0","id":"r-9"}'), {
    answer: true,
    id: "r-9",
  });
  assert.deepEqual(id('{"method":"x","params":{"a":{"id":3}}}'), { answer: false }, "nested");
  assert.deepEqual(id('{"jsonrpc":"2.0","id":5,"result":{}}'), { answer: false }, "a response");
  assert.deepEqual(id("xxxxxxxx"), { answer: true, id: null }, "not JSON: id null");
  assert.deepEqual(id('{"id":null,"method":"x"}'), { answer: true, id: null });
});
