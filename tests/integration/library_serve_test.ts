/**
 * Issue 29, item 5: the library entry. `serve(options)` from `mod.ts` serves
 * MCP over the streams it is given (here in memory, driven by the SDK
 * client), touches neither the process's stdin and stdout nor its signal
 * handlers, and an abort signal stops it: it resolves 0 with every process it
 * started ended. The relay's app-server helpers are the fixture's (`codex` on
 * PATH), so this test sets PATH and CODEX_HOME in its own process while the
 * relay runs in it.
 */

import assert from "assert";
import { Client } from "@modelcontextprotocol/client";
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { serve } from "../../mod.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { callTool } from "../../testing/call_tool.ts";

/** An MCP client transport over two in-memory byte streams (one JSON-RPC message per line). */
class StreamClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #readable: ReadableStream<Uint8Array>;

  constructor(toServer: WritableStream<Uint8Array>, fromServer: ReadableStream<Uint8Array>) {
    this.#writer = toServer.getWriter();
    this.#readable = fromServer;
  }

  start(): Promise<void> {
    void (async () => {
      let buffered = "";
      const decoder = new TextDecoder();
      for await (const chunk of this.#readable) {
        buffered += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf("\n")) !== -1) {
          const line = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (line.trim()) this.onmessage?.(JSON.parse(line));
        }
      }
      this.onclose?.();
    })().catch((error) => this.onerror?.(error));
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  close(): Promise<void> {
    this.onclose?.();
    return Promise.resolve();
  }
}

/** Runs `fn` with `vars` set in this process's environment, then restores them. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, Deno.env.get(k)]));
  for (const [k, v] of Object.entries(vars)) Deno.env.set(k, v);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(before)) {
      if (v === undefined) Deno.env.delete(k);
      else Deno.env.set(k, v);
    }
  }
}

Deno.test("serve() from mod.ts serves MCP over in-memory streams and an abort signal stops it, leaving no process", async () => {
  const t = thread({ name: "library thread" });
  const f = await FixtureHome.create({ threads: [t] });
  const toRelay = new TransformStream<Uint8Array, Uint8Array>();
  const fromRelay = new TransformStream<Uint8Array, Uint8Array>();
  const stop = new AbortController();
  try {
    await withEnv(f.env, async () => {
      const serving = serve({
        readable: toRelay.readable,
        writable: fromRelay.writable,
        signal: stop.signal,
        allowReplyRead: true,
        logLevel: "silent",
      });
      const client = new Client({ name: "library-test", version: "0.0.0" }, {
        versionNegotiation: { mode: "legacy" },
      });
      await client.connect(new StreamClientTransport(toRelay.writable, fromRelay.readable));
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === "codex_read_reply"), "the reply-read level");
      const listed = await callTool(client, "codex_list_threads", {});
      assert.equal(listed.structuredContent.status, "ok", JSON.stringify(listed));
      assert.deepEqual(listed.structuredContent.threads?.map((x) => x.id), [t.id]);
      assert.ok((await f.spawned()).length > 0, "the relay started the fixture app-server");

      stop.abort();
      assert.equal(await serving, 0);
      assert.deepEqual(f.alive(), [], "no process of the relay is left");
      // The streams are the caller's again: the relay released its writer.
      await fromRelay.writable.close();
      await client.close();
    });
  } finally {
    await f.dispose();
  }
});

Deno.test("serve() refuses options the CLI would refuse, before it reads or starts anything", async () => {
  const io = { readable: new ReadableStream<Uint8Array>(), writable: new WritableStream() };
  await assert.rejects(
    () => serve({ ...io, disableCodexMcpServers: ["relay"] }),
    /disableCodexMcpServers needs allowTurnStart/,
  );
  await assert.rejects(
    () => serve({ ...io, allowTurnStart: true, disableCodexMcpServers: ["my relay"] }),
    /letters, digits/,
  );
  await assert.rejects(() => serve({ ...io, appServer: { socket: "rel.sock" } }), /absolute/);
  assert.equal(io.readable.locked, false, "nothing was read");
});

Deno.test("serve() refuses what the CLI refuses with the same rules: a socket path '/', a control character, an unknown log level", async () => {
  // Input that has ended: options let through would serve, read the end and resolve 0.
  const ended = () => ({
    readable: new ReadableStream<Uint8Array>({ start: (c) => c.close() }),
    writable: new WritableStream<Uint8Array>(),
  });
  await assert.rejects(
    () => serve({ ...ended(), appServer: { socket: "/" } }),
    /socket path must be absolute \(got '\/'\)/,
  );
  await assert.rejects(
    () => serve({ ...ended(), appServer: { socket: "/tmp/a\nb.sock" } }),
    /socket path has a control character/,
  );
  await assert.rejects(
    () => serve({ ...ended(), logLevel: "loud" as "warn" }),
    /logLevel must be one of debug, info, warn, error, silent/,
  );
});
