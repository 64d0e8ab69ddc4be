/**
 * A simulated file system for the Codex resolution's {@linkcode FsView}:
 * files (with text), symlinks (of files or folders, relative or absolute)
 * and folders that may not be read, in POSIX or Windows form (Windows:
 * case-insensitive, `\` or `/`). Built from a plain description so each test
 * shows its layout.
 * @module
 */

import type { FsView } from "../src/connect/process/codex_binary.ts";

/** A layout: path -> file text (`""` for a binary), `{ link }` for a symlink. */
export type Layout = Record<string, string | { link: string }>;

/** Options of {@linkcode simFs}. */
export interface SimOptions {
  /** Windows paths (case-insensitive, drive roots, `\`). */
  windows?: boolean;
  /** Folders (and everything under them) that may not be read. */
  unreadable?: string[];
}

/** The view of `layout`. */
export function simFs(layout: Layout, options: SimOptions = {}): FsView & { reads: string[] } {
  const win = options.windows ?? false;
  const key = (p: string) => {
    const parts = normalize(p, win);
    return win ? parts.toLowerCase() : parts;
  };
  const entries = new Map<string, string | { link: string }>();
  for (const [p, v] of Object.entries(layout)) entries.set(key(p), v);
  const sep = win ? "\\" : "/";
  const blocked = (options.unreadable ?? []).map(key);
  const isBlocked = (p: string) =>
    blocked.some((b) => key(p) === b || key(p).startsWith(b.endsWith(sep) ? b : b + sep));

  /** Resolves symlinks component by component; `null` when a loop or a missing link target. */
  function real(p: string): string | null {
    let path = normalize(p, win);
    for (let hops = 0; hops < 40; hops++) {
      const parts = path.split(sep);
      let changed = false;
      for (let i = 1; i <= parts.length; i++) {
        const prefix = parts.slice(0, i).join(sep);
        const entry = entries.get(win ? prefix.toLowerCase() : prefix);
        if (entry !== undefined && typeof entry !== "string") {
          const base = parts.slice(0, i - 1).join(sep);
          const target = isAbs(entry.link, win) ? entry.link : `${base}${sep}${entry.link}`;
          path = normalize([target, ...parts.slice(i)].join(sep), win);
          changed = true;
          break;
        }
      }
      if (!changed) return path;
    }
    return null;
  }
  function exists(p: string): "file" | "dir" | "missing" {
    const k = key(p);
    const entry = entries.get(k);
    if (typeof entry === "string") return "file";
    for (const other of entries.keys()) if (other.startsWith(k + sep)) return "dir";
    return "missing";
  }
  const reads: string[] = [];
  return {
    reads,
    kind(p) {
      reads.push(p);
      if (isBlocked(p)) return "unreadable";
      const r = real(p);
      if (r === null) return "missing";
      if (isBlocked(r)) return "unreadable";
      return exists(r);
    },
    realPath(p) {
      if (isBlocked(p)) return null;
      const r = real(p);
      return r !== null && exists(r) !== "missing" ? r : null;
    },
    head(p) {
      if (isBlocked(p)) return null;
      const r = real(p);
      if (r === null) return null;
      const entry = entries.get(key(r));
      return typeof entry === "string" ? entry.slice(0, 4096) : null;
    },
  };
}

function isAbs(p: string, win: boolean): boolean {
  return win ? /^[A-Za-z]:[\\/]/.test(p) : p.startsWith("/");
}

function normalize(p: string, win: boolean): string {
  const sep = win ? "\\" : "/";
  const drive = win ? p.match(/^[A-Za-z]:/)?.[0] ?? "" : "";
  const out: string[] = [];
  for (const s of p.slice(drive.length).split(win ? /[\\/]/ : "/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") out.pop();
    else out.push(s);
  }
  return `${drive}${sep}${out.join(sep)}`;
}

/** npm's `codex.cmd` (cmd-shim) for a package at `target` relative to the shim's folder. */
export function cmdShim(target: string): string {
  return [
    "@ECHO off",
    "GOTO start",
    ":find_dp0",
    "SET dp0=%~dp0",
    "EXIT /b",
    ":start",
    "SETLOCAL",
    "CALL :find_dp0",
    "",
    'IF EXIST "%dp0%\\node.exe" (',
    '  SET "_prog=%dp0%\\node.exe"',
    ") ELSE (",
    '  SET "_prog=node"',
    "  SET PATHEXT=%PATHEXT:;.JS;=;%",
    ")",
    "",
    `endLocal & goto #_undefined_# 2>NUL || title %COMSPEC% & "%_prog%"  "%dp0%\\${target}" %*`,
    "",
  ].join("\r\n");
}

/** A package manager's sh shim (pnpm's) for a script at `target` relative to the shim's folder. */
export function shShim(target: string): string {
  return [
    "#!/bin/sh",
    `basedir=$(dirname "$(echo "$0" | sed -e 's,\\\\,/,g')")`,
    'if [ -x "$basedir/node" ]; then',
    `  exec "$basedir/node"  "$basedir/${target}" "$@"`,
    "else",
    `  exec node  "$basedir/${target}" "$@"`,
    "fi",
    "",
  ].join("\n");
}
