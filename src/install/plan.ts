/**
 * What `install` and `uninstall` would change in a config file: pure, no I/O.
 * @module
 */

import { parse, type ParseError } from "jsonc-parser";
import { deepEqual } from "./deep_equal.ts";
import { entryNameOf, isMarked, type Launcher, MARKER, type Target } from "./clients.ts";
import { DENO_CACHE_ENV } from "./entry_env.ts";
import { EXIT, InstallError } from "./install_error.ts";
import { readJsonConfig, removeJsonEntry, setJsonEntry } from "./json_edit.ts";
import { readTomlConfig, removeTomlEntry, setTomlEntry, type TomlEntry } from "./toml_edit.ts";

/**
 * The change a plan makes. `delete`: uninstall removes the whole file, which
 * holds exactly what install writes into no file (install created it).
 */
export type Change = "create" | "add" | "update" | "remove" | "delete" | "none";

/** A planned edit of one config file. */
export interface Plan {
  /** The file and its client. */
  target: Target;
  /** What was asked. */
  action: "install" | "uninstall";
  /** The file's text now (`null`: no file). */
  before: string | null;
  /** The file's text after the edit (equal to `before` when nothing changes; `null`: no file). */
  after: string | null;
  /** What changes. */
  change: Change;
  /** The entry written (install). */
  entry?: Record<string, unknown>;
  /** `delete`: the backup is install's too, and goes with the file. */
  deleteBackup?: boolean;
  /**
   * The variables the user set in the existing entry (not the marker, PATH or
   * the Deno cache): a diff never shows their values, which may be keys.
   */
  userEnv: string[];
}

const INSTALL_ENV = new Set<string>([MARKER.name, "PATH", ...DENO_CACHE_ENV]);

/** The names of the variables the user set in an entry's `env` ({@link Plan.userEnv}). */
function userEnv(entry: unknown): string[] {
  const env = (entry as { env?: unknown } | undefined)?.env;
  if (typeof env !== "object" || env === null) return [];
  return Object.keys(env).filter((name) => !INSTALL_ENV.has(name));
}

/** Plans writing the relay's entry for `launcher` into `before` (the file's text or `null`). */
export function planInstall(
  target: Target,
  before: string | null,
  launcher: Launcher,
  force: boolean,
): Plan {
  const existing = readEntry(target, before ?? "");
  const entry = target.entry(keptKeys(target, launcher, existing));
  const plan = {
    target,
    action: "install" as const,
    before,
    entry,
    userEnv: [...new Set([...userEnv(existing), ...userEnv(entry)])],
  };
  if (existing !== undefined && deepEqual(existing, entry)) {
    return { ...plan, after: before, change: "none" };
  }
  if (existing !== undefined && !isMarked(existing) && !force) {
    throw new InstallError(
      `${target.path} already has a "${
        entryNameOf(target)
      }" entry that codex-relay install did not write; run again with --force to replace it (a backup is kept${
        target.entryName ? "; it may be the old codex mcp-server's, which the relay replaces" : ""
      }). Nothing was written`,
      EXIT.refused,
    );
  }
  const after = target.format === "json"
    ? setJsonEntry(before ?? "", target.container, entryNameOf(target), entry, target.path)
    : setTomlEntry(before ?? "", entryNameOf(target), entry as unknown as TomlEntry, target.path);
  const change: Change = before === null ? "create" : existing === undefined ? "add" : "update";
  return { ...plan, after, change };
}

/**
 * `launcher` with the providers' keys the user set in the existing entry of a
 * client whose entry carries them in `env` (Claude Desktop's values, or a value
 * instead of Cursor's or VS Code's reference): install never writes a key's
 * value, and does not drop one either.
 */
function keptKeys(target: Target, launcher: Launcher, existing: unknown): Launcher {
  const inEnv = target.keyRoute === "literal" || target.keyRoute === "reference";
  if (!inEnv || !isMarked(existing)) return launcher;
  const env = (existing as { env: Record<string, unknown> }).env;
  const kept = (launcher.passEnv ?? []).filter((name) => typeof env[name] === "string")
    .map((name) => [name, env[name] as string]);
  return kept.length === 0
    ? launcher
    : { ...launcher, env: { ...launcher.env, ...Object.fromEntries(kept) } };
}

