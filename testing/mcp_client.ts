/**
 * Test-side MCP client plumbing: a stdio client {@linkcode Transport} built on
 * `Deno.Command` (never `node:child_process`, which would silently grant a
 * spawned `deno run` every permission) and a {@linkcode connectClient} helper
 * that connects an `@modelcontextprotocol/client` v2 `Client` at a chosen
 * protocol revision.
 *
 * @module
 */

import {
  Client,
  type ClientCapabilities,
  deserializeMessage,
  type ElicitRequest,
  type ElicitResult,
  type JSONRPCMessage,
  serializeMessage,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/client";

/** Options for {@linkcode CommandClientTransport}. */
export interface CommandClientTransportOptions {
  /** Executable to spawn (for a Deno server, usually `Deno.execPath()`). */
  command: string;
  /** Arguments passed to the executable. */
  args?: string[];
  /** Extra environment variables for the child (merged over the parent's unless `clearEnv`). */
  env?: Record<string, string>;
  /** Start the child with only `env` (no inherited variables). Defaults to `false`. */
  clearEnv?: boolean;
  /** Working directory of the child; inherited when omitted. */
  cwd?: string;
  /** Maximum number of stderr characters kept (the most recent ones win). Defaults to 64 KiB. */
  stderrLimit?: number;
  /**
   * How long {@linkcode CommandClientTransport.close} waits for the child to exit after
   * closing its stdin, and again after `SIGTERM`, before escalating. Defaults to 2000 ms.
   */
  closeGraceMs?: number;
}

/**
 * A client-side MCP stdio transport that spawns a child with `Deno.Command`
 * and exchanges newline-delimited JSON-RPC messages over its stdin/stdout.
 *
 * - stderr is captured (capped to `stderrLimit` characters, tail kept) for diagnostics.
 * - {@linkcode close} closes the child's stdin, waits for it to exit, escalates to
 *   `SIGTERM` then `SIGKILL` after `closeGraceMs`, and fires `onclose` once.
 * - If the child exits on its own, `onclose` fires as well.
 *
 * It exposes `pid` and `stderr` accessors, so the v2 `Client` classifies it as a
 * stdio-shaped transport (probe timeouts count as "legacy server"); it does not
 * carry the SDK's private `_dispose`/`_serverParams` members, so the `Client`
 * runs the `server/discover` probe in place on this transport instead of
 * spawning a throw-away sibling process.
 */
export class CommandClientTransport implements Transport {
  /** Called once when the connection is closed (by {@linkcode close} or child exit). */
  onclose?: () => void;
  /** Called for out-of-band problems (unparsable lines, stream failures). */
  onerror?: (error: Error) => void;
  /** Called for every JSON-RPC message read from the child's stdout. */
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #options: CommandClientTransportOptions;
  readonly #stderrLimit: number;
  readonly #graceMs: number;
  #child?: Deno.ChildProcess;
  #writer?: WritableStreamDefaultWriter<Uint8Array>;
  #stderr = "";
  #pumps: Promise<void>[] = [];
  #status?: Promise<Deno.CommandStatus>;
  #closing?: Promise<void>;
  #closedFired = false;
  #escalation: "SIGTERM" | "SIGKILL" | undefined;
  #abortPipes = new AbortController();
  #encoder = new TextEncoder();

  /** Creates the transport; nothing is spawned until {@linkcode start}. */
  constructor(options: CommandClientTransportOptions) {
    this.#options = options;
    this.#stderrLimit = options.stderrLimit ?? 64 * 1024;
    this.#graceMs = options.closeGraceMs ?? 2000;
  }

  /** The child's process id, or `null` before {@linkcode start}. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** The captured (capped) stderr text of the child so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /**
   * The signal {@linkcode close} had to send because the child did not exit
   * within the grace period of stdin EOF (`undefined`: EOF alone was enough).
   */
  get escalation(): "SIGTERM" | "SIGKILL" | undefined {
    return this.#escalation;
  }

  /**
   * Resolves with the child's exit status once it has exited
   * (rejects if the transport was never started).
   */
  get exited(): Promise<Deno.CommandStatus> {
    return this.#status ?? Promise.reject(new Error("CommandClientTransport not started"));
  }

  /** Spawns the child and starts reading its stdout and stderr. */
  start(): Promise<void> {
    if (this.#child) {
      return Promise.reject(new Error("CommandClientTransport already started"));
    }
    const { command, args = [], env, clearEnv = false, cwd } = this.#options;
    const child = new Deno.Command(command, {
      args,
      env,
      clearEnv,
      cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#pumps = [this.#readStdout(child.stdout), this.#readStderr(child.stderr)];
    this.#status = child.status;
    // A child that exits on its own ends the connection too.
    this.#status.then(() => this.#afterExit(), () => this.#afterExit());
    return Promise.resolve();
  }

  /** Writes one JSON-RPC message as a single line to the child's stdin. */
  async send(message: JSONRPCMessage, _options?: TransportSendOptions): Promise<void> {
    if (!this.#writer || this.#closing) throw new Error("CommandClientTransport is not open");
    await this.#writer.write(this.#encoder.encode(serializeMessage(message)));
  }

  /**
   * Closes the child's stdin (EOF), waits for the child to exit (escalating to
   * `SIGTERM`, then `SIGKILL`, after the grace period each), drains its output
   * and fires `onclose`. Idempotent.
   */
  close(): Promise<void> {
    this.#closing ??= this.#doClose();
    return this.#closing;
  }

  async #doClose(): Promise<void> {
    const child = this.#child;
    if (!child || !this.#status) {
      this.#fireClose();
      return;
    }
    try {
      await this.#writer?.close();
    } catch {
      // stdin already closed (child gone); nothing to do.
    }
    if (!(await this.#waitExit(this.#graceMs))) {
      this.#escalation = "SIGTERM";
      this.#kill(child, "SIGTERM");
      if (!(await this.#waitExit(this.#graceMs))) {
        this.#escalation = "SIGKILL";
        this.#kill(child, "SIGKILL");
        await this.#status;
      }
    }
    await this.#drained();
    this.#fireClose();
  }

  /**
   * Waits for stdout and stderr to end; a pipe still held open after the child
   * exited (by a descendant it left behind) fails after the grace period.
   */
  async #drained(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stuck = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#graceMs);
    });
    try {
      const done = await Promise.race([Promise.all(this.#pumps).then(() => true), stuck]);
      if (!done) {
        this.#abortPipes.abort();
        await Promise.all(this.#pumps);
        throw new Error(
          `The child's output stayed open ${this.#graceMs} ms after it exited (a descendant holds it)`,
        );
      }
    } finally {
      clearTimeout(timer);
    }
  }

  async #afterExit(): Promise<void> {
    await this.#drained().catch((error) => this.onerror?.(error));
    if (!this.#closing) {
      // Release stdin so no resource outlives the child.
      this.#closing = this.#writer?.close().catch(() => {}) ?? Promise.resolve();
      await this.#closing;
    }
    this.#fireClose();
  }

  #fireClose(): void {
    if (this.#closedFired) return;
    this.#closedFired = true;
    this.onclose?.();
  }

  #kill(child: Deno.ChildProcess, signal: Deno.Signal): void {
    try {
      child.kill(signal);
    } catch {
      // Already exited.
    }
  }

  /** Resolves `true` if the child exited within `ms`, `false` otherwise (timer always cleared). */
  async #waitExit(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([this.#status!.then(() => true as const), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #readStdout(stream: ReadableStream<Uint8Array>): Promise<void> {
    let buffer = "";
    try {
      for await (
        const chunk of stream.pipeThrough(new TextDecoderStream(), {
          signal: this.#abortPipes.signal,
        })
      ) {
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf("\n")) !== -1) {
          const line = buffer.slice(0, newline).replace(/\r$/, "");
          buffer = buffer.slice(newline + 1);
          if (line.trim() === "") continue;
          this.#deliver(line);
          // The SDK dispatches notifications one microtask late but responses synchronously;
          // yielding here keeps a progress notification that shares a chunk with the final
          // response from being dropped.
          await Promise.resolve();
        }
      }
      if (buffer.trim() !== "") this.#deliver(buffer);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.onerror?.(new Error(`unparsable line from server: ${line.slice(0, 200)} (${reason})`));
      return;
    }
    this.onmessage?.(message);
  }

  async #readStderr(stream: ReadableStream<Uint8Array>): Promise<void> {
    try {
      for await (
        const chunk of stream.pipeThrough(new TextDecoderStream(), {
          signal: this.#abortPipes.signal,
        })
      ) {
        this.#stderr += chunk;
        if (this.#stderr.length > this.#stderrLimit) {
          this.#stderr = this.#stderr.slice(this.#stderr.length - this.#stderrLimit);
        }
      }
    } catch {
      // stderr is diagnostics only.
    }
  }
}

