/**
 * Strict parsing of the `install` / `uninstall` command line (the install
 * entry and the main CLI's print-only `install`).
 * @module
 */

import { UsageError } from "../core/usage_error.ts";
import { parseStrict } from "../core/parse_strict.ts";
import {
  missingNeed,
  optionLines,
  parseOptions,
  SERVE_OPTIONS,
  serveArgs,
  serveOption,
  type ServeValues,
  valuesOf,
} from "../core/serve_options.ts";
import { type ClientId, CLIENTS, type Scope } from "./clients.ts";

/** What the install command line asks for. */
export interface InstallArgs {
  /** Add or remove the entry. */
  action: "install" | "uninstall";
  /** The client. */
  client: ClientId;
  /** Its scope. */
  scope: Scope;
  /** Serve flag `--allow-reply-read` in the entry. */
  replyRead: boolean;
  /** Serve flag `--allow-turn-start` in the entry. */
  turnStart: boolean;
  /** Serve flag `--allow-worktrees` in the entry (its run permission names git). */
  worktrees?: boolean;
  /** `--compat codex-mcp-server`: the entry serves the old server's tools, named `codex`. */
  compat?: "codex-mcp-server";
  /** Show the change, write nothing. */
  dryRun: boolean;
  /** Write without asking. */
  yes: boolean;
  /** Replace or remove an entry `install` did not write. */
  force: boolean;
  /** Only print the snippet and the command that applies it. */
  print: boolean;
  /** Print only the command that applies it (for `sh -c "$(...)"`). */
  printCommand: boolean;
  /** Register this downloaded binary instead of the running source. */
  binary?: string;
  /** Register this bundle file instead of the running source. */
  bundle?: string;
  /** Register `npx -y codex-relay@<version>` (the npm package, fetched by npx at each start). */
  npx: boolean;
  /** The Codex the entry runs (`--codex PATH`; npm's wrapper is followed to its native binary). */
  codex?: string;
  /** `--push hooks` (Claude Code): also the hook that pushes a run's end (`push_hooks.ts`). */
  push?: "hooks";
  /** `--help`. */
  help: boolean;
}

/** The serve options install takes and writes into the entry (`core/serve_options.ts`). */
const ENTRY_ROWS = SERVE_OPTIONS.filter((o) => o.install !== undefined);

