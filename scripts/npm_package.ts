/**
 * What `deno task npm` writes, as pure values: the npm package `codex-relay`
 * (a Node launcher, the bundled relay, and `launch.json`: the command lines
 * the launcher fills in, taken from `src/install/launch.ts`, the one source of
 * every way the relay is started), one package per compiled binary
 * (`optionalDependencies`, each with `os` and `cpu`), the MCP Registry's
 * `server.json`, and the MCPB manifest for Claude Desktop.
 * @module
 */

import { NPM_PACKAGE, RELAY_V8_FLAGS, startCommand } from "../src/install/launch.ts";
import { RELAY_PERMISSIONS } from "../src/core/permissions.ts";
import { VERSION } from "../src/core/version.ts";
import { TOOLS } from "../src/host/tools/all_tools.ts";
import { SERVE_OPTIONS } from "../src/core/serve_options.ts";
import type { TARGETS } from "./compile.ts";

/** The npm package's name (and the command it puts on PATH). */
export const NPM_NAME: string = NPM_PACKAGE;

/** The MCP Registry's name of the server (`mcpName` in package.json; GitHub namespace). */
export const REGISTRY_NAME = "io.github.codex-relay/codex-relay";

/** The npm `deno` the launcher runs the bundle under (the version the project is built with). */
export const DENO_VERSION = "2.9.6";

/** The bundled relay inside the package. */
export const PACKAGE_BUNDLE = "dist/codex-relay.js";

/** One sentence, within the registry's 100 characters. */
export const DESCRIPTION =
  "Hand work to local OpenAI Codex threads from any MCP client, sandboxed (codex app-server).";

type Target = typeof TARGETS[number];

/** npm's platform and arch names of each compiled target, and its binary's file name. */
export const PLATFORMS: Record<Target, { os: string; cpu: string; file: string }> = {
  "x86_64-unknown-linux-gnu": { os: "linux", cpu: "x64", file: "bin/codex-relay" },
  "aarch64-unknown-linux-gnu": { os: "linux", cpu: "arm64", file: "bin/codex-relay" },
  "x86_64-apple-darwin": { os: "darwin", cpu: "x64", file: "bin/codex-relay" },
  "aarch64-apple-darwin": { os: "darwin", cpu: "arm64", file: "bin/codex-relay" },
  "x86_64-pc-windows-msvc": { os: "win32", cpu: "x64", file: "bin/codex-relay.exe" },
};

/**
 * The npm package of one compiled target's binary.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(platformPackageName("aarch64-apple-darwin"), "codex-relay-darwin-arm64");
 * ```
 */
export function platformPackageName(target: Target): string {
  const { os, cpu } = PLATFORMS[target];
  return `${NPM_NAME}-${os}-${cpu}`;
}

/** Placeholders of `launch.json`'s command lines, filled in by the launcher. */
const DENO = "@DENO@", BUNDLE = "@BUNDLE@", CODEX = "@CODEX@", GIT = "@GIT@";

/** The words of a start command up to the bundle's path, without what `serve` adds. */
function throughBundle(words: string[]): string[] {
  return words.slice(0, words.indexOf(BUNDLE) + 1);
}

/** `launch.json`: what the launcher runs, for each platform binary and for the bundle. */
export interface LaunchSpec {
  /** The relay's version. */
  version: string;
  /** The bundle, relative to the package. */
  bundle: string;
  /** `<platform>-<arch>` (Node's names) → the binary's package and its file in it. */
  binaries: Record<string, { package: string; file: string }>;
  /** `serve`: the installed entry's command line up to the bundle (V8 flags, the relay's set). */
  serve: string[];
  /** `serve --allow-worktrees`: the same, its run grant naming git too. */
  serveWorktrees: string[];
  /** Every other command (doctor, help, install's print step): no V8 flags, the relay's set. */
  cli: string[];
}

/**
 * The launcher's command lines, from {@linkcode startCommand}: the npm
 * package starts the relay exactly as an installed entry does.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const spec = launchSpec();
 * assert.deepEqual(spec.serve.slice(0, 2), ["@DENO@", "run"]);
 * assert.equal(spec.serve.at(-1), "@BUNDLE@");
 * ```
 */
export function launchSpec(): LaunchSpec {
  const bundle = { kind: "bundle", path: BUNDLE } as const;
  const level = { replyRead: false, turnStart: false };
  const binaries: LaunchSpec["binaries"] = {};
  for (const target of Object.keys(PLATFORMS) as Target[]) {
    const { os, cpu, file } = PLATFORMS[target];
    binaries[`${os}-${cpu}`] = { package: platformPackageName(target), file };
  }
  return {
    version: VERSION,
    bundle: PACKAGE_BUNDLE,
    binaries,
    serve: throughBundle(startCommand(bundle, level, DENO, CODEX)),
    serveWorktrees: throughBundle(
      startCommand(bundle, { ...level, worktrees: true }, DENO, CODEX, GIT),
    ),
    cli: throughBundle(startCommand(bundle, level, DENO, CODEX)).filter((w) =>
      w !== RELAY_V8_FLAGS
    ),
  };
}

