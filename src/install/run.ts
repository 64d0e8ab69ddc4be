/**
 * The `install` / `uninstall` flow: resolve the client's config file, check
 * the permissions for exactly that file, plan the edit, show the diff, ask,
 * back up, write atomically. With `--print` it only prints the entry and the
 * command that applies it (the main CLI's `install` always does that: the
 * server never holds write permission).
 * @module
 */

import { entryGit } from "./entry_git.ts";
import { UsageError } from "../core/usage_error.ts";
import { INSTALL_HINT, type InstallArgs, parseInstallArgs, passOnArgs, usageOf } from "./args.ts";
import { entryNameOf, installTarget, type Launcher, type Target } from "./clients.ts";
import { unifiedDiff } from "./diff.ts";
import { EXIT, InstallError } from "./install_error.ts";
import { entryEnv } from "./entry_env.ts";
import { applyCommand, cliCommand, commandLine, serveLauncher, type Source } from "./launch.ts";
import { registeredSource } from "./running.ts";
import { type Plan, planInstall, planUninstall } from "./plan.ts";
import type { InstallIo } from "./io.ts";
import { printSnippet } from "./snippet.ts";
import { entryCodex } from "./entry_codex.ts";
import { entryKeyState, keyNote, providerKeyVars } from "./provider_keys.ts";
import { hookFiles, runHookStep } from "./push_hooks.ts";

export { type ConfigFs, type InstallIo, realFs, realInstallIo } from "./io.ts";

/** Runs the install command line; resolves with the exit code. */
export async function runInstall(
  argv: readonly string[],
  source: Source,
  io: InstallIo,
  options: { printOnly?: boolean } = {},
): Promise<number> {
  // Errors name the command given, so an uninstall never reads "codex-relay install: ...".
  const command = argv.find((a) => a === "install" || a === "uninstall") ?? "install";
  try {
    const args = parseInstallArgs(argv);
    if (args.help) {
      io.out(usageOf(args.action, commandLine(cliCommand(source))));
      return 0;
    }
    const code = await run(args, source, io, options.printOnly ?? false);
    return code || await runHookStep(args, options, () => resolve(args, source, io), io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`codex-relay ${command}: ${error.message}\n`);
      if (error.code === 64) io.err(`${INSTALL_HINT}\n`);
      return error.code;
    }
    throw error;
  }
}

/** Everything resolved from the command line before any file is touched. */
interface Resolved {
  args: InstallArgs;
  io: InstallIo;
  target: Target;
  launcher: Launcher;
  /** What the entry runs and why (one line). */
  codexNote: string;
  /** Whether the entry shown is the one the apply command writes (Codex was looked for). */
  settled: boolean;
  /**
   * Codex's user config, which names the providers' key variables the entry
   * passes on (another client's install reads it; Codex's is the target).
   */
  codexConfig?: string;
  backup: string;
  tmp: string;
  /** What the install needs write permission on. */
  writes: string[];
  /** The one command that applies this change (throws when no flags can express it). */
  applyLine(): string;
}

/** A plan, with what it was planned from. */
interface Planned {
  plan: Plan;
  backupText: string | null;
  /** The client's folder, when the install creates it. */
  createFolder?: string;
  /** What the entry does with the providers' key variables (install). */
  keysNote?: string;
}

async function run(args: InstallArgs, running: Source, io: InstallIo, printOnly: boolean) {
  const r = resolve(args, running, io);
  if (printOnly || args.print || args.printCommand) return await printOnlyRun(r);
  checkPermissions(r);
  const planned = await planChange(r);
  if (planned.plan.change === "none") {
    const name = entryNameOf(r.target);
    io.out(
      args.action === "install"
        ? `${r.target.label} (${r.target.scope}): ${r.target.path} already has this "${name}" entry; nothing to do.\n` +
          (planned.keysNote ? `${planned.keysNote}\n` : "")
        : `${r.target.label} (${r.target.scope}): no "${name}" entry in ${r.target.path}; nothing to do.\n`,
    );
    return 0;
  }
  showChange(r, planned);
  if (args.dryRun) {
    io.out(
      `Dry run: nothing was written. To write it, run the same command without --dry-run.\n`,
    );
    return 0;
  }
  if (!confirmed(r, planned)) {
    io.out("Nothing was written.\n");
    return EXIT.refused;
  }
  await apply(r, planned);
  return 0;
}

