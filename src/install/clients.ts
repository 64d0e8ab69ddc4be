/**
 * Where each MCP client keeps its server list, and in which shape.
 *
 * Sources (checked 2026-11-30):
 * - Claude Code: user scope in `~/.claude.json` (top-level `mcpServers`), project
 *   scope in `.mcp.json` at the project root (`mcpServers`); code.claude.com/docs/en/mcp
 *   "MCP installation scopes" (as quoted by the getmcpm/cli PR #117 and several guides).
 *   `CLAUDE_CONFIG_DIR` moves Claude Code's config (code.claude.com/docs/en/env-vars).
 *   Claude Code rewrites this file while it runs (anthropics/claude-code#361).
 * - Claude Desktop: `claude_desktop_config.json` (`mcpServers`) in
 *   `~/Library/Application Support/Claude/` (macOS), `%APPDATA%\Claude\` (Windows),
 *   `~/.config/Claude/` (Linux builds).
 * - Cursor: `~/.cursor/mcp.json` (global) and `.cursor/mcp.json` (project), `mcpServers`;
 *   cursor.com/docs/mcp.
 * - VS Code: `.vscode/mcp.json` (workspace) or `mcp.json` in the user profile folder
 *   (`Code/User/mcp.json` under `~/Library/Application Support/`, `%APPDATA%`,
 *   `~/.config/`), top-level `servers`, stdio entries with `type: "stdio"`;
 *   code.visualstudio.com/docs/copilot/reference/mcp-configuration. It is JSONC.
 * - Codex: `$CODEX_HOME/config.toml` (`CODEX_HOME` defaults to `~/.codex`), one
 *   `[mcp_servers.<name>]` table with `command`, `args`, `env`; openai/codex docs/config.md
 *   "MCP integration". A trusted project's `.codex/config.toml` is read too.
 *
 * How each starts a stdio server's environment ({@link KeyRoute}; checked 2026-12-02):
 * - Codex passes only a few variables and those its entry names in `env_vars`.
 * - Claude Code (the CLI) starts servers with its own whole environment plus the
 *   entry's `env` (anthropics/claude-code#1254, OctopusDeploy/Calamari#2035); its
 *   `${VAR}` expansion makes an unset variable a parse failure or literal text
 *   (code.claude.com/docs/en/mcp), so nothing is written for keys.
 * - Claude Desktop: "MCP servers inherit only a subset of environment variables
 *   automatically, like USER, HOME, and PATH" (modelcontextprotocol.io/docs/tools/debugging),
 *   and its `env` holds literal values.
 * - Cursor resolves `${env:NAME}` in `command`, `args`, `env`, `url`, `headers`
 *   (docs.cursor.com/context/mcp "Config interpolation").
 * - VS Code: mcp.json takes its predefined variables
 *   (code.visualstudio.com/docs/copilot/reference/mcp-configuration), `${env:Name}` among
 *   them (code.visualstudio.com/docs/reference/variables-reference).
 * @module
 */

import { UsageError } from "../core/usage_error.ts";

/** The clients `install` knows. */
export const CLIENTS = ["claude-code", "claude-desktop", "cursor", "vscode", "codex"] as const;

/** A client id. */
export type ClientId = typeof CLIENTS[number];

/** Where an entry goes: the user's own config, or the project in the current folder. */
export type Scope = "user" | "project";

/** The name of the relay's entry in every client. */
export const ENTRY_NAME = "codex-relay";

/**
 * The name of an entry serving `--compat codex-mcp-server`: the removed
 * `codex mcp-server`'s own, so its tools keep their names (`mcp__codex__codex`).
 */
export const COMPAT_ENTRY_NAME = "codex";

/**
 * The target of an install or uninstall: the client's config, and the
 * entry's name there (`--compat`: {@linkcode COMPAT_ENTRY_NAME}).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const env = { get: () => undefined, os: "linux" as const, cwd: "/p" };
 * const args = { client: "cursor" as const, scope: "project" as const, compat: "codex-mcp-server" };
 * assert.equal(installTarget(args, env).entryName, "codex");
 * ```
 */
export function installTarget(
  args: { client: ClientId; scope: Scope; compat?: string },
  env: TargetEnv,
): Target {
  const target = resolveTarget(args.client, args.scope, env);
  return args.compat ? { ...target, entryName: COMPAT_ENTRY_NAME } : target;
}

/**
 * The entry's name in `target`'s config.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(entryNameOf({ entryName: "codex" }), "codex");
 * assert.equal(entryNameOf({}), "codex-relay");
 * ```
 */
export function entryNameOf(target: { entryName?: string }): string {
  return target.entryName ?? ENTRY_NAME;
}

