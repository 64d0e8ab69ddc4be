/**
 * The doctor's answer to "which Codex does the relay run, and why": the
 * binary `--codex` names (what `install` registered), or the `codex` Deno's
 * `--allow-run=codex` found on PATH at start-up; and, where the doctor may
 * look (`src/connect/process/codex_binary.ts`), whether that is npm's Node
 * wrapper and which native binary it would start.
 * @module
 */

import {
  type CodexBinary,
  explainCodexBinary,
  type FsView,
  resolveCodexBinary,
} from "../connect/process/codex_binary.ts";
import type { Finding } from "./doctor_env.ts";
import { reinstall } from "./doctor_entry.ts";

/** What the lookup needs of the doctor's surroundings. */
export interface CodexLookIo {
  /** An environment variable the relay may read, or `undefined`. */
  env(name: string): string | undefined;
  /** Whether a permission is granted (never prompts). */
  granted(descriptor: Deno.PermissionDescriptor): boolean;
  /** `Deno.build.os`. */
  os: string;
  /** `Deno.build.arch`. */
  arch: string;
  /** What the doctor may see of the file system. */
  fs: FsView;
  /** The client the doctor checks (`--client`), which its fixes name. */
  client?: string;
}

const register = (relay: string, client?: string) =>
  `${
    reinstall(relay, client)
  } registers the native binary (serve --codex PATH, with --allow-run naming it)`;

/**
 * The findings on which Codex runs, for `chosen` (`--codex`) or PATH;
 * `relay` is the command that runs this relay's CLI (hints name it).
 */
export function whichCodexFindings(
  io: CodexLookIo,
  chosen: string | undefined,
  relay = "codex-relay",
): Finding[] {
  const query = { os: io.os, arch: io.arch, path: io.env("PATH"), pathext: io.env("PATHEXT") };
  if (chosen !== undefined) {
    const findings: Finding[] = [
      { level: "info", text: `codex: runs ${chosen} (named by --codex)` },
    ];
    const seen = resolveCodexBinary({ ...query, chosen }, io.fs);
    if (seen.kind === "native" || seen.kind === "wrapperOnly") {
      findings.push({
        level: "warn",
        text: `${explainCodexBinary(seen)}; --codex names npm's Node wrapper`,
        fix: register(relay, io.client),
      });
    }
    return findings;
  }
  const findings: Finding[] = [];
  const resolved = deniedLookup(io);
  if (resolved) {
    findings.push({
      level: "ok",
      text: `codex resolves to ${resolved} (the PATH lookup Deno's --allow-run=codex made)`,
    });
  }
  const look = lookFinding(resolveCodexBinary(query, io.fs), relay, io.client);
  if (look) findings.push(look);
  return findings;
}

function lookFinding(seen: CodexBinary, relay: string, client?: string): Finding | undefined {
  switch (seen.kind) {
    case "native":
      return {
        level: "info",
        text:
          `codex on PATH is npm's Node wrapper; it starts ${seen.path} (${seen.wrapper.platformPackage}). Started directly, each Codex start skips Node`,
        fix: register(relay, client),
      };
    case "direct":
      return { level: "ok", text: `codex on PATH is ${explainCodexBinary(seen)}` };
    case "wrapperOnly":
    case "notRunnable":
      return { level: "warn", text: explainCodexBinary(seen) };
    case "notFound":
      return /no read permission/.test(seen.reason)
        ? {
          level: "info",
          text:
            `doctor may read no file, so it cannot tell whether codex on PATH is npm's Node wrapper (${relay} install looks, with read permission on PATH's folders)`,
        }
        : undefined;
  }
}

/** The codex executable Deno's `--allow-run=codex` resolved, found by querying each PATH entry. */
function deniedLookup(io: CodexLookIo): string | null {
  if (io.granted({ name: "run" })) return null; // Any program may run: the query tells nothing.
  const path = io.env("PATH") ?? "";
  const windows = io.os === "windows";
  const sep = windows ? "\\" : "/";
  const exts = windows
    ? ["", ...(io.env("PATHEXT") ?? ".EXE;.CMD;.BAT;.COM").toLowerCase().split(";")]
    : [""];
  for (const dir of path.split(windows ? ";" : ":")) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = `${dir.replace(/[\\/]$/, "")}${sep}codex${ext}`;
      if (io.granted({ name: "run", command: candidate })) return candidate;
    }
  }
  return null;
}
