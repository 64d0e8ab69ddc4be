/**
 * Protects: the install and uninstall lines as a new user meets them on a
 * fresh home (issue 47): each step as printed, under its own permission set.
 */

import assert from "assert";
import { entryArgs } from "../../testing/relay.ts";
import { runDeno } from "../../testing/child_env.ts";
import { exists } from "../../testing/paths.ts";

const run = runDeno;

/** `sh -c "$(... ACTION --client CLIENT --print-command)" --yes`, step by step. */
async function line(action: string, client: string, env: Record<string, string>) {
  const printed = await run(
    entryArgs([action, "--client", client, "--print-command"], { noPrompt: true }),
    env,
  );
  assert.equal(printed.code, 0, printed.stderr);
  const [deno, ...args] = printed.stdout.trim().split(" ");
  assert.equal(deno, "deno", printed.stdout);
  const applied = await run([...args, "--yes"], env);
  assert.equal(applied.code, 0, applied.stdout + applied.stderr);
  return { printed: printed.stdout, applied: applied.stdout };
}

async function withHome(fn: (home: string) => Promise<void>): Promise<void> {
  const home = await Deno.makeTempDir({ prefix: "codex-relay-newcomer-" });
  try {
    await fn(home);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("with CLAUDE_CONFIG_DIR set, the Claude Code line writes that folder's .claude.json (no exit 77)", async () => {
  await withHome(async (home) => {
    const dir = `${home}/claude-config`;
    await Deno.mkdir(dir);
    const { printed } = await line("install", "claude-code", {
      HOME: home,
      CLAUDE_CONFIG_DIR: dir,
    });
    assert.ok(printed.includes(`--allow-write=${dir}/.claude.json,`), printed);
    assert.match(await Deno.readTextFile(`${dir}/.claude.json`), /"codex-relay"/);
    assert.equal(await exists(`${home}/.claude.json`), false);
  });
});

Deno.test("install makes a new ~/.claude.json 600 (as Claude Code does) and keeps an existing file's mode", async () => {
  await withHome(async (home) => {
    await line("install", "claude-code", { HOME: home });
    assert.equal((await Deno.stat(`${home}/.claude.json`)).mode! & 0o777, 0o600);
  });
  await withHome(async (home) => {
    await Deno.writeTextFile(`${home}/.claude.json`, '{"numStartups": 3}\n', { mode: 0o640 });
    await Deno.chmod(`${home}/.claude.json`, 0o640);
    await line("install", "claude-code", { HOME: home });
    assert.equal((await Deno.stat(`${home}/.claude.json`)).mode! & 0o777, 0o640);
  });
});

Deno.test("uninstall leaves no backup, and removes the client folder install created", async () => {
  await withHome(async (home) => {
    const config = `${home}/.claude.json`;
    await Deno.writeTextFile(config, '{"numStartups": 3}\n');
    await line("install", "claude-code", { HOME: home });
    assert.ok(await exists(`${config}.codex-relay.bak`), "install keeps the previous version");
    await line("uninstall", "claude-code", { HOME: home });
    assert.deepEqual(JSON.parse(await Deno.readTextFile(config)), { numStartups: 3 });
    assert.equal(await exists(`${config}.codex-relay.bak`), false);
  });
  await withHome(async (home) => {
    await line("install", "cursor", { HOME: home });
    assert.ok(await exists(`${home}/.cursor/mcp.json`));
    const { applied } = await line("uninstall", "cursor", { HOME: home });
    assert.equal(await exists(`${home}/.cursor`), false, applied);
  });
});

Deno.test("--print after --print-command is a usage error, not dropped", async () => {
  await withHome(async (home) => {
    for (const order of [["--print-command", "--print"], ["--print", "--print-command"]]) {
      const r = await run(entryArgs(["install", "--client", "cursor", ...order]), { HOME: home });
      assert.equal(r.code, 64, r.stdout);
      assert.match(r.stderr, /Give --print or --print-command, not both/);
      assert.equal(r.stdout, "");
    }
  });
});