/**
 * The marker of entries `install` wrote: an environment variable in the
 * entry. `install` replaces and `uninstall` removes only marked entries
 * (unless `--force`).
 */
export const MARKER = { name: "CODEX_RELAY_MANAGED", value: "1" } as const;

/** How the relay is started: the command, its arguments and its environment. */
export interface Launcher {
  /** The executable. */
  command: string;
  /** Its arguments. */
  args: string[];
  /** Environment variables the entry sets besides the marker (PATH, the Deno cache). */
  env?: Record<string, string>;
  /**
   * The configured model providers' key variables, which the entry hands on
   * from the client's environment as its {@link KeyRoute} allows (a Codex
   * entry's `env_vars`, a `${env:NAME}` reference in Cursor's and VS Code's).
   */
  passEnv?: string[];
}

/**
 * How a client's entry can give the relay a variable of the client's own
 * environment (the providers' key variables): `env_vars` (Codex names it),
 * `inherited` (the client passes its whole environment: nothing to write),
 * `reference` (`"NAME": "${env:NAME}"` in the entry's `env`), `literal` (the
 * client passes a small environment and takes only literal values: only the
 * user can set it, install never writes a key's value).
 */
export type KeyRoute = "env_vars" | "inherited" | "reference" | "literal";

/**
 * The `env` value that makes Cursor and VS Code pass `name` from their environment.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(keyReference("AZURE_OPENAI_API_KEY"), "${env:AZURE_OPENAI_API_KEY}");
 * ```
 */
export function keyReference(name: string): string {
  return `\${env:${name}}`;
}

/**
 * The variables the relay reads that Codex does not pass to MCP servers by
 * default (it passes HOME, PATH, USER, LANG, LC_ALL, TMPDIR and a few more):
 * a Codex entry names them in `env_vars` so Codex passes them on when set.
 */
export const CODEX_PASS_ENV = [
  "CODEX_HOME",
  "OPENAI_API_KEY",
  "CODEX_API_KEY",
  "DENO_DIR",
  "XDG_CACHE_HOME",
] as const;

/** A client's config file and the shape of its entries. */
export interface Target {
  /** The client. */
  client: ClientId;
  /** The entry's name when not {@linkcode ENTRY_NAME} (`install --compat`: {@linkcode COMPAT_ENTRY_NAME}). */
  entryName?: string;
  /** Its display name. */
  label: string;
  /** The scope. */
  scope: Scope;
  /** Absolute path of the config file. */
  path: string;
  /**
   * The client's own config folder holding the file: `install` holds write
   * permission on it (which also lets it ask whether the folder exists).
   * `undefined`: a folder that is not the client's own (the home folder, a
   * `CLAUDE_CONFIG_DIR`), where it holds permission on its files alone.
   */
  folder?: string;
  /**
   * Whether `install` creates {@link folder} when missing, as the client would
   * on its first start; not a folder the user chose (`CODEX_HOME`), which
   * must exist.
   */
  createsFolder: boolean;
  /**
   * Whether the client starts servers with its own short PATH (GUI apps:
   * Claude Desktop, Cursor, VS Code), so the entry carries the PATH.
   */
  shortPath: boolean;
  /** How the entry gives the relay the providers' key variables. */
  keyRoute: KeyRoute;
  /** File format. */
  format: "json" | "toml";
  /** Key path of the object holding the servers (JSON), e.g. `["mcpServers"]`. */
  container: string[];
  /** The entry for a launcher, in the client's own shape. */
  entry(launcher: Launcher): Record<string, unknown>;
}

/** What target resolution reads from the environment. */
export interface TargetEnv {
  /** An environment variable, or `undefined` when unset (or not readable). */
  get(name: string): string | undefined;
  /** `Deno.build.os`. */
  os: typeof Deno.build.os;
  /** The current folder (project scope). */
  cwd: string;
}

const marked = (launcher: Launcher): Record<string, unknown> => ({
  command: launcher.command,
  args: launcher.args,
  env: { [MARKER.name]: MARKER.value, ...launcher.env },
});

/** `launcher` with a `${env:NAME}` reference for each key variable its `env` does not set. */
const referenced = (launcher: Launcher): Launcher => {
  const refs = (launcher.passEnv ?? []).filter((name) => launcher.env?.[name] === undefined)
    .map((name) => [name, keyReference(name)]);
  return { ...launcher, env: { ...launcher.env, ...Object.fromEntries(refs) } };
};

/** The folders a client's config path is built from, read from `env` when asked. */
interface Paths {
  /** Joins with the platform's separator (trailing separators of the first part dropped). */
  join(...parts: string[]): string;
  /** The home folder; a {@link UsageError} when HOME (USERPROFILE) is not set. */
  home(): string;
  /** An app's folder in the user's data folder (Application Support, APPDATA, XDG). */
  userData(app: string): string;
  /** A path in the current folder. */
  project(...parts: string[]): string;
}