const OPTIONS = {
  client: { type: "string" },
  scope: { type: "string" },
  ...parseOptions(ENTRY_ROWS),
  "dry-run": { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  force: { type: "boolean" },
  print: { type: "boolean" },
  "print-command": { type: "boolean" },
  binary: { type: "string" },
  bundle: { type: "string" },
  npx: { type: "boolean" },
  push: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** The help's lines of the entry's options. */
const ENTRY_HELP = optionLines(ENTRY_ROWS, (o) => o.install).map(([flag, ...text]) =>
  text.map((line, i) => `  ${(i === 0 ? flag : "").padEnd(23)}${line}`).join("\n")
).join("\n");

/** The usage text of the install entry. */
export const INSTALL_USAGE =
  `Usage (codex-relay install, or the install entry install.ts / jsr:@codex-relay/cli/install):
  install --client CLIENT [options]     Register codex-relay in an MCP client's config
  uninstall --client CLIENT [options]   Remove the entry install wrote

The relay's own install only prints the entry and the command that writes it; the install
entry, started with read/write permission on exactly that file, shows the diff and writes it.

CLIENT is one of ${CLIENTS.join(", ")}.

Options:
  --scope user|project   The client's user config (default) or the current project's
${ENTRY_HELP}
  --push hooks           Claude Code: also add the hook that wakes the agent when a run ends
                         (to the scope's settings.json: hook-wait, docs/design.md "Push")
  --dry-run              Show the change, write nothing
  --yes, -y              Write without asking (required when stdin is not a terminal)
  --force                Replace or remove an entry codex-relay install did not write
  --print                Only print the entry and the command that applies it
  --print-command        Print only that command, for sh -c "$(codex-relay install ...)"
  --binary PATH          Register this codex-relay binary
  --bundle PATH          Register this codex-relay bundle (deno task bundle)
  --npx                  Register npx -y codex-relay@<this version> instead of this install's
                         files by absolute path (npx resolves the package at every start)
`;

/** The usage text of `uninstall`. */
export const UNINSTALL_USAGE =
  `Usage (codex-relay uninstall, or the install entry install.ts / jsr:@codex-relay/cli/install):
  uninstall --client CLIENT [options]   Remove the entry codex-relay install wrote

It removes the "codex-relay" entry, and what install added with it: the file when install
created it (and the client folder it created, when empty), an empty "mcpServers": {} it added,
the backup. The relay's own uninstall only
prints the command that does it: the install entry, started with read/write permission on exactly
that file, shows the diff and writes it.

CLIENT is one of ${CLIENTS.join(", ")}.

Options:
  --scope user|project   The client's user config (default) or the current project's
  --compat codex-mcp-server
                         Remove the entry install --compat wrote (named codex)
  --push hooks           Claude Code: also remove the hook install --push hooks added
  --dry-run              Show the change, write nothing
  --yes, -y              Write without asking (required when stdin is not a terminal)
  --force                Remove an entry codex-relay install did not write
  --print                Only print the command that removes it
  --print-command        Print only that command, for sh -c "$(codex-relay uninstall ...)"
`;

/**
 * The line that says what `codex-relay` stands for in a text, when the relay
 * runs from a checkout (or JSR, or a bundle), which has no `codex-relay`
 * command: `relay` is the command line that runs it. Empty for a binary.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(runsAs("deno run -P mod.ts"), "Here codex-relay is this command:\n  deno run -P mod.ts\n\n");
 * assert.equal(runsAs("codex-relay"), "");
 * ```
 */
export function runsAs(relay: string): string {
  return relay === "codex-relay" || !relay.includes(" ")
    ? ""
    : `Here codex-relay is this command:\n  ${relay}\n\n`;
}

/**
 * The usage text of `action`, saying first what `codex-relay` stands for
 * when `relay` (the command that runs the relay's CLI) is another command.
 */
export function usageOf(action: "install" | "uninstall", relay: string): string {
  return runsAs(relay) + (action === "uninstall" ? UNINSTALL_USAGE : INSTALL_USAGE);
}

/** The line printed after a usage error of the install command line. */
export const INSTALL_HINT = "Run with --help for the options.";

/** Parses `args`; `defaultAction` applies when no action word is given. */
export function parseInstallArgs(args: readonly string[]): InstallArgs {
  const { values, positionals, seen } = parseStrict(args, OPTIONS);
  const help = values.help ?? false;
  const [first, ...rest] = positionals;
  const action = first === undefined ? "install" : first;
  if (action !== "install" && action !== "uninstall") {
    throw new UsageError(`Unknown command '${action}': give install or uninstall`);
  }
  if (rest.length > 0) throw new UsageError(`Unexpected argument '${rest[0]}'`);
  if (help) {
    return {
      action,
      client: "claude-code",
      scope: "user",
      replyRead: false,
      turnStart: false,
      dryRun: false,
      yes: false,
      force: false,
      print: false,
      printCommand: false,
      npx: false,
      help,
    };
  }
  const client = values.client;
  if (client === undefined) {
    throw new UsageError(`Missing --client: give one of ${CLIENTS.join(", ")}`);
  }
  if (!(CLIENTS as readonly string[]).includes(client)) {
    throw new UsageError(`Unknown client '${client}': give one of ${CLIENTS.join(", ")}`);
  }
  const scope = values.scope ?? "user";
  if (scope !== "user" && scope !== "project") {
    throw new UsageError(`--scope must be user or project (got '${scope}')`);
  }
  if (values.print && values["print-command"]) {
    throw new UsageError("Give --print or --print-command, not both");
  }
  if ([values.binary, values.bundle, values.npx].filter((v) => v !== undefined).length > 1) {
    throw new UsageError("Give one of --binary, --bundle and --npx");
  }
  if (action === "uninstall") {
    // uninstall --compat removes the entry named codex that install --compat wrote.
    const rows = ENTRY_ROWS.filter((o) => o.option !== "compat");
    for (const flag of [...rows.map((o) => o.flag.slice(2)), "binary", "bundle", "npx"]) {
      if (seen.has(flag)) throw new UsageError(`--${flag} is not an option of uninstall`);
    }
  }
  for (const flag of ["binary", "bundle", "codex"] as const) {
    const path = values[flag];
    if (path !== undefined && !/^([A-Za-z]:[\\/]|\/|\\\\)/.test(path)) {
      throw new UsageError(`--${flag} needs an absolute path (got '${path}')`);
    }
  }
  const entry = valuesOf(values, ENTRY_ROWS);
  return {
    action,
    client: client as ClientId,
    // uninstall --compat names the entry to remove: it needs no --allow-turn-start there.
    ...worktreesArg(action === "uninstall" ? { ...entry, compat: undefined } : entry),
    ...compatArg(values.compat, action === "install" && !values["allow-turn-start"], client),
    scope,
    replyRead: entry.allowReplyRead === true,
    turnStart: entry.allowTurnStart === true,
    dryRun: values["dry-run"] ?? false,
    yes: values.yes ?? false,
    force: values.force ?? false,
    print: values.print ?? false,
    printCommand: values["print-command"] ?? false,
    binary: values.binary,
    bundle: values.bundle,
    npx: values.npx ?? false,
    codex: values.codex,
    ...pushArg(values.push, client),
    help,
  };
}

/** `--push hooks`: Claude Code only. */
function pushArg(push: string | undefined, client: string): { push?: "hooks" } {
  if (push === undefined) return {};
  if (push !== "hooks") throw new UsageError(`--push takes hooks (got '${push}')`);
  if (client !== "claude-code") throw new UsageError("--push hooks is for --client claude-code");
  return { push };
}

/**
 * The arguments that select the same change again, with the same way of
 * applying it (`--dry-run`, `--yes`, `--force`), for printed commands.
 */
export function passOnArgs(a: InstallArgs): string[] {
  return [
    "--client",
    a.client,
    ...(a.scope === "project" ? ["--scope", "project"] : []),
    ...serveArgs({
      allowReplyRead: a.replyRead,
      allowTurnStart: a.turnStart,
      allowWorktrees: a.worktrees,
      codex: a.codex,
      compat: a.compat,
    }, ENTRY_ROWS),
    ...(a.npx ? ["--npx"] : []),
    ...(a.push ? ["--push", a.push] : []),
    ...(a.force ? ["--force"] : []),
    ...(a.dryRun ? ["--dry-run"] : []),
    ...(a.yes ? ["--yes"] : []),
  ];
}

/** `--compat codex-mcp-server` (an install needs `--allow-turn-start`; not in Codex's own config). */
function compatArg(
  compat: string | undefined,
  noTurnStart: boolean,
  client: string,
): { compat?: "codex-mcp-server" } {
  if (compat === undefined) return {};
  if (compat !== "codex-mcp-server") {
    throw new UsageError(`--compat takes codex-mcp-server (got '${compat}')`);
  }
  if (noTurnStart) throw new UsageError("--compat needs --allow-turn-start");
  if (client === "codex") {
    throw new UsageError(
      "--compat serves clients of the old codex mcp-server; Codex itself does not call it",
    );
  }
  return { compat };
}

/** Worktrees, and the first option given without the one it needs (a usage error). */
function worktreesArg(entry: ServeValues): { worktrees?: true } {
  const missing = missingNeed(entry);
  if (missing) {
    throw new UsageError(`${serveOption(missing[0]).flag} needs ${serveOption(missing[1]).flag}`);
  }
  return entry.allowWorktrees === true ? { worktrees: true } : {};
}
