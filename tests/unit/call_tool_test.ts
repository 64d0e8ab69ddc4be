/** Protects: tests read each tool's output with the type clients get (its own output schema). */
import assert from "assert";
import { TOOLS } from "../../src/host/tools/all_tools.ts";
import { OUTPUT_SCHEMAS } from "../../testing/call_tool.ts";

Deno.test("callTool's output types name every tool, each by its own output schema", () => {
  assert.deepEqual(Object.keys(OUTPUT_SCHEMAS).sort(), TOOLS.map((t) => t.name).sort());
  for (const tool of TOOLS) {
    assert.equal(
      OUTPUT_SCHEMAS[tool.name as keyof typeof OUTPUT_SCHEMAS],
      tool.outputSchema,
      `${tool.name}: the schema the tool declares`,
    );
  }
});
