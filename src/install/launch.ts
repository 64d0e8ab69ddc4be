/**
 * How the relay is started from a client's config, for each way it was
 * installed (checkout, JSR, downloaded binary, bundle), and the exact
 * commands that start it or apply an install, with their permission flags
 * derived from deno.json.
 * @module
 */

import { VERSION } from "../core/version.ts";
import {
  INSTALL_PERMISSIONS,
  permissionFlags,
  type PermissionSet,
  RELAY_PERMISSIONS,
} from "../core/permissions.ts";
import { type Capabilities, capabilityValues } from "../core/capabilities.ts";
import { runGrant, SERVE_OPTIONS, serveArgs, type ServeValues } from "../core/serve_options.ts";
import type { Launcher } from "./clients.ts";
import { EXIT, InstallError } from "./install_error.ts";

/** The JSR package name. */
export const JSR_PACKAGE = "@codex-relay/cli";

/** The npm package name (`npx -y codex-relay`; `deno task npm` builds it). */
export const NPM_PACKAGE = "codex-relay";

/** Where the relay that gets registered comes from. */
export type Source =
  | { kind: "checkout"; root: string }
  | { kind: "jsr"; version: string }
  | { kind: "binary"; path: string }
  | { kind: "bundle"; path: string }
  | { kind: "npx"; version: string };

/**
 * V8's old-space cap for the relay, in MiB. V8 grows its heap lazily, so a
 * relay under sustained load (it lives as long as the client's session) would
 * otherwise climb to 160+ MiB of RSS with nothing retained; capped, it
 * collects sooner and stays flat (`deno task bench`, sustained load). The
 * largest live set is a few 1 MiB frames in flight, far below the cap.
 */
export const RELAY_OLD_SPACE_MIB = 64;

/**
 * V8's cap on each young-generation semi-space, in MiB (V8 grows them to 16
 * MiB under allocation pressure, three of them: up to 48 MiB of RSS).
 */
export const RELAY_SEMI_SPACE_MIB = 2;

/**
 * V8's linear-time regexp engine (the `l` flag): an `outputSchema`'s patterns
 * run there, so no answer can make one backtrack (`src/reply/linear_regexp.ts`;
 * without it the relay refuses schemas with patterns).
 */
export const RELAY_REGEXP_FLAG = "--enable-experimental-regexp-engine";

/**
 * Deno's flag that denies, instead of asking on the terminal, what a
 * permission set does not grant: on every Deno command line the relay prints
 * or writes (a denied look changes nothing in what it does; a prompt per PATH
 * folder would stop each install line and `doctor`).
 */
export const NO_PROMPT = "--no-prompt";

/** The V8 flags every way of starting the relay passes (deno run, deno compile, install entries). */
export const RELAY_V8_FLAGS =
  `--v8-flags=--max-old-space-size=${RELAY_OLD_SPACE_MIB},--max-semi-space-size=${RELAY_SEMI_SPACE_MIB},${RELAY_REGEXP_FLAG}`;

/**
 * The flags that grant the relay's permission set (`permissions.default`)
 * without `-P`; with `codex`, the run grant names that binary instead of
 * `codex` on PATH.
 */
export function relayFlags(codex?: string, git?: string): string[] {
  return permissionFlags(relaySet(codex, git));
}

/** The relay's set, its run grant as `core/serve_options.ts` says the entry's options add to it. */
function relaySet(codex?: string, git?: string): PermissionSet {
  const run = RELAY_PERMISSIONS.run as string[];
  const values = { codex, allowWorktrees: git !== undefined, git };
  return codex === undefined && git === undefined
    ? RELAY_PERMISSIONS
    : { ...RELAY_PERMISSIONS, run: runGrant(values, run) };
}

/** The options `install` writes into an entry: those it takes, and the git it found. */
const ENTRY_ROWS = SERVE_OPTIONS.filter((o) => o.install !== undefined || o.option === "git");

/** The one run flag that replaces `-P`'s run grant when the relay runs the binary `codex`. */
function codexRunFlags(codex: string | undefined, git?: string): string[] {
  if (codex === undefined && git === undefined) return [];
  return permissionFlags({ run: relaySet(codex, git).run });
}

