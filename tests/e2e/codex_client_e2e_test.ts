/**
 * Codex as the MCP client: the relay is registered in a Codex config the way a user does it
 * (the relay's `install --client codex --yes`, then the printed command), checked with Codex's
 * own `codex mcp list --json`, and a relay tool is called through `codex app-server`'s
 * `mcpServer/tool/call`. Codex starts MCP servers with a filtered environment (HOME, PATH, USER,
 * LANG, ...: no DENO_DIR, no CODEX_HOME), and here HOME is a temp home whose Deno cache is empty,
 * so the relay starts only if its entry carries what it needs.
 *
 * Run: `deno test -P tests/e2e/codex_client_e2e_test.ts` with codex in `.codex-npm/` or
 * `CODEX_BIN=/path/to/codex`.
 */
import { entryArgs } from "../../testing/relay.ts";
import assert from "node:assert/strict";
import { AppServer } from "../../testing/app_server_client.ts";
import { codexForTests } from "../../testing/codex_bin.ts";
import { denoDir } from "../../testing/codex_home.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import { cachedOnly, denoChildEnv } from "../../testing/child_env.ts";

const BIN = codexForTests("tests/e2e/codex_client_e2e_test.ts");
const decoder = new TextDecoder();

async function run(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: cachedOnly(args),
    env: denoChildEnv(env),
    clearEnv: true,
    cwd: env.HOME,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test({
  name:
    "Codex as the MCP client: the installed entry starts under Codex's environment and answers mcpServer/tool/call",
  ignore: BIN === null,
  async fn() {
    await withMockHome({}, async ({ home }) => {
      let driver: AppServer | undefined;
      try {
        const bin = `${home.root}/bin`;
        await Deno.mkdir(bin);
        await Deno.symlink(BIN!.path, `${bin}/codex`);
        const path = `${bin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`;
        // The user's shell: DENO_DIR says where Deno's cache is (HOME is the temp home).
        const shell = { ...home.env, PATH: path, DENO_DIR: await denoDir() };

        const first = await run(entryArgs(["install", "--client", "codex", "--yes"]), shell);
        assert.equal(first.code, 0, first.stderr);
        const line = first.stdout.split("\n").find((l) =>
          l.trim().startsWith("deno run --no-prompt --quiet -P=install")
        );
        assert.ok(line, first.stdout);
        const applied = await run(line.trim().split(" ").slice(1), shell);
        assert.equal(applied.code, 0, applied.stderr);

        // Codex's own view of the entry.
        const listed = await new Deno.Command(BIN!.path, {
          args: ["mcp", "list", "--json"],
          env: home.env,
          clearEnv: true,
          stdout: "piped",
          stderr: "null",
        }).output();
        const servers = JSON.parse(decoder.decode(listed.stdout)) as {
          name: string;
          enabled: boolean;
          transport: { env: Record<string, string>; env_vars: string[] };
        }[];
        const entry = servers.find((s) => s.name === "codex-relay");
        assert.ok(entry?.enabled, decoder.decode(listed.stdout));
        assert.equal(entry.transport.env.DENO_DIR, shell.DENO_DIR);
        assert.ok(entry.transport.env_vars.includes("CODEX_HOME"));

        // Codex, started as a user would (no DENO_DIR in its environment), loads the relay.
        home.env.PATH = path;
        driver = await AppServer.start(home, { bin: BIN!.path });
        const thread = await driver.startThread({ cwd: home.workspace });
        const run1 = await driver.runTurn(thread.id, "hello");
        assert.equal(run1.turn.status, "completed");
        const status = await driver.waitForNotification(
          (n) =>
            n.method === "mcpServer/startupStatus/updated" && n.params.name === "codex-relay" &&
            n.params.status !== "starting",
          "codex-relay's startup status",
          60_000,
        );
        assert.equal(status.params.status, "ready", JSON.stringify(status.params));

        const result = await driver.request("mcpServer/tool/call", {
          threadId: thread.id,
          server: "codex-relay",
          tool: "codex_list_threads",
          arguments: {},
        }) as {
          isError?: boolean | null;
          structuredContent?: { status: string; threads: { id: string }[] };
        };
        assert.notEqual(result.isError, true, JSON.stringify(result));
        assert.equal(result.structuredContent?.status, "ok", JSON.stringify(result));
        assert.ok(
          result.structuredContent!.threads.some((t) => t.id === thread.id),
          "the relay sees the thread of the Codex that runs it (CODEX_HOME passed on)",
        );
      } finally {
        await driver?.close();
      }
    });
  },
});
