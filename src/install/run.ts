/**
 * The `install` / `uninstall` flow: resolve the client's config file, check
 * the permissions for exactly that file, plan the edit, show the diff, ask,
 * back up, write atomically. With `--print` it only prints the entry and the
 * command that applies it (the main CLI's `install` always does that: the
 * server never holds write permission).
 * @module
 */

import { UsageError } from "../core/usage_error.ts";
import { INSTALL_USAGE, type InstallArgs, parseInstallArgs, passOnArgs } from "./args.ts";
import { ENTRY_NAME, type Launcher, resolveTarget, type Target } from "./clients.ts";
import { unifiedDiff } from "./diff.ts";
import { EXIT, InstallError } from "./install_error.ts";
import { applyCommand, commandLine, serveLauncher, type Source } from "./launch.ts";
import { type Plan, planInstall, planUninstall } from "./plan.ts";
import { tomlString } from "./toml_edit.ts";

/** File operations of the installer (real ones by default; tests may wrap them). */
export interface ConfigFs {
  /** The file's text, or `null` when it does not exist. */
  read(path: string): Promise<string | null>;
  /**
   * Replaces the file's text: backs up `before` to `backup` (when the file
   * existed), writes `tmp`, renames it over `path`. Refuses when the file no
   * longer holds `before`.
   */
  replace(
    path: string,
    text: string,
    before: string | null,
    backup: string,
    tmp: string,
  ): Promise<void>;
}

/** Everything the flow touches outside itself. */
export interface InstallIo {
  /** Writes to stdout. */
  out(text: string): void;
  /** Writes to stderr. */
  err(text: string): void;
  /** An environment variable, or `undefined` (unset or not readable). */
  env(name: string): string | undefined;
  /** `Deno.build.os`. */
  os: typeof Deno.build.os;
  /** The current folder. */
  cwd: string;
  /** Absolute path of the Deno executable (written into the entry). */
  deno: string;
  /** Whether stdin is a terminal (someone can be asked). */
  stdinIsTerminal: boolean;
  /** Asks a yes/no question on the terminal. */
  confirm(question: string): boolean;
  /** Whether a permission is granted (never prompts). */
  granted(descriptor: Deno.PermissionDescriptor): boolean;
  /** File operations. */
  fs: ConfigFs;
}

/** Runs the install command line; resolves with the exit code. */
export async function runInstall(
  argv: readonly string[],
  source: Source,
  io: InstallIo,
  options: { printOnly?: boolean } = {},
): Promise<number> {
  try {
    const args = parseInstallArgs(argv);
    if (args.help) {
      io.out(INSTALL_USAGE);
      return 0;
    }
    return await run(args, source, io, options.printOnly ?? false);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`codex-relay install: ${error.message}\n`);
      if (error.code === 64) io.err(`\n${INSTALL_USAGE}`);
      return error.code;
    }
    throw error;
  }
}

