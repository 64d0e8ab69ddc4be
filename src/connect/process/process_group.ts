/**
 * Signals a helper's whole process group (the helper is spawned detached, so
 * its pid is its group id), so that descendants that outlive it (a launcher's
 * native child, a backgrounded process keeping its pipes open) end with it.
 *
 * Deno's `Deno.kill` needs the unrestricted run permission, which the relay
 * never has (`--allow-run=codex` refuses it, also for its own children), and
 * `ChildProcess.kill` reaches the child alone. So the group is signalled by
 * `/bin/kill`, which the relay's permission set allows for exactly this;
 * without that permission (or on Windows) only the child itself is signalled.
 * @module
 */

/** The program that signals a process group; granted in deno.json `permissions.default`. */
export const GROUP_KILL = "/bin/kill";

/** How long one `/bin/kill` may take before it is given up on. */
const KILL_TIMEOUT_MS = 500;

let canRun: boolean | undefined;

/** Whether this process may signal process groups (run permission for {@linkcode GROUP_KILL}). */
export function canSignalGroups(): boolean {
  // Stryker disable next-line ConditionalExpression,StringLiteral,BooleanLiteral: Windows' branch: the mutation run is on Linux, where the condition is false
  if (Deno.build.os === "windows") return false;
  canRun ??= Deno.permissions.querySync({ name: "run", command: GROUP_KILL }).state === "granted";
  return canRun;
}

/**
 * Whether `pgid` may name a helper's process group: an integer above 1.
 * `kill -- -0` would signal the relay's own group and `kill -- -1` every
 * process the relay may signal, so those never reach `/bin/kill`.
 */
export function isHelperGroup(pgid: number): boolean {
  return Number.isInteger(pgid) && pgid > 1;
}

/**
 * The arguments of `/bin/kill` that signal the group `pgid`: `-TERM -- -PGID`.
 * procps-ng's kill (4.0.2) takes `-s TERM -- -PGID` for a usage error when
 * the id has one or two digits, as the first groups in a container have.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(groupKillArgs(42, "SIGTERM"), ["-TERM", "--", "-42"]);
 * ```
 */
export function groupKillArgs(pgid: number, signal: "SIGTERM" | "SIGKILL"): string[] {
  // Stryker disable next-line MethodExpression: procps-ng and util-linux kill take -SIGTERM as -TERM; the short name is kept for BSD kill
  return [`-${signal.slice(3)}`, "--", `-${pgid}`];
}

/**
 * Sends `signal` to the process group `pgid`. Resolves `true` once the
 * signal was delivered to the group, `false` when the group could not be
 * signalled (no permission, no such group, `/bin/kill` missing); never
 * rejects, never takes longer than {@linkcode KILL_TIMEOUT_MS}.
 */
export async function signalGroup(pgid: number, signal: "SIGTERM" | "SIGKILL"): Promise<boolean> {
  if (!canSignalGroups() || !isHelperGroup(pgid)) return false;
  try {
    const out = await new Deno.Command(GROUP_KILL, {
      args: groupKillArgs(pgid, signal),
      clearEnv: true,
      env: {},
      stdin: "null",
      stdout: "null",
      stderr: "null",
      signal: AbortSignal.timeout(KILL_TIMEOUT_MS),
    }).output();
    // Stryker disable BlockStatement: the catch block below: reached only when /bin/kill cannot be started (missing from the machine, or past its 500 ms bound), which no test can arrange; an undefined answer is falsy like false
    return out.success;
  } catch {
    // Stryker restore BlockStatement
    // Stryker disable next-line BooleanLiteral: reached only when /bin/kill cannot be started (missing from the machine, or past its 500 ms bound), which no test can arrange; an undefined answer is falsy like false
    return false;
  }
}
