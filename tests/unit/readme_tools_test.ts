/** Protects: the README's tools table, what a new user reads first, lists the tools the relay serves. */
import assert from "assert";
import { ROOT } from "../../testing/paths.ts";
import { between, tablesOf } from "../../testing/markdown.ts";
import { TOOLS_MARKERS, toolsTableMarkdown } from "../../testing/tools_table.ts";
import { TOOLS } from "../../src/host/tools/all_tools.ts";

const readme = await Deno.readTextFile(`${ROOT}/README.md`);

Deno.test("the README's tools tables are the ones printed from the code", () => {
  const shown = between(readme, TOOLS_MARKERS.start, TOOLS_MARKERS.end);
  assert.ok(shown !== undefined, "README.md has the tools-table markers");
  assert.deepEqual(
    tablesOf(shown),
    tablesOf(toolsTableMarkdown()),
    "README.md's tools tables are stale: replace them with the output of `deno run scripts/tools_table.ts`",
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