/** The flags that grant the install entry's set (`permissions.install`) without `-P`. */
export function installEnvFlags(): string[] {
  return permissionFlags(INSTALL_PERMISSIONS);
}

/** The JSR specifier of the relay (pinned to `version`), optionally of a sub-export. */
export function jsrSpecifier(version: string = VERSION, sub = ""): string {
  return `jsr:${JSR_PACKAGE}@${version}${sub ? `/${sub}` : ""}`;
}

/**
 * The one command line that starts the relay from `source` at `caps`: every
 * client entry, printed command and documented start line (README, `deno task
 * start`) is this one, so all carry `--quiet` (no "experimental permissions"
 * warning in client logs), the V8 flags and exactly the permission set.
 * `deno` is the Deno executable (an entry names the installer's absolute one).
 * `codex` is the Codex binary to run (`serve --codex`, and the run
 * permission names it; a later `--allow-run` replaces `-P`'s), else `codex`
 * on PATH. A compiled binary's permissions are fixed when it is compiled: it
 * always runs `codex` on PATH.
 */
export function startCommand(
  source: Source,
  caps: Capabilities,
  deno = "deno",
  codex?: string,
  git?: string,
): string[] {
  const runs = source.kind === "binary" ? undefined : codex;
  // With --allow-worktrees the run grant names git too: the path install found, or git on PATH.
  const gits = caps.worktrees && source.kind !== "binary" ? git ?? "git" : undefined;
  const values: ServeValues = { ...capabilityValues(caps), codex: runs, git: gits };
  const serve = ["serve", ...serveArgs(values, ENTRY_ROWS)];
  switch (source.kind) {
    case "checkout":
      return [
        deno,
        "run",
        "-P",
        ...codexRunFlags(runs, gits),
        NO_PROMPT,
        "--quiet",
        RELAY_V8_FLAGS,
        "--config",
        joinPath(source.root, "deno.json"),
        joinPath(source.root, "mod.ts"),
        ...serve,
      ];
    case "jsr":
      return [
        deno,
        "run",
        NO_PROMPT,
        "--quiet",
        RELAY_V8_FLAGS,
        ...relayFlags(runs, gits),
        jsrSpecifier(source.version),
        ...serve,
      ];
    case "bundle":
      return [
        deno,
        "run",
        NO_PROMPT,
        "--quiet",
        "--no-remote",
        "--cached-only",
        RELAY_V8_FLAGS,
        ...relayFlags(runs, gits),
        source.path,
        ...serve,
      ];
    case "binary":
      return [source.path, ...serve];
    case "npx":
      // The npm package's launcher grants the same set from the same source (launch.json).
      return ["npx", "-y", `${NPM_PACKAGE}@${source.version}`, ...serve];
  }
}

const DEFAULT_LEVEL: Capabilities = { replyRead: false, turnStart: false };

/**
 * The command that runs the relay's own CLI (`doctor`, `install`, ...) from
 * `source`, as a hint names it: a checkout has no `codex-relay` on PATH, so
 * from a checkout it is `deno run -P --no-prompt --quiet --config <root>/deno.json
 * <root>/mod.ts`; a binary is its own path.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const binary = { kind: "binary", path: "/usr/local/bin/codex-relay" } as const;
 * assert.deepEqual(cliCommand(binary), ["/usr/local/bin/codex-relay"]);
 * ```
 */
export function cliCommand(source: Source, deno = "deno"): string[] {
  const start = startCommand(source, DEFAULT_LEVEL, deno);
  return start.slice(0, -1).filter((word) => word !== RELAY_V8_FLAGS);
}

/**
 * The installer `deno task bundle` builds beside a bundle (`x.js` → `x-install.js`).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(installerBundle("/p/dist/codex-relay.js"), "/p/dist/codex-relay-install.js");
 * assert.equal(installerBundle("/p/dist/codex-relay-install.js"), "/p/dist/codex-relay-install.js");
 * ```
 */
export function installerBundle(bundle: string): string {
  const stem = bundle.replace(/\.[cm]?js$/, "");
  return stem.endsWith("-install") ? `${stem}.js` : `${stem}-install.js`;
}

