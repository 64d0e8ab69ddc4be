/**
 * Reading an environment variable the relay's permission set may not grant,
 * without prompting and without throwing.
 * @module
 */

/**
 * The value of `name` when the permission set grants reading it, else
 * `undefined` (never a prompt, never a `NotCapable`).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * // Unset or not granted alike: undefined, never a permission error or prompt.
 * assert.equal(grantedEnv("CODEX_RELAY_EXAMPLE_UNSET"), undefined);
 * ```
 */
export function grantedEnv(name: string): string | undefined {
  const granted = Deno.permissions.querySync({ name: "env", variable: name }).state === "granted";
  return granted ? Deno.env.get(name) : undefined;
}