async function run(args: InstallArgs, running: Source, io: InstallIo, printOnly: boolean) {
  const source: Source = args.binary
    ? { kind: "binary", path: args.binary }
    : args.bundle
    ? { kind: "bundle", path: args.bundle }
    : running;
  const target = resolveTarget(args.client, args.scope, {
    get: io.env,
    os: io.os,
    cwd: io.cwd,
  });
  const backup = `${target.path}.codex-relay.bak`;
  const tmp = `${target.path}.codex-relay.tmp`;
  const launcher = serveLauncher(source, source.kind === "binary" ? source.path : io.deno, args);
  const applyLine = () =>
    commandLine(
      applyCommand({
        // From a binary or a bundle, the install entry comes from JSR and registers that file.
        source,
        action: args.action,
        args: passOnArgs(args),
        // Renaming the temp file over the config needs read and write on both.
        read: [target.path, tmp],
        write: [target.path, backup, tmp],
      }),
      io.os,
    );

  if (printOnly || args.print) {
    let apply: string;
    try {
      apply = applyLine();
    } catch (error) {
      if (!(error instanceof InstallError)) throw error;
      apply = `(none: ${error.message})`;
    }
    printSnippet(args, target, launcher, apply, io);
    return 0;
  }

  const missing = [
    { name: "read", path: target.path } as const,
    ...(args.dryRun ? [] : [
      { name: "read", path: tmp } as const,
      ...[target.path, backup, tmp].map((path) => ({ name: "write", path }) as const),
    ]),
  ].filter((d) => !io.granted(d));
  if (missing.length > 0) {
    throw new InstallError(
      `Needs to read and write ${target.path} (and ${backup}), and has no permission for ${
        missing.map((d) => `${d.name} ${d.path}`).join(", ")
      }. Run exactly:\n  ${applyLine()}`,
      EXIT.permission,
    );
  }

  let before: string | null;
  try {
    before = await io.fs.read(target.path);
  } catch (error) {
    throw new InstallError(`Cannot read ${target.path}: ${describe(error)}`, EXIT.io);
  }
  const plan: Plan = args.action === "install"
    ? planInstall(target, before, launcher, args.force)
    : planUninstall(target, before, args.force);

  if (plan.change === "none") {
    io.out(
      args.action === "install"
        ? `${target.label} (${target.scope}): ${target.path} already has this "${ENTRY_NAME}" entry; nothing to do.\n`
        : `${target.label} (${target.scope}): no "${ENTRY_NAME}" entry in ${target.path}; nothing to do.\n`,
    );
    return 0;
  }

  io.out(
    `${target.label} (${target.scope}): ${describeChange(plan)} ${target.path}\n\n` +
      unifiedDiff(plan.before, plan.after, target.path) + "\n",
  );
  if (args.dryRun) {
    io.out("Dry run: nothing was written.\n");
    return 0;
  }
  if (!args.yes) {
    if (!io.stdinIsTerminal) {
      throw new InstallError(
        `Not writing ${target.path}: stdin is not a terminal, so there is no one to ask. Run again with --yes to write it, or with --dry-run to only look`,
        EXIT.refused,
      );
    }
    if (!io.confirm(`Write this change to ${target.path}?`)) {
      io.out("Nothing was written.\n");
      return EXIT.refused;
    }
  }
  try {
    await io.fs.replace(target.path, plan.after!, plan.before, backup, tmp);
  } catch (error) {
    if (error instanceof InstallError) throw error;
    if (error instanceof Deno.errors.NotFound) {
      const dir = target.path.replace(/[\\/][^\\/]*$/, "");
      throw new InstallError(
        `The folder ${dir} does not exist (is ${target.label} installed, or is this the project folder?). Create it (mkdir ${
          commandLine([dir], io.os)
        }) and run again. Nothing was written`,
        EXIT.io,
      );
    }
    throw new InstallError(`Cannot write ${target.path}: ${describe(error)}`, EXIT.io);
  }
  io.out(
    `Wrote ${target.path}${
      plan.before === null ? "" : ` (the previous version is in ${backup})`
    }.\n` +
      (args.action === "install"
        ? `Restart ${target.label} (or reload its MCP servers) to start codex-relay.\n`
        : `Restart ${target.label} (or reload its MCP servers) to stop codex-relay.\n`),
  );
  return 0;
}

function describeChange(plan: Plan): string {
  switch (plan.change) {
    case "create":
      return "will create";
    case "add":
      return `will add the "${ENTRY_NAME}" entry to`;
    case "update":
      return `will replace the "${ENTRY_NAME}" entry in`;
    case "remove":
      return `will remove the "${ENTRY_NAME}" entry from`;
    default:
      return "leaves";
  }
}