/** The main package's package.json. */
export function mainPackageJson(): Record<string, unknown> {
  return {
    name: NPM_NAME,
    version: VERSION,
    description: DESCRIPTION,
    license: "MIT",
    mcpName: REGISTRY_NAME,
    keywords: ["mcp", "mcp-server", "codex", "openai-codex", "deno"],
    bin: { [NPM_NAME]: "bin/codex-relay.cjs" },
    files: ["bin/", "dist/", "launch.json", "README.md", "LICENSE"],
    engines: { node: ">=18" },
    dependencies: { deno: DENO_VERSION },
    optionalDependencies: Object.fromEntries(
      (Object.keys(PLATFORMS) as Target[]).map((t) => [platformPackageName(t), VERSION]),
    ),
  };
}

/** One compiled target's package.json (npm installs only the one matching `os` and `cpu`). */
export function platformPackageJson(target: Target): Record<string, unknown> {
  const { os, cpu, file } = PLATFORMS[target];
  return {
    name: platformPackageName(target),
    version: VERSION,
    description: `The codex-relay binary for ${os} ${cpu} (installed by the codex-relay package).`,
    license: "MIT",
    os: [os],
    cpu: [cpu],
    ...(os === "linux" ? { libc: ["glibc"] } : {}),
    files: [file],
    preferUnplugged: true,
  };
}

/**
 * The switches an installed entry takes (the levels: each adds tools to the one
 * above), as the registry lists them: flag and help from the serve options table.
 */
const LEVELS = SERVE_OPTIONS.filter((o) => o.install !== undefined && o.type === "boolean").map(
  (o) => [o.flag, o.help.join(" ")] as const,
);

/** The variables the relay hands on to Codex that a user may set (the rest are the system's). */
const USER_VARIABLES = [
  ["CODEX_HOME", "Codex's home folder (default ~/.codex).", false],
  ["OPENAI_API_KEY", "An OpenAI API key, when Codex is logged in with one.", true],
  ["CODEX_API_KEY", "A Codex API key, when Codex uses one.", true],
] as const;

/**
 * The MCP Registry's `server.json` (schema 2025-09-29): the npm package run
 * with `npx`, on stdio, its levels as package arguments.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(serverJson().packages[0].identifier, "codex-relay");
 * ```
 */
export function serverJson(): {
  packages: { identifier: string; [key: string]: unknown }[];
  [key: string]: unknown;
} {
  const env = RELAY_PERMISSIONS.env as string[];
  return {
    $schema: "https://static.modelcontextprotocol.io/schemas/2025-09-29/server.schema.json",
    name: REGISTRY_NAME,
    description: DESCRIPTION,
    version: VERSION,
    packages: [{
      registryType: "npm",
      identifier: NPM_NAME,
      version: VERSION,
      runtimeHint: "npx",
      transport: { type: "stdio" },
      packageArguments: [
        { type: "positional", value: "serve", description: "Serve MCP on stdio." },
        ...LEVELS.map(([name, description]) => ({ type: "named", name, description })),
      ],
      environmentVariables: USER_VARIABLES.filter(([name]) => env.includes(name)).map((
        [name, description, secret],
      ) => ({ name, description, isRequired: false, isSecret: secret })),
    }],
  };
}

/**
 * The MCPB manifest (0.3) of one platform's Desktop bundle: the compiled
 * binary at `server/`, serving the default level (a bundle's arguments are
 * fixed; the other levels are `install --client claude-desktop`'s).
 */
export function mcpbManifest(): Record<string, unknown> {
  const level = { replyRead: false, turnStart: false };
  return {
    manifest_version: "0.3",
    name: NPM_NAME,
    display_name: "codex-relay",
    version: VERSION,
    description: DESCRIPTION,
    author: { name: "codex-relay contributors" },
    license: "MIT",
    keywords: ["codex", "openai", "mcp"],
    server: {
      type: "binary",
      entry_point: "server/codex-relay",
      mcp_config: {
        command: "${__dirname}/server/codex-relay",
        args: ["serve"],
        platform_overrides: {
          win32: { command: "${__dirname}/server/codex-relay.exe" },
        },
      },
    },
    tools: TOOLS.filter((tool) => tool.enabled(level)).map((tool) => ({
      name: tool.name,
      description: tool.title,
    })),
    compatibility: { platforms: ["darwin", "linux", "win32"] },
  };
}
