/**
 * The process table as the tests read it (`ps`: Deno treats /proc as
 * privileged), and the one way they count helpers: by process group.
 *
 * The relay spawns every helper detached, so a helper's pid is its process
 * group's id, and whatever the helper starts stays in that group. A command
 * line is no measure of how many helpers there are: a launcher can put two
 * processes behind one helper with the same arguments (npm's global `deno`
 * is a Node script that starts the real binary with its own argv; npm's
 * `codex` is a Node script that starts the native one). Counting the groups
 * that hold a matching process counts each helper once, however it was
 * launched. {@link processesTagged} is the check that proves a test left
 * nothing behind.
 * @module
 */

/** One live process. */
export interface ProcessRow {
  /** Its pid. */
  pid: number;
  /** Its parent's pid. */
  ppid: number;
  /** Its process group's id (a helper's own pid: the relay spawns helpers detached). */
  pgid: number;
  /** Its command line (and, when asked, its environment after it). */
  args: string;
}

const FORMAT = "pid=,ppid=,pgid=,stat=,args=";
const ROW = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/;

function parse(stdout: Uint8Array): ProcessRow[] {
  const rows: ProcessRow[] = [];
  for (const line of new TextDecoder().decode(stdout).split("\n")) {
    const m = ROW.exec(line);
    // Zombies are dead; `ps` itself and this test process are not what a test looks for.
    if (!m || m[4].startsWith("Z") || m[5].startsWith("ps ")) continue;
    const pid = Number(m[1]);
    if (pid === Deno.pid) continue;
    rows.push({ pid, ppid: Number(m[2]), pgid: Number(m[3]), args: m[5] });
  }
  return rows;
}

function psArgs(environment: boolean): string[] {
  // procps prints each process's environment after its arguments with `e`.
  return ["-e", ...(environment ? ["e"] : []), "-ww", "-o", FORMAT];
}

/**
 * The live processes (`environment`: with each one's environment after its
 * command line, as procps prints it with `e`).
 */
export async function processTable(environment = false): Promise<ProcessRow[]> {
  const out = await new Deno.Command("ps", {
    args: psArgs(environment),
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C" },
  }).output();
  if (!out.success) throw new Error(`ps failed: ${new TextDecoder().decode(out.stderr)}`);
  return parse(out.stdout);
}

/** {@link processTable}, synchronously. */
export function processTableSync(environment = false): ProcessRow[] {
  const out = new Deno.Command("ps", {
    args: psArgs(environment),
    stdout: "piped",
    stderr: "piped",
    env: { LC_ALL: "C" },
  }).outputSync();
  if (!out.success) throw new Error(`ps failed: ${new TextDecoder().decode(out.stderr)}`);
  return parse(out.stdout);
}

/**
 * The process groups (their ids, in the order first seen) holding a process
 * whose command line contains `needle`: one per helper, however many
 * processes its launcher put behind it.
 */
export function groupsMatching(rows: readonly ProcessRow[], needle: string): number[] {
  const groups = new Set<number>();
  for (const row of rows) if (row.args.includes(needle)) groups.add(row.pgid);
  return [...groups];
}

/** A live process found by {@link processesTagged}. */
export interface TaggedProcess {
  pid: number;
  /**
   * Its process group: a helper's own pid (the relay spawns helpers detached),
   * shared by whatever the helper's launcher started.
   */
  pgid: number;
  /** Its whole command line, then its environment (never cut: paths may be long). */
  cmdline: string;
}

/**
 * Live processes (zombies excluded) whose command line or environment contains `tag`, from
 * `ps -e e -ww` (procps prints each process's environment after its arguments). Every process
 * started for a `CodexHome` (testing/codex_home.ts) carries its `root` (codex via
 * `CODEX_HOME`/`HOME`, the MCP server via `--tag=`), so after a clean shutdown this is empty.
 * Count helpers by `pgid`, not by rows: a launcher (npm's `codex` or `deno`) puts two processes
 * with the same arguments behind one.
 */
export async function processesTagged(tag: string): Promise<TaggedProcess[]> {
  return (await processTable(true))
    .filter((row) => row.args.includes(tag))
    // The whole line: cut short, a long temp path (macOS's TMPDIR) pushed a script's name out.
    .map((row) => ({ pid: row.pid, pgid: row.pgid, cmdline: row.args }));
}
