/**
 * The process-table check that proves a test left nothing behind: every process started for a
 * `CodexHome` (testing/codex_home.ts) carries its root in its command line or environment.
 * @module
 */

/** A live process found by {@link processesTagged}. */
export interface TaggedProcess {
  pid: number;
  cmdline: string;
}

/**
 * Live processes (zombies excluded) whose command line or environment contains `tag`, from
 * `ps -e e -ww -o pid=,stat=,args=` (procps prints each process's environment after its
 * arguments). Deno treats /proc as privileged (it needs --allow-all), so the table is read
 * through `ps`. Every process started for a `CodexHome` (testing/codex_home.ts) carries its `root` (codex via
 * `CODEX_HOME`/`HOME`, the MCP server via `--tag=`), so after a clean shutdown this is empty.
 */
export async function processesTagged(tag: string): Promise<TaggedProcess[]> {
  const out = await new Deno.Command("ps", {
    args: ["-e", "e", "-ww", "-o", "pid=,stat=,args="],
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C" },
  }).output();
  if (!out.success) {
    throw new Error(`ps failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  const found: TaggedProcess[] = [];
  for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
    const m = /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line);
    if (!m || m[2].startsWith("Z") || !m[3].includes(tag)) continue;
    const pid = Number(m[1]);
    if (pid === Deno.pid) continue;
    found.push({ pid, cmdline: m[3].slice(0, 300) });
  }
  return found;
}
