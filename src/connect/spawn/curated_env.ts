/**
 * The environment helpers get: only the names Codex needs, never `LD_*`.
 * @module
 */

/**
 * The variables passed through to `codex app-server` when set. The relay's
 * permission set (`permissions.default.env` in deno.json) lists exactly these.
 */
export const PASSED_ENV: readonly string[] = [
  "PATH",
  "HOME",
  "CODEX_HOME",
  "USER",
  "LANG",
  "LC_ALL",
  "TMPDIR",
  "SystemRoot",
  "USERPROFILE",
  "APPDATA",
  "LOCALAPPDATA",
  "OPENAI_API_KEY",
  "CODEX_API_KEY",
];

/**
 * Reads the passed-through variables that are set and readable. A variable
 * the permission set does not grant is skipped, not fatal.
 */
export function curatedEnv(names: readonly string[] = PASSED_ENV): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    try {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    } catch {
      // Not granted: not passed.
    }
  }
  return env;
}
