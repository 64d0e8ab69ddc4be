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
