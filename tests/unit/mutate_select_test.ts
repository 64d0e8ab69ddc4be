/** Protects: `deno task mutate` mutates the code each group names, runs its tests, and scores honestly. */
import assert from "assert";
import {
  changedGroups,
  functionRange,
  globRegExp,
  type Group,
  loadWarning,
  mutateEntries,
  scoreOf,
  targetFile,
  testCommand,
} from "../../scripts/mutate_select.ts";
import { GROUPS } from "../../scripts/mutate_groups.ts";
import { PROMISE_MODULES } from "../../scripts/promise_modules.ts";
import { contained, CONTAINERS } from "../../testing/pid_namespace.ts";

Deno.test("globRegExp: * stays within a path segment, ** crosses them", () => {
  assert.ok(globRegExp("src/reply/**/*.ts").test("src/reply/a.ts"));
  assert.ok(globRegExp("src/reply/**/*.ts").test("src/reply/x/y/a.ts"));
  assert.ok(!globRegExp("src/reply/**/*.ts").test("src/replyx/a.ts"));
  assert.ok(globRegExp("tests/unit/reply_*_test.ts").test("tests/unit/reply_wait_test.ts"));
  assert.ok(!globRegExp("tests/unit/reply_*_test.ts").test("tests/unit/reply_x/y_test.ts"));
  assert.ok(!globRegExp("src/a.ts").test("src/aXts"), "a dot is a dot");
  assert.ok(!globRegExp("src/a.ts").test("src/a.ts.bak"), "anchored");
});

const groups: Record<string, Group> = {
  a: { promise: "", mutate: ["src/a/**/*.ts"], tests: ["tests/unit/a_test.ts"] },
  b: {
    promise: "",
    mutate: ["src/b.ts:3-9", { file: "src/big.ts", functions: ["f"] }],
    tests: ["tests/unit/b_*_test.ts"],
  },
};

Deno.test("changedGroups: a group runs when a change touched its mutated files or its tests", () => {
  assert.deepEqual(changedGroups(groups, []), []);
  assert.deepEqual(changedGroups(groups, ["README.md", "src/c.ts"]), []);
  assert.deepEqual(changedGroups(groups, ["src/a/x/y.ts"]), ["a"]);
  assert.deepEqual(changedGroups(groups, ["src/b.ts"]), ["b"], "a line range names its file");
  assert.deepEqual(changedGroups(groups, ["src/big.ts"]), ["b"], "named functions name theirs");
  assert.deepEqual(changedGroups(groups, ["tests/unit/b_x_test.ts", "tests/unit/a_test.ts"]), [
    "a",
    "b",
  ]);
});

const SOURCE = [
  "/** Doc. */", // 1
  "export function parse(", // 2
  "  config: unknown,", // 3
  "): { sandbox: string | null } {", // 4
  '  const s = "}" + `${"{"}`; // }', // 5
  "  if (s) {", // 6
  "    return { sandbox: null };", // 7
  "  }", // 8
  "  return { sandbox: s };", // 9
  "}", // 10
  "class C {", // 11
  "  async #reap(): Promise<void> {", // 12
  "    await x;", // 13
  "  }", // 14
  "  reap(): Promise<void> {", // 15
  "    if (a) return b;", // 16
  "    return this.#reap();", // 17
  "  }", // 18
  "}", // 19
  "const pick = (a: number) => {", // 20
  "  return a;", // 21
  "};", // 22
].join("\n");

Deno.test("functionRange: from the declaration to where its body's braces close", () => {
  assert.deepEqual(
    functionRange(SOURCE, "parse"),
    [2, 10],
    "a return type's braces are not its body",
  );
  assert.deepEqual(functionRange(SOURCE, "#reap"), [12, 14]);
  assert.deepEqual(functionRange(SOURCE, "reap"), [15, 18], "a method, not a call to it");
  assert.deepEqual(functionRange(SOURCE, "pick"), [20, 22]);
  assert.throws(() => functionRange(SOURCE, "gone"), /No function gone/);
});

Deno.test("functionRange: a parameter's type is not the body; a template literal's ${…} closes inside it", () => {
  const source = [
    "export function files(", // 1
    "  args: { push?: string },", // 2
    "): { read: string[] } {", // 3
    "  return {", // 4
    '    read: [`${args.push ? `a ${"}"}` : "{"} ${', // 5
    "      args.push", // 6
    "    }`],", // 7
    "  };", // 8
    "}", // 9
    "const after = 1;", // 10
  ].join("\n");
  assert.deepEqual(functionRange(source, "files"), [1, 9]);
});