function printSnippet(
  args: InstallArgs,
  target: Target,
  launcher: Launcher,
  apply: string,
  io: InstallIo,
): void {
  const lines: string[] = [];
  if (args.action === "uninstall") {
    lines.push(
      `To remove the "${ENTRY_NAME}" entry from ${target.label} (${target.scope}) in ${target.path}, run (it shows the change and asks first):`,
      "",
      `  ${apply}`,
      "",
    );
    io.out(lines.join("\n"));
    return;
  }
  const entry = target.entry(launcher);
  lines.push(
    `codex-relay entry for ${target.label} (${target.scope} scope), in ${target.path}:`,
    "",
  );
  if (target.format === "json") {
    lines.push(JSON.stringify({ [target.container[0]]: { [ENTRY_NAME]: entry } }, null, 2));
  } else {
    const env = entry.env as Record<string, string>;
    lines.push(
      `[mcp_servers.${ENTRY_NAME}]`,
      `command = ${tomlString(launcher.command)}`,
      `args = [${launcher.args.map(tomlString).join(", ")}]`,
      `env = { ${Object.entries(env).map(([k, v]) => `${k} = ${tomlString(v)}`).join(", ")} }`,
    );
  }
  lines.push(
    "",
    "Apply it with this command (it shows the change, keeps a backup and asks before writing):",
    "",
    `  ${apply}`,
    "",
  );
  if (target.client === "claude-code") {
    const json = JSON.stringify(entry);
    lines.push(
      "Or let Claude Code write it:",
      "",
      `  ${
        commandLine(["claude", "mcp", "add-json", "--scope", target.scope, ENTRY_NAME, json], io.os)
      }`,
      "",
    );
  }
  if (target.client === "codex" && target.scope === "user") {
    const env = entry.env as Record<string, string>;
    lines.push(
      "Or let Codex write it:",
      "",
      `  ${
        commandLine([
          "codex",
          "mcp",
          "add",
          ...Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]),
          ENTRY_NAME,
          "--",
          launcher.command,
          ...launcher.args,
        ], io.os)
      }`,
      "",
    );
  }
  io.out(lines.join("\n"));
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The real file operations. */
export const realFs: ConfigFs = {
  async read(path) {
    try {
      return await Deno.readTextFile(path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  },
  async replace(path, text, before, backup, tmp) {
    let mode: number | undefined;
    let symlink = false;
    try {
      symlink = (await Deno.lstat(path)).isSymlink;
      const info = await Deno.stat(path); // The file's own mode, through a link.
      mode = info.mode === null ? undefined : info.mode & 0o777;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    const current = await realFs.read(path);
    if (current !== before) {
      throw new InstallError(
        `${path} changed while codex-relay install was working (is the client running and rewriting it?); run again. Nothing was written`,
        EXIT.io,
      );
    }
    if (before !== null) await Deno.writeTextFile(backup, before, { mode });
    if (symlink) {
      // Keep the link: write through it, in place.
      await Deno.writeTextFile(path, text);
      return;
    }
    try {
      await Deno.remove(tmp).catch(() => {}); // A stale one would keep its own mode.
      await Deno.writeTextFile(tmp, text, { mode });
      await Deno.rename(tmp, path);
    } catch (error) {
      await Deno.remove(tmp).catch(() => {});
      throw error;
    }
  },
};

/** The real environment of the install flow. */
export function realInstallIo(): InstallIo {
  const encoder = new TextEncoder();
  const write = (stream: { writeSync(p: Uint8Array): number }) => (text: string) => {
    const bytes = encoder.encode(text);
    let offset = 0;
    while (offset < bytes.length) offset += stream.writeSync(bytes.subarray(offset));
  };
  return {
    out: write(Deno.stdout),
    err: write(Deno.stderr),
    env: (name) =>
      Deno.permissions.querySync({ name: "env", variable: name }).state === "granted"
        ? Deno.env.get(name)
        : undefined,
    os: Deno.build.os,
    cwd: Deno.cwd(),
    deno: Deno.execPath(),
    stdinIsTerminal: Deno.stdin.isTerminal(),
    confirm: (question) => {
      const answer = prompt(`${question} [y/N]`);
      return answer !== null && /^(y|yes)$/i.test(answer.trim());
    },
    granted: (descriptor) => Deno.permissions.querySync(descriptor).state === "granted",
    fs: realFs,
  };
}
