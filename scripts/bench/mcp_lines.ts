/**
 * `deno task bench`: a relay child driven by raw MCP lines on its stdio (no
 * SDK client): what one `tools/call` costs the relay itself, and what a bare
 * MCP round trip (`ping`) costs any stdio server, measured without an SDK
 * client's own work on top.
 * @module
 */

import { relayArgs, ROOT } from "../../testing/relay.ts";
import { denoChildEnv } from "../../testing/child_env.ts";

type Message = Record<string, unknown>;

/** A relay child answering MCP requests written as lines. */
export class McpLines {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #pending = new Map<number, (m: Message) => void>();
  readonly #read: Promise<void>;
  #nextId = 1;

  private constructor(env: Record<string, string>, flags: string[]) {
    this.#child = new Deno.Command("deno", {
      args: relayArgs(flags),
      env: denoChildEnv(env),
      clearEnv: true,
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#read = this.#readLines();
  }

  /** Starts the relay with `flags` and completes the MCP handshake. */
  static async start(env: Record<string, string>, flags: string[]): Promise<McpLines> {
    const relay = new McpLines(env, flags);
    await relay.request("initialize", {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "codex-relay-bench-lines", version: "0" },
    });
    await relay.#send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return relay;
  }

  /** One request; resolves with the whole response message. */
  request(method: string, params: unknown): Promise<Message> {
    const id = this.#nextId++;
    const answered = new Promise<Message>((resolve) => this.#pending.set(id, resolve));
    return this.#send({ jsonrpc: "2.0", id, method, params }).then(() => answered);
  }

  /** One `tools/call`; resolves with its structured content, throws on a tool error. */
  async callTool(name: string, args: unknown): Promise<Message> {
    const m = await this.request("tools/call", { name, arguments: args });
    const result = m.result as { isError?: boolean; structuredContent?: Message } | undefined;
    if (!result || result.isError) throw new Error(`${name} failed: ${JSON.stringify(m)}`);
    return result.structuredContent ?? {};
  }

  /**
   * CPU time the relay process has used so far, in ms (`/proc/PID/stat`,
   * user + system; Linux only: NaN elsewhere). Unlike wall time it hardly
   * moves with the machine's load. Read with `cat`: Deno asks for every
   * permission to read `/proc` itself.
   */
  async cpuMs(): Promise<number> {
    try {
      const out = await new Deno.Command("cat", {
        args: [`/proc/${this.#child.pid}/stat`],
        stderr: "null",
      }).output();
      const stat = new TextDecoder().decode(out.stdout);
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ = 100 on Linux.
    } catch {
      return NaN;
    }
  }

  /** Closes stdin and waits for the exit. */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#child.status;
    await this.#read;
  }

  #send(message: Message): Promise<void> {
    return this.#writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  async #readLines(): Promise<void> {
    let buffer = "";
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        const m = JSON.parse(buffer.slice(0, nl)) as Message;
        buffer = buffer.slice(nl + 1);
        if (typeof m.id === "number" && !("method" in m)) {
          this.#pending.get(m.id)?.(m);
          this.#pending.delete(m.id);
        }
      }
    }
  }
}
