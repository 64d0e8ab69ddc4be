import assert from "assert";
import { TOOLS } from "../../src/host/tools/all_tools.ts";
import { advertised } from "../../src/host/tool_schema.ts";

type Json = Record<string, unknown>;

/** The input JSON Schema of a tool as `tools/list` advertises it. */
function inputSchema(tool: (typeof TOOLS)[number]): Json {
  const std = advertised(tool.inputSchema)["~standard"] as unknown as {
    jsonSchema: { input(): Json };
  };
  return std.jsonSchema.input();
}

Deno.test("every input field of every tool has one short description (clients may not show the instructions)", () => {
  const missing: string[] = [];
  for (const tool of TOOLS) {
    const properties = (inputSchema(tool).properties ?? {}) as Record<string, Json>;
    assert.ok(Object.keys(properties).length > 0, `${tool.name} has input fields`);
    for (const [name, field] of Object.entries(properties)) {
      const text = field.description;
      if (typeof text !== "string" || text.trim() === "") {
        missing.push(`${tool.name}.${name}`);
        continue;
      }
      assert.ok(text.length <= 120, `${tool.name}.${name}: ${text.length} characters`);
    }
  }
  assert.deepEqual(missing, [], "fields without a description");
});

Deno.test("threadId says it takes a UUID or an exact name, in every tool that has one", () => {
  for (const tool of TOOLS) {
    const properties = (inputSchema(tool).properties ?? {}) as Record<string, Json>;
    if (!properties.threadId) continue;
    assert.match(String(properties.threadId.description), /UUID/, tool.name);
    assert.match(String(properties.threadId.description), /exact name/, tool.name);
  }
});

Deno.test("input patterns are not advertised (the description says it), and calls are still checked by them", () => {
  const run = TOOLS.find((t) => t.name === "codex_run")!;
  const properties = inputSchema(run).properties as Record<string, Json>;
  for (const name of ["cwd", "model", "effort"]) {
    assert.equal(properties[name].pattern, undefined, name);
    assert.equal(typeof properties[name].description, "string", name);
  }
  const ok = { cwd: "/tmp", text: "hi" };
  assert.equal(run.inputSchema.safeParse(ok).success, true);
  assert.equal(run.inputSchema.safeParse({ ...ok, model: "not a model!" }).success, false);
  assert.equal(run.inputSchema.safeParse({ ...ok, cwd: "relative/dir" }).success, false);
});
