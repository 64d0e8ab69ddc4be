// deno-lint-ignore-file no-console
/**
 * `deno task mutate [--changed[=base]] [--incremental] [--list] [group...]`: mutation
 * testing (StrykerJS, its `command` test runner) over the modules that keep
 * the design's promises (the groups: scripts/mutate_groups.ts). Stryker is
 * installed from npm into `.stryker-npm/` (git-ignored, pinned) on first use;
 * each group's JSON report (the mutation-testing-elements schema) goes to
 * `reports/mutation/<group>.json` and its score is printed, net of the
 * mutants disabled beside their code as equivalent (`// Stryker disable
 * next-line <mutator>: <why>`) and of log calls; every survivor is printed.
 * Not run in CI.
 *
 * Each mutant runs only the fast tests of its group, in-process (`deno test`
 * under the test permission set): a relay spawned through `mod.ts serve`
 * gets a clean environment, so a mutant could never be active in it.
 *
 * `--changed[=base]`: only the groups whose mutated files or tests differ
 * from `base` (default `main`; compared to the merge base, uncommitted and
 * untracked files included). `--list`: print the groups selected, run none.
 * A group marked `contained` (reap: its mutants run `/bin/kill` with mutated
 * group ids) runs its tests in a PID namespace and a session of their own
 * (testing/pid_namespace.ts), where a stray signal reaches only them; where
 * none can be made it is not run, and says so. `--incremental`: Stryker reuses the results of
 * mutants in unchanged code (`reports/mutation/<group>.incremental.json`);
 * the group runs whole again when its tests changed.
 * @module
 */

import { GROUPS } from "./mutate_groups.ts";
import {
  changedGroups,
  globRegExp,
  type Group,
  loadWarning,
  mutateEntries,
  scoreOf,
  testCommand,
} from "./mutate_select.ts";
import { contained, findContainer, NoContainer } from "../testing/pid_namespace.ts";

const STRYKER_VERSION = "9.6.1";
/** Test runs at once: one per core of a 2-core machine. */
const CONCURRENCY = 2;
const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const PREFIX = `${ROOT}/.stryker-npm`;
const CORE = `${PREFIX}/node_modules/@stryker-mutator/core`;

async function run(cmd: string, args: string[]): Promise<number> {
  const { code } = await new Deno.Command(cmd, {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return code;
}

async function installedVersion(): Promise<string | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(`${CORE}/package.json`)).version;
  } catch {
    return undefined;
  }
}

async function ensureStryker(): Promise<void> {
  if (await installedVersion() === STRYKER_VERSION) return;
  console.error(`Installing @stryker-mutator/core@${STRYKER_VERSION} into .stryker-npm/`);
  await Deno.mkdir(PREFIX, { recursive: true });
  const code = await run("npm", [
    "install",
    "--prefix",
    PREFIX,
    "--no-audit",
    "--no-fund",
    "--save-exact",
    `@stryker-mutator/core@${STRYKER_VERSION}`,
  ]);
  if (code !== 0 || await installedVersion() !== STRYKER_VERSION) {
    throw new Error(
      `Could not install @stryker-mutator/core@${STRYKER_VERSION} (npm exit ${code})`,
    );
  }
}

function configOf(
  name: string,
  group: Group,
  incremental: boolean,
  container: readonly string[],
): Record<string, unknown> {
  const read = (file: string) => Deno.readTextFileSync(`${ROOT}/${file}`);
  return {
    testRunner: "command",
    commandRunner: { command: testCommand(group, container) },
    coverageAnalysis: "off",
    mutate: group.mutate.flatMap((t) => mutateEntries(t, read)),
    incremental,
    incrementalFile: `reports/mutation/${name}.incremental.json`,
    ignorers: ["log-calls"],
    plugins: ["@stryker-mutator/*", `${ROOT}/scripts/stryker_ignore_logs.mjs`],
    ignorePatterns: [
      ".git",
      ".codex-npm",
      ".codex-npm-0.171",
      ".claude-npm",
      ".stryker-npm",
      ".stryker-tmp",
      "reports",
      "bench",
      "dist",
      ".tools",
      "node_modules",
    ],
    concurrency: CONCURRENCY,
    timeoutMS: 5_000,
    reporters: ["clear-text", "json", "progress"],
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    tempDirName: ".stryker-tmp",
    cleanTempDir: true,
  };
}

/** The files that differ from the merge base with `base`: committed, uncommitted, untracked. */
async function changedFiles(base: string): Promise<string[]> {
  const git = async (...args: string[]) => {
    const out = await new Deno.Command("git", { args, cwd: ROOT, stdin: "null" }).output();
    if (!out.success) {
      throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
    }
    return new TextDecoder().decode(out.stdout).split("\n").filter((l) => l !== "");
  };
  const [mergeBase] = await git("merge-base", "HEAD", base);
  return [
    ...await git("diff", "--name-only", mergeBase),
    ...await git("ls-files", "--others", "--exclude-standard"),
  ];
}

