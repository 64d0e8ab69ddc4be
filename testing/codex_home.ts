/**
 * End-to-end harness for a real `codex app-server`:
 *
 * - {@link resolveCodexBin}: find the codex binary (env `CODEX_BIN`, the repo's `.codex-npm`
 *   install, or `codex` on PATH), preferring the native binary inside the npm package.
 * - {@link createCodexHome}: a temp root with `HOME`, `CODEX_HOME` (offline `config.toml`
 *   pointing at the Responses mock, optionally registering the elicitation MCP server) and a
 *   workspace directory.
 * - {@link AppServer}: a small raw JSON-RPC driver over stdio (one JSON object per line) used
 *   to create threads and run turns for test setup.
 * - {@link processesTagged}: the process-table check used to prove nothing is left behind.
 *
 * @module
 */

import { E2E_DIR, ROOT } from "./paths.ts";
import { denoCacheDir, denoChildEnv } from "./child_env.ts";
import { processTable } from "./process_table.ts";

// ---------------------------------------------------------------------------------------------
// Binary resolution
// ---------------------------------------------------------------------------------------------

/** Where the codex binary was found. */
export interface CodexBinInfo {
  /** What to spawn (the native binary when it could be located). */
  path: string;
  /** The npm wrapper (`.bin/codex` → `codex.js`) it was derived from, if any. */
  wrapper: string | null;
  /** Which rule found it. */
  source: "CODEX_BIN" | "repo .codex-npm" | "PATH";
  /** True when `path` is the platform binary, not the Node wrapper. */
  native: boolean;
}