function resolve(args: InstallArgs, running: Source, io: InstallIo): Resolved {
  const source = registeredSource(args, running);
  const target = installTarget(args, { get: io.env, os: io.os, cwd: io.cwd });
  const backup = `${target.path}.codex-relay.bak`;
  const tmp = `${target.path}.codex-relay.tmp`;
  const codex = entryCodex(args, source, io);
  const launcher = {
    ...serveLauncher(
      source,
      source.kind === "binary" ? source.path : io.deno,
      args,
      codex.path,
      entryGit(args, source, io),
    ),
    env: entryEnv(target, source, io.env, io.os),
  };
  // Write permission on the client's own folder covers creating it (Deno checks the folder's
  // path for mkdir) and every file of the install in it; otherwise exactly those files.
  const writes = target.folder ? [target.folder] : [target.path, backup, tmp];
  const codexConfig = target.client === "codex" || args.action === "uninstall"
    ? undefined
    : installTarget({ client: "codex", scope: "user" }, { get: io.env, os: io.os, cwd: io.cwd })
      .path;
  const applyLine = () =>
    commandLine(
      applyCommand({
        // From a binary or a bundle, the install entry comes from JSR and registers that file,
        // unless a bundle runs this: it brings its own installer (the npm package's case).
        source,
        running,
        deno: io.deno,
        action: args.action,
        args: passOnArgs(args),
        // Renaming the temp file over the config needs read and write on both; the Codex lookup
        // reads PATH's folders (an uninstall writes no entry and looks for nothing).
        read: [
          target.path,
          tmp,
          backup,
          ...(codexConfig ? [codexConfig] : []),
          ...(args.action === "install" ? codex.reads : []),
          ...hookFiles(args, io).read,
        ],
        write: [...writes, ...hookFiles(args, io).write],
      }),
      io.os,
    );
  return {
    args,
    io,
    target,
    launcher,
    codexNote: codex.note,
    settled: codex.settled ?? true,
    codexConfig,
    backup,
    tmp,
    writes,
    applyLine,
  };
}

async function printOnlyRun(r: Resolved): Promise<number> {
  if (r.args.printCommand) {
    r.io.out(`${r.applyLine()}\n`);
    return 0;
  }
  let apply: string;
  try {
    apply = r.applyLine();
  } catch (error) {
    if (!(error instanceof InstallError)) throw error;
    apply = `(none: ${error.message})`;
  }
  const { keys, note } = r.args.action === "install"
    ? await printedKeys(r)
    : { keys: [], note: undefined };
  const launcher = { ...r.launcher, passEnv: keys };
  const notes = [r.codexNote, ...(note ? [note] : [])].join("\n");
  printSnippet(r.args, r.target, launcher, apply, r.io, notes, r.settled);
  return 0;
}

/** The providers' key variables for a printed entry: read when permitted, else said. */
async function printedKeys(r: Resolved): Promise<{ keys: string[]; note?: string }> {
  const path = r.target.client === "codex" ? r.target.path : r.codexConfig!;
  if (!r.io.granted({ name: "read", path })) {
    return {
      keys: [],
      note:
        `Provider keys: ${path} was not read here (no read permission); the command below reads it and hands on the model providers' key variables as ${r.target.label} allows`,
    };
  }
  const keys = providerKeyVars(await r.io.fs.read(path).catch(() => null));
  return { keys, note: keyNote(r.target, keys) };
}

/** Refuses (exit 77, with the exact command) unless every file permission the change needs is held. */
function checkPermissions(r: Resolved): void {
  const { args, target, backup, tmp } = r;
  const missing = [
    { name: "read", path: target.path } as const,
    ...(r.codexConfig ? [{ name: "read", path: r.codexConfig } as const] : []),
    ...(args.action === "uninstall" ? [{ name: "read", path: backup } as const] : []),
    // A dry run asks whether the folder exists, which takes write permission on it.
    ...(args.dryRun ? (target.folder ? [{ name: "write", path: target.folder } as const] : []) : [
      { name: "read", path: tmp } as const,
      ...r.writes.map((path) => ({ name: "write", path }) as const),
    ]),
  ].filter((d) => !r.io.granted(d));
  if (missing.length === 0) return;
  throw new InstallError(
    `Needs to read and write ${target.path} (and ${backup}${
      target.folder && target.createsFolder ? `, and create ${target.folder} when missing` : ""
    }), and has no permission for ${
      missing.map((d) => `${d.name} ${d.path}`).join(", ")
    }. Run exactly:\n  ${r.applyLine()}`,
    EXIT.permission,
  );
}

async function planChange(r: Resolved): Promise<Planned> {
  const { args, target, backup, io } = r;
  const before = await readOrFail(io, target.path);
  const backupText = args.action === "uninstall" && before !== null
    ? await readOrFail(io, backup)
    : null;
  // The providers' key variables, handed on as the client allows (src/install/provider_keys.ts).
  const keys = providerKeyVars(
    target.client === "codex" ? before : r.codexConfig ? await readOrFail(io, r.codexConfig) : null,
  );
  const launcher = { ...r.launcher, passEnv: keys };
  const plan: Plan = args.action === "install"
    ? planInstall(target, before, launcher, args.force)
    : planUninstall(target, before, args.force, backupText);
  // A key the user set in Claude Desktop's entry needs nothing more.
  const unset = keys.filter((k) => entryKeyState(target.keyRoute, plan.entry, k) !== "set");
  const keysNote = args.action === "install" ? keyNote(target, unset) : undefined;
  if (plan.change !== "create" || !target.folder) return { plan, backupText, keysNote };
  let exists: boolean;
  try {
    exists = await io.fs.folderExists(target.folder);
  } catch (error) {
    if (error instanceof InstallError) throw error;
    throw new InstallError(`Cannot look at ${target.folder}: ${describe(error)}`, EXIT.io);
  }
  if (!exists && !target.createsFolder) throw missingFolder(target, target.folder, io);
  return { plan, backupText, keysNote, createFolder: exists ? undefined : target.folder };
}

