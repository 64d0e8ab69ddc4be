import assert from "assert";
import { forwardOf, refusalAnswer, ROUTED_METHODS, urlAnswer } from "../../src/elicit/mappings.ts";
import type { Forward } from "../../src/elicit/mappings.ts";
import { answerProblem } from "../../src/elicit/validate_answer.ts";

type Form = Extract<Forward, { kind: "form" }>;

function form(method: string, params: Record<string, unknown>): Form {
  const f = forwardOf(method, params);
  assert.equal(f.kind, "form", JSON.stringify(f));
  return f as Form;
}

function decisions(f: Form): { const: string; title: string }[] {
  const props = f.requestedSchema.properties as Record<string, { oneOf: [] }>;
  return props.decision.oneOf;
}

const CMD = "item/commandExecution/requestApproval";
const FILES = "item/fileChange/requestApproval";
const PERMS = "item/permissions/requestApproval";
const INPUT = "item/tool/requestUserInput";
const MCP = "mcpServer/elicitation/request";

/** A request the relay cannot forward: declined, and the caller is told what it was. */
function assertUnsupported(forward: unknown): void {
  const f = forward as { kind?: unknown; summary?: unknown };
  assert.equal(f.kind, "unsupported");
  assert.equal(typeof f.summary, "string", "the caller is told what was declined");
  assert.ok((f.summary as string).length > 0);
}

Deno.test("ROUTED_METHODS: exactly the five server requests the design forwards", () => {
  assert.deepEqual([...ROUTED_METHODS].sort(), [CMD, FILES, PERMS, INPUT, MCP].sort());
});

Deno.test("a command approval shows reason, command and cwd, and a decision form over Codex's decisions", () => {
  const f = form(CMD, {
    reason: "needs it",
    command: "touch x",
    cwd: "/w",
    availableDecisions: ["accept", "acceptForSession", "decline", "cancel", "custom"],
  });
  assert.equal(
    f.message,
    "Codex asks to run a command (reason: needs it).\nCommand: touch x\nIn: /w",
  );
  assert.deepEqual(f.requestedSchema, {
    type: "object",
    properties: {
      decision: {
        type: "string",
        title: "Decision",
        oneOf: [
          { const: "accept", title: "Accept" },
          { const: "acceptForSession", title: "Accept for the rest of this session" },
          { const: "decline", title: "Decline (the turn goes on)" },
          { const: "cancel", title: "Cancel (the turn stops)" },
          { const: "custom", title: "custom" },
        ],
      },
    },
    required: ["decision"],
  });
  assert.deepEqual(f.accept({ decision: "acceptForSession" }), { decision: "acceptForSession" });
  assert.deepEqual(f.accept({ decision: "not offered" }), { decision: "decline" });
});

Deno.test("a command approval without a reason or decisions offers accept, decline, cancel", () => {
  for (const availableDecisions of [undefined, [], "accept"]) {
    const f = form(CMD, { command: ["ls", "-l"], cwd: "/w", reason: "", availableDecisions });
    assert.equal(f.message, 'Codex asks to run a command.\nCommand: ["ls","-l"]\nIn: /w');
    assert.deepEqual(decisions(f).map((d) => d.const), ["accept", "decline", "cancel"]);
  }
  assert.equal(form(CMD, {}).message, 'Codex asks to run a command.\nCommand: ""\nIn: ""');
});

Deno.test("a command approval with amendments maps them back to Codex's objects", () => {
  const exec = { acceptWithExecpolicyAmendment: { execpolicy_amendment: ["touch"] } };
  const net = {
    applyNetworkPolicyAmendment: { network_policy_amendment: { action: "allow", host: "h.io" } },
  };
  const f = form(CMD, { availableDecisions: ["accept", exec, net, { other: 1 }, 7] });
  assert.deepEqual(decisions(f), [
    { const: "accept", title: "Accept" },
    {
      const: "acceptWithExecpolicyAmendment",
      title: "Accept, and allow matching commands from now on",
    },
    { const: "applyNetworkPolicyAmendment2", title: "allow network access to h.io from now on" },
  ]);
  assert.deepEqual(f.accept({ decision: "acceptWithExecpolicyAmendment" }), { decision: exec });
  assert.deepEqual(f.accept({ decision: "applyNetworkPolicyAmendment2" }), { decision: net });
});

Deno.test("long shown values are cut at 2000 characters with an ellipsis", () => {
  const f = form(CMD, { command: "x".repeat(2001), cwd: "y".repeat(2000) });
  assert.equal(
    f.message,
    `Codex asks to run a command.\nCommand: ${"x".repeat(2000)}…\nIn: ${"y".repeat(2000)}`,
  );
});

