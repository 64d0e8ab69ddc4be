/**
 * The `install` / `uninstall` flow: resolve the client's config file, check
 * the permissions for exactly that file, plan the edit, show the diff, ask,
 * back up, write atomically. With `--print` it only prints the entry and the
 * command that applies it (the main CLI's `install` always does that: the
 * server never holds write permission).
 * @module
 */

import { UsageError } from "../core/usage_error.ts";
import {
  INSTALL_HINT,
  INSTALL_USAGE,
  type InstallArgs,
  parseInstallArgs,
  passOnArgs,
} from "./args.ts";
import { ENTRY_NAME, type Launcher, resolveTarget, type Target } from "./clients.ts";
import { unifiedDiff } from "./diff.ts";
import { EXIT, InstallError } from "./install_error.ts";
import { entryEnv } from "./entry_env.ts";
import { applyCommand, commandLine, serveLauncher, type Source } from "./launch.ts";
import { type Plan, planInstall, planUninstall } from "./plan.ts";
import { setTomlEntry, type TomlEntry } from "./toml_edit.ts";

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
  /** Deletes the file; refuses when it no longer holds `before`. */
  remove(path: string, before: string): Promise<void>;
  /**
   * Whether the folder exists, asked with write permission on it alone (the
   * installer holds no read permission on the client's folder).
   */
  folderExists(path: string): Promise<boolean>;
  /** Creates the folder and any missing parents. */
  makeFolder(path: string): Promise<void>;
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
      if (error.code === 64) io.err(`${INSTALL_HINT}\n`);
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
  const launcher = {
    ...serveLauncher(source, source.kind === "binary" ? source.path : io.deno, args),
    env: entryEnv(target, source, io.env),
  };
  // Write permission on the client's own folder covers creating it (Deno checks the folder's
  // path for mkdir) and every file of the install in it; otherwise exactly those files.
  const writes = target.folder ? [target.folder] : [target.path, backup, tmp];
  const applyLine = () =>
    commandLine(
      applyCommand({
        // From a binary or a bundle, the install entry comes from JSR and registers that file.
        source,
        action: args.action,
        args: passOnArgs(args),
        // Renaming the temp file over the config needs read and write on both.
        read: [target.path, tmp, backup],
        write: writes,
      }),
      io.os,
    );

  if (printOnly || args.print || args.printCommand) {
    if (args.printCommand) {
      io.out(`${applyLine()}\n`);
      return 0;
    }
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
    ...(args.action === "uninstall" ? [{ name: "read", path: backup } as const] : []),
    // A dry run asks whether the folder exists, which takes write permission on it.
    ...(args.dryRun ? (target.folder ? [{ name: "write", path: target.folder } as const] : []) : [
      { name: "read", path: tmp } as const,
      ...writes.map((path) => ({ name: "write", path }) as const),
    ]),
  ].filter((d) => !io.granted(d));
  if (missing.length > 0) {
    throw new InstallError(
      `Needs to read and write ${target.path} (and ${backup}${
        target.folder ? `, and create ${target.folder} when missing` : ""
      }), and has no permission for ${
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
  let backupText: string | null = null;
  if (args.action === "uninstall" && before !== null) {
    try {
      backupText = await io.fs.read(backup);
    } catch (error) {
      throw new InstallError(`Cannot read ${backup}: ${describe(error)}`, EXIT.io);
    }
  }
  const plan: Plan = args.action === "install"
    ? planInstall(target, before, launcher, args.force)
    : planUninstall(target, before, args.force, backupText);
  let createFolder: string | undefined;
  if (plan.change === "create" && target.folder) {
    try {
      if (!(await io.fs.folderExists(target.folder))) createFolder = target.folder;
    } catch (error) {
      if (error instanceof InstallError) throw error;
      throw new InstallError(`Cannot look at ${target.folder}: ${describe(error)}`, EXIT.io);
    }
  }

  if (plan.change === "none") {
    io.out(
      args.action === "install"
        ? `${target.label} (${target.scope}): ${target.path} already has this "${ENTRY_NAME}" entry; nothing to do.\n`
        : `${target.label} (${target.scope}): no "${ENTRY_NAME}" entry in ${target.path}; nothing to do.\n`,
    );
    return 0;
  }

  const folderNote = createFolder
    ? `will create the folder ${createFolder} (as ${target.label} does on its first start) and `
    : "";
  io.out(
    `${target.label} (${target.scope}): ${folderNote}${describeChange(plan)} ${target.path}\n\n` +
      unifiedDiff(plan.before, plan.after ?? "", target.path) + "\n",
  );
  if (args.dryRun) {
    io.out(
      `Dry run: nothing was written. To write it, run the same command without --dry-run.\n`,
    );
    return 0;
  }
  if (!args.yes) {
    if (!io.stdinIsTerminal) {
      throw new InstallError(
        `Not writing ${target.path}: stdin is not a terminal, so there is no one to ask. Run again with --yes to write it, or with --dry-run to only look`,
        EXIT.refused,
      );
    }
    const question = plan.change === "delete"
      ? `Delete ${target.path}?`
      : createFolder
      ? `Create the folder ${createFolder} and write this change to ${target.path}?`
      : `Write this change to ${target.path}?`;
    if (!io.confirm(question)) {
      io.out("Nothing was written.\n");
      return EXIT.refused;
    }
  }
  if (plan.change === "delete") {
    try {
      await io.fs.remove(target.path, plan.before!);
      if (plan.deleteBackup) await io.fs.remove(backup, backupText!);
    } catch (error) {
      if (error instanceof InstallError) throw error;
      throw new InstallError(`Cannot delete ${target.path}: ${describe(error)}`, EXIT.io);
    }
    io.out(
      `Deleted ${target.path}: codex-relay install had created it, and it held nothing else.\n` +
        `Restart ${target.label} (or reload its MCP servers) to stop codex-relay.\n`,
    );
    return 0;
  }
  if (createFolder) {
    try {
      await io.fs.makeFolder(createFolder);
    } catch (error) {
      throw new InstallError(
        `Cannot create the folder ${createFolder}: ${describe(error)}. Nothing was written`,
        EXIT.io,
      );
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
    `${createFolder ? `Created ${createFolder}. ` : ""}Wrote ${target.path}${
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
    case "delete":
      return `will delete (it holds only the "${ENTRY_NAME}" entry install wrote)`;
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
  const dry = args.dryRun
    ? "Dry run: nothing was written, and the command below writes nothing either (it has --dry-run): it shows the exact change. Run it without --dry-run to write."
    : undefined;
  if (args.action === "uninstall") {
    lines.push(
      ...(dry ? [dry, ""] : []),
      `To remove the "${ENTRY_NAME}" entry from ${target.label} (${target.scope}) in ${target.path}, run (${
        args.yes ? "it shows the change and writes it" : "it shows the change and asks first"
      }):`,
      "",
      `  ${apply}`,
      "",
    );
    io.out(lines.join("\n"));
    return;
  }
  const entry = target.entry(launcher);
  lines.push(
    ...(dry ? [dry, ""] : []),
    `codex-relay entry for ${target.label} (${target.scope} scope), in ${target.path}:`,
    "",
    target.format === "json"
      ? JSON.stringify({ [target.container[0]]: { [ENTRY_NAME]: entry } }, null, 2)
      : setTomlEntry("", ENTRY_NAME, entry as unknown as TomlEntry, target.path).trimEnd(),
    "",
    args.dryRun
      ? "See the change with this command:"
      : args.yes
      ? "Write it with this command (it shows the change, keeps a backup and writes it):"
      : "Write it with this command (it shows the change, keeps a backup and asks before writing):",
    "",
    `  ${apply}`,
    "",
  );
  if (target.client === "claude-code" && !args.dryRun) {
    lines.push(
      "Or let Claude Code write it:",
      "",
      `  ${
        commandLine(
          ["claude", "mcp", "add-json", "--scope", target.scope, ENTRY_NAME, JSON.stringify(entry)],
          io.os,
        )
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
  async remove(path, before) {
    if ((await realFs.read(path)) !== before) {
      throw new InstallError(
        `${path} changed while codex-relay install was working (is the client running and rewriting it?); run again. Nothing was written`,
        EXIT.io,
      );
    }
    await Deno.remove(path);
  },
  async folderExists(path) {
    try {
      // Opening for writing, without create or truncate, changes nothing.
      (await Deno.open(path, { write: true })).close();
    } catch (error) {
      if (error instanceof Deno.errors.IsADirectory) return true;
      if (error instanceof Deno.errors.NotFound) return false;
      if (error instanceof Deno.errors.PermissionDenied) return true; // A folder, on Windows.
      throw error;
    }
    throw new InstallError(`${path} is a file, not a folder; move it away and run again`, EXIT.io);
  },
  async makeFolder(path) {
    await Deno.mkdir(path, { recursive: true });
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