/** The one-liner that serves the relay from JSR (this version) with its exact permissions. */
export function jsrServeCommand(version: string = VERSION): string[] {
  return startCommand({ kind: "jsr", version }, DEFAULT_LEVEL);
}

/** The command that serves a bundle file with its exact permissions. */
export function bundleServeCommand(bundle: string): string[] {
  return startCommand({ kind: "bundle", path: bundle }, DEFAULT_LEVEL);
}

/**
 * The launcher written into a client's config: {@linkcode startCommand}.
 * `deno` is the absolute path of the Deno that runs the installer (GUI
 * clients often lack the shell's PATH). `codex`: the Codex binary it runs.
 */
export function serveLauncher(
  source: Source,
  deno: string,
  caps: Capabilities,
  codex?: string,
  git?: string,
): Launcher {
  const [command, ...args] = startCommand(source, caps, deno, codex, git);
  return { command, args };
}

/** What the apply command needs to know. */
export interface ApplyCommand {
  /** Where the relay comes from. */
  source: Source;
  /** `install` or `uninstall`. */
  action: "install" | "uninstall";
  /** The install arguments (client, scope, flags) to pass on. */
  args: string[];
  /** Files the installer reads. */
  read: string[];
  /** Files the installer writes. */
  write: string[];
  /**
   * The relay running the install: a bundle brings its installer
   * ({@linkcode installerBundle}, run by `deno`, absolute); from any other,
   * a binary or bundle is registered by the installer from JSR.
   */
  running?: Source;
  /** The Deno running the install. */
  deno?: string;
}

/**
 * The one command that applies an install: the install entry with read and
 * write permission on exactly the files it touches. From a checkout it uses
 * the `install` permission set (`-P=install`); otherwise the same set as flags.
 */
export function applyCommand(c: ApplyCommand): string[] {
  const fileFlags = [`--allow-read=${fileList(c.read)}`, `--allow-write=${fileList(c.write)}`];
  if (c.source.kind === "checkout") {
    return [
      "deno",
      "run",
      NO_PROMPT,
      "--quiet",
      "-P=install",
      "--config",
      joinPath(c.source.root, "deno.json"),
      ...fileFlags,
      joinPath(c.source.root, "install.ts"),
      c.action,
      ...c.args,
    ];
  }
  const version = c.source.kind === "jsr" ? c.source.version : VERSION;
  // What to register: install's only (uninstall refuses --binary and --bundle).
  const from = c.action === "uninstall"
    ? []
    : c.source.kind === "binary"
    ? ["--binary", c.source.path]
    : c.source.kind === "bundle"
    ? ["--bundle", c.source.path]
    : [];
  const bundled = c.running?.kind === "bundle" ? installerBundle(c.running.path) : undefined;
  const installer = bundled
    ? [c.deno ?? "deno", "run", NO_PROMPT, "--quiet", "--no-remote", "--cached-only"]
    : ["deno", "run", NO_PROMPT, "--quiet"];
  return [
    ...installer.slice(0, 4),
    ...installEnvFlags(),
    ...installer.slice(4),
    ...fileFlags,
    bundled ?? jsrSpecifier(version, "install"),
    c.action,
    ...c.args,
    ...from,
  ];
}

function fileList(paths: string[]): string {
  for (const p of paths) {
    if (p.includes(",")) {
      throw new InstallError(
        `The path ${p} contains a comma, which Deno's --allow-read/--allow-write flags cannot express; add the entry by hand`,
        EXIT.config,
      );
    }
  }
  return paths.join(",");
}

function joinPath(dir: string, name: string): string {
  const sep = dir.includes("\\") && !dir.includes("/") ? "\\" : "/";
  return `${dir.replace(/[\\/]$/, "")}${sep}${name}`;
}

/** One shell word: quoted when needed (POSIX single quotes, or double quotes on Windows). */
export function shellQuote(word: string, os: typeof Deno.build.os = Deno.build.os): string {
  if (/^[A-Za-z0-9_@%+=:,./\\-]+$/.test(word)) return word;
  if (os === "windows") return `"${word.replace(/"/g, '\\"')}"`;
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/** A command line for the user's shell. */
export function commandLine(words: readonly string[], os?: typeof Deno.build.os): string {
  return words.map((w) => shellQuote(w, os)).join(" ");
}
