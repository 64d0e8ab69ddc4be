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
 * const key = grantedEnv("OPENAI_API_KEY"); // undefined when unset or not granted
 * ```
 */
export function grantedEnv(name: string): string | undefined {
  const granted = Deno.permissions.querySync({ name: "env", variable: name }).state === "granted";
  return granted ? Deno.env.get(name) : undefined;
}
