/** Protects: the install lines and client configs the README and docs/install.md print work as pasted. */
import assert from "assert";
import { FIXTURE_BIN, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { connectClient } from "../../testing/mcp_client.ts";
import { entryArgs, ROOT } from "../../testing/relay.ts";
import denoJson from "../../deno.json" with { type: "json" };
import { type ClientId, resolveTarget } from "../../src/install/clients.ts";
import { cachedOnly, denoChildEnv } from "../../testing/child_env.ts";
import { callTool } from "../../testing/call_tool.ts";
import { makeNpmShim } from "../../testing/npm_shim.ts";
import { parse as parseToml } from "smol-toml";
import { delimiter } from "node:path";

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

/** The README's block of checkout registration lines: one per client. */
function quickStart(): string[] {
  const blocks = readme.split("```sh\n").slice(1).map((b) => b.split("```")[0]);
  return blocks.find((b) => b.includes("mod.ts install"))!.trim().split("\n");
}

/** The relay's entry in a client's config file, as the client reads it. */
async function registered(
  client: ClientId,
  path: string,
): Promise<{ command: string; args: string[] }> {
  const text = await Deno.readTextFile(path);
  if (client === "codex") {
    const config = parseToml(text) as {
      mcp_servers: Record<string, { command: string; args: string[] }>;
    };
    return config.mcp_servers["codex-relay"];
  }
  const config = JSON.parse(text);
  return (config.mcpServers ?? config.servers)["codex-relay"];
}

/** Runs a README install line as pasted (with --yes: no terminal here) in `cwd` with `env`. */
async function paste(line: string, cwd: string, env: Record<string, string>): Promise<string> {
  const pasted = line.replace(/\s+#.*$/, "").replace("--print-command)", "--print-command --yes)");
  const out = await new Deno.Command("sh", {
    args: ["-c", pasted],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `${pasted}: ${stderr}`);
  return new TextDecoder().decode(out.stdout);
}

Deno.test("the README's install lines register all five clients as pasted, behind an npm deno shim too: every entry runs the real Deno binary, and starts from anywhere", async () => {
  const lines = quickStart();
  const clients = lines.map((l) =>
    l.match(
      /^sh -c "\$\(deno run -P --no-prompt --quiet mod\.ts install --client (\S+) --print-command\)"/,
    )
      ?.[1]
  );
  assert.deepEqual(clients, ["claude-code", "codex", "cursor", "vscode", "claude-desktop"]);
  const shim = await makeNpmShim();
  const home = await Deno.makeTempDir({ prefix: "codex-relay-readme-" });
  try {
    // `deno` on PATH is npm's Node shim, as after `npm install -g deno` on some machines; the
    // fixture is the `codex` install finds, whatever Codex this machine has (npm's included).
    const path = [shim.dir, FIXTURE_BIN, Deno.env.get("PATH") ?? "/usr/bin:/bin"];
    const env = denoChildEnv({ HOME: home, PATH: path.join(delimiter) });
    const entries: { command: string; args: string[] }[] = [];
    for (const [i, line] of lines.entries()) {
      const client = clients[i] as ClientId;
      assert.match(await paste(line, ROOT, env), /Wrote /, client); // "run in a checkout"
      const target = resolveTarget(client, "user", {
        get: (name) => env[name],
        os: Deno.build.os,
        cwd: home,
      });
      entries.push(await registered(client, target.path));
    }
    for (const entry of entries) {
      assert.equal(entry.command, Deno.execPath(), "the real binary, never the shim");
      assert.deepEqual(entry.args, entries[0].args, "the same way for all five");
    }
    await startsAsWritten(entries[0].command, entries[0].args);

    // From another folder, with mod.ts's full path: the same entry.
    await Deno.remove(`${home}/.claude.json`);
    const elsewhere = await Deno.makeTempDir({ prefix: "codex-relay-elsewhere-" });
    try {
      await paste(lines[0].replace(" mod.ts ", ` ${ROOT}/mod.ts `), elsewhere, env);
    } finally {
      await Deno.remove(elsewhere);
    }
    assert.deepEqual(await registered("claude-code", `${home}/.claude.json`), entries[0]);
  } finally {
    await Deno.remove(home, { recursive: true });
    await shim.remove();
  }
});

/** The Deno command lines of a text: each line (or `sh -c "$(...)"` inner command) running deno. */
function denoLines(text: string): string[] {
  return text.split("\n").map((l) => l.replace(/^.*?\$\(/, "").replace(/^[\s`]+/, ""))
    .filter((l) => /^(\S*\/)?deno (run|task start)\b/.test(l));
}

Deno.test("every Deno command line the README, docs/install.md and the relay's install and help print carries --no-prompt (issue 38)", async () => {
  const printed: string[] = [readme, install];
  const home = await Deno.makeTempDir({ prefix: "codex-relay-noprompt-" });
  try {
    for (const client of ["claude-code", "codex", "cursor", "vscode", "claude-desktop"]) {
      for (const extra of [[], ["--print-command"]]) {
        const out = await new Deno.Command(Deno.execPath(), {
          args: cachedOnly(entryArgs(["install", "--client", client, ...extra])),
          env: denoChildEnv({ HOME: home, PATH: Deno.env.get("PATH") ?? "" }),
          clearEnv: true,
          stdin: "null",
        }).output();
        assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
        printed.push(new TextDecoder().decode(out.stdout));
      }
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
  const lines = printed.flatMap(denoLines);
  assert.ok(lines.length > 20, lines.join("\n"));
  for (const line of lines) {
    const start = line.startsWith("deno task start") ? denoJson.tasks.start : line;
    assert.match(start, /^\S*deno run .*--no-prompt /, line);
  }
  // The entries install writes, in JSON and TOML: their argv has it too.
  const entries = printed.join("\n").match(/"run",\s*"[^"]+",\s*"--no-prompt"/g) ?? [];
  assert.ok(entries.length >= 5, "each client's printed entry");
});

Deno.test("help from a checkout says what codex-relay stands for there, and that command runs (issue 38)", async () => {
  const run = async (args: string[]) => {
    const out = await new Deno.Command(args[0], {
      args: cachedOnly(args.slice(1)),
      env: denoChildEnv({ PATH: Deno.env.get("PATH") ?? "" }),
      clearEnv: true,
      stdin: "null",
    }).output();
    return { code: out.code, text: new TextDecoder().decode(out.stdout) };
  };
  for (const topic of [[], ["serve"], ["doctor"]]) {
    const help = await run([Deno.execPath(), ...entryArgs(["help", ...topic])]);
    assert.equal(help.code, 0);
    const stands = help.text.match(/^Here codex-relay is this command:\n {2}(.+)$/m)?.[1];
    assert.ok(stands, help.text);
    const version = await run([Deno.execPath(), ...stands.split(" ").slice(1), "--version"]);
    assert.equal(version.code, 0, stands);
    assert.match(version.text, /^codex-relay \d/);
  }
});
