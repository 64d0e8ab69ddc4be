/**
 * Strict parsing of the `install` / `uninstall` command line (the install
 * entry and the main CLI's print-only `install`).
 * @module
 */

import { UsageError } from "../core/usage_error.ts";
import { parseStrict } from "../core/parse_strict.ts";
import { capabilityArgs } from "../core/capabilities.ts";
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
  /** The Codex the entry runs (`--codex PATH`; npm's wrapper is followed to its native binary). */
  codex?: string;
  /** `--push hooks` (Claude Code): also the hook that pushes a run's end (`push_hooks.ts`). */
  push?: "hooks";
  /** `--help`. */
  help: boolean;
}

const OPTIONS = {
  client: { type: "string" },
  scope: { type: "string" },
  "allow-reply-read": { type: "boolean" },
  "allow-turn-start": { type: "boolean" },
  "allow-worktrees": { type: "boolean" },
  "dry-run": { type: "boolean" },
  yes: { type: "boolean", short: "y" },
  force: { type: "boolean" },
  print: { type: "boolean" },
  "print-command": { type: "boolean" },
  binary: { type: "string" },
  bundle: { type: "string" },
  codex: { type: "string" },
  push: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

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
  --allow-reply-read     Serve with --allow-reply-read (final answers)
  --allow-turn-start     Serve with --allow-turn-start (runs turns, forwards approvals)
  --allow-worktrees      Serve with --allow-worktrees (runs git; needs --allow-turn-start)
  --push hooks           Claude Code: also add the hook that wakes the agent when a run ends
                         (to the scope's settings.json: hook-wait, docs/design.md "Push")
  --dry-run              Show the change, write nothing
  --yes, -y              Write without asking (required when stdin is not a terminal)
  --force                Replace or remove an entry codex-relay install did not write
  --print                Only print the entry and the command that applies it
  --print-command        Print only that command, for sh -c "$(codex-relay install ...)"
  --binary PATH          Register this codex-relay binary
  --bundle PATH          Register this codex-relay bundle (deno task bundle)
  --codex PATH           The Codex the entry runs (default: codex as found on PATH). npm's
                         wrapper (codex, codex.cmd) is followed to the native binary it starts;
                         the entry then runs that binary (serve --codex) and may run only it
`;

/** The usage text of `uninstall`. */
export const UNINSTALL_USAGE =
  `Usage (codex-relay uninstall, or the install entry install.ts / jsr:@codex-relay/cli/install):
  uninstall --client CLIENT [options]   Remove the entry codex-relay install wrote

It removes the "codex-relay" entry, and what install added with it: the file when install
created it (and its backup), an empty "mcpServers": {} it added. The relay's own uninstall only
prints the command that does it: the install entry, started with read/write permission on exactly
that file, shows the diff and writes it.

CLIENT is one of ${CLIENTS.join(", ")}.

Options:
  --scope user|project   The client's user config (default) or the current project's
  --push hooks           Claude Code: also remove the hook install --push hooks added
  --dry-run              Show the change, write nothing
  --yes, -y              Write without asking (required when stdin is not a terminal)
  --force                Remove an entry codex-relay install did not write
  --print                Only print the command that removes it
  --print-command        Print only that command, for sh -c "$(codex-relay uninstall ...)"
`;

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
  if (values.binary !== undefined && values.bundle !== undefined) {
    throw new UsageError("Give --binary or --bundle, not both");
  }
  if (action === "uninstall") {
    for (
      const flag of [
        "allow-reply-read",
        "allow-turn-start",
        "allow-worktrees",
        "binary",
        "bundle",
        "codex",
      ]
    ) {
      if (seen.has(flag)) throw new UsageError(`--${flag} is not an option of uninstall`);
    }
  }
  for (const flag of ["binary", "bundle", "codex"] as const) {
    const path = values[flag];
    if (path !== undefined && !/^([A-Za-z]:[\\/]|\/|\\\\)/.test(path)) {
      throw new UsageError(`--${flag} needs an absolute path (got '${path}')`);
    }
  }
  return {
    action,
    client: client as ClientId,
    ...worktreesArg(values["allow-worktrees"], values["allow-turn-start"]),
    scope,
    replyRead: values["allow-reply-read"] ?? false,
    turnStart: values["allow-turn-start"] ?? false,
    dryRun: values["dry-run"] ?? false,
    yes: values.yes ?? false,
    force: values.force ?? false,
    print: values.print ?? false,
    printCommand: values["print-command"] ?? false,
    binary: values.binary,
    bundle: values.bundle,
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
    ...capabilityArgs(a),
    ...(a.codex ? ["--codex", a.codex] : []),
    ...(a.push ? ["--push", a.push] : []),
    ...(a.force ? ["--force"] : []),
    ...(a.dryRun ? ["--dry-run"] : []),
    ...(a.yes ? ["--yes"] : []),
  ];
}

/** `--allow-worktrees`, which needs `--allow-turn-start`. */
function worktreesArg(worktrees?: boolean, turnStart?: boolean): { worktrees?: true } {
  if (worktrees && !turnStart) throw new UsageError("--allow-worktrees needs --allow-turn-start");
  return worktrees ? { worktrees: true } : {};
}