/** The error for a folder that must exist and does not: said before any diff. */
function missingFolder(target: Target, dir: string, io: InstallIo): InstallError {
  const chosen = target.client === "codex" && target.scope === "user"
    ? " (CODEX_HOME names it)"
    : "";
  return new InstallError(
    `The folder ${dir}${chosen} does not exist (is ${target.label} installed, or is this the project folder?). Create it (mkdir ${
      commandLine([dir], io.os)
    }) and run again. Nothing was written`,
    EXIT.io,
  );
}

async function readOrFail(io: InstallIo, path: string): Promise<string | null> {
  try {
    return await io.fs.read(path);
  } catch (error) {
    throw new InstallError(`Cannot read ${path}: ${describe(error)}`, EXIT.io);
  }
}

function showChange(r: Resolved, { plan, createFolder, keysNote }: Planned): void {
  const { target } = r;
  const folderNote = createFolder
    ? `will create the folder ${createFolder} (as ${target.label} does on its first start) and `
    : "";
  const codexNote = r.args.action === "install" ? `${r.codexNote}\n` : "";
  const keys = keysNote ? `${keysNote}\n` : "";
  r.io.out(
    `${target.label} (${target.scope}): ${folderNote}${describeChange(plan)} ${target.path}\n` +
      codexNote + keys + "\n" +
      // Values the user set in the entry (a key in Claude Desktop's) are never shown.
      unifiedDiff(plan.before, plan.after ?? "", target.path, 3, plan.userEnv) + "\n",
  );
}

/** Whether to write: `--yes`, or a yes on the terminal (none there: refused, exit 75). */
function confirmed(r: Resolved, { plan, createFolder }: Planned): boolean {
  const { args, target, io } = r;
  if (args.yes) return true;
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
  return io.confirm(question);
}

async function apply(r: Resolved, { plan, backupText, createFolder }: Planned): Promise<void> {
  const { args, target, io, backup } = r;
  const restart = `Restart ${target.label} (or reload its MCP servers) to ${
    args.action === "install" ? "start" : "stop"
  } codex-relay.\n`;
  if (plan.change === "delete") {
    try {
      await io.fs.remove(target.path, plan.before!);
      if (plan.deleteBackup) await io.fs.remove(backup, backupText!);
    } catch (error) {
      if (error instanceof InstallError) throw error;
      throw new InstallError(`Cannot delete ${target.path}: ${describe(error)}`, EXIT.io);
    }
    // The client's own folder, which install creates when missing, goes too when left empty.
    const folder = target.folder && target.createsFolder &&
      await io.fs.removeEmptyFolder(target.folder);
    io.out(
      `Deleted ${target.path}${folder ? ` and the empty folder ${target.folder}` : ""}: ` +
        `codex-relay install had created it, and it held nothing else.\n` + restart,
    );
    return;
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
  await write(r, plan);
  // An uninstall keeps no backup: the file is as it was, less the entry install wrote.
  const kept = args.action === "install" && plan.before !== null;
  if (!kept && plan.before !== null) await io.fs.remove(backup, plan.before).catch(() => {});
  io.out(
    `${createFolder ? `Created ${createFolder}. ` : ""}Wrote ${target.path}${
      kept ? ` (the previous version is in ${backup})` : ""
    }.\n` + restart,
  );
}

async function write(r: Resolved, plan: Plan): Promise<void> {
  const { target, io } = r;
  try {
    await io.fs.replace(target.path, plan.after!, plan.before, r.backup, r.tmp);
  } catch (error) {
    if (error instanceof InstallError) throw error;
    if (error instanceof Deno.errors.NotFound) {
      throw missingFolder(target, target.path.replace(/[\\/][^\\/]*$/, ""), io);
    }
    throw new InstallError(`Cannot write ${target.path}: ${describe(error)}`, EXIT.io);
  }
}

function describeChange(plan: Plan): string {
  const name = entryNameOf(plan.target);
  switch (plan.change) {
    case "create":
      return "will create";
    case "add":
      return `will add the "${name}" entry to`;
    case "update":
      return `will replace the "${name}" entry in`;
    case "remove":
      return `will remove the "${name}" entry from`;
    case "delete":
      return `will delete (it holds only the "${name}" entry install wrote)`;
    default:
      return "leaves";
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