const TRIPLES: Record<string, { pkg: string; triple: string }> = {
  "linux-x86_64": { pkg: "codex-linux-x64", triple: "x86_64-unknown-linux-musl" },
  "linux-aarch64": { pkg: "codex-linux-arm64", triple: "aarch64-unknown-linux-musl" },
  "darwin-x86_64": { pkg: "codex-darwin-x64", triple: "x86_64-apple-darwin" },
  "darwin-aarch64": { pkg: "codex-darwin-arm64", triple: "aarch64-apple-darwin" },
  "windows-x86_64": { pkg: "codex-win32-x64", triple: "x86_64-pc-windows-msvc" },
  "windows-aarch64": { pkg: "codex-win32-arm64", triple: "aarch64-pc-windows-msvc" },
};

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function dirname(p: string): string {
  const i = p.replace(/\/+$/, "").lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

function onPath(name: string): string | null {
  const sep = Deno.build.os === "windows" ? ";" : ":";
  for (const dir of (Deno.env.get("PATH") ?? "").split(sep)) {
    if (dir && isFile(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return null;
}

/**
 * Given a path to `codex` (npm `.bin` link, `codex.js`, or a native binary), returns the native
 * binary inside the npm package when it can be found, else null.
 */
export function nativeCodexFor(path: string): string | null {
  let real: string;
  try {
    real = Deno.realPathSync(path);
  } catch {
    return null;
  }
  if (!real.endsWith(".js")) return null; // already native (or something we do not know)
  const t = TRIPLES[`${Deno.build.os}-${Deno.build.arch}`];
  if (!t) return null;
  const exe = Deno.build.os === "windows" ? "codex.exe" : "codex";
  const pkgRoot = dirname(dirname(real)); // .../node_modules/@openai/codex
  const candidates = [
    `${dirname(pkgRoot)}/${t.pkg}/vendor/${t.triple}/bin/${exe}`, // hoisted (npm)
    `${pkgRoot}/node_modules/@openai/${t.pkg}/vendor/${t.triple}/bin/${exe}`, // nested
    `${pkgRoot}/vendor/${t.triple}/bin/${exe}`, // fallback used by codex.js
  ];
  return candidates.find(isFile) ?? null;
}

/**
 * Resolves the codex binary: env `CODEX_BIN`, else `<repo>/.codex-npm/node_modules/.bin/codex`,
 * else `codex` on PATH. Prefers the native binary inside the npm package (about half the
 * spawn time and 44 MB less RSS than the Node wrapper). Null when none is found.
 */
export function resolveCodexBinInfo(): CodexBinInfo | null {
  let found: string | null = null;
  let source: CodexBinInfo["source"] = "PATH";
  const env = Deno.env.get("CODEX_BIN");
  if (env) {
    found = env.includes("/") ? (isFile(env) ? env : null) : onPath(env);
    source = "CODEX_BIN";
    if (!found) return null; // an explicit but broken CODEX_BIN must not silently fall back
  }
  if (!found) {
    const repoBin = `${ROOT}/.codex-npm/node_modules/.bin/codex`;
    if (isFile(repoBin)) {
      found = repoBin;
      source = "repo .codex-npm";
    }
  }
  if (!found) {
    found = onPath("codex");
    source = "PATH";
  }
  if (!found) return null;
  const native = nativeCodexFor(found);
  if (native) return { path: native, wrapper: found, source, native: true };
  let real = found;
  try {
    real = Deno.realPathSync(found);
  } catch { /* keep found */ }
  return { path: found, wrapper: null, source, native: !real.endsWith(".js") };
}

/** Path of the codex binary to spawn, or null when none is installed (see {@link resolveCodexBinInfo}). */
export function resolveCodexBin(): string | null {
  return resolveCodexBinInfo()?.path ?? null;
}

/**
 * The codex binary for an e2e test file, or null when none is installed. When null, prints a
 * visible `SKIPPED: ...` line (the file's tests are then registered as ignored), unless env
 * `CODEX_E2E_REQUIRED=1` (set by `.ci/run`): then it registers a failing test instead, so a run
 * where codex is missing can never pass as if the e2e suite had run.
 */
export function codexForTests(file: string): CodexBinInfo | null {
  const info = resolveCodexBinInfo();
  if (info) return info;
  const why = "codex not installed (set CODEX_BIN, or install it into .codex-npm/)";
  if (Deno.env.get("CODEX_E2E_REQUIRED") === "1") {
    Deno.test(`${file}: codex is required (CODEX_E2E_REQUIRED=1)`, () => {
      throw new Error(`${why}; the e2e suite cannot run`);
    });
  } else {
    // deno-lint-ignore no-console
    console.error(`SKIPPED: ${why} — ${file} runs no test`);
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// CODEX_HOME
// ---------------------------------------------------------------------------------------------

/** Approval settings written to config.toml. */
export type ApprovalSetting =
  /** Codex declines MCP elicitations itself (never reach the client). */
  | "never"
  /** Granular policy with `mcp_elicitations = true`: MCP elicitations go to the client. */
  | "elicitations-to-client"
  /** `on-request`: also asks the client to approve each MCP tool call. */
  | "on-request";

/** Options for {@link createCodexHome}. */
export interface CodexHomeOptions {
  /** Base URL of the Responses mock, e.g. `http://127.0.0.1:1234/v1`. */
  mockUrl: string;
  /** Register `tests/e2e/elicit_mcp_server.ts` as MCP server `elicitor`. */
  elicitMcp?: boolean;
  /** Default `elicitations-to-client` when `elicitMcp`, else `never`. */
  approval?: ApprovalSetting;
  /**
   * `mcp_servers.elicitor.default_tools_approval_mode` (default `approve`: the tool runs without
   * a tool-call approval, so only the tool's own form elicitation reaches the client; `prompt`
   * adds an approval elicitation with `_meta.codex_approval_kind: "mcp_tool_call"` first).
   */
  mcpToolApproval?: "approve" | "prompt";
  /** Extra TOML appended verbatim to config.toml. */
  extraToml?: string;
  /** Parent directory of the temp root (default: the system temp dir). */
  parentDir?: string;
  /** Extra arguments for the elicitation MCP server's command line (it ignores them). */
  extraMcpArgs?: string[];
}

/** A temp root for one app-server environment. */
export interface CodexHome {
  /** Temp root; unique, so it also tags every process started for it. */
  root: string;
  /** `HOME` for codex (`<root>/home`). */
  home: string;
  /** `CODEX_HOME` (`<root>/home/.codex`). */
  codexHome: string;
  /** Workspace used as `cwd` for threads (`<root>/workspace`). */
  workspace: string;
  /** The config.toml text written. */
  configToml: string;
  /** JSON-lines log written by the elicitation MCP server (when registered). */
  mcpLog: string;
  /** Explicit environment for `codex app-server` (nothing else is inherited). */
  env: Record<string, string>;
  /** Reads the MCP server log (empty when absent). */
  readMcpLog(): Promise<Record<string, unknown>[]>;
  /** Removes the temp root. */
  cleanup(): Promise<void>;
}

function tomlString(s: string): string {
  return JSON.stringify(s); // TOML basic strings accept JSON string escapes
}

/** Deno's cache directory (so the MCP server subprocess finds npm packages offline). */
export function denoDir(): Promise<string> {
  return Promise.resolve(denoCacheDir());
}

let elicitServerChecked: Promise<void> | null = null;

/**
 * Fills the module cache for `tests/e2e/elicit_mcp_server.ts` (`deno cache` with the repo's
 * config and lock), then starts the server once with the command line Codex will use (without its
 * log), stdin closed, and requires a clean exit: a server that cannot start from the cache fails the test
 * here, before Codex starts without it. Once per test process.
 */
export function elicitServerStarts(
  mcp: { command: string; args: string[]; env: Record<string, string> },
): Promise<void> {
  return elicitServerChecked ??= (async () => {
    const cache = await new Deno.Command(Deno.execPath(), {
      args: [
        "cache",
        "--quiet",
        "--frozen",
        "--config",
        `${ROOT}/deno.json`,
        `${E2E_DIR}elicit_mcp_server.ts`,
      ],
      env: mcp.env,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!cache.success) {
      throw new Error(`deno cache of the elicitation MCP server failed: ${decode(cache.stderr)}`);
    }
    const run = await new Deno.Command(mcp.command, {
      // Without --log: the check leaves nothing in the test's MCP log.
      args: mcp.args.filter((a) => !a.startsWith("--log=")),
      env: mcp.env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).output();
    if (!run.success) {
      throw new Error(
        `The elicitation MCP server does not start from the module cache (exit ${run.code}): ${
          decode(run.stderr)
        }`,
      );
    }
  })();
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes).trim().slice(-2000);
}

/** Builds the offline config.toml text (see README "Running Codex offline for tests"). */
export function offlineConfigToml(opts: {
  mockUrl: string;
  approval: ApprovalSetting;
  mcp?: { command: string; args: string[]; env: Record<string, string> };
  mcpToolApproval?: "approve" | "prompt";
  extraToml?: string;
}): string {
  const approval = opts.approval === "never"
    ? `approval_policy = "never"`
    : opts.approval === "on-request"
    ? `approval_policy = "on-request"`
    : `approval_policy = { granular = { sandbox_approval = false, rules = false, ` +
      `skill_approval = false, request_permissions = false, mcp_elicitations = true } }`;
  const lines = [
    `model = "mock-model"`,
    `model_provider = "mock_provider"`,
    approval,
    `sandbox_mode = "read-only"`,
    ``,
    `[model_providers.mock_provider]`,
    `name = "Local mock Responses API"`,
    `base_url = ${tomlString(opts.mockUrl)}`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    `supports_websockets = false`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[feedback]`,
    `enabled = false`,
    ``,
    // Codex 0.171 syncs its plugin marketplace (git ls-remote https://github.com/openai/plugins.git)
    // in the background, and the git processes can outlive the app-server: offline tests turn it
    // off (0.169 knows the key too). A thread's start also captures the user's shell in a
    // background `bash -lc` (the shell snapshot) that can outlive the app-server: off as well.
    `[features]`,
    `plugins = false`,
    `shell_snapshot = false`,
  ];
  if (opts.mcp) {
    const env = Object.entries(opts.mcp.env).map(([k, v]) => `${k} = ${tomlString(v)}`);
    lines.push(
      ``,
      `[mcp_servers.elicitor]`,
      `command = ${tomlString(opts.mcp.command)}`,
      `args = [${opts.mcp.args.map(tomlString).join(", ")}]`,
      `env = { ${env.join(", ")} }`,
      `startup_timeout_sec = 30`,
      `default_tools_approval_mode = ${tomlString(opts.mcpToolApproval ?? "approve")}`,
    );
  }
  if (opts.extraToml) lines.push(``, opts.extraToml);
  return lines.join("\n") + "\n";
}

/** Creates a temp CODEX_HOME (+ HOME + workspace) configured for the offline mock. */
export async function createCodexHome(opts: CodexHomeOptions): Promise<CodexHome> {
  const root = await Deno.makeTempDir({ dir: opts.parentDir, prefix: "codex-e2e-" });
  const home = `${root}/home`;
  const codexHome = `${home}/.codex`;
  const workspace = `${root}/workspace`;
  const mcpLog = `${root}/elicit-mcp.jsonl`;
  await Deno.mkdir(codexHome, { recursive: true });
  await Deno.mkdir(workspace, { recursive: true });

  let mcp: { command: string; args: string[]; env: Record<string, string> } | undefined;
  if (opts.elicitMcp) {
    // The command line names only paths under the temp root (symlinks to Deno, the server and the
    // repo's deno.json), so it does not depend on where the repository is checked out: a
    // checkout path containing "codex-relay" would otherwise make the relay's recursion guard
    // disable this server.
    const bin = `${root}/mcp`;
    await Deno.mkdir(bin);
    await Deno.symlink(Deno.execPath(), `${bin}/deno`);
    await Deno.symlink(`${E2E_DIR}elicit_mcp_server.ts`, `${bin}/elicit_mcp_server.ts`);
    await Deno.symlink(`${ROOT}/deno.json`, `${bin}/deno.json`);
    await Deno.symlink(`${ROOT}/deno.lock`, `${bin}/deno.lock`);
    mcp = {
      command: `${bin}/deno`,
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        // Codex does not wait for an MCP server that is still starting, so the server must start
        // from the module cache: the repo's lock (read-only) resolves exactly the packages the
        // test run installed, and `--cached-only` makes a cold cache fail at once, visibly, in
        // the start check below, instead of a download racing the turn.
        "--frozen",
        "--cached-only",
        // The server imports bare specifiers through the repo's deno.json import map.
        "--config",
        `${bin}/deno.json`,
        `--allow-write=${mcpLog}`,
        `${bin}/elicit_mcp_server.ts`,
        `--log=${mcpLog}`,
        `--tag=${root}`,
        ...(opts.extraMcpArgs ?? []),
      ],
      env: denoChildEnv({ NO_COLOR: "1" }),
    };
  }
  if (mcp) await elicitServerStarts(mcp);
  const approval = opts.approval ?? (opts.elicitMcp ? "elicitations-to-client" : "never");
  const configToml = offlineConfigToml({
    mockUrl: opts.mockUrl,
    approval,
    mcp,
    mcpToolApproval: opts.mcpToolApproval,
    extraToml: opts.extraToml,
  });
  await Deno.writeTextFile(`${codexHome}/config.toml`, configToml);

  const env: Record<string, string> = {
    HOME: home,
    CODEX_HOME: codexHome,
    PATH: Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    // Codex's HTTP client would otherwise honour a proxy from the caller's environment.
    NO_PROXY: "127.0.0.1,localhost",
    no_proxy: "127.0.0.1,localhost",
  };
  const tmp = Deno.env.get("TMPDIR");
  if (tmp) env.TMPDIR = tmp;

  return {
    root,
    home,
    codexHome,
    workspace,
    configToml,
    mcpLog,
    env,
    async readMcpLog() {
      try {
        const text = await Deno.readTextFile(mcpLog);
        return text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return [];
        throw err;
      }
    },
    async cleanup() {
      await Deno.remove(root, { recursive: true }).catch(() => {});
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Process table
// ---------------------------------------------------------------------------------------------

/** A live process found by {@link processesTagged}. */
export interface TaggedProcess {
  pid: number;
  /**
   * Its process group: a helper's own pid (the relay spawns helpers detached),
   * shared by whatever the helper's launcher started (testing/process_table.ts).
   */
  pgid: number;
  cmdline: string;
}

/**
 * Live processes (zombies excluded) whose command line or environment contains `tag`, from
 * `ps -e e -ww` (procps prints each process's environment after its arguments;
 * testing/process_table.ts). Every process started for a {@link CodexHome} carries its `root`
 * (codex via `CODEX_HOME`/`HOME`, the MCP server via `--tag=`), so after a clean shutdown this
 * is empty. Count helpers by `pgid`, not by rows: a launcher (npm's `codex` or `deno`) puts two
 * processes with the same arguments behind one.
 */
export async function processesTagged(tag: string): Promise<TaggedProcess[]> {
  return (await processTable(true))
    .filter((row) => row.args.includes(tag))
    .map((row) => ({ pid: row.pid, pgid: row.pgid, cmdline: row.args.slice(0, 300) }));
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC driver
// ---------------------------------------------------------------------------------------------

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

/** Makes `<root>/bin` with `codex` linked to `codexPath`; returns that folder. */
export async function linkCodexBin(home: CodexHome, codexPath: string): Promise<string> {
  const binDir = `${home.root}/bin`;
  await Deno.mkdir(binDir);
  await Deno.symlink(codexPath, `${binDir}/codex`);
  return binDir;
}

/**
 * The environment a relay runs with against `home`: `binDir` (its `codex`)
 * first on PATH, the temp HOME and CODEX_HOME, and Deno's own cache (with HOME
 * the temp home, Deno would otherwise look for its npm packages there).
 */
export function relayEnv(home: CodexHome, binDir: string): Promise<Record<string, string>> {
  return Promise.resolve(denoChildEnv({
    PATH: `${binDir}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    HOME: home.home,
    CODEX_HOME: home.codexHome,
    LANG: "C.UTF-8",
    NO_COLOR: "1",
  }));
}
