import assert from "assert";
import { LineStdioTransport, sniffId } from "../../src/host/stdio_transport.ts";
import { silentLogger } from "../../src/core/log.ts";

/** Runs the transport over `chunks` (split as given) and collects what it passes on and answers. */
async function run(chunks: string[], maxMessageBytes: number) {
  const enc = new TextEncoder();
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  });
  const written: string[] = [];
  const output = new WritableStream<Uint8Array>({
    write: (b) => void written.push(new TextDecoder().decode(b)),
  });
  const t = new LineStdioTransport({ input, output, maxMessageBytes, log: silentLogger });
  const messages: unknown[] = [];
  const closed = new Promise<void>((resolve) => (t.onclose = resolve));
  t.onmessage = (m) => void messages.push(m);
  await t.start();
  await closed;
  await t.send({ jsonrpc: "2.0", id: "end", result: {} }).catch(() => {});
  return { messages, answers: written.map((l) => JSON.parse(l)) };
}

Deno.test("LineStdioTransport passes a message of exactly the bound, in any chunking, and refuses one byte more by its id", async () => {
  const at = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
  const bound = at.length;
  const over = JSON.stringify({ jsonrpc: "2.0", id: 22, method: "ping" }) + " ".repeat(bound);
  for (const split of [1, 3, 7, bound]) {
    const text = `${at}\n${over}\n${at}\n`;
    const chunks = text.match(new RegExp(`[^]{1,${split}}`, "g"))!;
    const { messages, answers } = await run(chunks, bound);
    assert.equal(messages.length, 2, `split ${split}: both messages at the bound pass`);
    assert.deepEqual(answers.map((a) => [a.id, a.error?.code]), [[22, -32600]], `split ${split}`);
  }
});

Deno.test("LineStdioTransport: stdin EOF closes it; blank lines are skipped", async () => {
  const { messages, answers } = await run(["\n\r\n  \n"], 100);
  assert.deepEqual(messages, []);
  assert.deepEqual(answers, []);
});

Deno.test("sniffId() finds a request's top-level id at either end, and nothing else", () => {
  assert.equal(sniffId('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{', ""), 5);
  assert.equal(sniffId('{"id":"a\\"b","method":"x"', ""), 'a"b');
  assert.equal(
    sniffId('{"method":"tools/call","params":{"x":"', '","jsonrpc":"2.0","id":"r-9"}'),
    "r-9",
  );
  assert.equal(sniffId('{"method":"x","params":{', '"a":{"id":3}}'), null, "a nested id");
  assert.equal(sniffId('{"jsonrpc":"2.0","id":5,"result":{', ""), null, "not a request");
  assert.equal(sniffId("xxxxxxxx", "xxxx"), null);
  assert.equal(sniffId('{"id":null,"method":"x"', ""), null);
});
