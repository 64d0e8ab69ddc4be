import assert from "assert";
import { RelayError } from "../../src/core/errors.ts";
import {
  checkTightening,
  runConfig,
  runParams,
  tighterOf,
  unapplied,
} from "../../src/turn/run_options.ts";
import { activityText } from "../../src/turn/activity.ts";
import { parseItemActivity, parseLoadedSettings } from "../../src/codex/validate.ts";

const refused = (config: unknown, options: Parameters<typeof checkTightening>[1]) => {
  try {
    checkTightening(config, options);
    return undefined;
  } catch (error) {
    assert.ok(error instanceof RelayError);
    assert.equal(error.reason, "not_allowed");
    return error.message;
  }
};

Deno.test("sandbox and approval policy may tighten the configuration, never loosen it", () => {
  const config = { sandbox_mode: "workspace-write", approval_policy: "on-request" };
  for (const sandbox of ["read-only", "workspace-write"] as const) {
    assert.equal(refused(config, { sandbox }), undefined, sandbox);
  }
  for (const approvalPolicy of ["untrusted", "on-request"] as const) {
    assert.equal(refused(config, { approvalPolicy }), undefined, approvalPolicy);
  }
  assert.match(
    refused(config, { sandbox: "danger-full-access" })!,
    /sandbox danger-full-access is looser than the thread's workspace-write/,
  );
  assert.match(
    refused(config, { approvalPolicy: "never" })!,
    /approvalPolicy never is looser than the thread's on-request/,
  );
  const both = refused(config, { sandbox: "danger-full-access", approvalPolicy: "never" })!;
  assert.match(both, /sandbox .*; approvalPolicy /, "both problems are named");
  assert.equal(
    refused({ sandbox_mode: "danger-full-access", approval_policy: "never" }, {
      sandbox: "danger-full-access",
      approvalPolicy: "never",
    }),
    undefined,
  );
});

Deno.test("an unset, unknown or granular setting counts as the tightest", () => {
  assert.equal(refused({}, { sandbox: "read-only", approvalPolicy: "untrusted" }), undefined);
  assert.match(refused({}, { sandbox: "workspace-write" })!, /unset sandbox/);
  assert.match(
    refused({ sandbox_mode: "some-future-mode" }, { sandbox: "workspace-write" })!,
    /looser/,
  );
  assert.match(refused({}, { approvalPolicy: "on-request" })!, /unset approval policy/);
  const granular = { approval_policy: { granular: { rules: true } } };
  assert.match(refused(granular, { approvalPolicy: "on-request" })!, /granular/);
  assert.equal(refused(granular, { approvalPolicy: "untrusted" }), undefined);
  assert.equal(refused({}, {}), undefined, "no option, nothing to check");
});

Deno.test("options become thread/start and thread/resume parameters; effort a config override", () => {
  assert.deepEqual(runParams({}), {});
  assert.deepEqual(
    runParams({ model: "gpt-5.4", sandbox: "read-only", approvalPolicy: "untrusted", name: "x" }),
    { model: "gpt-5.4", sandbox: "read-only", approvalPolicy: "untrusted" },
  );
  const guard = { "mcp_servers.relay.enabled": false };
  assert.deepEqual(runConfig(guard, {}), guard);
  assert.deepEqual(runConfig(guard, { effort: "high" }), {
    ...guard,
    model_reasoning_effort: "high",
  });
});

Deno.test("progress names the kind of work and tool names, never content", () => {
  const say = (item: unknown) => activityText(parseItemActivity(item));
  assert.equal(
    say({ type: "commandExecution", command: "rm -rf SECRET" }),
    "Codex is running a command",
  );
  assert.equal(say({ type: "fileChange", changes: [{}, {}] }), "Codex is editing 2 files");
  assert.equal(say({ type: "fileChange", changes: [{}] }), "Codex is editing 1 file");
  assert.equal(say({ type: "fileChange" }), "Codex is editing files");
  assert.equal(
    say({ type: "mcpToolCall", server: "docs", tool: "search", arguments: { q: "SECRET" } }),
    "Codex is calling tool search of server docs",
  );
  assert.equal(
    say({ type: "mcpToolCall", server: "a\u001b[31mb", tool: "x".repeat(100) }),
    `Codex is calling tool ${"x".repeat(64)} of server a[31mb`,
    "names are bounded and lose control characters",
  );
  assert.equal(say({ type: "mcpToolCall", server: 7 }), "Codex is calling tool ? of server ?");
  assert.equal(say({ type: "userMessage", content: "SECRET" }), undefined);
  assert.equal(say({ type: "somethingNew" }), undefined);
  assert.equal(say(null), undefined);
});

