/**
 * End-to-end (real `codex app-server`, offline, Responses mock) for issue 20:
 *
 * - item 5: in spawn mode Codex gets the relay's environment, so a model
 *   provider whose key is in its own variable (`env_key`) runs turns;
 * - item 1: a trusted project's tighter `.codex/config.toml` is what the
 *   thread runs with, and codex_run may not loosen it (the turn metadata the
 *   mock sees shows the sandbox each turn really used).
 *
 * Run: `deno test -P tests/e2e/env_settings_e2e_test.ts` with codex in `.codex-npm/`
 * or `CODEX_BIN`; without a codex binary the tests are ignored.
 */
import assert from "node:assert/strict";
import { codexForTests } from "../../testing/codex_bin.ts";
import type { CodexHome } from "../../testing/codex_home.ts";
import type { MockRequest } from "../../testing/mock_responses.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import { startRelay } from "../../testing/relay.ts";
import type { ConnectedClient } from "../../testing/mcp_client.ts";
import { callTool } from "../../testing/call_tool.ts";

const BIN = codexForTests("tests/e2e/env_settings_e2e_test.ts");
const ignore = BIN === null;
const FLAGS = ["--allow-reply-read", "--allow-turn-start"];

type Rec = Record<string, unknown>;

/** Runs `fn` with a mock, a home whose config.toml `edit` rewrites, and a relay with `extraEnv`. */
async function withRelay(
  edit: (toml: string, home: CodexHome) => Promise<string>,
  extraEnv: Record<string, string>,
  fn: (
    run: (args: Rec) => Promise<{ out: Rec; text: string }>,
    requests: () => MockRequest[],
    home: CodexHome,
  ) => Promise<void>,
): Promise<void> {
  await withMockHome({ bin: BIN!.path }, async ({ mock, home, env: relayEnv }) => {
    let relay: ConnectedClient | undefined;
    let end: { code: number; stderr: string } | undefined;
    try {
      await Deno.writeTextFile(
        `${home.codexHome}/config.toml`,
        await edit(home.configToml, home),
      );
      const env = { ...relayEnv, ...extraEnv };
      relay = await startRelay({ env, flags: FLAGS, protocol: "2026-07-28" });
      const client = relay;
      await fn(
        async (args) => {
          const r = await callTool(client.client, "codex_run", { waitSeconds: 55, ...args }, {
            timeout: 90_000,
          });
          return {
            out: r.structuredContent,
            text: (r.content as { text: string }[])[0].text,
          };
        },
        () => mock.requests,
        home,
      );
    } finally {
      end = await relay?.close();
    }
    if (end) assert.equal(end.code, 0, end.stderr.slice(-2000));
  });
}

/** The sandbox mode a Responses request's turn ran with (its `x-codex-turn-metadata`). */
function sandboxOf(r: MockRequest): string {
  return JSON.parse(r.headers["x-codex-turn-metadata"] ?? "{}").sandbox_mode;
}

Deno.test({
  name:
    "e2e spawn: a model provider whose key is in its own variable runs a turn (Codex gets the relay's environment)",
  ignore,
  async fn() {
    await withRelay(
      (toml) =>
        Promise.resolve(toml.replace(
          "[model_providers.mock_provider]\n",
          '[model_providers.mock_provider]\nenv_key = "RELAY_E2E_PROVIDER_KEY"\n',
        )),
      { RELAY_E2E_PROVIDER_KEY: "key-in-a-custom-variable" },
      async (run, requests, home) => {
        const r = await run({ cwd: home.workspace, text: "hello" });
        assert.equal((r.out.turn as Rec).status, "completed", r.text);
        const seen = requests().filter((q) => q.path.endsWith("/responses"));
        assert.ok(seen.length > 0);
        assert.equal(seen.at(-1)!.headers["authorization"], "Bearer key-in-a-custom-variable");
      },
    );
  },
});

