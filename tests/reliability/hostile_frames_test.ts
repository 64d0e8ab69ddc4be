/**
 * Hostile input on the relay's stdin (see `hostile_input_test.ts`): malformed MCP frames,
 * messages at and over the size bound, non-JSON lines, batches and null ids.
 */

import assert from "assert";
import fc from "fast-check";
import { FixtureHome } from "../../testing/fixture_home.ts";
import { relayArgs, ROOT } from "../../testing/relay.ts";
import { within } from "../../testing/deadline.ts";
import { SHUTDOWN_BOUND_MS } from "../../testing/mcp_client.ts";
import { MAX_MESSAGE_BYTES } from "../../src/host/stdio_transport.ts";
import { seeded } from "./_reliability.ts";
import { denoChildEnv } from "../../testing/child_env.ts";
import { INITIALIZED, initializeRequest } from "../../testing/raw_relay.ts";

// ------------------------------------------------------------- raw frames

/** Line-delimited stdout of the relay with waiters by JSON-RPC id. */
class RawRelay {
  readonly child: Deno.ChildProcess;
  readonly lines: string[] = [];
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #waiters: { id: unknown; resolve: (m: Record<string, unknown>) => void }[] = [];
  readonly #pumps: Promise<unknown>[];
  stderr = "";

  constructor(env: Record<string, string>) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: relayArgs(["--allow-reply-read"]),
      env: denoChildEnv(env),
      clearEnv: true,
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#pumps = [this.#read(), this.#readStderr()];
  }

  async #read(): Promise<void> {
    let buffer = "";
    for await (const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        this.lines.push(line);
        const m = JSON.parse(line) as Record<string, unknown>; // stdout carries JSON only
        const i = this.#waiters.findIndex((w) => w.id === m.id);
        if (i !== -1) this.#waiters.splice(i, 1)[0].resolve(m);
      }
    }
  }

  async #readStderr(): Promise<void> {
    for await (const chunk of this.child.stderr.pipeThrough(new TextDecoderStream())) {
      this.stderr += chunk;
    }
  }

  async write(line: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(line + "\n"));
  }

  /** Writes raw bytes (no newline added). */
  async writeBytes(bytes: Uint8Array): Promise<void> {
    await this.#writer.write(bytes);
  }

  /** Resolves with the next message answered under `id` (sent by the caller). */
  answer(id: unknown): Promise<Record<string, unknown>> {
    return new Promise((resolve) => this.#waiters.push({ id, resolve }));
  }

  /** Sends a request and resolves with its response. */
  request(id: string, method: string, params: unknown): Promise<Record<string, unknown>> {
    const answered = new Promise<Record<string, unknown>>((resolve) =>
      this.#waiters.push({ id, resolve })
    );
    return this.write(JSON.stringify({ jsonrpc: "2.0", id, method, params })).then(() =>
      within(answered, `The relay answering request ${id}`)
    );
  }

  /** Closes stdin; the relay must exit within the shutdown bound (else it is killed and this fails). */
  async close(): Promise<Deno.CommandStatus> {
    await this.#writer.close().catch(() => {});
    const status = await within(
      this.child.status,
      "The relay exiting after stdin EOF",
      SHUTDOWN_BOUND_MS,
      async () => {
        this.child.kill("SIGKILL");
        await this.child.status;
        await Promise.all(this.#pumps).catch(() => {});
      },
    );
    await within(Promise.all(this.#pumps), "The relay's output closing after it exited");
    return status;
  }
}

const FRAME_MARK = "HOSTILE-FRAME-TEXT-77ab";

const MALFORMED: string[] = [
  "",
  "garbage",
  `${FRAME_MARK} not json`,
  "{",
  "}",
  "[]",
  "[1,2,3]",
  "null",
  "42",
  '"a string"',
  "true",
  "\u0000\u0001\u0002",
  "\ud800",
  '{"jsonrpc":"2.0"}',
  '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":1e308,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":-1e308,"method":"ping"}',
  '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"tools/list"}',
  '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
  '{"jsonrpc":"2.0","id":{"nested":true},"method":"ping"}',
  '{"jsonrpc":"2.0","id":[1],"method":"ping"}',
  '{"jsonrpc":"2.0","id":null,"method":"tools/list"}',
  `{"jsonrpc":"2.0","id":"${"i".repeat(100_000)}","method":"ping"}`,
  '{"jsonrpc":"2.0","id":7,"method":42}',
  '{"jsonrpc":"2.0","id":7,"method":null}',
  '{"jsonrpc":"2.0","id":8,"method":"tools/call"}',
  '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":"nope"}',
  '{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":42}}',
  '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"codex_list_threads","arguments":[]}}',
  `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"codex_queue_message","arguments":{"threadId":7,"text":"${FRAME_MARK}"}}}`,
  `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"codex_queue_message","arguments":{"threadId":"x","text":"${FRAME_MARK}"`,
  '{"jsonrpc":"2.0","id":14,"method":"no/such/method","params":{}}',
  '{"jsonrpc":"2.0","id":15,"result":{"unsolicited":true}}',
  '{"jsonrpc":"2.0","id":16,"error":{"code":-1,"message":"unsolicited"}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}',
  '{"jsonrpc":"2.0","method":"notifications/initialized","params":7}',
  '{"jsonrpc":"2.0","id":17,"method":"initialize","params":{"protocolVersion":42}}',
  '{"__proto__":{"polluted":true},"jsonrpc":"2.0","id":18,"method":"ping"}',
];

Deno.test("hostile input: malformed MCP frames on stdin do not kill the relay", async () => {
  const f = await FixtureHome.create(seeded().scenario);
  const raw = new RawRelay(f.env);
  try {
    const random = fc.sample(
      fc.oneof(
        fc.string({ unit: "binary", maxLength: 80 }),
        fc.json({ maxDepth: 3 }),
        fc.jsonValue({ maxDepth: 2 }).map((v) =>
          JSON.stringify({ jsonrpc: "2.0", id: v, method: v })
        ),
        fc.record({
          jsonrpc: fc.constant("2.0"),
          id: fc.integer(),
          method: fc.string({ maxLength: 20 }),
          params: fc.jsonValue({ maxDepth: 2 }),
        })
          .map((v) => JSON.stringify(v)),
      ),
      { numRuns: 150, seed: 8 },
    ).map((l) => l.replaceAll("\n", " "));
    for (const line of [...MALFORMED, ...random]) await raw.write(line);
    const init = await raw.request("init", "initialize", initializeRequest().params);
    assert.ok(init.result, `initialize answered: ${JSON.stringify(init).slice(0, 300)}`);
    await raw.write(JSON.stringify(INITIALIZED));
    for (const line of [...MALFORMED, ...random.slice(0, 50)]) await raw.write(line);
    const listed = await raw.request("after", "tools/call", {
      name: "codex_list_threads",
      arguments: { limit: 5 },
    });
    const out = (listed.result as { structuredContent?: { status?: string } }).structuredContent;
    assert.equal(out?.status, "ok", "a normal call still works on the same process");
    await raw.write("x".repeat(2 * 1024 * 1024)); // One 2 MiB line of garbage.
    const again = await raw.request("after-huge", "tools/call", {
      name: "codex_queue_message",
      arguments: { threadId: "reliability named", text: "still here" },
    });
    const receipt = (again.result as { structuredContent?: { status?: string } }).structuredContent;
    assert.equal(receipt?.status, "queued");
    for (const line of raw.lines) {
      const m = JSON.parse(line);
      assert.equal(m.jsonrpc, "2.0", `stdout carries JSON-RPC only: ${line.slice(0, 200)}`);
    }
  } catch (error) {
    await raw.close().catch(() => {});
    await f.dispose();
    throw error;
  }
  const status = await raw.close().catch((error: Error) => error);
  const left = f.alive();
  await f.dispose();
  if (status instanceof Error) throw status;
  assert.equal(status.code, 0, `the relay exits 0 on stdin EOF:\n${raw.stderr.slice(-2000)}`);
  assert.deepEqual(left, []);
  assert.ok(!raw.stderr.includes(FRAME_MARK), "text in malformed frames never reaches the log");
});

/**
 * A request line of exactly `bytes` bytes (newline excluded), padded with JSON whitespace; its id
 * at the start, at the very end, or in the middle (whitespace on both sides: neither end's KiB
 * shows it).
 */
function paddedRequest(id: string, where: "start" | "end" | "middle", bytes: number): Uint8Array {
  const params = JSON.stringify({ name: "codex_list_threads", arguments: { limit: 5 } });
  const parts = where === "start"
    ? [`{"jsonrpc":"2.0","id":"${id}","method":"tools/call","params":${params}`, "", "}"]
    : [`{"method":"tools/call","params":${params}`, `,"jsonrpc":"2.0","id":"${id}"`, "}"];
  const enc = new TextEncoder();
  const [before, mid, after] = parts.map((p) => enc.encode(p));
  const pad = bytes - before.length - mid.length - after.length;
  assert.ok(pad > 0);
  const line = new Uint8Array(bytes + 1).fill(0x20);
  const midAt = where === "middle" ? before.length + Math.floor(pad / 2) : bytes - after.length -
    mid.length;
  line.set(before, 0);
  line.set(mid, where === "start" ? before.length : midAt);
  line.set(after, bytes - after.length);
  line[bytes] = 0x0a;
  return line;
}

async function initialized(raw: RawRelay): Promise<void> {
  const init = await raw.request("init", "initialize", initializeRequest().params);
  assert.ok(init.result, JSON.stringify(init).slice(0, 300));
  await raw.write(JSON.stringify(INITIALIZED));
}

function structured(m: Record<string, unknown>): Record<string, unknown> | undefined {
  return (m.result as { structuredContent?: Record<string, unknown> } | undefined)
    ?.structuredContent;
}

Deno.test(`hostile input: an MCP message of ${MAX_MESSAGE_BYTES} bytes is served, one byte more is refused alone, and the relay serves on`, async () => {
  const f = await FixtureHome.create(seeded().scenario);
  const raw = new RawRelay(f.env);
  try {
    await initialized(raw);
    for (const where of ["start", "end", "middle"] as const) {
      const at = `at-bound-${where}`;
      const served = raw.answer(at);
      await raw.writeBytes(paddedRequest(at, where, MAX_MESSAGE_BYTES));
      assert.equal(structured(await served)?.status, "ok", `${at}: answered as usual`);

      const over = `over-bound-${where}`;
      const refused = raw.answer(over);
      await raw.writeBytes(paddedRequest(over, where, MAX_MESSAGE_BYTES + 1));
      const error = (await refused).error as { code: number; message: string; data?: unknown };
      assert.equal(error.code, -32600, `${over}: invalid request`);
      assert.match(
        error.message,
        new RegExp(`${MAX_MESSAGE_BYTES + 1} bytes.*${MAX_MESSAGE_BYTES}`),
      );
      assert.deepEqual(error.data, { limitBytes: MAX_MESSAGE_BYTES });
    }
    // 10 MiB without an id to be seen (the SDK's own transport closed the connection on it):
    // answered with id null, as JSON-RPC says.
    const seen = raw.lines.length;
    await raw.writeBytes(new Uint8Array(10 * 1024 * 1024).fill(0x78));
    await raw.write("");
    const after = await raw.request("after-oversized", "tools/call", {
      name: "codex_list_threads",
      arguments: { limit: 5 },
    });
    assert.equal(structured(after)?.status, "ok", "the same process serves on");
    const nullAnswers = raw.lines.slice(seen).map((l) => JSON.parse(l)).filter((m) =>
      m.id === null
    );
    assert.equal(nullAnswers.length, 1, JSON.stringify(nullAnswers));
    assert.match(nullAnswers[0].error.message, /10485760 bytes, over codex-relay's limit/);
  } finally {
    const status = await raw.close();
    const left = f.alive();
    await f.dispose();
    assert.equal(status.code, 0, `the relay exits 0 on stdin EOF:\n${raw.stderr.slice(-2000)}`);
    assert.deepEqual(left, []);
  }
  const refusals = raw.stderr.split("\n").filter((l) => l.includes("mcp message refused"));
  assert.equal(refusals.length, 4, raw.stderr.slice(-2000));
  for (const l of refusals) assert.match(l, /why="too large".*answered=true/);
  assert.match(refusals[3], new RegExp(`bytes=${10 * 1024 * 1024} `));
  assert.ok(!raw.stderr.includes("ReadBuffer"), "the connection was never given up");
});

Deno.test("hostile input: a line that is not JSON, a batch and a request with id null get the JSON-RPC errors the spec gives", async () => {
  const f = await FixtureHome.create(seeded().scenario);
  const raw = new RawRelay(f.env);
  try {
    await initialized(raw);
    const before = raw.lines.length;
    await raw.write("this is not JSON");
    await raw.write(JSON.stringify([{ jsonrpc: "2.0", id: "b1", method: "ping" }]));
    await raw.write(JSON.stringify({ jsonrpc: "2.0", id: null, method: "ping" }));
    await raw.write(JSON.stringify({ jsonrpc: "2.0", id: 7, method: 42 }));
    await raw.request("fence", "ping", {});
    const got = raw.lines.slice(before).map((l) => JSON.parse(l));
    const errors = got.filter((m) => m.error).map((m) => [m.id, m.error.code]);
    assert.deepEqual(errors, [[null, -32700], [null, -32600], [null, -32600], [7, -32600]]);
    const texts = got.filter((m) => m.error).map((m) => m.error.message as string);
    assert.match(texts[0], /^Parse error/);
    assert.match(texts[1], /batch/);
    assert.match(texts[2], /null/);
    assert.deepEqual(got.at(-1), { jsonrpc: "2.0", id: "fence", result: {} });
  } finally {
    const status = await raw.close();
    await f.dispose();
    assert.equal(status.code, 0);
  }
  for (const why of ["not JSON", "batch", "id null", "invalid request"]) {
    assert.ok(raw.stderr.includes(`mcp message refused why="${why}"`), why);
  }
});