Deno.test("what an earlier run left with the thread bounds later options too; it only ever tightens", () => {
  const config = { sandbox_mode: "danger-full-access", approval_policy: "never" };
  const left = { sandbox: "read-only", approvalPolicy: "on-request" } as const;
  const message = (options: Parameters<typeof checkTightening>[1]) => {
    try {
      checkTightening(config, options, left);
      return undefined;
    } catch (error) {
      assert.ok(error instanceof RelayError && error.reason === "not_allowed");
      return error.message;
    }
  };
  assert.match(
    message({ sandbox: "workspace-write" })!,
    /sandbox workspace-write is looser than the thread's read-only \(left by an earlier codex_run of this relay\)/,
  );
  assert.match(message({ approvalPolicy: "never" })!, /on-request \(left by an earlier codex_run/);
  assert.equal(message({ sandbox: "read-only", approvalPolicy: "untrusted" }), undefined);
  assert.deepEqual(
    tighterOf(left, { sandbox: "danger-full-access", approvalPolicy: "untrusted" }),
    {
      sandbox: "read-only",
      approvalPolicy: "untrusted",
    },
  );
  assert.deepEqual(tighterOf({}, { sandbox: "workspace-write" }), { sandbox: "workspace-write" });
  assert.deepEqual(tighterOf({}, {}), {});
});

Deno.test("unapplied() names a requested setting the thread does not run with (Codex kept a looser one)", () => {
  const reported = parseLoadedSettings({
    sandbox: { type: "workspaceWrite", networkAccess: false },
    approvalPolicy: "on-request",
  });
  assert.deepEqual(reported, {
    sandbox: "workspace-write",
    approvalPolicy: "on-request",
    active: false,
  });
  // The thread's status as the resume reports it: a turn runs there (issue 30: jobs need idle).
  const busy = parseLoadedSettings({ thread: { status: { type: "active", activeFlags: [] } } });
  assert.equal(busy.active, true);
  assert.deepEqual(unapplied({ sandbox: "read-only", approvalPolicy: "untrusted" }, reported), [
    "sandbox workspace-write (not read-only)",
    "approvalPolicy on-request (not untrusted)",
  ]);
  assert.deepEqual(unapplied({ sandbox: "workspace-write" }, reported), [], "as asked");
  assert.deepEqual(unapplied({ sandbox: "danger-full-access" }, reported), [], "kept tighter");
  assert.deepEqual(unapplied({}, reported), []);
  const unknown = parseLoadedSettings({ sandbox: { type: "externalSandbox" }, approvalPolicy: {} });
  assert.deepEqual(unknown, { sandbox: null, approvalPolicy: null, active: false });
  assert.deepEqual(unapplied({ sandbox: "read-only" }, unknown), [], "unreported: not checked");
  assert.deepEqual(parseLoadedSettings(null), {
    sandbox: null,
    approvalPolicy: null,
    active: false,
  });
});

Deno.test("a refusal names the configured setting when an earlier run left the same one", () => {
  const config = { sandbox_mode: "workspace-write", approval_policy: "on-request" };
  const left = { sandbox: "workspace-write", approvalPolicy: "on-request" } as const;
  try {
    checkTightening(config, { sandbox: "danger-full-access", approvalPolicy: "never" }, left);
    assert.fail("refused");
  } catch (error) {
    assert.ok(error instanceof RelayError && error.reason === "not_allowed");
    assert.equal(
      error.message,
      "codex_run may only tighten the thread's configuration: sandbox danger-full-access is " +
        "looser than the thread's workspace-write; approvalPolicy never is looser than the " +
        "thread's on-request",
    );
  }
});

Deno.test("tighterOf keeps what was left when a run names no setting; unapplied() checks only what was asked", () => {
  const left = { sandbox: "workspace-write", approvalPolicy: "on-request" } as const;
  assert.deepEqual(tighterOf(left, {}), left);
  assert.deepEqual(tighterOf({}, { approvalPolicy: "never" }), { approvalPolicy: "never" });
  const reported = { sandbox: "danger-full-access", approvalPolicy: "never" };
  assert.deepEqual(unapplied({ sandbox: "danger-full-access" }, reported), [], "policy not asked");
  assert.deepEqual(unapplied({ approvalPolicy: "never" }, reported), [], "sandbox not asked");
  assert.deepEqual(unapplied({ approvalPolicy: "on-request" }, reported), [
    "approvalPolicy never (not on-request)",
  ]);
  assert.deepEqual(
    unapplied({ approvalPolicy: "on-request" }, { sandbox: null, approvalPolicy: "on-request" }),
    [],
    "as asked",
  );
});

Deno.test("a configuration of another shape: not an object fails; settings of other types count as unset", () => {
  assert.throws(
    () => checkTightening(null, { sandbox: "read-only" }),
    /config\/read config is not/,
  );
  assert.match(
    refused({ sandbox_mode: 5 }, { sandbox: "workspace-write" })!,
    /the thread's unset sandbox \(counted as read-only\)/,
  );
  for (const approval_policy of [5, null]) {
    assert.match(
      refused({ approval_policy }, { approvalPolicy: "on-request" })!,
      /the thread's unset approval policy \(counted as untrusted\)/,
      String(approval_policy),
    );
  }
});
