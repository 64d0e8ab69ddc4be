/**
 * A real app-server daemon for end-to-end tests: started with
 * `codex app-server daemon start` in a temp CODEX_HOME, stopped with
 * `daemon stop`, and reaped by pid afterwards (`daemon stop` leaves a
 * `pid-update-loop` process behind). {@link DaemonClient} is a raw client of
 * it (WebSocket over `codex app-server proxy`'s stdio, via websocket-driver)
 * that stands for the user's own Codex, and for the benchmark's baseline.
 * Shared by tests/ and scripts/ (`tests/e2e/daemon_home.ts` re-exports it).
 * @module
 */

import websocket from "websocket-driver";
import { Buffer } from "node:buffer";
import type { CodexHome } from "./codex_home.ts";
import { processesTagged } from "./process_table.ts";

type Rec = Record<string, unknown>;

/** What `daemon start` printed last. */
export interface DaemonInfo {
  status: string;
  pid: number;
  socketPath: string;
  appServerVersion?: string;
}

async function daemonCommand(bin: string, home: CodexHome, verb: string): Promise<Rec> {
  const out = await new Deno.Command(bin, {
    args: ["app-server", "daemon", verb],
    env: home.env,
    clearEnv: true,
    cwd: home.workspace,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const lines = new TextDecoder().decode(out.stdout).trim().split("\n").filter(Boolean);
  const last = lines.at(-1);
  if (!out.success || !last) {
    throw new Error(
      `codex app-server daemon ${verb} exited ${out.code}: ${
        new TextDecoder().decode(out.stderr).slice(-500)
      }`,
    );
  }
  return JSON.parse(last) as Rec;
}

/** Starts the daemon of `home` and waits until it answers. */
export async function startDaemon(bin: string, home: CodexHome): Promise<DaemonInfo> {
  const info = await daemonCommand(bin, home, "start") as unknown as DaemonInfo;
  if (info.status !== "started" && info.status !== "alreadyRunning") {
    throw new Error(`daemon start said ${JSON.stringify(info)}`);
  }
  return info;
}

/**
 * Stops the daemon of `home`, then ends every daemon process left (the
 * `pid-update-loop`, a daemon that did not stop):
 * SIGTERM, then SIGKILL, by pid. Resolves with what had to be killed.
 */
export async function stopDaemon(bin: string, home: CodexHome): Promise<string[]> {
  await daemonCommand(bin, home, "stop").catch(() => undefined);
  const killed: string[] = [];
  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    const left = await livePids(home.codexHome);
    for (const [pid, cmd] of left) {
      killed.push(`${signal} ${pid} ${cmd.replace(home.codexHome, "$CODEX_HOME")}`);
      await kill(pid, signal);
    }
    if (left.size === 0) break;
    for (let i = 0; i < 50 && (await livePids(home.codexHome)).size > 0; i++) {
      await new Promise((r) => setTimeout(r, 20)); // Polling an exit; no event to wait on.
    }
  }
  return killed;
}

/**
 * Sends `signal` to `pid`: `Deno.kill` where the permission set allows it,
 * else the `kill` command (the benchmark's set runs only named programs).
 */
async function kill(pid: number, signal: "SIGTERM" | "SIGKILL"): Promise<void> {
  try {
    Deno.kill(pid, signal);
    return;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotCapable)) return; // Gone already.
  }
  await new Deno.Command("kill", { args: [`-${signal.slice(3)}`, String(pid)], stderr: "null" })
    .output().catch(() => undefined);
}

/**
 * Live processes of the daemon of `codexHome`: those running the binary that
 * `daemon start` installed under `$CODEX_HOME/packages` (the daemon and its
 * `pid-update-loop`), never a client that merely has CODEX_HOME in its
 * environment.
 */
async function livePids(codexHome: string): Promise<Map<number, string>> {
  const bin = `${codexHome}/packages/app-server-daemon/`;
  return new Map(
    (await processesTagged(bin)).filter((p) => p.cmdline.startsWith(bin)).map((p) => [
      p.pid,
      p.cmdline,
    ]),
  );
}

interface Driver {
  io: {
    write(chunk: Uint8Array): boolean;
    on(event: "data", fn: (chunk: Uint8Array) => void): void;
  };
  messages: { on(event: "data", fn: (message: string) => void): void };
  on(event: "open", fn: () => void): void;
  on(event: "close", fn: () => void): void;
  start(): boolean;
  text(message: string): boolean;
}

/** The bytes a {@linkcode DaemonClient} talks through: a proxy's stdio or the socket itself. */
interface ByteChannel {
  write(chunk: Uint8Array): Promise<void>;
  readable: ReadableStream<Uint8Array>;
  /** Ends the channel and waits until it is gone. */
  close(): Promise<void>;
}