Deno.test("mutateEntries: files as they are, functions as their line ranges", () => {
  const read = (file: string) => {
    assert.equal(file, "src/big.ts");
    return SOURCE;
  };
  assert.deepEqual(mutateEntries("src/a/**/*.ts", read), ["src/a/**/*.ts"]);
  assert.deepEqual(mutateEntries({ file: "src/big.ts", functions: ["parse", "reap"] }, read), [
    "src/big.ts:2-10",
    "src/big.ts:15-18",
  ]);
});

Deno.test("testCommand: a group's tests under -P and the relay's V8 flag; a contained group's in a PID namespace and session of their own", () => {
  const group: Group = { promise: "p", mutate: ["src/a.ts"], tests: ["tests/unit/a_test.ts"] };
  const flag = "--v8-flags=--enable-experimental-regexp-engine";
  assert.equal(testCommand(group), `deno test -P --no-check --quiet ${flag} tests/unit/a_test.ts`);
  assert.equal(
    testCommand({ ...group, contained: "why" }, contained(CONTAINERS[0], [])),
    "unshare --pid --fork --mount-proc --kill-child setsid --wait " +
      `deno test -P --no-check --quiet ${flag} tests/unit/a_test.ts`,
  );
  // The reap group, whose mutants run /bin/kill, is contained.
  assert.ok(GROUPS.reap.contained);
});

Deno.test("loadWarning: only when the load passed the cores and the group's own workers while something timed out", () => {
  assert.equal(loadWarning([0.3, 2.3], 2, 2, 4), undefined, "the group's own load");
  assert.equal(loadWarning([4, 4], 2, 2, 4), undefined, "at the bound");
  assert.equal(loadWarning([1, 6.54], 2, 2, 0), undefined, "no timeout to doubt");
  assert.equal(
    loadWarning([1, 6.54], 2, 2, 3),
    "load reached 6.5 on 2 cores with 2 workers: some of the 3 timeouts may be slowed tests, " +
      "not hangs; rerun on a quiet machine before trusting the score",
  );
});

const mutant = (status: string, line: number, replacement: string, mutatorName = "M") => ({
  mutatorName,
  replacement,
  status,
  location: { start: { line, column: 3 } },
});

Deno.test("scoreOf: ignored mutants (disabled in the source) are out of the score; survivors are named", () => {
  const report = {
    files: {
      "src/a.ts": {
        mutants: [
          mutant("Killed", 1, "0"),
          mutant("Timeout", 1, "2"),
          mutant("Survived", 2, "a <= b"),
          mutant("NoCoverage", 1, "x"),
          mutant("CompileError", 1, "y"),
          mutant("Ignored", 3, "z"),
        ],
      },
    },
  };
  const s = scoreOf(report);
  assert.deepEqual([s.score, s.killed, s.survived, s.ignored, s.total], [50, 2, 2, 1, 5]);
  assert.equal(s.timedOut, 1, "the timeout is detected, and counted apart");
  assert.deepEqual(s.unexplained, ["src/a.ts:2:3 M -> a <= b", "src/a.ts:1:3 M -> x"]);
  assert.equal(scoreOf({ files: {} }).score, 100);
});

Deno.test("every group's named functions exist, and its tests are unit tests", async () => {
  for (const [name, group] of Object.entries(GROUPS)) {
    for (const t of group.mutate) {
      const entries = mutateEntries(t, (f) => Deno.readTextFileSync(f));
      assert.ok(entries.length > 0, name);
      const file = targetFile(t);
      if (!file.includes("*")) assert.ok((await Deno.stat(file)).isFile, `${name}: ${file} moved?`);
    }
    for (const test of group.tests) assert.match(test, /^tests\/unit\//, name);
  }
});

Deno.test("every module the list names as carrying a promise exists and is in a mutation group", () => {
  const grouped = new Set(
    Object.values(GROUPS).flatMap((g) => g.mutate.map((t) => typeof t === "string" ? t : t.file)),
  );
  for (const file of Object.keys(PROMISE_MODULES)) {
    assert.ok(file.startsWith("src/") && Deno.statSync(file).isFile, `${file} is a file of src/`);
    assert.ok(grouped.has(file), `${file} carries a promise but is in no mutation group`);
  }
  for (const file of grouped) {
    assert.ok(Object.hasOwn(PROMISE_MODULES, file), `${file} is in a group but not in the list`);
  }
});
