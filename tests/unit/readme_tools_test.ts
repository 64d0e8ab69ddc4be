/** Protects: the README's tools table, what a new user reads first, lists the tools the relay serves. */
import assert from "assert";
import { ROOT } from "../../testing/paths.ts";
import { between, tablesOf } from "../../testing/markdown.ts";
import { TOOLS_MARKERS, toolsTableMarkdown, withToolsTable } from "../../testing/tools_table.ts";
import { FMT_IGNORE } from "../../testing/markdown.ts";
import { TOOLS } from "../../src/host/tools/all_tools.ts";

const readme = await Deno.readTextFile(`${ROOT}/README.md`);

Deno.test("the README's tools tables are the ones printed from the code", () => {
  const shown = between(readme, TOOLS_MARKERS.start, TOOLS_MARKERS.end);
  assert.ok(shown !== undefined, "README.md has the tools-table markers");
  assert.deepEqual(
    tablesOf(shown),
    tablesOf(toolsTableMarkdown()),
    "README.md's tools tables are stale: run `deno run --allow-read=README.md --allow-write=README.md scripts/tools_table.ts`",
  );
});

Deno.test("the printed tools table names every tool once, with its input fields", () => {
  const [levels, tools] = tablesOf(toolsTableMarkdown());
  assert.equal(levels.length, 2 + 4, "a header, its rule and four levels");
  assert.deepEqual(tools.slice(2).map((r) => r[0]), TOOLS.map((t) => `\`${t.name}\``));
  const run = tools.find((r) => r[0] === "`codex_run`")!;
  for (const field of ["cwd?", "model?", "sandbox?", "approvalPolicy?", "worktree?"]) {
    assert.ok(run[2].includes(`\`${field}\``), field);
  }
  assert.equal(levels[2][2], "`codex_list_threads`, `codex_queue_message`", "the default level");
  assert.match(levels[4][2], /`codex_withdraw_message`/);
  assert.equal(levels[5][2], "+ `codex_worktree`");
  assert.equal(levels[0].length, 3, "level, flag, tools: the methods are in docs/design.md");
});

const count = (text: string, what: string) => text.split(what).length - 1;

Deno.test("the README's tables sit in one pair of fmt-ignore markers, as the script writes them (issue 47)", () => {
  assert.equal(withToolsTable(readme), readme);
  assert.equal(count(readme, FMT_IGNORE.start), count(readme, FMT_IGNORE.end));
  assert.equal(count(readme, `${FMT_IGNORE.start}\n${FMT_IGNORE.start}`), 0);
});

Deno.test("scripts/tools_table.ts is idempotent: a second run changes nothing, and repeated markers collapse", async () => {
  const dir = await Deno.makeTempDir({ prefix: "codex-relay-tools-table-" });
  try {
    const tripled = withToolsTable(readme).replace(
      `${FMT_IGNORE.start}\n${TOOLS_MARKERS.start}`,
      `${FMT_IGNORE.start}\n${FMT_IGNORE.start}\n${FMT_IGNORE.start}\n${TOOLS_MARKERS.start}`,
    ).replace(
      `${TOOLS_MARKERS.end}\n${FMT_IGNORE.end}`,
      `${TOOLS_MARKERS.end}\n${FMT_IGNORE.end}\n${FMT_IGNORE.end}`,
    );
    await Deno.writeTextFile(`${dir}/README.md`, tripled);
    const run = async () => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          "--quiet",
          "--allow-read=README.md",
          "--allow-write=README.md",
          `${ROOT}/scripts/tools_table.ts`,
        ],
        cwd: dir,
        stdout: "null",
        stderr: "piped",
      }).output();
      assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
      return await Deno.readTextFile(`${dir}/README.md`);
    };
    const once = await run();
    assert.equal(count(once, FMT_IGNORE.start), 1);
    assert.equal(count(once, FMT_IGNORE.end), 1);
    assert.equal(await run(), once);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
