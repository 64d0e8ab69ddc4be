// deno-lint-ignore-file no-console
/**
 * `deno task mutate [group...]`: mutation testing (StrykerJS, its `command`
 * test runner) over the modules where a silent bug costs most. Stryker is
 * installed from npm into `.stryker-npm/` (git-ignored, pinned) on first use;
 * each group's JSON report (the mutation-testing-elements schema) goes to
 * `reports/mutation/<group>.json` and its score is printed. Not run in CI.
 *
 * Each mutant runs only the fast tests of its group, in-process (`deno test`
 * under the test permission set): a relay spawned through `mod.ts serve`
 * gets a clean environment, so a mutant could never be active in it.
 * @module
 */

const STRYKER_VERSION = "9.6.1";
const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const PREFIX = `${ROOT}/.stryker-npm`;
const CORE = `${PREFIX}/node_modules/@stryker-mutator/core`;

/** A group of modules and the tests that guard them. */
interface Group {
  mutate: string[];
  tests: string[];
}

/** The groups, by name. */
export const GROUPS: Record<string, Group> = {
  reply: {
    mutate: ["src/reply/**/*.ts", "src/ops/read_reply.ts", "src/ops/wait_reply.ts"],
    tests: ["tests/unit/reply_*_test.ts"],
  },
  elicit: {
    mutate: ["src/elicit/**/*.ts"],
    tests: ["tests/unit/elicit_*_test.ts"],
  },
  capabilities: {
    // The capability levels (the method map's levels), and the allowlist check every backend
    // runs (checkAllowed).
    mutate: [
      "src/core/capabilities.ts",
      "src/codex/methods.ts",
      "src/connect/operation_frame.ts:65-72",
    ],
    tests: ["tests/unit/capabilities_test.ts", "tests/unit/methods_test.ts"],
  },
  receipts: {
    mutate: ["src/ops/queue_message.ts"],
    tests: ["tests/unit/queue_message_tool_test.ts"],
  },
};

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

function configOf(name: string, group: Group): Record<string, unknown> {
  return {
    testRunner: "command",
    commandRunner: { command: `deno test -P --no-check --quiet ${group.tests.join(" ")}` },
    coverageAnalysis: "off",
    mutate: group.mutate,
    ignorers: ["log-calls"],
    plugins: ["@stryker-mutator/*", `${ROOT}/scripts/stryker_ignore_logs.mjs`],
    ignorePatterns: [
      ".git",
      ".codex-npm",
      ".codex-npm-0.171",
      ".stryker-npm",
      ".stryker-tmp",
      "reports",
      "bench",
      "dist",
      ".tools",
      "node_modules",
    ],
    concurrency: 2,
    timeoutMS: 5_000,
    reporters: ["clear-text", "json", "progress"],
    clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    tempDirName: ".stryker-tmp",
    cleanTempDir: true,
  };
}

/** The mutation score of a report: detected / (valid mutants), in percent. */
export function scoreOf(report: {
  files: Record<string, { mutants: { status: string }[] }>;
}): { score: number; killed: number; survived: number; total: number } {
  let detected = 0;
  let undetected = 0;
  for (const file of Object.values(report.files)) {
    for (const m of file.mutants) {
      if (m.status === "Killed" || m.status === "Timeout") detected++;
      else if (m.status === "Survived" || m.status === "NoCoverage") undetected++;
    }
  }
  const total = detected + undetected;
  return {
    score: total === 0 ? 100 : Math.round((detected / total) * 10000) / 100,
    killed: detected,
    survived: undetected,
    total,
  };
}

if (import.meta.main) {
  const names = Deno.args.length > 0 ? Deno.args : Object.keys(GROUPS);
  for (const name of names) {
    if (!GROUPS[name]) {
      console.error(`Unknown group ${name}; the groups are ${Object.keys(GROUPS).join(", ")}`);
      Deno.exit(64);
    }
  }
  await ensureStryker();
  await Deno.mkdir(`${ROOT}/.stryker-tmp`, { recursive: true });
  const scores: string[] = [];
  let failed = false;
  for (const name of names) {
    const config = `${ROOT}/.stryker-tmp/${name}.config.json`;
    await Deno.writeTextFile(config, JSON.stringify(configOf(name, GROUPS[name]), null, 2));
    const code = await run("node", [`${CORE}/bin/stryker.js`, "run", config]);
    if (code !== 0) {
      failed = true;
      scores.push(`${name}: Stryker failed (exit ${code})`);
      continue;
    }
    const report = JSON.parse(await Deno.readTextFile(`${ROOT}/reports/mutation/${name}.json`));
    const s = scoreOf(report);
    scores.push(
      `${name}: mutation score ${s.score}% (${s.killed} of ${s.total} mutants detected, ${s.survived} survived)`,
    );
  }
  console.log(scores.join("\n"));
  if (failed) Deno.exit(1);
}