Deno.test({
  name:
    "e2e spawn: a trusted project's tighter sandbox holds; codex_run may not loosen it, now or later",
  ignore,
  async fn() {
    await withRelay(
      async (toml, home) => {
        await Deno.mkdir(`${home.workspace}/.codex`);
        await Deno.writeTextFile(
          `${home.workspace}/.codex/config.toml`,
          'sandbox_mode = "read-only"\napproval_policy = "on-request"\n',
        );
        return toml
          .replace('sandbox_mode = "read-only"', 'sandbox_mode = "danger-full-access"')
          .replace(/^approval_policy = .*$/m, 'approval_policy = "never"') +
          `\n[projects.${JSON.stringify(home.workspace)}]\ntrust_level = "trusted"\n`;
      },
      {},
      async (run, requests, home) => {
        const first = await run({ cwd: home.workspace, text: "first" });
        assert.equal((first.out.turn as Rec).status, "completed", first.text);
        assert.equal(sandboxOf(requests().at(-1)!), "read-only", "the project's layer applies");
        const threadId = first.out.threadId as string;
        const before = requests().length;

        const loose = await run({
          threadId,
          text: "loosen",
          sandbox: "danger-full-access",
          approvalPolicy: "never",
        });
        assert.equal(loose.out.reason, "not_allowed", loose.text);
        assert.match(loose.text, /looser than the thread's read-only/);
        assert.equal(requests().length, before, "no turn ran");

        const later = await run({ threadId, text: "later" });
        assert.equal((later.out.turn as Rec).status, "completed", later.text);
        assert.equal(sandboxOf(requests().at(-1)!), "read-only", "later runs keep read-only");
      },
    );
  },
});

Deno.test({
  name:
    "e2e spawn: Codex keeps a run's tighter sandbox for the thread's later turns, and codex_run may not loosen it again",
  ignore,
  async fn() {
    await withRelay(
      (toml) =>
        Promise.resolve(
          toml.replace('sandbox_mode = "read-only"', 'sandbox_mode = "danger-full-access"'),
        ),
      {},
      async (run, requests, home) => {
        const first = await run({ cwd: home.workspace, text: "first", sandbox: "read-only" });
        assert.equal((first.out.turn as Rec).status, "completed", first.text);
        assert.equal(sandboxOf(requests().at(-1)!), "read-only");
        const threadId = first.out.threadId as string;

        // A plain later run (a new helper resumes the thread): Codex kept read-only.
        const plain = await run({ threadId, text: "plain" });
        assert.equal((plain.out.turn as Rec).status, "completed", plain.text);
        assert.equal(sandboxOf(requests().at(-1)!), "read-only", "Codex keeps it with the thread");

        const before = requests().length;
        const back = await run({ threadId, text: "back", sandbox: "workspace-write" });
        assert.equal(back.out.reason, "not_allowed", back.text);
        assert.equal(requests().length, before, "no turn ran");
      },
    );
  },
});

Deno.test({
  name:
    "e2e spawn: a model provider whose key variable is missing where Codex runs fails the turn as missing_provider_key, with the fix",
  ignore,
  async fn() {
    await withRelay(
      (toml) =>
        Promise.resolve(toml.replace(
          "[model_providers.mock_provider]\n",
          '[model_providers.mock_provider]\nenv_key = "RELAY_E2E_MISSING_PROVIDER_KEY"\n',
        )),
      {},
      async (run, _requests, home) => {
        const r = await run({ cwd: home.workspace, text: "hello" });
        assert.equal((r.out.turn as Rec).status, "failed", r.text);
        // Codex's own words, and a class of its own with the fix (no codexErrorInfo kind says it).
        assert.match(r.out.error as string, /^Missing environment variable: .RELAY_E2E_MISSING/);
        assert.equal(r.out.failureClass, "missing_provider_key", r.text);
        assert.equal(r.out.retryable, false);
        assert.match(r.out.fix as string, /set RELAY_E2E_MISSING_PROVIDER_KEY where Codex runs/);
        assert.match(r.out.fix as string, /env_vars/);
        assert.match(r.text, /Fix: set RELAY_E2E_MISSING_PROVIDER_KEY where Codex runs/);
      },
    );
  },
});