/** A digest of the group (its definition and its test files): when it changes, rerun all. */
async function testsDigest(group: Group): Promise<string> {
  const globs = group.tests.map(globRegExp);
  const files: string[] = [];
  for await (const e of Deno.readDir(`${ROOT}/tests/unit`)) {
    const path = `tests/unit/${e.name}`;
    if (e.isFile && globs.some((re) => re.test(path))) files.push(path);
  }
  const texts = await Promise.all(files.sort().map((f) => Deno.readTextFile(`${ROOT}/${f}`)));
  const data = new TextEncoder().encode(JSON.stringify([group, files, texts]));
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-256", data));
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The container a contained group's tests run in (testing/pid_namespace.ts), none for
 * another group; a {@linkcode NoContainer} when none can be made here.
 */
async function containerOf(group: Group): Promise<readonly string[] | NoContainer> {
  if (group.contained === undefined) return [];
  const container = await findContainer();
  return container instanceof NoContainer ? container : contained(container, []);
}

/** Runs one group; its summary line, and whether it met the target (or could not run). */
async function runGroup(name: string, incremental: boolean): Promise<[string, boolean]> {
  const group = GROUPS[name];
  const container = await containerOf(group);
  if (container instanceof NoContainer) {
    return [
      `${name}: not run: its tests run in a PID namespace of their own (${group.contained}), ` +
      `and none can be made here: ${container.message}`,
      false,
    ];
  }
  const config = `${ROOT}/.stryker-tmp/${name}.config.json`;
  const digestFile = `${ROOT}/reports/mutation/${name}.tests.sha256`;
  const digest = await testsDigest(group);
  const previous = await Deno.readTextFile(digestFile).catch(() => "");
  const body = {
    ...configOf(name, group, incremental, container),
    force: incremental && previous !== digest,
  };
  await Deno.writeTextFile(config, JSON.stringify(body, null, 2));
  const started = performance.now();
  const load = [Deno.loadavg()[0]];
  const code = await run("node", [`${CORE}/bin/stryker.js`, "run", config]);
  const seconds = Math.round((performance.now() - started) / 1000);
  load.push(Deno.loadavg()[0]);
  if (code !== 0) return [`${name}: Stryker failed (exit ${code})`, false];
  await Deno.mkdir(`${ROOT}/reports/mutation`, { recursive: true });
  await Deno.writeTextFile(digestFile, digest);
  const report = JSON.parse(await Deno.readTextFile(`${ROOT}/reports/mutation/${name}.json`));
  const s = scoreOf(report);
  const warning = loadWarning(load, navigator.hardwareConcurrency, CONCURRENCY, s.timedOut);
  const lines = [
    `${name}: mutation score ${s.score}% (${s.killed} of ${s.total - s.ignored} detected, ` +
    `${s.timedOut} of them by timeout, ${s.survived} survived, ${s.ignored} ignored; ` +
    `${s.total} mutants) in ${seconds} s at load ${load.map((l) => l.toFixed(1)).join(" → ")}`,
    ...(warning ? [`  ${warning}`] : []),
    ...s.unexplained.map((u) => `  survived: ${u}`),
  ];
  return [lines.join("\n"), s.score >= TARGET];
}

/** The score every group must reach: every mutant not disabled in the source as equivalent is detected. */
const TARGET = 100;

if (import.meta.main) {
  const changed = Deno.args.find((a) => a === "--changed" || a.startsWith("--changed="));
  const incremental = Deno.args.includes("--incremental");
  const asked = Deno.args.filter((a) => !a.startsWith("--"));
  for (const name of asked) {
    if (!GROUPS[name]) {
      console.error(`Unknown group ${name}; the groups are ${Object.keys(GROUPS).join(", ")}`);
      Deno.exit(64);
    }
  }
  let names = asked.length > 0 ? asked : Object.keys(GROUPS);
  if (changed) {
    const base = changed.includes("=") ? changed.slice("--changed=".length) : "main";
    const touched = changedGroups(GROUPS, await changedFiles(base));
    names = names.filter((n) => touched.includes(n));
    console.error(`Changed since ${base}: ${names.length ? names.join(", ") : "no group"}`);
    if (names.length === 0) Deno.exit(0);
  }
  if (Deno.args.includes("--list")) {
    for (const n of names) console.log(`${n}: ${GROUPS[n].promise}`);
    Deno.exit(0);
  }
  await ensureStryker();
  await Deno.mkdir(`${ROOT}/.stryker-tmp`, { recursive: true });
  const lines: string[] = [];
  let failed = false;
  for (const name of names) {
    const [line, ok] = await runGroup(name, incremental);
    lines.push(line);
    failed ||= !ok;
  }
  console.log(lines.join("\n"));
  if (failed) Deno.exit(1);
}