/**
 * Plans removing the relay's entry from `before`. What install added goes
 * with it, judged by the file and its backup (`backup`: the file before
 * install's last write, `null` when there is none):
 * - a file install created is deleted, with its backup: it holds exactly
 *   what install writes into no file, and so does the backup, if any;
 * - a server list (`"mcpServers": {}`) install added to a file is removed
 *   when install, run on the file without it, would write exactly the file as
 *   it is, and the backup has no server list either.
 */
export function planUninstall(
  target: Target,
  before: string | null,
  force: boolean,
  backup: string | null = null,
): Plan {
  if (before === null) {
    return { target, action: "uninstall", before, after: null, change: "none", userEnv: [] };
  }
  const existing = readEntry(target, before);
  const plan = { target, action: "uninstall" as const, before, userEnv: userEnv(existing) };
  if (existing === undefined) return { ...plan, after: before, change: "none" };
  if (!isMarked(existing) && !force) {
    throw new InstallError(
      `The "${
        entryNameOf(target)
      }" entry in ${target.path} was not written by codex-relay install; run again with --force to remove it (a backup is kept). Nothing was written`,
      EXIT.refused,
    );
  }
  const reinstalled = (text: string) => writeEntry(target, text, existing) === before;
  if (reinstalled("") && (backup === null || createdByInstall(target, backup))) {
    return { ...plan, after: null, change: "delete", deleteBackup: backup !== null };
  }
  let after = target.format === "json"
    ? removeJsonEntry(before, target.container, entryNameOf(target), target.path)
    : removeTomlEntry(before, entryNameOf(target), target.path);
  // A list in the backup that holds only the relay's entry is an earlier install's own.
  const backupList = backup === null ? undefined : readJsonValue(backup, target);
  const backupHasList = backupList !== undefined && !onlyKey(backupList, entryNameOf(target));
  if (
    target.format === "json" && isEmptyObject(readJsonValue(after, target)) && !backupHasList
  ) {
    const container = target.container;
    const without = removeJsonEntry(
      after,
      container.slice(0, -1),
      container[container.length - 1],
      target.path,
    );
    // Removing the list leaves its whitespace behind: install's text on it is compared as JSON,
    // and the backup (the file before install), when it is that JSON, is restored byte for byte.
    if (sameJson(writeEntry(target, without, existing), before)) {
      after = backup !== null && sameJson(backup, without) ? backup : without;
    }
  }
  return { ...plan, after, change: "remove" };
}

/** Whether `text` is exactly what install writes into no file (a marked entry, nothing else). */
function createdByInstall(target: Target, text: string): boolean {
  let entry: unknown;
  try {
    entry = readEntry(target, text);
  } catch {
    return false;
  }
  return isMarked(entry) && writeEntry(target, "", entry) === text;
}

function writeEntry(target: Target, text: string, entry: unknown): string | null {
  try {
    return target.format === "json"
      ? setJsonEntry(text, target.container, entryNameOf(target), entry, target.path)
      : setTomlEntry(text, entryNameOf(target), entry as TomlEntry, target.path);
  } catch {
    return null; // An entry this installer cannot write back was not written by it.
  }
}

/** The server list of a JSON config (the object holding the entries). */
function readJsonValue(text: string, target: Target): unknown {
  if (target.format !== "json") return undefined;
  const container = target.container;
  return readJsonConfig(
    text,
    container.slice(0, -1),
    container[container.length - 1],
    target.path,
  ).entry;
}

/** Whether two JSON (with comments) texts hold the same value; an unparsable one never does. */
function sameJson(a: string | null, b: string): boolean {
  if (a === null) return false;
  const errors: ParseError[] = [];
  const values = [parse(a, errors), parse(b, errors)];
  return errors.length === 0 && deepEqual(values[0], values[1]);
}

function onlyKey(value: unknown, key: string): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.keys(value).join("\n") === key;
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.keys(value).length === 0;
}

function readEntry(target: Target, text: string): unknown {
  return target.format === "json"
    ? readJsonConfig(text, target.container, entryNameOf(target), target.path).entry
    : readTomlConfig(text, entryNameOf(target), target.path).entry;
}
