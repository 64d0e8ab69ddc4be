/**
 * Where the running relay came from (a compiled binary, JSR, a checkout or a
 * bundle), and the command that runs its own CLI.
 * @module
 */

import { VERSION } from "../core/version.ts";
import { cliCommand, type Source } from "./launch.ts";

/**
 * Where this running relay came from ({@linkcode detectSource} of this module and the process).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(runningSource().kind, "checkout"); // under `deno test` in a checkout
 * ```
 */
export function runningSource(): Source {
  return detectSource(import.meta.url, Deno.execPath(), Deno.mainModule);
}

/**
 * This relay's CLI as hints print it: a bundle names its Deno by absolute path (npm's is on no PATH).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(runningCli()[0], "deno"); // from a checkout
 * ```
 */
export function runningCli(): string[] {
  const source = runningSource();
  return cliCommand(source, source.kind === "bundle" ? Deno.execPath() : "deno");
}

/**
 * Where the running relay came from, judged by the module URL of the caller
 * and the executable: a compiled binary, a JSR download, a checkout, or a bundle.
 */
export function detectSource(moduleUrl: string, execPath: string, mainModule: string): Source {
  const exe = execPath.split(/[\\/]/).pop()!.toLowerCase();
  if (exe !== "deno" && exe !== "deno.exe") return { kind: "binary", path: execPath };
  const jsr = moduleUrl.match(/^https:\/\/jsr\.io\/@codex-relay\/cli\/([^/]+)\//);
  if (jsr) return { kind: "jsr", version: jsr[1] };
  if (moduleUrl.startsWith("file:")) {
    const root = moduleUrl.match(/^(file:.*)\/src\/(?:cli|install)\/[a-z_]+\.ts$/) ??
      moduleUrl.match(/^(file:.*)\/install\.ts$/);
    if (root) return { kind: "checkout", root: filePath(root[1]) };
    return { kind: "bundle", path: filePath(mainModule) };
  }
  return { kind: "jsr", version: VERSION };
}

function filePath(url: string): string {
  const path = decodeURIComponent(new URL(url).pathname);
  return /^\/[A-Za-z]:\//.test(path) ? path.slice(1).replace(/\//g, "\\") : path;
}

/**
 * What an install registers: the binary or bundle given, npx (`--npx`), else the running relay.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const running = { kind: "checkout", root: "/r" } as const;
 * assert.equal(registeredSource({ npx: true }, running).kind, "npx");
 * ```
 */
export function registeredSource(
  args: { binary?: string; bundle?: string; npx?: boolean },
  running: Source,
): Source {
  if (args.binary) return { kind: "binary", path: args.binary };
  if (args.bundle) return { kind: "bundle", path: args.bundle };
  return args.npx ? { kind: "npx", version: VERSION } : running;
}
