/**
 * A PID namespace and a session of their own for a command whose bugs could
 * signal processes it does not own (`kill -- -1` is every process the caller
 * may signal, `kill -- -0` the caller's whole process group). Inside, the
 * command is process 1 and leads a new session: `-1` reaches only its own
 * descendants and `-0` only its own group, and when it exits the kernel
 * kills whatever it left. Linux only (util-linux `unshare` and `setsid`),
 * as root or where unprivileged user namespaces are allowed.
 * @module
 */

/**
 * The ways to make the namespace, tried in order: as root, then in a user
 * namespace of its own (mapped to root there) for a user who is not.
 */
export const CONTAINERS: readonly (readonly string[])[] = [
  ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child"],
  ["unshare", "--user", "--map-root-user", "--pid", "--fork", "--mount-proc", "--kill-child"],
];

/** What runs `argv` in a new session, so that its process group is its own (id 1 inside). */
const NEW_SESSION = ["setsid", "--wait"];

/**
 * `argv` run contained by `container` (one of {@linkcode CONTAINERS}): pure.
 *
 * @example
 * ```ts
 * contained(CONTAINERS[0], ["deno", "test"]);
 * // ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", "setsid", "--wait", "deno", "test"]
 * ```
 */
export function contained(container: readonly string[], argv: readonly string[]): string[] {
  return [...container, ...NEW_SESSION, ...argv];
}

/** Why no container could be made here: the last refusal's text. */
export class NoContainer extends Error {}

/**
 * The first of {@linkcode CONTAINERS} that runs a command here, by running
 * `sh -c 'test $$ = 1'` in it (process 1 of a new namespace), or a
 * {@linkcode NoContainer} with the reason when none does. Needs the run
 * permission for `unshare`.
 */
export async function findContainer(): Promise<readonly string[] | NoContainer> {
  if (Deno.build.os !== "linux") return new NoContainer(`no PID namespaces on ${Deno.build.os}`);
  let why = "";
  for (const container of CONTAINERS) {
    const [cmd, ...args] = contained(container, ["sh", "-c", "test $$ = 1"]);
    try {
      const out = await new Deno.Command(cmd, { args, stdin: "null", stdout: "null" }).output();
      if (out.success) return container;
      why = new TextDecoder().decode(out.stderr).trim() || `exit ${out.code}`;
    } catch (e) {
      why = e instanceof Error ? e.message : String(e);
    }
  }
  return new NoContainer(why);
}