Deno.test("a file change approval shows the grant root and always offers the four decisions", () => {
  const f = form(FILES, { reason: "edit", grantRoot: "/repo" });
  assert.equal(
    f.message,
    "Codex asks to change files (reason: edit), with write access under /repo.",
  );
  assert.deepEqual(decisions(f).map((d) => d.const), [
    "accept",
    "acceptForSession",
    "decline",
    "cancel",
  ]);
  assert.equal(form(FILES, { grantRoot: 7 }).message, "Codex asks to change files.");
  assert.deepEqual(f.accept({ decision: "cancel" }), { decision: "cancel" });
});

Deno.test("a permissions request grants for the turn or session, or denies with no permissions", () => {
  const permissions = { network: true };
  const f = form(PERMS, { reason: "net", permissions });
  assert.equal(f.message, 'Codex asks for more permissions (reason: net): {"network":true}');
  assert.deepEqual(decisions(f), [
    { const: "grant", title: "Grant for this turn" },
    { const: "grantForSession", title: "Grant for this session" },
    { const: "deny", title: "Deny" },
  ]);
  assert.deepEqual(f.accept({ decision: "grant" }), { permissions, scope: "turn" });
  assert.deepEqual(f.accept({ decision: "grantForSession" }), { permissions, scope: "session" });
  assert.deepEqual(f.accept({ decision: "deny" }), { permissions: {}, scope: "turn" });
  assert.deepEqual(form(PERMS, {}).accept({ decision: "grant" }), {
    permissions: {},
    scope: "turn",
  });
});

Deno.test("requestUserInput becomes one required string per question, options as oneOf unless isOther", () => {
  const f = form(INPUT, {
    questions: [
      {
        id: "lang",
        header: "Language",
        question: "Which one?",
        options: [{ label: "Go" }, {
          label: "Rust",
        }, "junk"],
      },
      {
        id: "name",
        header: "Name",
        question: "Your name?",
        options: [{ label: "x" }],
        isOther: true,
      },
      { id: 3, header: "N", question: "Number?" },
      "not a question",
    ],
  });
  assert.equal(f.message, "Codex asks: Which one? / Your name? / Number?");
  assert.deepEqual(f.requestedSchema, {
    type: "object",
    properties: {
      lang: {
        type: "string",
        title: "Language",
        description: "Which one?",
        oneOf: [{ const: "Go", title: "Go" }, { const: "Rust", title: "Rust" }],
      },
      name: { type: "string", title: "Name", description: "Your name?" },
      "3": { type: "string", title: "N", description: "Number?" },
    },
    required: ["3", "lang", "name"], // Object key order: integer-like keys first
  });
  assert.deepEqual(f.accept({ lang: "Go", name: "Ann", "3": 4 }), {
    answers: { lang: { answers: ["Go"] }, name: { answers: ["Ann"] }, "3": { answers: ["4"] } },
  });
});

Deno.test("requestUserInput without questions cannot be forwarded", () => {
  assert.deepEqual(forwardOf(INPUT, {}), {
    kind: "unsupported",
    summary: "Codex asked for user input without any question",
  });
  assertUnsupported(forwardOf(INPUT, { questions: ["x", 1] }));
  assertUnsupported(forwardOf("item/unknown", {}));
});

Deno.test("an MCP tool-call approval offers the persist options Codex allows, and maps them back", () => {
  const f = form(MCP, {
    serverName: "srv",
    message: "Run it?",
    _meta: {
      codex_approval_kind: "mcp_tool_call",
      persist: ["always", "session"],
      tool_name: "t",
      tool_params: { a: 1 },
    },
  });
  assert.equal(f.message, 'Run it?\nTool: t (MCP server srv)\nArguments: {"a":1}');
  assert.deepEqual(decisions(f), [
    { const: "accept", title: "Allow" },
    { const: "acceptForSession", title: "Allow for this session" },
    { const: "acceptAlways", title: "Always allow" },
    { const: "decline", title: "Deny" },
  ]);
  assert.deepEqual(f.accept({ decision: "accept" }), {
    action: "accept",
    content: null,
    _meta: null,
  });
  assert.deepEqual(f.accept({ decision: "acceptForSession" }), {
    action: "accept",
    content: null,
    _meta: { persist: "session" },
  });
  assert.deepEqual(f.accept({ decision: "acceptAlways" }), {
    action: "accept",
    content: null,
    _meta: { persist: "always" },
  });
  assert.deepEqual(f.accept({ decision: "decline" }), {
    action: "decline",
    content: null,
    _meta: null,
  });
  const bare = form(MCP, { _meta: { codex_approval_kind: "mcp_tool_call", persist: "session" } });
  assert.deepEqual(decisions(bare).map((d) => d.const), ["accept", "decline"]);
});

