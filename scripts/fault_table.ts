/**
 * Prints the fault tables of docs/reliability.md (between its fault-table markers: the
 * queue and reply-read tools, then the turn-start tools) from the fault
 * matrix's expectation table, `testing/fault_table.ts`.
 * Run: `deno run scripts/fault_table.ts`.
 * @module
 */

import { faultTableMarkdown, README_MARKERS } from "../testing/fault_table.ts";
import { FMT_IGNORE } from "../testing/markdown.ts";

if (import.meta.main) {
  // deno-lint-ignore no-console
  console.log(
    [
      FMT_IGNORE.start,
      README_MARKERS.start,
      "",
      faultTableMarkdown(),
      "",
      README_MARKERS.end,
      FMT_IGNORE.end,
    ].join("\n"),
  );
}
