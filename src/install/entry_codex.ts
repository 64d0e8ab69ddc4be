/**
 * Which Codex a client's entry runs, decided when it is installed: the
 * resolution of `src/connect/process/codex_binary.ts` (the `codex` a shell
 * finds, npm's wrapper followed to its native binary) or the user's
 * `--codex`. A binary found is written into the entry as `serve --codex PATH`
 * with a run permission naming exactly that path, so the relay never needs
 * read permission to find Codex: the installer looks, once, with read
 * permission on PATH's folders and npm's folders beside them
 * ({@linkcode lookupFolders}), which the printed apply command grants.
 * @module
 */

import {
  type CodexBinary,
  explainCodexBinary,
  lookupFolders,
  resolveCodexBinary,
} from "../connect/process/codex_binary.ts";
import type { InstallArgs } from "./args.ts";
import type { InstallIo } from "./io.ts";
import type { Source } from "./launch.ts";
import { EXIT, InstallError } from "./install_error.ts";

/** What the entry runs and why. */
export interface EntryCodex {
  /** The binary the entry names (`serve --codex`), or undefined: `codex` on PATH. */
  path?: string;
  /** One line for the user: what the entry runs and why. */
  note: string;
  /** What the install entry needs read permission on to look (the apply command grants it). */
  reads: string[];
  /**
   * False when Codex was not looked for here (no read permission): the apply
   * command looks and may write another Codex than this entry names.
   */
  settled?: boolean;
}

/** Decides what the entry for `args` from `source` runs (throws {@linkcode InstallError} on a bad `--codex`). */
export function entryCodex(args: InstallArgs, source: Source, io: InstallIo): EntryCodex {
  if (source.kind === "binary") {
    if (args.codex !== undefined) {
      throw new InstallError(
        "--codex cannot be used with a compiled codex-relay: deno compile fixed its permissions, and it may run only codex as found on PATH",
        EXIT.usage,
      );
    }
    return {
      note:
        "Codex: a compiled codex-relay runs codex as found on PATH (its permissions were fixed by deno compile)",
      reads: [],
    };
  }
  const query = {
    os: io.os,
    arch: io.arch,
    path: io.env("PATH"),
    pathext: io.env("PATHEXT"),
    chosen: args.codex,
  };
  const reads = lookupFolders(query).filter((p) => !p.includes(","));
  const found = resolveCodexBinary(query, io.look);
  if (args.codex !== undefined) return chosenCodex(args.codex, found, reads);
  // Only npm's wrapper is replaced; any other codex stays Deno's PATH lookup at start-up, as before.
  if (found.kind === "native" && !found.path.includes(",")) {
    return { path: found.path, note: `Codex: the entry runs ${explainCodexBinary(found)}`, reads };
  }
  const why = unlooked(found)
    ? "not looked for here, with no read permission on PATH's folders: the apply command codex-relay install prints has it, looks for npm's native binary and registers it when found"
    : found.kind === "direct"
    ? `now ${found.path}, not npm's wrapper`
    : explainCodexBinary(found);
  return {
    note: `Codex: the entry runs codex as found on PATH when it starts (${why})`,
    reads,
    settled: !unlooked(found),
  };
}

function chosenCodex(chosen: string, found: CodexBinary, reads: string[]): EntryCodex {
  if (found.kind === "direct" || found.kind === "native") {
    return {
      path: found.path,
      note: `Codex: the entry runs ${explainCodexBinary(found)}`,
      reads,
    };
  }
  // Not looked at (the relay's own print-only install may read nothing): taken as named.
  if (unlooked(found) && !/\.(cmd|bat)$/i.test(chosen)) {
    return {
      path: chosen,
      note:
        `Codex: the entry runs ${chosen} (named by --codex; not looked at here: the command below looks)`,
      reads,
      settled: false,
    };
  }
  throw new InstallError(
    `--codex ${chosen}: ${explainCodexBinary(found)}. Name a Codex executable`,
    EXIT.usage,
  );
}

function unlooked(found: CodexBinary): boolean {
  return found.kind === "notFound" && /no read permission/.test(found.reason);
}
