/** Protects: what `--compat codex-mcp-server` honours, maps and refuses (issue 50). */
import assert from "assert";
import { compatOptions } from "../../src/host/compat_args.ts";
import { serveFlags } from "../../src/host/serve_flags.ts";
import { parseCommand } from "../../src/cli/flags.ts";
import { capabilitiesOf } from "../../src/core/capabilities.ts";
import { toolNames } from "../../src/host/tools/all_tools.ts";
import { UsageError } from "../../src/core/usage_error.ts";

Deno.test("compat: the honoured fields and config keys become the run's options", () => {
  assert.deepEqual(
    compatOptions({
      model: "gpt-5.2",
      sandbox: "read-only",
      "approval-policy": "untrusted",
      config: { model_reasoning_effort: "high", compact_prompt: "Summarise." },
      "base-instructions": "Base.",
      "developer-instructions": "Dev.",
    }),
    {
      options: {
        model: "gpt-5.2",
        effort: "high",
        sandbox: "read-only",
        approvalPolicy: "untrusted",
        baseInstructions: "Base.",
        developerInstructions: "Dev.",
        compactPrompt: "Summarise.",
      },
      notes: [],
    },
  );
  assert.deepEqual(
    compatOptions({ config: { sandbox_mode: "read-only", approval_policy: "never" } }),
    {
      options: { sandbox: "read-only", approvalPolicy: "never" },
      notes: [],
    },
  );
});

Deno.test("compat: on-failure runs as on-request, with a note (as a field or a config key)", () => {
  for (
    const args of [{ "approval-policy": "on-failure" as const }, {
      config: { approval_policy: "on-failure" },
    }]
  ) {
    const out = compatOptions(args);
    assert.ok("options" in out);
    assert.equal(out.options.approvalPolicy, "on-request");
    assert.match(out.notes[0], /on-failure ran as on-request/);
  }
});

Deno.test("compat: profile, unknown or ill-typed config keys and disagreeing settings are refused, named", () => {
  const cases: [Parameters<typeof compatOptions>[0], RegExp][] = [
    [{ profile: "fast" }, /^profile is refused/],
    [
      { config: { "shell_environment_policy.inherit": "all" } },
      /config key 'shell_environment_policy\.inherit' is refused/,
    ],
    [
      { config: { sandbox_mode: "yolo" } },
      /config key 'sandbox_mode' takes read-only, workspace-write, danger-full-access/,
    ],
    [{ config: { model_reasoning_effort: 3 } }, /takes a string/],
    [{ model: "a", config: { model: "b" } }, /config sets model to 'b' but the call gives 'a'/],
  ];
  for (const [args, why] of cases) {
    const out = compatOptions(args);
    assert.ok("refused" in out, JSON.stringify(args));
    assert.match(out.refused, why);
    assert.match(out.refused, /nothing was sent to Codex$/);
  }
});

Deno.test("--compat codex-mcp-server: needs --allow-turn-start, takes only that surface, serves only two tools", () => {
  assert.throws(
    () => parseCommand(["serve", "--compat", "codex-mcp-server"]),
    (e) => e instanceof UsageError && /--compat needs --allow-turn-start/.test(e.message),
  );
  assert.throws(
    () => parseCommand(["serve", "--allow-turn-start", "--compat", "other"]),
    /--compat takes codex-mcp-server/,
  );
  assert.throws(() => serveFlags({ compat: "codex-mcp-server" }, "options"), TypeError);
  const flags = serveFlags({ allowTurnStart: true, compat: "codex-mcp-server" }, "options");
  assert.deepEqual(toolNames(capabilitiesOf(flags)), ["codex", "codex-reply"]);
  assert.ok(
    !toolNames(capabilitiesOf({ allowReplyRead: false, allowTurnStart: true })).includes("codex"),
  );
});

Deno.test("compat: a setting given both as a field and in config passes when they agree", () => {
  assert.deepEqual(
    compatOptions({ model: "gpt-5.2", sandbox: "read-only", config: { model: "gpt-5.2" } }),
    { options: { model: "gpt-5.2", sandbox: "read-only" }, notes: [] },
  );
  assert.deepEqual(
    compatOptions({ "compact-prompt": "Short.", config: { compact_prompt: "Short." } }),
    { options: { compactPrompt: "Short." }, notes: [] },
  );
  assert.deepEqual(compatOptions({ "compact-prompt": "Short." }), {
    options: { compactPrompt: "Short." },
    notes: [],
  });
  assert.deepEqual(compatOptions({}), { options: {}, notes: [] });
});

Deno.test("compat: empty fields set nothing; the run keeps the user's config", () => {
  assert.deepEqual(
    compatOptions({
      model: "",
      "base-instructions": "",
      "developer-instructions": "",
      "compact-prompt": "",
      config: { model_reasoning_effort: "" },
    }),
    { options: {}, notes: [] },
  );
});

Deno.test("compat: a refused config key is named (bounded), with the keys that are honoured", () => {
  const refusedOf = (config: Record<string, unknown>) => {
    const out = compatOptions({ config });
    assert.ok("refused" in out, JSON.stringify(config));
    return out.refused;
  };
  const honoured = "model, model_reasoning_effort, sandbox_mode, approval_policy, compact_prompt";
  assert.equal(
    refusedOf({ model: "a", toString: "b" }),
    `config key 'toString' is refused: codex-relay applies only config keys it can check loosen nothing (${honoured}); set others in config.toml yourself; nothing was sent to Codex`,
  );
  assert.match(refusedOf(JSON.parse('{"__proto__": "x"}')), /^config key '__proto__' is refused/);
  assert.ok(refusedOf({ ["k".repeat(300)]: "x" }).startsWith(`config key '${"k".repeat(100)}' is`));
  assert.equal(
    refusedOf({ approval_policy: "always" }),
    "config key 'approval_policy' takes untrusted, on-request, never, on-failure; nothing was sent to Codex",
  );
  for (const policy of ["untrusted", "on-request", "never"]) {
    const out = compatOptions({ config: { approval_policy: policy } });
    assert.deepEqual(out, { options: { approvalPolicy: policy }, notes: [] });
  }
  assert.equal(
    refusedOf({ compact_prompt: ["a"] }),
    "config key 'compact_prompt' takes a string; nothing was sent to Codex",
  );
  const both = compatOptions({ sandbox: "read-only", config: { sandbox_mode: "workspace-write" } });
  assert.equal(
    "refused" in both && both.refused,
    "config sets sandbox to 'workspace-write' but the call gives 'read-only'; give one; nothing was sent to Codex",
  );
});