function proxyChannel(bin: string, home: CodexHome): ByteChannel {
  const child = new Deno.Command(bin, {
    args: ["app-server", "proxy"],
    env: home.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  return {
    write: (chunk) => writer.write(chunk),
    readable: child.stdout,
    close: async () => {
      await writer.close().catch(() => {});
      await child.status;
    },
  };
}

async function socketChannel(path: string): Promise<ByteChannel> {
  const conn = await Deno.connect({ transport: "unix", path });
  const writer = conn.writable.getWriter();
  return {
    write: (chunk) => writer.write(chunk),
    readable: conn.readable,
    close: async () => {
      await writer.close().catch(() => {});
    },
  };
}

/**
 * A raw JSON-RPC client of the daemon: WebSocket over its own
 * `codex app-server proxy` ({@linkcode DaemonClient.connect}), or straight on
 * the control socket ({@linkcode DaemonClient.connectSocket}).
 */
export class DaemonClient {
  readonly notifications: { method: string; params: Rec }[] = [];
  readonly serverRequests: { id: number | string; method: string; params: Rec }[] = [];
  initializeResult: Rec | undefined;
  readonly #channel: ByteChannel;
  readonly #driver: Driver;
  readonly #pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  readonly #waiters: { pred: (m: Rec) => boolean; resolve(m: Rec): void }[] = [];
  readonly #pump: Promise<void>;
  #nextId = 1;

  private constructor(channel: ByteChannel) {
    this.#channel = channel;
    this.#driver = websocket.client("ws://localhost/") as Driver;
    this.#driver.io.on("data", (chunk) => void channel.write(chunk).catch(() => {}));
    this.#driver.messages.on("data", (text) => this.#onMessage(JSON.parse(text)));
    this.#pump = this.#readAll(channel.readable, this.#driver);
  }

  /** Connects through a `codex app-server proxy` of `home` and initializes. */
  static connect(bin: string, home: CodexHome, name = "e2e_user"): Promise<DaemonClient> {
    return DaemonClient.#start(new DaemonClient(proxyChannel(bin, home)), name);
  }

  /** Connects to the control socket at `path` directly (no proxy) and initializes. */
  static async connectSocket(path: string, name = "e2e_user"): Promise<DaemonClient> {
    return DaemonClient.#start(new DaemonClient(await socketChannel(path)), name);
  }

  static async #start(c: DaemonClient, name: string): Promise<DaemonClient> {
    const opened = new Promise<void>((resolve, reject) => {
      c.#driver.on("open", resolve);
      c.#driver.on("close", () => reject(new Error("the daemon refused the connection")));
    });
    c.#driver.start();
    await opened;
    c.initializeResult = await c.request("initialize", {
      clientInfo: { name, title: null, version: "0.0.1" },
      capabilities: { experimentalApi: true },
    }) as Rec;
    c.#driver.text(JSON.stringify({ method: "initialized" }));
    return c;
  }

  /** Sends a request; rejects on a JSON-RPC error. */
  request(method: string, params: unknown): Promise<unknown> {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#driver.text(JSON.stringify({ id, method, params }));
    });
  }

  /** Answers a server request. */
  respond(id: number | string, result: unknown): void {
    this.#driver.text(JSON.stringify({ id, result }));
  }

  /** Resolves with the first message (notification or server request) matching `pred`, past or future. */
  waitFor(pred: (m: Rec) => boolean, timeoutMs = 30_000): Promise<Rec> {
    const past = [...this.notifications, ...this.serverRequests].find((m) => pred(m as Rec));
    if (past) return Promise.resolve(past as Rec);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("waitFor timed out")), timeoutMs);
      this.#waiters.push({
        pred,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  }

  /** Closes the channel (a proxy's stdin: it exits 0) and waits until it has ended. */
  async close(): Promise<void> {
    await this.#channel.close();
    await this.#pump;
  }

  async #readAll(readable: ReadableStream<Uint8Array>, driver: Driver): Promise<void> {
    for await (const chunk of readable) {
      driver.io.write(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    }
    for (const p of this.#pending.values()) p.reject(new Error("daemon connection closed"));
  }

  #onMessage(m: Rec): void {
    if (typeof m.method === "string") {
      const entry = {
        ...(m.id !== undefined ? { id: m.id as number } : {}),
        method: m.method,
        params: (m.params ?? {}) as Rec,
      };
      if (m.id !== undefined) {
        this.serverRequests.push(entry as { id: number; method: string; params: Rec });
      } else this.notifications.push(entry);
      for (let i = this.#waiters.length - 1; i >= 0; i--) {
        if (this.#waiters[i].pred(entry)) this.#waiters.splice(i, 1)[0].resolve(entry);
      }
      return;
    }
    const pending = this.#pending.get(m.id as number);
    if (!pending) return;
    this.#pending.delete(m.id as number);
    if (m.error) pending.reject(new Error(JSON.stringify(m.error)));
    else pending.resolve(m.result);
  }
}
