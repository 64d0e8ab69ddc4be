/**
 * A raw JSON-RPC client of `codex app-server` (one JSON object per line on its stdio), written
 * apart from the relay's own client (`src/codex/`) on purpose: it is the independent oracle.
 * Tests use it to set up threads and turns and to read what Codex itself says, then compare the
 * relay's answers with that; a client sharing the relay's code would share its bugs and agree
 * with them. It also speaks where the relay refuses to (unlisted methods, no handshake) to record
 * what real Codex does. Keep it free of imports from `src/`.
 * @module
 */

import type { CodexHome } from "./codex_home.ts";
import { resolveCodexBin } from "./codex_bin.ts";

/** A JSON-RPC error answered by the app-server. */
export class RpcError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    readonly rpcMessage: string,
    readonly data?: unknown,
  ) {
    super(`${method}: ${code} ${rpcMessage}`);
    this.name = "RpcError";
  }
}

/** A notification received from the server. */
export interface Notification {
  method: string;
  params: Record<string, unknown>;
  /** ms since the process was spawned. */
  t: number;
  raw: Record<string, unknown>;
}

/** A server→client request (e.g. `mcpServer/elicitation/request`). */
export interface ServerRequest {
  id: number | string;
  method: string;
  params: Record<string, unknown>;
  t: number;
  raw: Record<string, unknown>;
}

/** What a server-request handler returns: a result, or a JSON-RPC error. */
export type ServerRequestAnswer =
  | { result: unknown }
  | { error: { code: number; message: string; data?: unknown } };

/** Handles server→client requests; `undefined` leaves the request unanswered. */
export type ServerRequestHandler = (
  req: ServerRequest,
) => ServerRequestAnswer | undefined | Promise<ServerRequestAnswer | undefined>;

/** One frame as seen by the driver (for debugging and notes). */
export interface Frame {
  dir: "out" | "in";
  t: number;
  msg: unknown;
}

/** Options for {@link AppServer.start}. */
export interface AppServerOptions {
  /** Codex binary (default {@link resolveCodexBin}). */
  bin?: string;
  /** Extra arguments after `app-server` (e.g. `["-c", "key=value"]`). */
  args?: string[];
  /** `clientInfo.name` (default `codex_relay_e2e`). */
  clientName?: string;
  /** Server→client request handler (default: answer JSON-RPC -32601). */
  onServerRequest?: ServerRequestHandler;
  /** Default timeout for waits, ms (default 30 000). */
  timeoutMs?: number;
  /** Skip the `initialize` handshake (to test it by hand). */
  noInitialize?: boolean;
}

interface Pending {
  method: string;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

interface Waiter<T> {
  pred: (v: T) => boolean;
  resolve(v: T): void;
  reject(e: unknown): void;
}

/** Result of {@link AppServer.runTurn}. */
export interface TurnRun {
  threadId: string;
  turnId: string;
  clientUserMessageId: string;
  /** `params.turn` of `turn/completed`. */
  turn: Record<string, unknown>;
  /** Notifications of this turn (those whose params name the turn id), in order. */
  notifications: Notification[];
  /** Server→client requests seen during the turn. */
  serverRequests: ServerRequest[];
}

/** A spawned `codex app-server` with a line-delimited JSON-RPC client on its stdio. */
export class AppServer {
  readonly notifications: Notification[] = [];
  readonly serverRequests: ServerRequest[] = [];
  readonly frames: Frame[] = [];
  /** Result of `initialize` (null with `noInitialize`). */
  initializeResult: Record<string, unknown> | null = null;
  stderrText = "";

  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #pending = new Map<number, Pending>();
  #nextId = 1;
  #t0 = performance.now();
  #noteWaiters: Waiter<Notification>[] = [];
  #reqWaiters: Waiter<ServerRequest>[] = [];
  #readers: Promise<void>[] = [];
  #exited = false;
  #closed: Promise<Deno.CommandStatus> | null = null;
  #timeoutMs: number;
  onServerRequest: ServerRequestHandler;

