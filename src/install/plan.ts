/**
 * What `install` and `uninstall` would change in a config file: pure, no I/O.
 * @module
 */

import { deepEqual } from "./deep_equal.ts";
import { ENTRY_NAME, isMarked, type Launcher, type Target } from "./clients.ts";
import { EXIT, InstallError } from "./install_error.ts";
import { readJsonConfig, removeJsonEntry, setJsonEntry } from "./json_edit.ts";
import { readTomlConfig, removeTomlEntry, setTomlEntry, type TomlEntry } from "./toml_edit.ts";

/** The change a plan makes. */
export type Change = "create" | "add" | "update" | "remove" | "none";

/** A planned edit of one config file. */
export interface Plan {
  /** The file and its client. */
  target: Target;
  /** What was asked. */
  action: "install" | "uninstall";
  /** The file's text now (`null`: no file). */
  before: string | null;
  /** The file's text after the edit (equal to `before` when nothing changes). */
  after: string | null;
  /** What changes. */
  change: Change;
  /** The entry written (install). */
  entry?: Record<string, unknown>;
}

/** Plans writing the relay's entry for `launcher` into `before` (the file's text or `null`). */
export function planInstall(
  target: Target,
  before: string | null,
  launcher: Launcher,
  force: boolean,
): Plan {
  const entry = target.entry(launcher);
  const existing = readEntry(target, before ?? "");
  const plan = { target, action: "install" as const, before, entry };
  if (existing !== undefined && deepEqual(existing, entry)) {
    return { ...plan, after: before, change: "none" };
  }
  if (existing !== undefined && !isMarked(existing) && !force) {
    throw new InstallError(
      `${target.path} already has a "${ENTRY_NAME}" entry that codex-relay install did not write; run again with --force to replace it (a backup is kept). Nothing was written`,
      EXIT.refused,
    );
  }
  const after = target.format === "json"
    ? setJsonEntry(before ?? "", target.container, ENTRY_NAME, entry, target.path)
    : setTomlEntry(before ?? "", ENTRY_NAME, entry as unknown as TomlEntry, target.path);
  const change: Change = before === null ? "create" : existing === undefined ? "add" : "update";
  return { ...plan, after, change };
}

/** Plans removing the relay's entry from `before`. */
export function planUninstall(target: Target, before: string | null, force: boolean): Plan {
  const plan = { target, action: "uninstall" as const, before };
  if (before === null) return { ...plan, after: null, change: "none" };
  const existing = readEntry(target, before);
  if (existing === undefined) return { ...plan, after: before, change: "none" };
  if (!isMarked(existing) && !force) {
    throw new InstallError(
      `The "${ENTRY_NAME}" entry in ${target.path} was not written by codex-relay install; run again with --force to remove it (a backup is kept). Nothing was written`,
      EXIT.refused,
    );
  }
  const after = target.format === "json"
    ? removeJsonEntry(before, target.container, ENTRY_NAME, target.path)
    : removeTomlEntry(before, ENTRY_NAME, target.path);
  return { ...plan, after, change: "remove" };
}

function readEntry(target: Target, text: string): unknown {
  return target.format === "json"
    ? readJsonConfig(text, target.container, ENTRY_NAME, target.path).entry
    : readTomlConfig(text, ENTRY_NAME, target.path).entry;
}