/** The shutdown bound (docs/design.md, "Bounds"): a server exits within 2 s of stdin EOF. */
export const SHUTDOWN_BOUND_MS = 2000;

/** Protocol revisions {@linkcode connectClient} can pin. */
export type McpTestProtocol = "2026-07-28" | "2025-11-25";

/** Parameters of an `elicitation/create` request as handed to {@linkcode ConnectClientOptions.onElicit}. */
export type ElicitParams = ElicitRequest["params"];

/** Options for {@linkcode connectClient}. */
export interface ConnectClientOptions {
  /** Executable to spawn. */
  command: string;
  /** Arguments for the executable. */
  args?: string[];
  /** Extra environment variables for the child. */
  env?: Record<string, string>;
  /** Start the child with only `env` (no inherited variables). */
  clearEnv?: boolean;
  /** Working directory of the child. */
  cwd?: string;
  /**
   * Protocol revision: `"2026-07-28"` pins the modern era (a `server/discover` probe on
   * this same child, no `initialize`); `"2025-11-25"` runs the legacy `initialize` handshake.
   */
  protocol: McpTestProtocol;
  /** Client capabilities to declare (`elicitation: {}` is added when `onElicit` is given). */
  capabilities?: ClientCapabilities;
  /**
   * Answers elicitation requests: server-initiated `elicitation/create` at 2025-11-25, and
   * the embedded elicitations of `input_required` rounds at 2026-07-28 (the `Client`
   * auto-fulfils them through this same handler and retries the call).
   */
  onElicit?: (params: ElicitParams) => ElicitResult | Promise<ElicitResult>;
  /** Request timeout for the connect handshake/probe, in milliseconds. */
  timeoutMs?: number;
}

