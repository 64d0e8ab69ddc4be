import assert from "assert";
import { FixtureHome, thread } from "../_fixture.ts";
import { connectClient } from "../_mcp_client.ts";
import { ROOT } from "../_relay.ts";

const readme = await Deno.readTextFile(`${ROOT}/README.md`);
const PLACEHOLDER = "/path/to/codex-relay";

/** Every `codex-relay` entry of a JSON MCP-client config block in the README. */
function jsonEntries(): { command: string; args: string[] }[] {
  const entries: { command: string; args: string[] }[] = [];
  for (const [, block] of readme.matchAll(/```jsonc?\n([\s\S]*?)```/g)) {
    if (!block.includes(PLACEHOLDER)) continue;
    const config = JSON.parse(block);
    const servers = config.mcpServers ?? config.servers ?? {};
    if (servers["codex-relay"]) entries.push(servers["codex-relay"]);
  }
  return entries;
}

/** The command after `--` of the README's `claude mcp add` line. */
function claudeCodeCommand(): string[] {
  const line = readme.split("\n").find((l) =>
    l.startsWith("claude mcp add") && l.includes(PLACEHOLDER)
  );
  assert.ok(line, "the README has a `claude mcp add` line for a checkout");
  return line.split(" -- ")[1].trim().split(/\s+/);
}

async function startsAsWritten(command: string, args: string[]): Promise<void> {
  const t = thread({ name: "from-readme" });
  const f = await FixtureHome.create({ threads: [t] });
  const cwd = await Deno.makeTempDir(); // A client starts servers from anywhere.
  try {
    const relay = await connectClient({
      command,
      args: args.map((a) => a.replaceAll(PLACEHOLDER, ROOT)),
      env: f.env,
      clearEnv: true,
      cwd,
      protocol: "2026-07-28",
      timeoutMs: 20_000,
    });
    let closed: { code: number } | undefined;
    try {
      const { tools } = await relay.client.listTools();
      assert.ok(tools.some((x) => x.name === "codex_queue_message"));
      const list = await relay.client.callTool({ name: "codex_list_threads", arguments: {} });
      assert.equal((list.structuredContent as { threads: { id: string }[] }).threads[0].id, t.id);
    } finally {
      closed = await relay.close();
    }
    assert.equal(closed.code, 0);
  } finally {
    await Deno.remove(cwd);
    await f.dispose();
  }
}

Deno.test("the README's JSON client config starts the server exactly as written", async () => {
  const entries = jsonEntries();
  assert.ok(entries.length > 0, "the README has a JSON config for a checkout");
  for (const entry of entries) await startsAsWritten(entry.command, entry.args);
});

Deno.test("the README's Claude Code command starts the server exactly as written", async () => {
  const [command, ...args] = claudeCodeCommand();
  await startsAsWritten(command, args);
});
