/**
 * A temp `CODEX_HOME` for one real `codex app-server`: `HOME`, `CODEX_HOME` (an offline
 * `config.toml` whose model provider is the Responses mock, optionally registering the
 * elicitation MCP server) and a workspace, plus the environment a relay runs with against it
 * ({@link relayEnv}).
 * @module
 */

import { E2E_DIR, ROOT } from "./paths.ts";
import { denoCacheDir, denoChildEnv } from "./child_env.ts";

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
