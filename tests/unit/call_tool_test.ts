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

/**
 * Casts of a tool's output that callTool's types replace; the one left resends a call with
 * `inputResponses` (a request the SDK's callTool does not type), by file and why.
 */
const CAST_ALLOWED: Record<string, string> = {
  "tests/integration/turn_test.ts": "the retried call carries inputResponses through `as never`",
};

Deno.test("tests read a tool's output through callTool's types, not a cast of structuredContent", async () => {
  const root = new URL("../../", import.meta.url);
  const found: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(new URL(dir, root))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) await walk(path);
      else if (path.endsWith(".ts") && path !== "tests/unit/call_tool_test.ts") {
        const text = await Deno.readTextFile(new URL(path, root));
        const casts = text.split("\n").filter((l) => /structuredContent\s+as\s/.test(l)).length;
        if (casts > (path in CAST_ALLOWED ? 1 : 0)) found.push(`${path}: ${casts}`);
      }
    }
  };
  await walk("tests");
  await walk("testing");
  assert.deepEqual(found, [], "use callTool (testing/call_tool.ts)");
});