/** The platform's folders as {@link resolveTarget} reads them from `env`. */
function pathsOf(env: TargetEnv): Paths {
  const sep = env.os === "windows" ? "\\" : "/";
  const join = (...parts: string[]) =>
    parts.map((p, i) => (i === 0 ? p.replace(/[\\/]+$/, "") : p)).join(sep);
  const home = () => {
    const h = env.os === "windows"
      ? env.get("USERPROFILE") ?? env.get("HOME")
      : env.get("HOME") ?? env.get("USERPROFILE");
    if (!h) throw new UsageError("Cannot find your home folder: HOME (USERPROFILE) is not set", 78);
    return h;
  };
  const appData = () => {
    const a = env.get("APPDATA");
    if (!a) throw new UsageError("Cannot find your profile folder: APPDATA is not set", 78);
    return a;
  };
  const xdgConfig = () => env.get("XDG_CONFIG_HOME") || join(home(), ".config");
  const userData = (app: string) =>
    env.os === "darwin"
      ? join(home(), "Library", "Application Support", app)
      : env.os === "windows"
      ? join(appData(), app)
      : join(xdgConfig(), app);
  const project = (...parts: string[]) => join(env.cwd, ...parts);
  return { join, home, userData, project };
}

/** Codex's target: `config.toml` in `CODEX_HOME` (user scope) or `.codex/` (project). */
function codexTarget(scope: Scope, paths: Paths, env: TargetEnv): Target {
  const { join, home, project } = paths;
  const chosen = scope === "user" ? env.get("CODEX_HOME") : undefined;
  const folder = chosen || (scope === "user" ? join(home(), ".codex") : project(".codex"));
  return {
    client: "codex",
    label: "Codex",
    scope,
    path: join(folder, "config.toml"),
    folder,
    createsFolder: !chosen,
    shortPath: false,
    keyRoute: "env_vars",
    format: "toml",
    container: ["mcp_servers"],
    // A variable the entry sets itself (the Deno cache) is not passed through as well.
    entry: (l) => ({
      ...marked(l),
      env_vars: [...new Set([...CODEX_PASS_ENV, ...l.passEnv ?? []])]
        .filter((name) => l.env?.[name] === undefined),
    }),
  };
}

/** The config file and entry shape of `client` at `scope`. */
export function resolveTarget(client: ClientId, scope: Scope, env: TargetEnv): Target {
  const paths = pathsOf(env);
  const { join, home, userData, project } = paths;
  const json = (
    label: string,
    path: string,
    folder: string | undefined,
    container: string,
    keyRoute: KeyRoute,
    entry: (l: Launcher) => Record<string, unknown>,
  ): Target => ({
    client,
    label,
    scope,
    path,
    folder,
    createsFolder: folder !== undefined,
    shortPath: client !== "claude-code",
    keyRoute,
    format: "json",
    container: [container],
    entry,
  });

  switch (client) {
    case "claude-code":
      return json(
        "Claude Code",
        scope === "user"
          ? join(env.get("CLAUDE_CONFIG_DIR") || home(), ".claude.json")
          : project(".mcp.json"),
        undefined,
        "mcpServers",
        "inherited",
        (l) => ({ type: "stdio", ...marked(l) }),
      );
    case "claude-desktop":
      if (scope === "project") {
        throw new UsageError("Claude Desktop has no project scope: use --scope user");
      }
      return json(
        "Claude Desktop",
        join(userData("Claude"), "claude_desktop_config.json"),
        userData("Claude"),
        "mcpServers",
        "literal",
        marked,
      );
    case "cursor": {
      const folder = scope === "user" ? join(home(), ".cursor") : project(".cursor");
      return json(
        "Cursor",
        join(folder, "mcp.json"),
        folder,
        "mcpServers",
        "reference",
        (l) => marked(referenced(l)),
      );
    }
    case "vscode": {
      const folder = scope === "user" ? join(userData("Code"), "User") : project(".vscode");
      return json(
        "VS Code",
        join(folder, "mcp.json"),
        folder,
        "servers",
        "reference",
        (l) => ({ type: "stdio", ...marked(referenced(l)) }),
      );
    }
    case "codex":
      return codexTarget(scope, paths, env);
  }
}

/** Whether an existing entry carries the marker of entries `install` wrote. */
export function isMarked(entry: unknown): boolean {
  if (typeof entry !== "object" || entry === null) return false;
  const env = (entry as { env?: unknown }).env;
  return typeof env === "object" && env !== null &&
    (env as Record<string, unknown>)[MARKER.name] === MARKER.value;
}
