/**
 * Writes the README's tools tables (between its tools-table markers) from
 * the code: `testing/tools_table.ts`. Running it again changes nothing.
 * Run: `deno run --allow-read=README.md --allow-write=README.md scripts/tools_table.ts`
 * (in the checkout's root).
 * @module
 */

import { withToolsTable } from "../testing/tools_table.ts";

if (import.meta.main) {
  const readme = await Deno.readTextFile("README.md");
  const updated = withToolsTable(readme);
  if (updated !== readme) await Deno.writeTextFile("README.md", updated);
}
