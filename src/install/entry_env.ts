/**
 * The environment an entry sets so the relay starts the same way under the
 * client as in the user's shell: clients start servers with an environment
 * of their own, not the shell's.
 *
 * - GUI clients (Claude Desktop, Cursor, VS Code) start servers with a short
 *   PATH (`/usr/bin:/bin`). The relay may run only the `codex` Deno resolved
 *   on its PATH at start-up (`--allow-run=codex`), and npm's `codex` needs
 *   `node` next to it, so the entry carries the PATH of the install.
 * - Codex passes MCP servers only a few variables (HOME, PATH, USER, ...), so a
 *   Deno cache chosen with DENO_DIR (or XDG_CACHE_HOME) would be cold: Deno
 *   would download the relay's packages while Codex waits for `initialize`.
 *   Entries started by Deno carry the cache location of the install.
 * @module
 */

import type { Source } from "./launch.ts";
import type { Target } from "./clients.ts";

/** The variables that choose Deno's cache folder. */
export const DENO_CACHE_ENV = ["DENO_DIR", "XDG_CACHE_HOME"] as const;

/**
 * `path` with each folder once (the first time it appears, which is the one
 * a lookup finds) and no empty entries (an empty entry means the current
 * folder, which a client's is not).
 */
export function dedupePath(path: string, os: typeof Deno.build.os): string {
  const sep = os === "windows" ? ";" : ":";
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const dir of path.split(sep)) {
    const key = os === "windows"
      ? dir.toLowerCase().replace(/\\$/, "")
      : dir.replace(/(.)\/$/, "$1");
    if (dir === "" || seen.has(key)) continue;
    seen.add(key);
    kept.push(dir);
  }
  return kept.join(sep);
}

/** The environment of the entry for `target`, read from the install's own environment. */
export function entryEnv(
  target: Target,
  source: Source,
  get: (name: string) => string | undefined,
  os: typeof Deno.build.os = Deno.build.os,
): Record<string, string> {
  const env: Record<string, string> = {};
  if (target.shortPath) {
    const path = get("PATH");
    if (path) env.PATH = dedupePath(path, os);
  }
  if (source.kind !== "binary") {
    for (const name of DENO_CACHE_ENV) {
      const value = get(name);
      if (value) env[name] = value;
    }
  }
  return env;
}
