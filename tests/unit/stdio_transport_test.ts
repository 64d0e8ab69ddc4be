import assert from "assert";
import { LineStdioTransport, SHUT_DOWN } from "../../src/host/stdio_transport.ts";
import { WireBudget } from "../../src/host/wire_budget.ts";
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
  const closed = new Promise<void>((resolve) => (t.oninputend = resolve));
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

Deno.test("LineStdioTransport: stdin EOF ends the input; blank lines are skipped", async () => {
  const { messages, answers } = await run(["\n\r\n  \n"], 100);
  assert.deepEqual(messages, []);
  assert.deepEqual(answers, []);
});

/** A pull-only stdin of `lines` (one per read, nothing read ahead) that counts what was read. */
function pulledInput(lines: string[]) {
  const enc = new TextEncoder();
  const state = { pulled: 0 };
  const input = new ReadableStream<Uint8Array>({
    pull(c) {
      if (state.pulled === lines.length) return c.close();
      c.enqueue(enc.encode(lines[state.pulled++] + "\n"));
    },
  }, { highWaterMark: 0 });
  return { input, state };
}

/** A stdout that takes nothing until `open()` (a client that does not read). */
function gatedOutput() {
  const gate = Promise.withResolvers<void>();
  const written: Record<string, unknown>[] = [];
  const output = new WritableStream<Uint8Array>({
    async write(b) {
      await gate.promise;
      for (const l of new TextDecoder().decode(b).split("\n").filter(Boolean)) {
        written.push(JSON.parse(l));
      }
    },
  }, { highWaterMark: 1 });
  return { output, written, open: () => gate.resolve() };
}

/** A logger that resolves `paused` at the transport's "stdin paused" line. */
function pauseLogger() {
  const paused = Promise.withResolvers<Record<string, unknown>>();
  const log = {
    ...silentLogger,
    debug: (event: string, fields?: Record<string, unknown>) => {
      if (event === "stdin paused") paused.resolve(fields ?? {});
    },
  };
  return { log, paused: paused.promise };
}

Deno.test("LineStdioTransport stops reading stdin at the bound of unanswered requests and answers every one once stdout drains", async () => {
  const bound = 8;
  const n = 30;
  const { input, state } = pulledInput(
    Array.from({ length: n }, (_, i) => JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" })),
  );
  const out = gatedOutput();
  const { log, paused } = pauseLogger();
  const t = new LineStdioTransport({
    input,
    output: out.output,
    log,
    budget: new WireBudget(bound, 1 << 20),
  });
  const seen: unknown[] = [];
  const ended = new Promise<void>((resolve) => (t.oninputend = resolve));
  t.onmessage = (m) => {
    seen.push((m as { id: unknown }).id);
    void t.send({ jsonrpc: "2.0", id: (m as { id: number }).id, result: {} });
  };
  await t.start();
  const at = await paused;
  assert.equal(at.bound, "requests");
  assert.equal(seen.length, bound, "exactly the bound was passed on");
  assert.equal(state.pulled, bound, "nothing was read past it");
  out.open();
  await ended;
  await t.idle();
  assert.deepEqual(out.written.map((m) => m.id), Array.from({ length: n }, (_, i) => i));
  await t.close();
});

Deno.test("LineStdioTransport stops reading while unwritten answers pass the byte bound", async () => {
  const { input, state } = pulledInput(
    Array.from({ length: 6 }, (_, i) => JSON.stringify({ jsonrpc: "2.0", id: i, method: "ping" })),
  );
  const out = gatedOutput();
  const { log, paused } = pauseLogger();
  const t = new LineStdioTransport({
    input,
    output: out.output,
    log,
    budget: new WireBudget(100, 2500),
  });
  const ended = new Promise<void>((resolve) => (t.oninputend = resolve));
  // Each answer is about 1 KiB: the third one passes 2500 bytes.
  t.onmessage = (m) =>
    void t.send({
      jsonrpc: "2.0",
      id: (m as { id: number }).id,
      result: { pad: "x".repeat(1000) },
    });
  await t.start();
  assert.equal((await paused).bound, "bytes");
  assert.equal(state.pulled, 3);
  out.open();
  await ended;
  await t.idle();
  assert.equal(out.written.length, 6);
  await t.close();
});

Deno.test("LineStdioTransport after stdin EOF: answers still go out, the owed ones get a shut-down error, late and cancelled ones none", async () => {
  const lines = [
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", id: "two", method: "ping" },
    { jsonrpc: "2.0", id: 3, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 3 } },
  ].map((m) => JSON.stringify(m));
  const { input } = pulledInput(lines);
  const written: Record<string, unknown>[] = [];
  const output = new WritableStream<Uint8Array>({
    write: (b) => void written.push(JSON.parse(new TextDecoder().decode(b))),
  });
  const t = new LineStdioTransport({ input, output, log: silentLogger });
  const ended = new Promise<void>((resolve) => (t.oninputend = resolve));
  let closed = false;
  t.onclose = () => (closed = true);
  await t.start();
  await ended;
  assert.equal(closed, false, "EOF does not close the connection");
  assert.equal(t.budget.unanswered, 2, "1 and two are owed; 3 was cancelled");
  await t.send({ jsonrpc: "2.0", id: 1, result: {} });
  assert.equal(t.answerOwed(), 1);
  await t.idle();
  await t.send({ jsonrpc: "2.0", id: "two", result: {} }); // Too late: already answered.
  await t.send({ jsonrpc: "2.0", id: 3, result: {} }); // Cancelled: no answer is owed.
  assert.deepEqual(written.map((m) => [m.id, (m.error as { code?: number })?.code]), [
    [1, undefined],
    ["two", SHUT_DOWN],
  ]);
  await t.close();
  assert.equal(closed, true);
});

