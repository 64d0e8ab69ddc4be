import assert from "assert";
import type { HelperProcess } from "../../src/connect/process/helper_process.ts";
import {
  canSignalGroups,
  isHelperGroup,
  signalGroup,
} from "../../src/connect/process/process_group.ts";
import { CACHED_ONLY } from "../../testing/child_env.ts";
import { contained, findContainer, NoContainer } from "../../testing/pid_namespace.ts";
import { shHelper } from "../../testing/contained_signals.ts";

/** The first line the helper writes to stdout (a pid), releasing stdout after. */
async function firstLine(helper: HelperProcess): Promise<number> {
  const reader = helper.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return Number(text.trim());
}

/** Whether process `pid` runs (exists and is not a zombie waiting for its reaper). */
async function running(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const stat = new TextDecoder().decode(out.stdout).trim();
  return stat !== "" && !stat.startsWith("Z");
}

/** Whether process `pid` is gone before a deadline (a SIGKILL is delivered asynchronously). */
async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = performance.now() + ms;
  while (await running(pid)) if (performance.now() > deadline) return false;
  return true;
}

/** Process groups are POSIX: not on Windows. */
const test = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, ignore: Deno.build.os === "windows", fn });

/** Runs `fn` and how long it took, in ms. */
async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const LONG = 20_000;

test(
  "reap: a helper that exits at stdin EOF is not signalled, and reaping does not wait out a grace",
  async () => {
    const helper = shHelper("cat", { eofGraceMs: LONG, termGraceMs: LONG, pipeGraceMs: LONG });
    const ms = await timed(() => helper.reap());
    const status = await helper.status;
    assert.deepEqual([status.code, status.signal], [0, null]);
    assert.ok(helper.exited);
    assert.ok(ms < LONG / 2, `${ms} ms`);
    assert.equal(helper.reap(), helper.reap(), "idempotent: one reaping");
  },
);

test("reap: a helper that ignores stdin EOF gets SIGTERM after the EOF grace", async () => {
  const helper = shHelper("exec sleep 30", {
    eofGraceMs: 50,
    termGraceMs: LONG,
    pipeGraceMs: LONG,
  });
  const ms = await timed(() => helper.reap());
  assert.equal((await helper.status).signal, "SIGTERM");
  assert.ok(ms >= 50 && ms < LONG / 2, `${ms} ms`);
});

test("reap: a helper that ignores SIGTERM gets SIGKILL after the term grace", async () => {
  const helper = shHelper("trap '' TERM; exec sleep 30", {
    eofGraceMs: 20,
    termGraceMs: 100,
    pipeGraceMs: LONG,
  });
  const ms = await timed(() => helper.reap());
  assert.equal((await helper.status).signal, "SIGKILL");
  assert.ok(ms >= 120 && ms < LONG / 2, `${ms} ms`);
});

test(
  "reap: a descendant that outlives the helper, holding its pipes, is killed with the whole group",
  async () => {
    const helper = shHelper("sleep 30 & echo $!; exit 0", {
      eofGraceMs: LONG,
      termGraceMs: LONG,
      pipeGraceMs: 600,
    });
    const descendant = await firstLine(helper);
    assert.ok(await running(descendant));
    const ms = await timed(() => helper.reap());
    assert.equal((await helper.status).code, 0, "the helper exited on its own");
    assert.ok(await goneWithin(descendant, 2000), "its descendant is gone");
    assert.ok(helper.pipesCut.aborted, "its pipes are no longer read");
    assert.ok(ms >= 600 && ms < LONG / 2, `${ms} ms: the pipe grace asked for`);
  },
);

test("reap: when the helper needed a signal, a descendant that ignores SIGTERM and holds no pipe is killed too", async () => {
  const helper = shHelper(
    "(trap '' TERM; exec sleep 30 </dev/null >/dev/null 2>&1) & echo $!; exec sleep 31",
    { eofGraceMs: 20, termGraceMs: LONG, pipeGraceMs: LONG },
  );
  const descendant = await firstLine(helper);
  await helper.reap();
  assert.equal((await helper.status).signal, "SIGTERM");
  assert.ok(await goneWithin(descendant, 2000), "the group was SIGKILLed whole");
});