/** What {@linkcode connectClient} returns. */
export interface ConnectedClient {
  /** The connected client. */
  client: Client;
  /** The underlying transport (for `pid`, `stderr`, `exited`). */
  transport: CommandClientTransport;
  /**
   * Closes the client and the child (stdin EOF); resolves with the child's exit
   * code and captured stderr. Rejects when the child did not exit within the
   * shutdown bound of EOF and had to be signalled (the exit code would hide it).
   */
  close(): Promise<{ code: number; stderr: string }>;
}

/**
 * Spawns `command` and connects an MCP v2 `Client` to it over stdio at the chosen protocol.
 * On a failed connect the child is torn down before the error is rethrown.
 */
export async function connectClient(options: ConnectClientOptions): Promise<ConnectedClient> {
  const transport = new CommandClientTransport({
    command: options.command,
    args: options.args,
    env: options.env,
    clearEnv: options.clearEnv,
    cwd: options.cwd,
    closeGraceMs: SHUTDOWN_BOUND_MS,
  });
  const capabilities: ClientCapabilities = { ...options.capabilities };
  if (options.onElicit && !capabilities.elicitation) capabilities.elicitation = {};
  const client = new Client(
    { name: "codex-relay-test-client", version: "0.0.0" },
    {
      capabilities,
      versionNegotiation: options.protocol === "2026-07-28"
        ? { mode: { pin: "2026-07-28" } }
        : { mode: "legacy" },
    },
  );
  const onElicit = options.onElicit;
  if (onElicit) {
    client.setRequestHandler("elicitation/create", (request) => onElicit(request.params));
  }
  const close = async (): Promise<{ code: number; stderr: string }> => {
    await client.close().catch(() => {});
    await transport.close();
    const status = await transport.exited;
    if (transport.escalation) {
      throw new Error(
        `The server did not exit within ${SHUTDOWN_BOUND_MS} ms of stdin EOF; the test client sent ${transport.escalation}\n${
          transport.stderr.slice(-2000)
        }`,
      );
    }
    return { code: status.code, stderr: transport.stderr };
  };
  try {
    await client.connect(transport, { timeout: options.timeoutMs });
  } catch (error) {
    await close().catch(() => {});
    throw startFailure(error, transport.stderr, await transport.exited.catch(() => undefined));
  }
  return { client, transport, close };
}

/** How much of a child's stderr a failed start shows (the end: where the error is). */
export const START_STDERR_TAIL = 4000;

/**
 * The error of a child that could not be connected to: the SDK's error (a
 * handshake that saw the connection close says little) followed by the
 * child's exit and the tail of its own stderr, which names the real cause
 * (a module missing from the cache, a bad flag, a crash). Pure.
 */
export function startFailure(
  error: unknown,
  stderr: string,
  status?: { code: number; signal: Deno.Signal | null },
): Error {
  const reason = error instanceof Error ? error.message : String(error);
  const exit = status
    ? ` (the server exited with code ${status.code}${status.signal ? `, ${status.signal}` : ""})`
    : "";
  const text = stderr.trim();
  const tail = text.length > START_STDERR_TAIL ? `...${text.slice(-START_STDERR_TAIL)}` : text;
  const shown = tail === ""
    ? "The server wrote nothing on stderr."
    : `The server's stderr:\n${tail}`;
  return new Error(`Connecting to the server failed: ${reason}${exit}\n${shown}`, {
    cause: error,
  });
}
