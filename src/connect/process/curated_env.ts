/**
 * The relay's own short list of variables (the names its permission set may
 * read), passed to `codex app-server proxy` in daemon mode. `codex
 * app-server` in spawn mode inherits the whole environment instead
 * (`child_env.ts`).
 * @module
 */

import { RELAY_PERMISSIONS } from "../../core/permissions.ts";

/**
 * The variables passed through to `codex app-server` when set: exactly the
 * names the relay's permission set (`permissions.default.env` in deno.json)
 * may read.
 */
export const PASSED_ENV: readonly string[] = Array.isArray(RELAY_PERMISSIONS.env)
  ? RELAY_PERMISSIONS.env
  : [];

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
