/**
 * What the install flow touches outside itself: the config file operations
 * (backup, atomic replace, refusing a file that changed underneath) and the
 * terminal, environment and permission queries; the real ones of each.
 * @module
 */

import { grantedEnv } from "../core/granted_env.ts";
import { EXIT, InstallError } from "./install_error.ts";
import type { FsView } from "../connect/process/codex_binary.ts";
import { denoFsView } from "../connect/process/codex_binary_fs.ts";

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
  /** Removes the folder when it is empty (else leaves it); whether it was removed. */
  removeEmptyFolder(path: string): Promise<boolean>;
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
  /** `Deno.build.arch` (which of npm's platform packages Codex runs from). */
  arch: string;
  /** What the installer may see of the file system (the Codex lookup; never the client's files). */
  look: FsView;
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
        `${path} changed while codex-relay was editing it (is the client running and rewriting it?); run again. Nothing was written`,
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
  async removeEmptyFolder(path) {
    try {
      await Deno.remove(path); // Not recursive: a folder with anything in it stays.
      return true;
    } catch {
      return false;
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
        `${path} changed while codex-relay was editing it (is the client running and rewriting it?); run again. Nothing was written`,
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
      // A new file is the user's alone (as Claude Code makes ~/.claude.json); else its own mode.
      await Deno.writeTextFile(tmp, text, { mode: mode ?? 0o600 });
      await Deno.rename(tmp, path);
    } catch (error) {
      await Deno.remove(tmp).catch(() => {});
      throw error;
    }
  },
};

/**
 * `view`, looking only where read permission is already granted: any other
 * path is `unreadable` without being touched, so Deno never asks on the
 * terminal (once per PATH folder), even when started without `--no-prompt`.
 * Denied or not asked, the lookup's answer is the same.
 *
 * @example
 * ```ts ignore
 * const fs = grantedOnly(denoFsView(), () => false);
 * fs.kind("/usr/bin/codex"); // "unreadable", and no prompt
 * ```
 */
export function grantedOnly(
  view: FsView,
  granted: (descriptor: Deno.PermissionDescriptor) => boolean = (d) =>
    Deno.permissions.querySync(d).state === "granted",
): FsView {
  const may = (path: string) => granted({ name: "read", path });
  return {
    kind: (path) => may(path) ? view.kind(path) : "unreadable",
    realPath: (path) => may(path) ? view.realPath(path) : null,
    head: (path) => may(path) ? view.head(path) : null,
  };
}

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
    env: grantedEnv,
    os: Deno.build.os,
    arch: Deno.build.arch,
    look: grantedOnly(denoFsView()),
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