  private constructor(child: Deno.ChildProcess, opts: AppServerOptions) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#timeoutMs = opts.timeoutMs ?? 30_000;
    this.onServerRequest = opts.onServerRequest ??
      ((r) => ({ error: { code: -32601, message: `e2e driver: unhandled ${r.method}` } }));
    this.#readers.push(this.#readStdout(), this.#readStderr());
    child.status.then(() => {
      this.#exited = true;
    });
  }

  /** pid of the spawned process. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Spawns `codex app-server` with exactly `home.env` and performs the handshake. */
  static async start(home: CodexHome, opts: AppServerOptions = {}): Promise<AppServer> {
    const bin = opts.bin ?? resolveCodexBin();
    if (!bin) throw new Error("codex binary not found (set CODEX_BIN)");
    const child = new Deno.Command(bin, {
      args: ["app-server", ...(opts.args ?? [])],
      cwd: home.workspace,
      env: home.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const server = new AppServer(child, opts);
    if (!opts.noInitialize) {
      try {
        server.initializeResult = await server.request("initialize", {
          clientInfo: { name: opts.clientName ?? "codex_relay_e2e", title: null, version: "0.0.1" },
          capabilities: { experimentalApi: true },
        }) as Record<string, unknown>;
        await server.notify("initialized");
      } catch (err) {
        await server.close();
        throw err;
      }
    }
    return server;
  }

  #now(): number {
    return Math.round((performance.now() - this.#t0) * 10) / 10;
  }

  async #send(msg: Record<string, unknown>): Promise<void> {
    this.frames.push({ dir: "out", t: this.#now(), msg });
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(msg) + "\n"));
  }

  /** Sends a request and resolves with its result (rejects with {@link RpcError}). */
  request(method: string, params?: unknown): Promise<unknown> {
    const id = this.#nextId++;
    const p = new Promise<unknown>((resolve, reject) => {
      this.#pending.set(id, { method, resolve, reject });
    });
    const msg: Record<string, unknown> = { id, method };
    if (params !== undefined) msg.params = params;
    this.#send(msg).catch((err) => {
      const pend = this.#pending.get(id);
      this.#pending.delete(id);
      pend?.reject(err);
    });
    return p;
  }

  /** Sends a notification. */
  notify(method: string, params?: unknown): Promise<void> {
    const msg: Record<string, unknown> = { method };
    if (params !== undefined) msg.params = params;
    return this.#send(msg);
  }

