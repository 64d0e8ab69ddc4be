/**
 * Starts the relay through its real entry point (`deno run -P mod.ts serve`,
 * the project's default permission set) and connects an SDK v2 client.
 * @module
 */

import {
  connectClient,
  type ConnectedClient,
  type ElicitParams,
  type McpTestProtocol,
} from "./mcp_client.ts";
import type { ElicitResult } from "@modelcontextprotocol/client";
import type { FixtureHome } from "./fixture_home.ts";

import { ROOT } from "./paths.ts";
import { RELAY_V8_FLAGS } from "../src/install/launch.ts";
import { CACHED_ONLY, denoChildEnv } from "./child_env.ts";

/** The repository root. */
export { ROOT };

/**
 * The exact command line the relay is started with (besides the serve flags);
 * `permissions`: flags after `-P` (a later `--allow-run` replaces its run grant).
 */
export function relayArgs(flags: string[] = [], permissions: string[] = []): string[] {
  return [
    "run",
    "-P",
    ...permissions,
    CACHED_ONLY,
    "--quiet",
    "--no-prompt",
    RELAY_V8_FLAGS,
    "--config",
    `${ROOT}/deno.json`,
    `${ROOT}/mod.ts`,
    "serve",
    ...flags,
  ];
}

/** Options of {@linkcode entryArgs}. */
export interface EntryArgs {
  /** The entry point in the checkout (default `mod.ts`). */
  entry?: "mod.ts" | "install.ts";
  /** The permission flags (default `-P`: the entry's own set in deno.json). */
  permissions?: string[];
  /** Adds `--cached-only` (a caller that passes the argv through `cachedOnly()` leaves it off). */
  cachedOnly?: boolean;
  /** Adds `--no-prompt`. */
  noPrompt?: boolean;
  /** More Deno flags, after `--config` and before the entry point. */
  denoFlags?: string[];
}

/**
 * The `deno run` argv that starts an entry point of this checkout as a user
 * does (`deno run -P --quiet --config <root>/deno.json <root>/mod.ts …`),
 * then `args` (the command and its flags).
 *
 * @example
 * ```ts
 * entryArgs(["install", "--client", "cursor"]);
 * entryArgs(["--client", "cursor", "--yes"], { entry: "install.ts", permissions: ["-P=install"] });
 * ```
 */
export function entryArgs(args: string[], options: EntryArgs = {}): string[] {
  return [
    "run",
    ...(options.permissions ?? ["-P"]),
    ...(options.cachedOnly ? [CACHED_ONLY] : []),
    "--quiet",
    ...(options.noPrompt ? ["--no-prompt"] : []),
    "--config",
    `${ROOT}/deno.json`,
    ...(options.denoFlags ?? []),
    `${ROOT}/${options.entry ?? "mod.ts"}`,
    ...args,
  ];
}

/** Options of {@linkcode startRelay}. */
export interface StartRelay {
  /** The fixture home the relay's `codex` comes from (or a real CODEX_HOME via `env`). */
  fixture?: FixtureHome;
  /** Serve flags. */
  flags?: string[];
  /** MCP protocol revision of the client. */
  protocol: McpTestProtocol;
  /** Environment (default: the fixture's). */
  env?: Record<string, string>;
  /** Permission flags after `-P` (as an install entry that names its Codex binary has). */
  permissions?: string[];
  /** Answers elicitations (declares the capability). */
  onElicit?: (params: ElicitParams) => ElicitResult | Promise<ElicitResult>;
  /**
   * The `deno` that starts it: default the real binary running the tests
   * (`Deno.execPath()`), as every client entry does; a test passes an
   * npm-style shim (testing/npm_shim.ts).
   */
  command?: string;
}

/** A relay child with a connected client. */
export async function startRelay(options: StartRelay): Promise<ConnectedClient> {
  const env = options.env ?? options.fixture?.env;
  if (!env) throw new Error("startRelay needs a fixture or an env");
  return await connectClient({
    command: options.command ?? Deno.execPath(),
    args: relayArgs(options.flags, options.permissions),
    env: denoChildEnv(env),
    clearEnv: true,
    cwd: ROOT,
    protocol: options.protocol,
    onElicit: options.onElicit,
    timeoutMs: 20_000,
  });
}

/** Both protocol revisions the relay speaks. */
export const PROTOCOLS: readonly McpTestProtocol[] = ["2026-07-28", "2025-11-25"];

/** How a relay run ended: its exit, its log and the fixture processes still alive. */
export interface RelayEnd<T> {
  code: number;
  stderr: string;
  /** Fixture processes alive after the relay exited (should be none). */
  left: number[];
  /** What `collect` read from the fixture before it was removed. */
  collected: T;
}

/**
 * Runs `body`, then always closes the relay (stdin EOF) and removes the
 * fixture. The body's failure wins; then a failed close (the relay needed a
 * signal). Assert on the returned end *after* this resolves, never inside a
 * `finally`: an assertion there would hide the body's own failure and skip the
 * cleanup after it.
 */
export async function closeAfter<T = undefined>(
  relay: Pick<ConnectedClient, "close">,
  f: FixtureHome,
  body: () => Promise<void>,
  collect?: (f: FixtureHome) => Promise<T>,
): Promise<RelayEnd<T>> {
  let failure: { error: unknown } | undefined;
  try {
    await body();
  } catch (error) {
    failure = { error };
  }
  const closed = await relay.close().then((c) => c, (error: unknown) => ({ error }));
  const left = f.alive();
  const collected = await (collect ? collect(f) : Promise.resolve(undefined as T));
  await f.dispose();
  if (failure) throw failure.error;
  if ("error" in closed) throw closed.error;
  return { ...closed, left, collected };
}
