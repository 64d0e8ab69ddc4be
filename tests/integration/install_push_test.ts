/**
 * Protects: `install --client claude-code --push hooks` (src/install/push_hooks.ts, issue 49):
 * the hook goes into the scope's settings.json beside the MCP entry, with the entry's care
 * (shown, asked, comments and other hooks kept, backup); uninstall removes only its group;
 * without the option nothing changes; the apply command grants the settings files.
 */

import assert from "assert";
import { parse as parseJsonc } from "jsonc-parser";
import { type InstallIo, realFs, runInstall } from "../../src/install/run.ts";
import type { Source } from "../../src/install/launch.ts";
import { HOOK_MATCHER } from "../../src/install/push_hooks.ts";
import { simFs } from "../../testing/sim_fs.ts";

const SOURCE: Source = { kind: "checkout", root: "/opt/codex-relay" };

const SETTINGS = `{
  // my own settings
  "model": "opus",
  "hooks": {
    "PostToolUse": [
      { "matcher": "Write", "hooks": [{ "type": "command", "command": "prettier --write" }] } // mine
    ]
  }
}
`;

async function sandbox(granted = true, answer = false, tty = false) {
  const home = await Deno.makeTempDir({ prefix: "relay-push-home-" });
  const project = `${home}/project`;
  await Deno.mkdir(project);
  await Deno.mkdir(`${home}/.claude`);
  let out = "";
  let err = "";
  const vars: Record<string, string> = { HOME: home, CODEX_HOME: `${home}/.codex` };
  const io: InstallIo = {
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    env: (name) => vars[name],
    os: "linux",
    arch: "x86_64",
    look: simFs({}),
    cwd: project,
    deno: "/usr/bin/deno",
    stdinIsTerminal: tty,
    confirm: () => answer,
    granted: () => granted,
    fs: realFs,
  };
  return {
    home,
    project,
    io,
    out: () => out,
    err: () => err,
    dispose: () => Deno.remove(home, { recursive: true }),
  };
}

const read = (path: string) => Deno.readTextFile(path).catch(() => null);
const groups = (text: string) =>
  (parseJsonc(text) as { hooks?: { PostToolUse?: { matcher: string; hooks: unknown[] }[] } })
    .hooks?.PostToolUse ?? [];

Deno.test("install --push hooks: the hook beside the entry; comments and other hooks kept; backup; uninstall takes only it", async () => {
  const s = await sandbox();
  try {
    const settings = `${s.home}/.claude/settings.json`;
    await Deno.writeTextFile(settings, SETTINGS);
    const args = ["install", "--client", "claude-code", "--allow-turn-start", "--push", "hooks"];
    assert.equal(await runInstall([...args, "--yes"], SOURCE, s.io), 0, s.err());
    const after = (await read(settings))!;
    assert.match(after, /\/\/ my own settings/);
    assert.match(after, /\/\/ mine/);
    const [ours, mine] = groups(after);
    assert.equal(mine.matcher, "Write");
    assert.equal(ours.matcher, HOOK_MATCHER);
    const hook = ours.hooks[0] as { command: string; asyncRewake: boolean; timeout: number };
    assert.equal(hook.asyncRewake, true);
    assert.equal(hook.timeout, 30 * 60 + 60);
    assert.match(hook.command, /--allow-read=\S+\/\.claude\/projects/);
    assert.match(hook.command, /\/opt\/codex-relay\/mod\.ts hook-wait --timeout-minutes 30$/);
    assert.equal(await read(`${settings}.codex-relay.bak`), SETTINGS);
    assert.ok(await read(`${s.home}/.claude.json`), "the MCP entry is written too");
    assert.match(s.out(), /will add the codex-relay hook/);

    // Again: nothing to do.
    assert.equal(await runInstall([...args, "--yes"], SOURCE, s.io), 0);
    assert.equal(await read(settings), after);

    const un = ["uninstall", "--client", "claude-code", "--push", "hooks", "--yes"];
    assert.equal(await runInstall(un, SOURCE, s.io), 0, s.err());
    assert.equal(await read(settings), SETTINGS, "the user's file byte for byte");
  } finally {
    await s.dispose();
  }
});

Deno.test("install --push hooks: a fresh settings file; uninstall leaves no empty hooks", async () => {
  const s = await sandbox();
  try {
    const settings = `${s.project}/.claude/settings.json`;
    const args = ["--client", "claude-code", "--scope", "project", "--push", "hooks", "--yes"];
    assert.equal(await runInstall(["install", "--allow-turn-start", ...args], SOURCE, s.io), 0);
    assert.equal(groups((await read(settings))!).length, 1);
    assert.equal(await runInstall(["uninstall", ...args], SOURCE, s.io), 0, s.err());
    assert.deepEqual(parseJsonc((await read(settings))!), {});
  } finally {
    await s.dispose();
  }
});

Deno.test("without --push nothing changes in settings; --dry-run and a refusal write nothing", async () => {
  const s = await sandbox(true, false, true);
  try {
    const settings = `${s.home}/.claude/settings.json`;
    await Deno.writeTextFile(settings, SETTINGS);
    const base = ["install", "--client", "claude-code", "--allow-turn-start"];
    assert.equal(await runInstall([...base, "--yes"], SOURCE, s.io), 0);
    assert.equal(await read(settings), SETTINGS);
    assert.equal(await runInstall([...base, "--push", "hooks", "--dry-run"], SOURCE, s.io), 0);
    assert.equal(await read(settings), SETTINGS);
    assert.match(s.out(), /hook-wait/);
    // Asked on the terminal, answered no: the hook is not written (the entry was already there).
    assert.equal(await runInstall([...base, "--push", "hooks"], SOURCE, s.io), 1);
    assert.equal(await read(settings), SETTINGS);
  } finally {
    await s.dispose();
  }
});

Deno.test("--push hooks: Claude Code only; the apply command grants the settings files", async () => {
  const s = await sandbox(false);
  try {
    const cursor = ["install", "--client", "cursor", "--push", "hooks"];
    assert.equal(await runInstall(cursor, SOURCE, s.io), 64);
    assert.match(s.err(), /--push hooks is for --client claude-code/);
    const printed = ["install", "--client", "claude-code", "--push", "hooks", "--print-command"];
    assert.equal(await runInstall(printed, SOURCE, s.io), 0);
    const line = s.out();
    assert.match(line, /--push hooks/);
    assert.match(line, new RegExp(`--allow-read=[^ ]*${s.home}/\\.claude/settings\\.json`));
    assert.match(line, new RegExp(`--allow-write=[^ ]*${s.home}/\\.claude[, ']`));
  } finally {
    await s.dispose();
  }
});
