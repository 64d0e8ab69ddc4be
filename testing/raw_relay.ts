/**
 * The relay through its real entry point (as `relayArgs` starts it, V8 flags
 * included) driven by raw JSON-RPC lines on stdin, for what an SDK client
 * cannot do: pipeline thousands of requests, leave stdout unread for a
 * while, close stdin right after its last request.
 * @module
 */

import { relayArgs, ROOT } from "./relay.ts";
import { within } from "./deadline.ts";

/** One message the relay wrote on stdout. */
export type RawMessage = Record<string, unknown>;

/** A relay child on raw pipes. */
export class RawStdioRelay {
  readonly child: Deno.ChildProcess;
  /** Every message read from stdout, in order. */
  readonly messages: RawMessage[] = [];
  /** Everything read from stderr. */
  stderr = "";
  /** Resolves when stdout has ended. */
  readonly stdoutEnded: Promise<void>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reading = Promise.withResolvers<void>();
  #changed = Promise.withResolvers<void>();
  readonly #stderrDone: Promise<void>;

  /** Starts the relay (`permissions`: as `relayArgs`); stdout is not read until {@linkcode readStdout}. */
  constructor(env: Record<string, string>, flags: string[] = [], permissions: string[] = []) {
    this.child = new Deno.Command(Deno.execPath(), {
      args: relayArgs(flags, permissions),
      env,
      clearEnv: true,
      cwd: ROOT,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.stdoutEnded = this.#readStdout();
    this.#stderrDone = this.#readStderr();
  }

  /** Starts (or resumes) reading stdout. */
  readStdout(): void {
    this.#reading.resolve();
  }

  /** Writes lines (one JSON-RPC message each) to stdin; resolves once the pipe took them. */
  async write(...messages: unknown[]): Promise<void> {
    const text = messages.map((m) => (typeof m === "string" ? m : JSON.stringify(m)) + "\n");
    await this.#writer.write(new TextEncoder().encode(text.join("")));
  }

  /** Closes stdin (EOF). */
  async closeStdin(): Promise<void> {
    await this.#writer.close().catch(() => {});
  }

  /** The answers (responses) read so far, by id. */
  answers(): Map<unknown, RawMessage[]> {
    const out = new Map<unknown, RawMessage[]>();
    for (const m of this.messages) {
      if (!("id" in m) || "method" in m) continue;
      out.set(m.id, [...(out.get(m.id) ?? []), m]);
    }
    return out;
  }

  /** Resolves once `ready()` holds, re-checked on each stdout or stderr chunk. */
  async until(ready: () => boolean, what: string, ms?: number): Promise<void> {
    await within(
      (async () => {
        while (!ready()) await this.#changed.promise;
      })(),
      what,
      ms,
    );
  }

  /** Waits for the exit (killing the child when it does not exit within `ms`). */
  async exited(ms = 10_000): Promise<Deno.CommandStatus> {
    const status = await within(this.child.status, "The relay exiting", ms, async () => {
      this.child.kill("SIGKILL");
      await this.child.status;
    });
    await Promise.all([this.stdoutEnded, this.#stderrDone]).catch(() => {});
    return status;
  }

  /** Ends everything this started, whatever state it is in. */
  async dispose(): Promise<void> {
    await this.closeStdin();
    this.readStdout();
    try {
      this.child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await this.child.status;
    await Promise.all([this.stdoutEnded, this.#stderrDone]).catch(() => {});
  }

  #wake(): void {
    const changed = this.#changed;
    this.#changed = Promise.withResolvers<void>();
    changed.resolve();
  }

  async #readStdout(): Promise<void> {
    await this.#reading.promise;
    let buffer = "";
    for await (const chunk of this.child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        this.messages.push(JSON.parse(buffer.slice(0, nl))); // stdout carries JSON only
        buffer = buffer.slice(nl + 1);
      }
      this.#wake();
    }
    this.#wake();
  }

  async #readStderr(): Promise<void> {
    for await (const chunk of this.child.stderr.pipeThrough(new TextDecoderStream())) {
      this.stderr += chunk;
      this.#wake();
    }
  }
}

/** The `initialize` request of a raw client (protocol 2025-11-25). */
export function initializeRequest(id: number | string = "init"): RawMessage {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "raw", version: "0" },
    },
  };
}

/** The `notifications/initialized` notification. */
export const INITIALIZED: RawMessage = { jsonrpc: "2.0", method: "notifications/initialized" };

/** A `tools/call` request. */
export function toolCall(id: number | string, name: string, args: unknown = {}): RawMessage {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}
