/**
 * Protects: `deno task test` and its parts pass on a fresh machine (an empty module cache).
 *
 * A fresh machine's first `deno task test`: every entry point a test starts as a subprocess (or
 * through Codex) must have its modules in the cache before it is needed, because a process that
 * downloads them at start can lose a race (Codex does not wait for an MCP server that is still
 * starting). Every test task runs `deno task test:cache` (a `deno cache` of these entry points)
 * first; each is started here
 * with `--cached-only` and its own flags, so an entry point that would download fails here.
 * `.ci/run` runs the whole suite with an empty `DENO_DIR`.
 */
import assert from "assert";
import denoJson from "../../deno.json" with { type: "json" };
import { denoChildEnv } from "../../testing/child_env.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

interface EntryPoint {
  /** Repository-relative path, as named in the test task's `deno cache`. */
  file: string;
  /** Flags of `deno run` besides `--cached-only` and the config. */
  flags: string[];
  /** Arguments after the file: something that makes it exit at once. */
  args: string[];
  /** The exit code it must end with. */
  code: number;
  /** Who starts it. */
  startedBy: string;
}

const ENTRY_POINTS: readonly EntryPoint[] = [
  {
    file: "mod.ts",
    flags: ["-P"],
    args: ["--version"],
    code: 0,
    startedBy: "tests/_relay.ts and every integration, reliability and e2e test of the relay",
  },
  {
    file: "install.ts",
    flags: ["-P=install"],
    // Without its file permissions it prints the command that has them and exits 77.
    args: ["install", "--client", "cursor"],
    code: 77,
    startedBy: "tests/integration/install_cli_test.ts",
  },
  {
    file: "tests/e2e/elicit_mcp_server.ts",
    flags: ["--frozen"],
    args: [],
    code: 0,
    startedBy: "Codex, in tests/e2e (see testing/codex_home.ts)",
  },
  {
    file: "tests/fixtures_mcp/echo_server.ts",
    flags: ["--frozen", "--allow-env=ECHO_PREFIX,ECHO_IGNORE_EOF"],
    args: [],
    code: 0,
    startedBy: "tests/unit/mcp_client_test.ts",
  },
  {
    file: "scripts/demo.ts",
    // The demo itself runs in tests/integration/demo_test.ts (with --cached-only); here it is
    // started without its permission set, so it stops at its first file write.
    flags: ["--deny-write", "--deny-read", "--deny-run", "--deny-env"],
    args: [],
    code: 1,
    startedBy: "tests/integration/demo_test.ts",
  },
];

/** The files `deno task test:cache` names. */
function warmed(): string[] {
  const cache = denoJson.tasks["test:cache"];
  assert.ok(cache.startsWith("deno cache "), `test:cache is a deno cache: ${cache}`);
  return cache.split(/\s+/).slice(2).filter((a) => !a.startsWith("-"));
}

/** The test tasks a contributor runs (CONTRIBUTING.md "The suites"). */
const TEST_TASKS = ["test", "test:unit", "test:integration", "test:e2e", "test:portable"] as const;

Deno.test("every test task caches every subprocess entry point before its tests start", () => {
  const files = warmed();
  for (const entry of ENTRY_POINTS) {
    assert.ok(
      files.includes(entry.file),
      `${entry.file} (started by ${entry.startedBy}) is cached`,
    );
  }
  for (const name of TEST_TASKS) {
    assert.ok(denoJson.tasks[name].startsWith("deno task test:cache && "), name);
  }
  assert.ok(
    denoJson.tasks.test.endsWith(
      "deno test -P --quiet --v8-flags=--enable-experimental-regexp-engine",
    ),
    "deno task test runs every test, with the regexp engine the relay runs with",
  );
});

Deno.test("test:unit, test:integration and test:e2e together run every test folder", () => {
  const run = ["test:unit", "test:integration", "test:e2e"].flatMap((name) =>
    denoJson.tasks[name as keyof typeof denoJson.tasks].split(" ").filter((w) =>
      w.startsWith("tests/")
    )
  );
  const folders = [...Deno.readDirSync(`${ROOT}/tests`)].filter((e) =>
    e.isDirectory &&
    [...Deno.readDirSync(`${ROOT}/tests/${e.name}`)].some((f) => f.name.endsWith("_test.ts"))
  ).map((e) => `tests/${e.name}/`);
  assert.deepEqual(run.sort(), folders.sort());
});

for (const entry of ENTRY_POINTS) {
  Deno.test(`${entry.file} starts from the module cache (--cached-only)`, async () => {
    const home = await Deno.makeTempDir({ prefix: "cold-cache-" });
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "--cached-only",
        "--config",
        `${ROOT}/deno.json`,
        ...entry.flags,
        `${ROOT}/${entry.file}`,
        ...entry.args,
      ],
      cwd: ROOT,
      // The test run's module cache, and a HOME of its own (install.ts looks for configs there).
      env: denoChildEnv({ HOME: home, NO_COLOR: "1" }),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    await Deno.remove(home, { recursive: true });
    const stderr = new TextDecoder().decode(out.stderr);
    assert.doesNotMatch(stderr, /cached-only|not found in cache|Module not found|Failed loading/);
    assert.equal(out.code, entry.code, stderr);
  });
}
