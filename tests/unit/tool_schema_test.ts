import assert from "assert";
import { z } from "zod";
import { reasonSchema } from "../../src/core/errors.ts";
import { advertised, advertisedAnnotations } from "../../src/host/tool_schema.ts";

const sample = z.object({
  status: z.enum(["ok", "unavailable"]).describe("What happened"),
  reason: reasonSchema.optional(),
  turn: z.object({ id: z.string() }).nullable(),
  phase: z.enum(["a", "b"]).nullable(),
  cursor: z.string().nullable(),
});

function json(io: "input" | "output") {
  const std = advertised(sample)["~standard"] as unknown as {
    jsonSchema: Record<string, (o: { target: string }) => Record<string, unknown>>;
  };
  return std.jsonSchema[io]({ target: "draft-2020-12" });
}

Deno.test("advertised output schemas are compact and still describe every field", () => {
  const out = json("output");
  assert.equal(out.$schema, undefined);
  assert.equal(out.additionalProperties, undefined);
  const props = out.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual(props.status, { type: "string", enum: ["ok", "unavailable"] });
  assert.deepEqual(props.reason, { type: "string" }, "reason codes are listed once, elsewhere");
  assert.deepEqual(props.cursor, { type: ["string", "null"] });
  assert.deepEqual((props.turn as { type: unknown }).type, ["object", "null"]);
  // An enum stays an anyOf: folding null into `type` would not admit null through the enum.
  assert.ok(Array.isArray(props.phase.anyOf));
  assert.deepEqual(out.required, ["status", "turn", "phase", "cursor"]);
});

Deno.test("advertised input schemas keep their bounds and refuse unknown fields", () => {
  const input = json("input");
  assert.equal(input.$schema, undefined);
  const strict = advertised(z.strictObject({ n: z.number().int().min(1).max(5) }));
  const std = strict["~standard"] as unknown as {
    jsonSchema: { input: (o: { target: string }) => Record<string, unknown> };
    validate: (v: unknown) => { issues?: unknown[] };
  };
  const schema = std.jsonSchema.input({ target: "draft-2020-12" });
  assert.equal(schema.additionalProperties, false);
  assert.deepEqual((schema.properties as Record<string, unknown>).n, {
    type: "integer",
    minimum: 1,
    maximum: 5,
  });
  assert.ok(std.validate({ n: 6 }).issues, "validation is still the zod schema's");
  assert.equal(std.validate({ n: 5 }).issues, undefined);
});

Deno.test("annotations omit hints that equal MCP's defaults (and a read-only tool's write hints), but always say readOnlyHint", () => {
  assert.deepEqual(
    advertisedAnnotations({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    }),
    { readOnlyHint: false },
  );
  const read = {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  };
  // destructiveHint and idempotentHint mean something only when readOnlyHint is false (MCP).
  assert.deepEqual(advertisedAnnotations(read), { readOnlyHint: true, openWorldHint: false });
});
