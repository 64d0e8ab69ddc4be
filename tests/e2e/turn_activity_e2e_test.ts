/**
 * Issue 38, item 7, against the real `codex app-server`: a model request that
 * fails is retried by Codex (`stream_max_retries = 1` here) and told as an
 * `error` notification with `willRetry`; the relay's progress says so in one
 * line, then the turn fails with Codex's error.
 *
 * Run: `deno test -P tests/e2e/turn_activity_e2e_test.ts` with codex in `.codex-npm/` or `CODEX_BIN`.
 */
import assert from "node:assert/strict";
import { codexForTests } from "../../testing/codex_bin.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";

const BIN = codexForTests("tests/e2e/turn_activity_e2e_test.ts");

Deno.test({
  name: "a model request Codex retries is told in progress, then the turn fails with Codex's error",
  ignore: BIN === null,
  fn: async () => {
    await withMockHome({ bin: BIN!.path }, async ({ home, env }) => {
      const retried = home.configToml.replace("stream_max_retries = 0", "stream_max_retries = 1");
      assert.notEqual(retried, home.configToml, "the home's config sets stream_max_retries");
      await Deno.writeTextFile(`${home.codexHome}/config.toml`, retried);
      const relay = await startRelay({
        env,
        flags: ["--allow-turn-start"],
        protocol: "2026-07-28",
      });
      try {
        const progress: string[] = [];
        const run = await callTool(relay.client, "codex_run", {
          cwd: home.workspace,
          text: "HTTP500 go",
          waitSeconds: 55,
        }, { timeout: 90_000, onprogress: (p) => void progress.push(String(p.message)) });
        const out = run.structuredContent;
        assert.equal(out.turn?.status, "failed", JSON.stringify(out));
        assert.equal(out.activity, undefined, "an ended turn has no activity");
        const said = progress.join("\n");
        assert.match(
          said,
          /^Codex's model request failed and is retried: Reconnecting\.\.\. 1\/1/m,
        );
        assert.match(said, /^Codex's model request failed: /m);
      } finally {
        const end = await relay.close();
        assert.equal(end.code, 0, end.stderr.slice(-2000));
      }
    });
  },
});
