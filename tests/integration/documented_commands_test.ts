/** Protects: the install lines and client configs the README and docs/install.md print work as pasted. */
import assert from "assert";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { connectClient } from "../../testing/mcp_client.ts";
import { ROOT } from "../../testing/relay.ts";
import { type ClientId, resolveTarget } from "../../src/install/clients.ts";
import { cachedOnly, denoChildEnv } from "../../testing/child_env.ts";
import { callTool } from "../../testing/call_tool.ts";

const readme = await Deno.readTextFile(`${ROOT}/README.md`);
/** The install details (by-hand entries) the README links to. */
const install = await Deno.readTextFile(`${ROOT}/docs/install.md`);
const PLACEHOLDER = "/path/to/codex-relay";

/** Every `codex-relay` entry of a JSON MCP-client config block in docs/install.md. */
function jsonEntries(): { command: string; args: string[] }[] {
  const entries: { command: string; args: string[] }[] = [];
  for (const [, block] of install.matchAll(/```jsonc?\n([\s\S]*?)```/g)) {
    if (!block.includes(PLACEHOLDER)) continue;
    const config = JSON.parse(block);
    const servers = config.mcpServers ?? config.servers ?? {};
    if (servers["codex-relay"]) entries.push(servers["codex-relay"]);
  }
  return entries;
}

/** The command after `--` of docs/install.md's by-hand `claude mcp add` line. */
function claudeCodeCommand(): string[] {
  const line = install.split("\n").find((l) =>
    l.startsWith("claude mcp add") && l.includes(PLACEHOLDER)
  );
  assert.ok(line, "docs/install.md has a `claude mcp add` line for a checkout");
  return line.split(" -- ")[1].trim().split(/\s+/);
}

async function startsAsWritten(command: string, args: string[]): Promise<void> {
  const t = thread({ name: "from-readme" });
  const f = await FixtureHome.create({ threads: [t] });
  const cwd = await Deno.makeTempDir(); // A client starts servers from anywhere.
  try {
    const relay = await connectClient({
      command,
      args: cachedOnly(args.map((a) => a.replaceAll(PLACEHOLDER, ROOT))),
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
      const list = await callTool(relay.client, "codex_list_threads", {});
      assert.equal(list.structuredContent.threads[0].id, t.id);
    } finally {
      closed = await relay.close();
    }
    assert.equal(closed.code, 0);
  } finally {
    await Deno.remove(cwd);
    await f.dispose();
  }
}

Deno.test("the JSON client config of docs/install.md starts the server exactly as written", async () => {
  const entries = jsonEntries();
  assert.ok(entries.length > 0, "docs/install.md has a JSON config for a checkout");
  for (const entry of entries) await startsAsWritten(entry.command, entry.args);
});

Deno.test("the by-hand Claude Code command of docs/install.md starts the server exactly as written", async () => {
  const [command, ...args] = claudeCodeCommand();
  await startsAsWritten(command, args);
});

/** The README's second code block (after start and test): one registration line per client. */
function quickStart(): string[] {
  return readme.split("```sh\n")[2].split("```")[0].trim().split("\n");
}

Deno.test("the README's first Claude Code line (claude mcp add -s user) starts the server as written", async () => {
  const line = quickStart().find((l) => l.startsWith("claude mcp add -s user codex-relay -- "));
  assert.ok(line);
  const words = line.split(" -- ")[1].replace(/#.*$/, "").trim().split(/\s+/)
    .map((w) => w.replaceAll('"$PWD', `"${ROOT}`).replaceAll('"', ""));
  await startsAsWritten(words[0], words.slice(1));
});

Deno.test("the README's first install lines register each client as pasted (with --yes: no terminal here)", async () => {
  const lines = quickStart().filter((l) => l.startsWith('sh -c "$(deno run'));
  assert.equal(lines.length, 4);
  for (const line of lines) {
    const client = line.match(/--client (\S+) /)![1] as ClientId;
    const home = await Deno.makeTempDir({ prefix: "codex-relay-readme-" });
    try {
      const env = denoChildEnv({ HOME: home, PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" });
      const pasted = line.replace(/\s+#.*$/, "").replace(
        "--print-command)",
        "--print-command --yes)",
      );
      const out = await new Deno.Command("sh", {
        args: ["-c", pasted],
        cwd: ROOT, // "run in a checkout of codex-relay"
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, `${client}: ${stderr}`);
      const target = resolveTarget(client, "user", {
        get: (name) => (env as Record<string, string>)[name],
        os: Deno.build.os,
        cwd: home,
      });
      const text = await Deno.readTextFile(target.path);
      assert.match(text, /codex-relay/, `${client}: ${target.path}`);
      assert.match(new TextDecoder().decode(out.stdout), /Wrote /);
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  }
});