test(
  "reap: when the helper needed a signal, its whole group is killed, descendants included",
  async () => {
    const helper = shHelper("sleep 30 & echo $!; exec sleep 31", {
      eofGraceMs: 20,
      termGraceMs: LONG,
      pipeGraceMs: LONG,
    });
    const descendant = await firstLine(helper);
    const ms = await timed(() => helper.reap());
    assert.equal((await helper.status).signal, "SIGTERM");
    assert.ok(await goneWithin(descendant, 2000));
    assert.ok(ms < LONG / 2, `${ms} ms: the pipe grace was not waited for`);
  },
);

test("kill: the whole group is SIGKILLed at once, without any grace", async () => {
  const helper = shHelper("trap '' TERM; sleep 30 & echo $!; exec sleep 31", {
    eofGraceMs: LONG,
    termGraceMs: LONG,
    pipeGraceMs: LONG,
  });
  const descendant = await firstLine(helper);
  const ms = await timed(() => helper.kill());
  assert.equal((await helper.status).signal, "SIGKILL");
  assert.ok(await goneWithin(descendant, 2000));
  assert.ok(helper.pipesCut.aborted);
  assert.ok(ms < LONG / 2, `${ms} ms`);
  await helper.reap();
});

/** A PID namespace for the guard's test, or why none can be made here (Linux only). */
const container = await findContainer();

/** Runs testing/contained_signals.ts in `mode` in its own PID namespace; its JSON line. */
async function runContained(
  mode: "groups" | "leader",
  allowRun: string,
  env: Record<string, string> = {},
): Promise<unknown> {
  if (container instanceof NoContainer) throw container;
  const child = new URL("../../testing/contained_signals.ts", import.meta.url).pathname;
  const [cmd, ...args] = contained(container, [
    Deno.execPath(),
    "run",
    CACHED_ONLY,
    "--quiet",
    "--no-prompt",
    `--allow-run=${allowRun}`,
    // Under `deno task mutate` the child runs the mutant this variable names.
    "--allow-env=__STRYKER_ACTIVE_MUTANT__",
    child,
    mode,
  ]);
  const out = await new Deno.Command(cmd, { args, env, stdin: "null" }).output();
  assert.ok(out.success, `the contained child failed: ${new TextDecoder().decode(out.stderr)}`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/** Linux only, in a PID namespace of its own: a broken guard reaches nothing outside the test. */
const containedTest = (name: string, fn: () => Promise<void>) =>
  Deno.test({ name, ignore: container instanceof NoContainer, fn });

containedTest(
  "signalGroup, where process ids are small (a container): refuses group 0 and group 1, signals a helper's group under 100, with a loader variable set",
  async () => {
    // A loader variable in the relay's environment must not keep /bin/kill from starting.
    const seen = await runContained("groups", "/bin/kill,sleep,sh", {
      LD_LIBRARY_PATH: "/nonexistent/codex-relay-test",
    });
    assert.deepEqual(seen, {
      answers: [false, false],
      sentinel: "SIGKILL",
      small: true,
      answer: true,
      signal: "SIGTERM",
    });
  },
);

containedTest(
  "reap and kill, where no group can be signalled: the helper itself gets SIGTERM, then SIGKILL",
  async () => {
    assert.deepEqual(await runContained("leader", "sh"), {
      canSignalGroups: false,
      ignoresEof: "SIGTERM",
      ignoresTerm: "SIGKILL",
      killed: "SIGKILL",
    });
  },
);

Deno.test("isHelperGroup: never group 0 (the relay's own) or 1 (every process), nor negative or fractional ids", () => {
  // Never passed to signalGroup in a test: a broken guard would signal the test's group, or all.
  for (const pgid of [0, 1, -1, -5, 2.5, NaN, Infinity]) assert.equal(isHelperGroup(pgid), false);
  for (const pgid of [2, 12345, 2 ** 22]) assert.equal(isHelperGroup(pgid), true);
});

test("signalGroup signals a real group, and says false for a group that does not exist", async () => {
  assert.equal(canSignalGroups(), true);
  assert.equal(await signalGroup(2 ** 22 + 12345, "SIGTERM"), false, "no such group");
  const helper = shHelper("exec sleep 30", { eofGraceMs: LONG, termGraceMs: LONG });
  assert.equal(await signalGroup(helper.pid, "SIGTERM"), true);
  assert.equal((await helper.status).signal, "SIGTERM");
  await helper.reap();
});