Deno.test("MCP elicitations: url mode is a url request, form modes are forms, anything else unsupported", () => {
  assert.deepEqual(
    forwardOf(MCP, { serverName: "s", mode: "url", message: "Log in", url: "https://a" }),
    {
      kind: "url",
      message: "[s] Log in",
      url: "https://a",
    },
  );
  assert.deepEqual(forwardOf(MCP, { mode: "url", url: 7 }), {
    kind: "unsupported",
    summary: '[""] sent a url request without what that mode needs',
  });
  const schema = { type: "object", properties: { c: { type: "string" } } };
  for (const mode of ["form", "openai/form", "openaiForm"]) {
    const f = form(MCP, { serverName: "s", mode, message: "Pick", requestedSchema: schema });
    assert.equal(f.message, "[s] Pick");
    assert.equal(f.requestedSchema, schema);
    assert.deepEqual(f.accept({ c: "x" }), { action: "accept", content: { c: "x" }, _meta: null });
  }
  assertUnsupported(forwardOf(MCP, { mode: "form" }));
  assertUnsupported(forwardOf(MCP, { mode: "other", requestedSchema: schema }));
  assert.deepEqual(
    forwardOf(MCP, { mode: "form", requestedSchema: schema, _meta: [1] }).kind,
    "form",
  );
});

Deno.test("refusalAnswer and urlAnswer write each method's own shape", () => {
  assert.deepEqual(refusalAnswer(CMD, "decline"), { decision: "decline" });
  assert.deepEqual(refusalAnswer(FILES, "cancel"), { decision: "cancel" });
  assert.deepEqual(refusalAnswer(PERMS, "cancel"), { permissions: {}, scope: "turn" });
  assert.deepEqual(refusalAnswer(INPUT, "decline"), { answers: {} });
  assert.deepEqual(refusalAnswer(MCP, "cancel"), { action: "cancel", content: null, _meta: null });
  assert.deepEqual(urlAnswer("accept"), { action: "accept", content: null, _meta: null });
});

// ------------------------------------------------------------ answerProblem

const schema = (properties: Record<string, unknown>, required: unknown = []) => ({
  type: "object",
  properties,
  required,
});

Deno.test("answerProblem: the schema and the answer must be objects", () => {
  for (const s of [null, [], { type: "string" }, "x"]) {
    assert.equal(answerProblem(s, {}), "The requested schema is not an object schema");
  }
  for (const c of [null, [], "x", 1]) {
    assert.equal(answerProblem(schema({}), c), "The answer is not an object");
  }
  assert.equal(answerProblem({ type: "object" }, {}), undefined, "no properties, nothing asked");
  assert.equal(answerProblem({ type: "object" }, { a: 1 }), "a is not asked for");
  assert.equal(answerProblem(schema({ a: "notobj" }), { a: 1 }), "a is not asked for");
  assert.equal(answerProblem(schema({ a: { type: "string" } }, "a"), {}), undefined);
  assert.equal(answerProblem(schema({ a: { type: "string" } }, [1, "a"]), {}), "a is required");
});

Deno.test("answerProblem: strings, enums and length bounds at and past the bound", () => {
  const s = schema({ s: { type: "string", minLength: 2, maxLength: 3 } });
  assert.equal(answerProblem(s, { s: 1 }), "s must be a string");
  assert.equal(answerProblem(s, { s: "a" }), "s is too short");
  assert.equal(answerProblem(s, { s: "ab" }), undefined);
  assert.equal(answerProblem(s, { s: "abc" }), undefined);
  assert.equal(answerProblem(s, { s: "abcd" }), "s is too long");
  for (
    const e of [{ enum: ["a", "b", 3] }, { oneOf: [{ const: "a" }, { const: "b" }, 1] }, {
      anyOf: [{ const: "a" }, { const: "b" }, { const: 2 }],
    }]
  ) {
    const es = schema({ e: { type: "string", ...e } });
    assert.equal(answerProblem(es, { e: "a" }), undefined);
    assert.equal(answerProblem(es, { e: "c" }), "e must be one of a, b");
  }
});

Deno.test("answerProblem: numbers and integers with bounds at and past the bound", () => {
  const n = schema({ n: { type: "number", minimum: 1, maximum: 2 } });
  for (const bad of ["1", NaN, Infinity]) {
    assert.equal(answerProblem(n, { n: bad }), "n must be a number");
  }
  assert.equal(answerProblem(n, { n: 0.99 }), "n is below 1");
  assert.equal(answerProblem(n, { n: 1 }), undefined);
  assert.equal(answerProblem(n, { n: 2 }), undefined);
  assert.equal(answerProblem(n, { n: 2.01 }), "n is above 2");
  const i = schema({ i: { type: "integer" } });
  assert.equal(answerProblem(i, { i: 1.5 }), "i must be an integer");
  assert.equal(answerProblem(i, { i: -3 }), undefined);
  assert.equal(answerProblem(schema({ x: { type: "number" } }), { x: 1.5 }), undefined);
});