  /** Writes a raw line (for malformed-input experiments). */
  async sendRaw(line: string): Promise<void> {
    this.frames.push({ dir: "out", t: this.#now(), msg: line });
    await this.#writer.write(new TextEncoder().encode(line + "\n"));
  }

  async #readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let buf = "";
    try {
      for await (const chunk of this.#child.stdout) {
        buf += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) this.#onLine(line);
        }
      }
    } finally {
      const err = new Error(`codex app-server exited (stdout closed)`);
      for (const p of this.#pending.values()) p.reject(err);
      this.#pending.clear();
    }
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stderr) {
      this.stderrText += decoder.decode(chunk, { stream: true });
      if (this.stderrText.length > 200_000) this.stderrText = this.stderrText.slice(-100_000);
    }
  }

  #onLine(line: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line);
    } catch {
      this.frames.push({ dir: "in", t: this.#now(), msg: line });
      return;
    }
    const t = this.#now();
    this.frames.push({ dir: "in", t, msg });
    const hasId = "id" in msg && msg.id !== null;
    if (typeof msg.method === "string" && hasId) {
      const req: ServerRequest = {
        id: msg.id as number | string,
        method: msg.method,
        params: (msg.params ?? {}) as Record<string, unknown>,
        t,
        raw: msg,
      };
      this.serverRequests.push(req);
      this.#fire(this.#reqWaiters, req);
      this.#answer(req);
    } else if (typeof msg.method === "string") {
      const n: Notification = {
        method: msg.method,
        params: (msg.params ?? {}) as Record<string, unknown>,
        t,
        raw: msg,
      };
      this.notifications.push(n);
      this.#fire(this.#noteWaiters, n);
    } else if (hasId) {
      const pend = this.#pending.get(msg.id as number);
      if (!pend) return;
      this.#pending.delete(msg.id as number);
      if ("error" in msg) {
        const e = (msg.error ?? {}) as { code?: number; message?: string; data?: unknown };
        pend.reject(new RpcError(pend.method, e.code ?? 0, e.message ?? "", e.data));
      } else {
        pend.resolve(msg.result);
      }
    }
  }

  async #answer(req: ServerRequest): Promise<void> {
    let ans: ServerRequestAnswer | undefined;
    try {
      ans = await this.onServerRequest(req);
    } catch (err) {
      ans = { error: { code: -32603, message: String(err) } };
    }
    if (ans === undefined || this.#exited) return;
    await this.#send({ id: req.id, ...ans }).catch(() => {});
  }

  /** Answers a server request by hand (when the handler returned `undefined`). */
  respond(id: number | string, answer: ServerRequestAnswer): Promise<void> {
    return this.#send({ id, ...answer });
  }

  #fire<T>(waiters: Waiter<T>[], v: T): void {
    for (let i = 0; i < waiters.length; i++) {
      if (waiters[i].pred(v)) {
        waiters[i].resolve(v);
        waiters.splice(i--, 1);
      }
    }
  }

  #wait<T>(
    existing: T[],
    waiters: Waiter<T>[],
    pred: (v: T) => boolean,
    what: string,
    timeoutMs = this.#timeoutMs,
  ): Promise<T> {
    const found = existing.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise<T>((resolve, reject) => {
      const w: Waiter<T> = {
        pred,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        const i = waiters.indexOf(w);
        if (i >= 0) waiters.splice(i, 1);
        reject(new Error(`timeout (${timeoutMs} ms) waiting for ${what}`));
      }, timeoutMs);
      waiters.push(w);
    });
  }

  /** Resolves with the first notification (already received or future) matching. */
  waitForNotification(
    pred: (n: Notification) => boolean,
    what = "notification",
    timeoutMs?: number,
  ): Promise<Notification> {
    return this.#wait(this.notifications, this.#noteWaiters, pred, what, timeoutMs);
  }

  /** Resolves with the first server→client request (already received or future) matching. */
  waitForServerRequest(
    pred: (r: ServerRequest) => boolean,
    what = "server request",
    timeoutMs?: number,
  ): Promise<ServerRequest> {
    return this.#wait(this.serverRequests, this.#reqWaiters, pred, what, timeoutMs);
  }

  /**
   * Waits until MCP server `name` of `threadId` reports `ready` (`mcpServer/startupStatus/updated`,
   * already received or future) and fails at once when it reports `failed` or `cancelled`. Codex
   * does not hold a turn back for a server still starting, so a test whose turn needs the
   * server's tools calls this between `thread/start` (or `thread/resume`) and `turn/start`.
   */
  async waitForMcpServerReady(threadId: string, name: string, timeoutMs?: number): Promise<void> {
    const n = await this.waitForNotification(
      (n) =>
        n.method === "mcpServer/startupStatus/updated" && n.params.threadId === threadId &&
        n.params.name === name && n.params.status !== "starting",
      `MCP server ${name} of thread ${threadId} ready`,
      timeoutMs,
    );
    if (n.params.status !== "ready") {
      throw new Error(`MCP server ${name} did not start: ${JSON.stringify(n.params)}`);
    }
  }

  /** Waits for `turn/completed` of `turnId` and returns its `params.turn`. */
  async waitForTurnCompleted(turnId: string, timeoutMs?: number): Promise<Record<string, unknown>> {
    const n = await this.waitForNotification(
      (n) => n.method === "turn/completed" && (n.params.turn as { id?: string })?.id === turnId,
      `turn/completed ${turnId}`,
      timeoutMs,
    );
    return n.params.turn as Record<string, unknown>;
  }

  /** `thread/start` (default `cwd` = the home's workspace); returns `result.thread`. */
  async startThread(
    params: Record<string, unknown> = {},
  ): Promise<Record<string, unknown> & { id: string }> {
    const res = await this.request("thread/start", params) as { thread: { id: string } };
    return res.thread as Record<string, unknown> & { id: string };
  }

  /** `thread/start {historyMode:"legacy"}` (experimental field). */
  startLegacyThread(
    params: Record<string, unknown> = {},
  ): Promise<Record<string, unknown> & { id: string }> {
    return this.startThread({ ...params, historyMode: "legacy" });
  }

  /** `turn/start` only; returns the turn id. */
  async startTurn(
    threadId: string,
    text: string,
    clientUserMessageId: string = `cum-${crypto.randomUUID()}`,
  ): Promise<{ turnId: string; clientUserMessageId: string }> {
    const res = await this.request("turn/start", {
      threadId,
      clientUserMessageId,
      input: [{ type: "text", text, text_elements: [] }],
    }) as { turn: { id: string } };
    return { turnId: res.turn.id, clientUserMessageId };
  }

  /** `turn/start` with a `clientUserMessageId`, then waits for `turn/completed`. */
  async runTurn(
    threadId: string,
    text: string,
    opts: { clientUserMessageId?: string; timeoutMs?: number } = {},
  ): Promise<TurnRun> {
    const firstReq = this.serverRequests.length;
    const { turnId, clientUserMessageId } = await this.startTurn(
      threadId,
      text,
      opts.clientUserMessageId,
    );
    const turn = await this.waitForTurnCompleted(turnId, opts.timeoutMs);
    return {
      threadId,
      turnId,
      clientUserMessageId,
      turn,
      notifications: this.notifications.filter((n) =>
        n.params.turnId === turnId || (n.params.turn as { id?: string })?.id === turnId
      ),
      serverRequests: this.serverRequests.slice(firstReq),
    };
  }

  /**
   * Closes stdin and waits for the process (it exits within ~10 ms of EOF); escalates to
   * SIGTERM, then SIGKILL, if it does not. Idempotent.
   */
  close(graceMs = 5_000): Promise<Deno.CommandStatus> {
    if (this.#closed) return this.#closed;
    this.#closed = (async () => {
      await this.#writer.close().catch(() => {});
      const status = await this.#raceExit(graceMs) ?? await this.#kill("SIGTERM", graceMs) ??
        await this.#kill("SIGKILL", graceMs);
      await Promise.all(this.#readers);
      const gone = new Error("codex app-server closed");
      for (const w of this.#noteWaiters.splice(0)) w.reject(gone);
      for (const w of this.#reqWaiters.splice(0)) w.reject(gone);
      return status ?? await this.#child.status;
    })();
    return this.#closed;
  }

  async #kill(sig: Deno.Signal, graceMs: number): Promise<Deno.CommandStatus | null> {
    try {
      this.#child.kill(sig);
    } catch {
      // already gone
    }
    return await this.#raceExit(graceMs);
  }

  async #raceExit(ms: number): Promise<Deno.CommandStatus | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
    try {
      return await Promise.race([this.#child.status, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Shortcut: item entries of `thread/items/list` (all pages, ascending). */
export async function listAllItems(
  server: AppServer,
  threadId: string,
  extra: Record<string, unknown> = {},
): Promise<{ turnId: string; item: Record<string, unknown> }[]> {
  const out: { turnId: string; item: Record<string, unknown> }[] = [];
  let cursor: string | null = null;
  do {
    const page = await server.request("thread/items/list", {
      threadId,
      limit: 100,
      ...extra,
      ...(cursor ? { cursor } : {}),
    }) as { data: { turnId: string; item: Record<string, unknown> }[]; nextCursor: string | null };
    out.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