/** A transport over `input` lines whose output the test reads: what it passes on, and the lines it wrote. */
function wired(lines: string[]) {
  const written: string[] = [];
  const output = new WritableStream<Uint8Array>({
    write: (b) => void written.push(new TextDecoder().decode(b)),
  });
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      if (lines.length) c.enqueue(new TextEncoder().encode(lines.join("\n") + "\n"));
      c.close();
    },
  });
  const t = new LineStdioTransport({ input, output, maxMessageBytes: 1024, log: silentLogger });
  const messages: unknown[] = [];
  t.onmessage = (m) => void messages.push(m);
  const ended = new Promise<void>((resolve) => (t.oninputend = resolve));
  return { t, output, written, messages, ended };
}

Deno.test("LineStdioTransport answers an invalid request by its own id, a string as well as a number", async () => {
  const { t, written, messages, ended } = wired([
    JSON.stringify({ jsonrpc: "2.0", id: "abc", method: 42 }),
    JSON.stringify({ jsonrpc: "2.0", id: 7, method: 42 }),
  ]);
  await t.start();
  await ended;
  await t.releaseOutput();
  assert.equal(messages.length, 0);
  const answers = written.map((l) => JSON.parse(l));
  assert.deepEqual(answers.map((a) => [a.id, a.error?.code]), [["abc", -32600], [7, -32600]]);
  await t.close();
});

Deno.test("LineStdioTransport.releaseOutput() writes every queued line, then gives the open output back to its owner", async () => {
  const { t, output, written } = wired([]);
  await t.start();
  const note = (n: number) => ({
    jsonrpc: "2.0" as const,
    method: "notifications/message",
    params: { n },
  });
  const sent = [1, 2, 3].map((n) => t.send(note(n)));
  await t.releaseOutput();
  assert.deepEqual(written.map((l) => JSON.parse(l).params.n), [1, 2, 3], "all written first");
  await Promise.all(sent);
  // The owner can write again: the lock is released and the stream is still open.
  const writer = output.getWriter();
  await writer.write(new TextEncoder().encode("owner\n"));
  assert.equal(written.at(-1), "owner\n");
  await writer.close();
  await t.close();
});