Deno.test("answerProblem: booleans, multi-selects with item bounds, and unknown types", () => {
  const b = schema({ b: { type: "boolean" } });
  assert.equal(answerProblem(b, { b: false }), undefined);
  assert.equal(answerProblem(b, { b: "true" }), "b must be true or false");
  const a = schema({
    a: { type: "array", items: { enum: ["x", "y"] }, minItems: 1, maxItems: 2 },
  });
  assert.equal(answerProblem(a, { a: "x" }), "a must be a list");
  assert.equal(answerProblem(a, { a: ["x", "z"] }), "a may only hold x, y");
  assert.equal(answerProblem(a, { a: ["x", 1] }), "a may only hold x, y");
  assert.equal(answerProblem(a, { a: [] }), "a has too few items");
  assert.equal(answerProblem(a, { a: ["x"] }), undefined);
  assert.equal(answerProblem(a, { a: ["x", "y"] }), undefined);
  assert.equal(answerProblem(a, { a: ["x", "y", "x"] }), "a has too many items");
  assert.equal(answerProblem(schema({ a: { type: "array" } }), { a: [1, {}] }), undefined);
  assert.equal(
    answerProblem(schema({ o: { type: "object" } }), { o: {} }),
    "o has a type the relay cannot check",
  );
});

Deno.test("answerProblem: bounds that are not numbers are not applied", () => {
  const s = schema({
    s: { type: "string", minLength: "5", maxLength: "1" },
    n: { type: "number", minimum: "5", maximum: "1" },
    a: { type: "array", minItems: "5", maxItems: "1" },
  });
  assert.equal(answerProblem(s, { s: "abc", n: 3, a: ["x", "y"] }), undefined);
  const e = schema({
    e: { type: "string", oneOf: [{ const: "a" }, "junk", { title: "no const" }] },
  });
  assert.equal(answerProblem(e, { e: "a" }), undefined);
  assert.equal(answerProblem(e, { e: "junk" }), "e must be one of a");
  const multi = schema({ m: { type: "array", items: { enum: ["x"] } } });
  assert.equal(answerProblem(multi, { m: [1] }), "m may only hold x");
});

Deno.test("forwardOf: a reason that is not a string is not shown; an empty amendment still names its option", () => {
  assert.equal(
    form(CMD, { reason: 42, command: "c", cwd: "d" }).message,
    "Codex asks to run a command.\nCommand: c\nIn: d",
  );
  const f = form(CMD, { availableDecisions: [{ applyNetworkPolicyAmendment: {} }] });
  assert.deepEqual(decisions(f), [
    { const: "applyNetworkPolicyAmendment0", title: '"" network access to "" from now on' },
  ]);
  const tool = form(MCP, { _meta: { codex_approval_kind: "mcp_tool_call", persist: [] } });
  assert.deepEqual(decisions(tool).map((d) => d.const), ["accept", "decline"]);
  assert.deepEqual(forwardOf(MCP, { mode: "form", requestedSchema: [1] }), {
    kind: "unsupported",
    summary: '[""] sent a form request without what that mode needs',
  });
});

Deno.test("answerProblem: options given as oneOf/anyOf skip entries that are not objects", () => {
  const schema = {
    type: "object",
    properties: { pick: { type: "string", oneOf: [null, "b", { const: "a", title: "A" }] } },
  };
  assert.equal(answerProblem(schema, { pick: "a" }), undefined);
  assert.match(answerProblem(schema, { pick: "b" }) ?? "", /must be one of a$/);
});

Deno.test("MCP elicitations: the mode decides, and only a string names one", () => {
  const schema = { type: "object", properties: { c: { type: "string" } } };
  // A form-mode request that also carries a url is a form; a url-mode one without a url is not.
  assert.equal(
    forwardOf(MCP, { mode: "form", url: "https://a", requestedSchema: schema }).kind,
    "form",
  );
  assert.deepEqual(forwardOf(MCP, { serverName: "s", mode: "url", requestedSchema: schema }), {
    kind: "unsupported",
    summary: "[s] sent a url request without what that mode needs",
  });
  // A mode that is not a string is no mode, even one that reads as "url" when made a string.
  assert.deepEqual(forwardOf(MCP, { serverName: "s", mode: ["url"], url: "https://a" }), {
    kind: "unsupported",
    summary: "[s] asked for input of mode no, which codex-relay cannot forward to you",
  });
  const long = "x".repeat(100);
  assert.deepEqual(forwardOf(MCP, { serverName: "s", mode: long }), {
    kind: "unsupported",
    summary: `[s] asked for input of mode ${
      JSON.stringify("x".repeat(64))
    }, which codex-relay cannot forward to you`,
  });
});
