/**
 * Prints the README's tools tables (between its tools-table markers) from
 * the code: `testing/tools_table.ts`.
 * Run: `deno run scripts/tools_table.ts`.
 * @module
 */

import { TOOLS_MARKERS, toolsTableMarkdown } from "../testing/tools_table.ts";
import { FMT_IGNORE } from "../testing/markdown.ts";

if (import.meta.main) {
  // deno-lint-ignore no-console
  console.log(
    [
      FMT_IGNORE.start,
      TOOLS_MARKERS.start,
      "",
      toolsTableMarkdown(),
      "",
      TOOLS_MARKERS.end,
      FMT_IGNORE.end,
    ].join("\n"),
  );
}
