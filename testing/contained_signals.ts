/**
 * Run only contained (testing/pid_namespace.ts), where this process is
 * process 1 and every process id is small: what the reaping code does there.
 * Prints one JSON line. Outside a namespace of its own a broken guard would
 * signal every process the caller may, so it refuses to run there.
 *
 * `groups` (run with `--allow-run=/bin/kill,sleep,sh` and a loader variable
 * such as `LD_LIBRARY_PATH` set, as a user's shell may have it):
 * - `signalGroup` must refuse group 0 (the caller's own) and group 1 (with
 *   `kill`, every process the caller may signal) while a sentinel `sleep`
 *   runs in this process's group. The sentinel is SIGKILLed after both
 *   calls, so it died of SIGTERM only if a call reached it.
 * - It must signal a helper's group whose id is under 100, as a relay's
 *   first children have in a container.
 *
 * `leader` (run with `--allow-run=sh` only: no group can be signalled, as on
 * Windows or without the `/bin/kill` permission): reaping and killing still
 * end the helper itself, by the signals reaping promises.
 *
 * `deno run --allow-run=… testing/contained_signals.ts groups|leader`
 * @module
 */

import { canSignalGroups, signalGroup } from "../src/connect/process/process_group.ts";
import { HelperProcess, type ReapTimings } from "../src/connect/process/helper_process.ts";

/**
 * A helper running `script` in sh, in its own process group (also the
 * helpers of tests/unit/process_group_test.ts).
 */
export const shHelper = (script: string, reap: ReapTimings): HelperProcess =>
  HelperProcess.spawn({ command: "sh", args: ["-c", script], env: {} }, 4096, reap);

const LONG = 30_000;

/** The sentinel's death, after `signalGroup(0)` and `signalGroup(1)`. */
async function guard(): Promise<{ answers: boolean[]; sentinel: Deno.Signal | null }> {
  const sentinel = new Deno.Command("sleep", { args: ["30"], stdin: "null", clearEnv: true })
    .spawn();
  const answers = [await signalGroup(0, "SIGTERM"), await signalGroup(1, "SIGTERM")];
  try {
    sentinel.kill("SIGKILL");
  } catch {
    // already gone: its status says of what
  }
  return { answers, sentinel: (await sentinel.status).signal };
}

/** A helper group with a small id, signalled. */
async function smallGroup(): Promise<{ small: boolean; answer: boolean; signal: string | null }> {
  const helper = shHelper("exec sleep 30", { eofGraceMs: LONG, termGraceMs: LONG });
  const answer = await signalGroup(helper.pid, "SIGTERM");
  if (!answer) await helper.kill();
  const { signal } = await helper.status;
  await helper.reap();
  return { small: helper.pid < 100, answer, signal };
}

/** What ends a helper when only the helper itself can be signalled. */
async function leader(): Promise<Record<string, unknown>> {
  const deathOf = async (helper: HelperProcess, end: () => Promise<void>) => {
    await end();
    return helper.exited ? (await helper.status).signal : "still running";
  };
  const ignoresEof = shHelper("exec sleep 30", { eofGraceMs: 20, termGraceMs: LONG });
  const ignoresTerm = shHelper("trap '' TERM; exec sleep 30", { eofGraceMs: 20, termGraceMs: 100 });
  // Reaped after the kill: a kill that did not end it shows as the reap's SIGTERM.
  const killed = shHelper("exec sleep 30", { eofGraceMs: 20, termGraceMs: LONG });
  return {
    canSignalGroups: canSignalGroups(),
    ignoresEof: await deathOf(ignoresEof, () => ignoresEof.reap()),
    ignoresTerm: await deathOf(ignoresTerm, () => ignoresTerm.reap()),
    killed: await deathOf(killed, () => killed.kill().then(() => killed.reap())),
  };
}

if (import.meta.main) {
  if (Deno.pid !== 1) {
    console.error("contained_signals: refusing to run outside a PID namespace of its own");
    Deno.exit(2);
  }
  const mode = Deno.args[0];
  if (mode === "groups") console.log(JSON.stringify({ ...await guard(), ...await smallGroup() }));
  else if (mode === "leader") console.log(JSON.stringify(await leader()));
  else {
    console.error("contained_signals: usage: groups | leader");
    Deno.exit(64);
  }
  // Whatever a broken reap left running ends with this process, the namespace's first.
  Deno.exit(0);
}
