/**
 * `install` / `uninstall` on temp homes, for every client: a fresh file, a
 * file with other servers and comments (kept byte for byte), a second run
 * that changes nothing, `--dry-run`, a malformed file, uninstall, the
 * refusal of foreign entries, asking, and the permission check.
 */

import assert from "assert";
import { parse as parseToml } from "smol-toml";
import { parse as parseJsonc } from "jsonc-parser";
import { type InstallIo, realFs, runInstall } from "../../src/install/run.ts";
import { RELAY_V8_FLAGS, type Source } from "../../src/install/launch.ts";
import { type ClientId, MARKER } from "../../src/install/clients.ts";
import type { FsView } from "../../src/connect/process/codex_binary.ts";
import { simFs } from "../../testing/sim_fs.ts";

const SOURCE: Source = { kind: "checkout", root: "/opt/codex-relay" };
const DENO = "/usr/bin/deno";
const MARKED = { [MARKER.name]: MARKER.value };

interface Sandbox {
  home: string;
  project: string;
  io: InstallIo;
  out(): string;
  err(): string;
  asked(): number;
  dispose(): Promise<void>;
}

async function sandbox(
  options: {
    tty?: boolean;
    answer?: boolean;
    granted?: boolean;
    vars?: Record<string, string>;
    /** What the Codex lookup sees (default: nothing at all). */
    look?: FsView;
  } = {},
): Promise<Sandbox> {
  const home = await Deno.makeTempDir({ prefix: "codex-relay-home-" });
  const project = `${home}/project`;
  await Deno.mkdir(project);
  let out = "";
  let err = "";
  let asked = 0;
  const vars: Record<string, string> = {
    HOME: home,
    CODEX_HOME: `${home}/.codex`,
    ...options.vars,
  };
  return {
    home,
    project,
    io: {
      out: (t) => void (out += t),
      err: (t) => void (err += t),
      env: (name) => vars[name],
      os: "linux",
      arch: "x86_64",
      look: options.look ?? simFs({}),
      cwd: project,
      deno: DENO,
      stdinIsTerminal: options.tty ?? false,
      confirm: () => {
        asked++;
        return options.answer ?? false;
      },
      granted: () => options.granted ?? true,
      fs: realFs,
    },
    out: () => out,
    err: () => err,
    asked: () => asked,
    dispose: () => Deno.remove(home, { recursive: true }),
  };
}

interface ClientCase {
  client: ClientId;
  /** The user-scope file below the home. */
  file: string;
  /** The project-scope file below the project, if the client has one. */
  projectFile?: string;
  /** An existing config with another server and comments. */
  existing: string;
  /** Reads the relay's entry from a file's text. */
  entry(text: string): unknown;
  /** The entry install writes (from a checkout, no serve flags). */
  expected: Record<string, unknown>;
}

const ARGS = [
  "run",
  "-P",
  "--no-prompt",
  "--quiet",
  RELAY_V8_FLAGS,
  "--config",
  "/opt/codex-relay/deno.json",
  "/opt/codex-relay/mod.ts",
  "serve",
];
const json = (container: string) => (text: string) =>
  (parseJsonc(text) as Record<string, Record<string, unknown>>)[container]?.["codex-relay"];

const CASES: ClientCase[] = [
  {
    client: "claude-code",
    file: ".claude.json",
    projectFile: ".mcp.json",
    existing: `{
  "numStartups": 12,
  // other servers below
  "mcpServers": {
    "other": { "type": "stdio", "command": "other-server", "args": ["--x"] } // keep me
  },
  "projects": { "/p": { "allowedTools": [] } }
}
`,
    entry: json("mcpServers"),
    expected: { type: "stdio", command: DENO, args: ARGS, env: MARKED },
  },
  {
    client: "claude-desktop",
    file: ".config/Claude/claude_desktop_config.json",
    existing: `{
  // Claude Desktop
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    }
  },
  "globalShortcut": "Ctrl+Space"
}
`,
    entry: json("mcpServers"),
    expected: { command: DENO, args: ARGS, env: MARKED },
  },
  {
    client: "cursor",
    file: ".cursor/mcp.json",
    projectFile: ".cursor/mcp.json",
    existing: `{
  "mcpServers": {
    /* docs */ "docs": { "url": "https://example.invalid/mcp" },
  },
}
`,
    entry: json("mcpServers"),
    expected: { command: DENO, args: ARGS, env: MARKED },
  },
  {
    client: "vscode",
    file: ".config/Code/User/mcp.json",
    projectFile: ".vscode/mcp.json",
    existing: `{
\t// VS Code MCP servers
\t"servers": {
\t\t"memory": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"] }
\t},
\t"inputs": []
}
`,
    entry: json("servers"),
    expected: { type: "stdio", command: DENO, args: ARGS, env: MARKED },
  },
  {
    client: "codex",
    file: ".codex/config.toml",
    projectFile: ".codex/config.toml",
    existing: `model = "gpt-5.1" # my model

[mcp_servers.docs]
command = "docs-server"
args = ["--port", "4000"]

# profiles
[profiles.fast]
model = "o4-mini"
`,
    entry: (text) =>
      (parseToml(text) as { mcp_servers?: Record<string, unknown> }).mcp_servers?.["codex-relay"],
    expected: {
      command: DENO,
      args: ARGS,
      env: MARKED,
      env_vars: ["CODEX_HOME", "OPENAI_API_KEY", "CODEX_API_KEY", "DENO_DIR", "XDG_CACHE_HOME"],
    },
  },
];

const dirOf = (path: string) => path.replace(/\/[^/]*$/, "");

async function writeConfig(path: string, text: string): Promise<void> {
  await Deno.mkdir(dirOf(path), { recursive: true });
  await Deno.writeTextFile(path, text);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** `after` is `before` with one contiguous stretch inserted (nothing else changed). */
function isPureInsertion(before: string, after: string): boolean {
  let p = 0;
  while (p < before.length && before[p] === after[p]) p++;
  return after.length > before.length && after.endsWith(before.slice(p));
}

const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

for (const c of CASES) {
  Deno.test(`install ${c.client}: a fresh file gets the entry, no backup`, async () => {
    const s = await sandbox();
    try {
      const path = `${s.home}/${c.file}`;
      await Deno.mkdir(dirOf(path), { recursive: true });
      assert.equal(await runInstall(["--client", c.client, "--yes"], SOURCE, s.io), 0, s.err());
      const text = await Deno.readTextFile(path);
      assert.deepEqual(plain(c.entry(text)), c.expected);
      assert.ok(!(await exists(`${path}.codex-relay.bak`)), "nothing to back up");
      assert.ok(!(await exists(`${path}.codex-relay.tmp`)), "no temp file left");
      assert.match(s.out(), /will create/);
    } finally {
      await s.dispose();
    }
  });

  Deno.test(`install ${c.client}: other servers and comments stay byte for byte; backup; uninstall restores`, async () => {
    const s = await sandbox();
    try {
      const path = `${s.home}/${c.file}`;
      await writeConfig(path, c.existing);
      assert.equal(await runInstall(["install", "--client", c.client, "-y"], SOURCE, s.io), 0);
      const after = await Deno.readTextFile(path);
      assert.ok(isPureInsertion(c.existing, after), `only the entry is added:\n${after}`);
      assert.deepEqual(plain(c.entry(after)), c.expected);
      assert.equal(await Deno.readTextFile(`${path}.codex-relay.bak`), c.existing);
      assert.match(s.out(), /^\+.*codex-relay/m, "the diff shows the added entry");

      assert.equal(await runInstall(["uninstall", "--client", c.client, "-y"], SOURCE, s.io), 0);
      assert.equal(await Deno.readTextFile(path), c.existing, "uninstall restores every byte");
      assert.equal(await exists(`${path}.codex-relay.bak`), false, "uninstall keeps no backup");
    } finally {
      await s.dispose();
    }
  });

  Deno.test(`install ${c.client}: a second run changes nothing and writes nothing`, async () => {
    const s = await sandbox();
    try {
      const path = `${s.home}/${c.file}`;
      await writeConfig(path, c.existing);
      assert.equal(await runInstall(["--client", c.client, "-y"], SOURCE, s.io), 0);
      const first = await Deno.readTextFile(path);
      await Deno.remove(`${path}.codex-relay.bak`);
      const mtime = (await Deno.stat(path)).mtime;
      assert.equal(await runInstall(["--client", c.client], SOURCE, s.io), 0, "no --yes needed");
      assert.equal(await Deno.readTextFile(path), first);
      assert.deepEqual((await Deno.stat(path)).mtime, mtime);
      assert.ok(!(await exists(`${path}.codex-relay.bak`)), "no write, no backup");
      assert.match(s.out(), /already has this "codex-relay" entry; nothing to do/);
    } finally {
      await s.dispose();
    }
  });

  Deno.test(`install ${c.client}: --dry-run shows the diff and writes nothing`, async () => {
    const s = await sandbox();
    try {
      const path = `${s.home}/${c.file}`;
      await writeConfig(path, c.existing);
      assert.equal(await runInstall(["--client", c.client, "--dry-run"], SOURCE, s.io), 0);
      assert.equal(await Deno.readTextFile(path), c.existing);
      assert.ok(!(await exists(`${path}.codex-relay.bak`)));
      assert.match(s.out(), /^\+\+\+ /m);
      assert.match(s.out(), /Dry run: nothing was written/);
      assert.equal(s.asked(), 0);
    } finally {
      await s.dispose();
    }
  });

  Deno.test(`install ${c.client}: a malformed file is a clear error (65), nothing written`, async () => {
    const s = await sandbox();
    try {
      const path = `${s.home}/${c.file}`;
      const broken = c.existing.replace(/\n\}?\s*$/, "\n").replace(
        "[profiles.fast]",
        "[profiles.fast",
      );
      await writeConfig(path, broken);
      assert.equal(await runInstall(["--client", c.client, "-y"], SOURCE, s.io), 65);
      assert.match(
        s.err(),
        /is not valid (JSON|TOML) \(.* at line \d+, column \d+\).*Nothing was written/,
      );
      assert.equal(await Deno.readTextFile(path), broken);
      assert.ok(!(await exists(`${path}.codex-relay.bak`)));
      assert.ok(!(await exists(`${path}.codex-relay.tmp`)));
    } finally {
      await s.dispose();
    }
  });

  Deno.test(`uninstall ${c.client}: with no entry or no file it does nothing`, async () => {
    const s = await sandbox();
    try {
      const path = `${s.home}/${c.file}`;
      assert.equal(await runInstall(["uninstall", "--client", c.client, "-y"], SOURCE, s.io), 0);
      assert.ok(!(await exists(path)), "no file is created");
      await writeConfig(path, c.existing);
      assert.equal(await runInstall(["uninstall", "--client", c.client, "-y"], SOURCE, s.io), 0);
      assert.equal(await Deno.readTextFile(path), c.existing);
      assert.ok(!(await exists(`${path}.codex-relay.bak`)));
      assert.match(s.out(), /no "codex-relay" entry .*nothing to do/);
    } finally {
      await s.dispose();
    }
  });

  if (c.projectFile) {
    Deno.test(`install ${c.client} --scope project: writes the project's file`, async () => {
      const s = await sandbox();
      try {
        const path = `${s.project}/${c.projectFile}`;
        await Deno.mkdir(dirOf(path), { recursive: true });
        const args = ["--client", c.client, "--scope", "project", "--allow-reply-read", "-y"];
        assert.equal(await runInstall(args, SOURCE, s.io), 0, s.err());
        const expected = { ...c.expected, args: [...ARGS, "--allow-reply-read"] };
        assert.deepEqual(plain(c.entry(await Deno.readTextFile(path))), expected);
        assert.ok(!(await exists(`${s.home}/${c.file}`)), "the user file is untouched");
      } finally {
        await s.dispose();
      }
    });
  }
}

Deno.test("install refuses to replace an entry it did not write; --force replaces it with a backup", async () => {
  for (const c of [CASES[0], CASES[4]]) {
    const s = await sandbox();
    try {
      const path = `${s.home}/${c.file}`;
      const foreign = c.client === "codex"
        ? `[mcp_servers.codex-relay]\ncommand = "my-own-relay"\n`
        : `{\n  "mcpServers": {\n    "codex-relay": { "command": "my-own-relay" }\n  }\n}\n`;
      await writeConfig(path, foreign);
      assert.equal(await runInstall(["--client", c.client, "-y"], SOURCE, s.io), 1);
      assert.match(s.err(), /did not write; run again with --force/);
      assert.equal(await Deno.readTextFile(path), foreign);
      assert.equal(await runInstall(["uninstall", "--client", c.client, "-y"], SOURCE, s.io), 1);
      assert.equal(await Deno.readTextFile(path), foreign);

      assert.equal(await runInstall(["--client", c.client, "-y", "--force"], SOURCE, s.io), 0);
      assert.deepEqual(plain(c.entry(await Deno.readTextFile(path))), c.expected);
      assert.equal(await Deno.readTextFile(`${path}.codex-relay.bak`), foreign);
    } finally {
      await s.dispose();
    }
  }
});

Deno.test("install replaces its own entry when the flags change (shows the diff)", async () => {
  const s = await sandbox();
  try {
    const c = CASES[2];
    const path = `${s.home}/${c.file}`;
    await writeConfig(path, c.existing);
    assert.equal(await runInstall(["--client", "cursor", "-y"], SOURCE, s.io), 0);
    const args = ["--client", "cursor", "--allow-reply-read", "--allow-turn-start", "-y"];
    assert.equal(await runInstall(args, SOURCE, s.io), 0);
    assert.match(s.out(), /will replace the "codex-relay" entry/);
    assert.match(s.out(), /^\+\s+"--allow-turn-start"/m);
    const entry = plain(c.entry(await Deno.readTextFile(path))) as { args: string[] };
    assert.deepEqual(entry.args.slice(-3), ["serve", "--allow-reply-read", "--allow-turn-start"]);
    assert.equal(await runInstall(["uninstall", "--client", "cursor", "-y"], SOURCE, s.io), 0);
    assert.equal(await Deno.readTextFile(path), c.existing);
  } finally {
    await s.dispose();
  }
});

Deno.test("without --yes: a non-terminal stdin is refused, a terminal is asked first", async () => {
  const c = CASES[3];
  const refused = await sandbox({ tty: false });
  try {
    const path = `${refused.home}/${c.file}`;
    await writeConfig(path, c.existing);
    assert.equal(await runInstall(["--client", c.client], SOURCE, refused.io), 1);
    assert.match(refused.err(), /stdin is not a terminal.*--yes/);
    assert.equal(await Deno.readTextFile(path), c.existing);
  } finally {
    await refused.dispose();
  }
  for (const answer of [false, true]) {
    const s = await sandbox({ tty: true, answer });
    try {
      const path = `${s.home}/${c.file}`;
      await writeConfig(path, c.existing);
      assert.equal(await runInstall(["--client", c.client], SOURCE, s.io), answer ? 0 : 1);
      assert.equal(s.asked(), 1);
      assert.equal((await Deno.readTextFile(path)) === c.existing, !answer);
    } finally {
      await s.dispose();
    }
  }
});

Deno.test("a missing client folder: the dry run says it will create it, install creates it", async () => {
  const folders: [string[], string, string][] = [
    [["--client", "cursor"], ".cursor", "mcp.json"],
    [["--client", "cursor", "--scope", "project"], "project/.cursor", "mcp.json"],
    [["--client", "vscode"], ".config/Code/User", "mcp.json"],
    [["--client", "vscode", "--scope", "project"], "project/.vscode", "mcp.json"],
    [["--client", "claude-desktop"], ".config/Claude", "claude_desktop_config.json"],
    [["--client", "codex", "--scope", "project"], "project/.codex", "config.toml"],
  ];
  for (const [args, folder, file] of folders) {
    const s = await sandbox({ tty: true, answer: true });
    try {
      const dir = `${s.home}/${folder}`;
      assert.equal(await runInstall([...args, "--dry-run"], SOURCE, s.io), 0, s.err());
      assert.ok(s.out().includes(`will create the folder ${dir} (as `), s.out());
      assert.match(s.out(), /Dry run: nothing was written/);
      assert.ok(!(await exists(dir)), "a dry run creates nothing");
      assert.equal(s.asked(), 0);

      assert.equal(await runInstall(args, SOURCE, s.io), 0, s.err());
      assert.equal(s.asked(), 1, "asked once, before creating anything");
      assert.ok(s.out().includes(`Created ${dir}. Wrote ${dir}/`), s.out());
      assert.ok((await Deno.readTextFile(`${dir}/${file}`)).includes("codex-relay"));
    } finally {
      await s.dispose();
    }
  }
});

Deno.test("a missing client folder: answering no creates nothing", async () => {
  const s = await sandbox({ tty: true, answer: false });
  try {
    assert.equal(await runInstall(["--client", "cursor"], SOURCE, s.io), 1);
    assert.equal(s.asked(), 1);
    assert.ok(!(await exists(`${s.home}/.cursor`)));
  } finally {
    await s.dispose();
  }
});

Deno.test("a folder the user chose (CODEX_HOME) is not created: clear error with the fix", async () => {
  const s = await sandbox({ vars: {} });
  try {
    // CODEX_HOME points at a folder that does not exist; Codex itself would refuse it.
    assert.equal(await runInstall(["--client", "codex", "-y"], SOURCE, s.io), 74);
    assert.match(s.err(), /The folder .*\/\.codex \(CODEX_HOME names it\) does not exist.*mkdir/);
    assert.equal(s.out(), "", "said before any diff");
    assert.equal(await runInstall(["--client", "codex", "--dry-run"], SOURCE, s.io), 74);
    assert.equal(s.out(), "", "a dry run says it too, and shows no diff");
    assert.ok(!(await exists(`${s.home}/.codex`)));
  } finally {
    await s.dispose();
  }
});

Deno.test("without read/write permission on the file: exit 77 and the exact command, nothing read", async () => {
  const s = await sandbox({ granted: false });
  try {
    const path = `${s.home}/.codex/config.toml`;
    await writeConfig(path, "model = 1\n");
    assert.equal(await runInstall(["--client", "codex", "--allow-reply-read"], SOURCE, s.io), 77);
    const expected =
      `deno run --no-prompt --quiet -P=install --config /opt/codex-relay/deno.json --allow-read=${path},${path}.codex-relay.tmp,${path}.codex-relay.bak --allow-write=${s.home}/.codex /opt/codex-relay/install.ts install --client codex --allow-reply-read`;
    assert.ok(s.err().includes(expected), s.err());
    assert.equal(s.out(), "");
  } finally {
    await s.dispose();
  }
});

Deno.test("--print (the relay's own install) prints the entry and the command, reads nothing", async () => {
  const s = await sandbox({ granted: false });
  try {
    assert.equal(
      await runInstall(["--client", "claude-desktop"], SOURCE, s.io, { printOnly: true }),
      0,
    );
    const out = s.out();
    assert.match(out, /"mcpServers": \{\n\s+"codex-relay": \{\n\s+"command": "\/usr\/bin\/deno"/);
    assert.ok(out.includes(`--allow-read=${s.home}/.config/Claude/claude_desktop_config.json,`));
    assert.ok(out.includes("/opt/codex-relay/install.ts install --client claude-desktop"));
    assert.ok(!(await exists(`${s.home}/.config`)));
    const codex = await sandbox({ granted: false });
    try {
      assert.equal(
        await runInstall(["--client", "codex"], SOURCE, codex.io, { printOnly: true }),
        0,
      );
      assert.match(codex.out(), /^\[mcp_servers\.codex-relay\]\ncommand = "\/usr\/bin\/deno"\n/m);
      assert.match(codex.out(), /^env_vars = \["CODEX_HOME", "OPENAI_API_KEY", /m);
      assert.ok(!codex.out().includes("codex mcp add"), "codex mcp add cannot write env_vars");
    } finally {
      await codex.dispose();
    }
  } finally {
    await s.dispose();
  }
});

Deno.test("--binary registers a downloaded binary as the command", async () => {
  const s = await sandbox();
  try {
    await Deno.mkdir(`${s.home}/.cursor`);
    const args = ["--client", "cursor", "--binary", "/usr/local/bin/codex-relay", "-y"];
    assert.equal(await runInstall(args, SOURCE, s.io), 0);
    const entry = plain(CASES[2].entry(await Deno.readTextFile(`${s.home}/.cursor/mcp.json`)));
    assert.deepEqual(entry, {
      command: "/usr/local/bin/codex-relay",
      args: ["serve"],
      env: MARKED,
    });
  } finally {
    await s.dispose();
  }
});

Deno.test("install keeps the file's mode, and a symlinked config stays a link to the same file", async () => {
  const s = await sandbox();
  const dotfiles = await Deno.makeTempDir({ prefix: "codex-relay-dotfiles-" });
  try {
    const c = CASES[2];
    const real = `${dotfiles}/mcp.json`;
    await Deno.writeTextFile(real, c.existing, { mode: 0o600 });
    await Deno.chmod(real, 0o600);
    await Deno.mkdir(`${s.home}/.cursor`);
    const link = `${s.home}/.cursor/mcp.json`;
    await Deno.symlink(real, link);
    assert.equal(await runInstall(["--client", "cursor", "-y"], SOURCE, s.io), 0, s.err());
    assert.ok((await Deno.lstat(link)).isSymlink, "still a link");
    assert.deepEqual(plain(c.entry(await Deno.readTextFile(real))), c.expected);
    assert.equal((await Deno.stat(real)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(`${link}.codex-relay.bak`)).mode! & 0o777, 0o600);
    assert.equal(await Deno.readTextFile(`${link}.codex-relay.bak`), c.existing);

    const plainFile = `${s.home}/.codex/config.toml`;
    await writeConfig(plainFile, CASES[4].existing);
    await Deno.chmod(plainFile, 0o640);
    assert.equal(await runInstall(["--client", "codex", "-y"], SOURCE, s.io), 0, s.err());
    assert.equal((await Deno.stat(plainFile)).mode! & 0o777, 0o640);
  } finally {
    await s.dispose();
    await Deno.remove(dotfiles, { recursive: true });
  }
});

Deno.test("uninstall deletes a file install created, and leaves no empty server list it added", async () => {
  for (const c of CASES) {
    const s = await sandbox();
    try {
      const path = `${s.home}/${c.file}`;
      await Deno.mkdir(dirOf(path), { recursive: true });
      assert.equal(await runInstall(["--client", c.client, "-y"], SOURCE, s.io), 0, s.err());
      assert.equal(await runInstall(["uninstall", "--client", c.client, "-y"], SOURCE, s.io), 0);
      assert.match(s.out(), /Deleted .*: codex-relay install had created it/);
      assert.ok(!(await exists(path)), `${c.client}: the file install created is gone`);
      // The client's folder, when left empty, goes too (issue 47).
      const left = await exists(dirOf(path))
        ? [...Deno.readDirSync(dirOf(path))].map((e) => e.name).filter((n) => n !== "project")
        : [];
      assert.deepEqual(left, [], "no backup or temp file left");
    } finally {
      await s.dispose();
    }
  }
  // A file of the user's without a server list: install adds one, uninstall takes it away.
  const s = await sandbox();
  try {
    const path = `${s.home}/.claude.json`;
    const mine = `{\n  "numStartups": 3,\n  "theme": "dark"\n}\n`;
    await Deno.writeTextFile(path, mine);
    assert.equal(await runInstall(["--client", "claude-code", "-y"], SOURCE, s.io), 0);
    assert.match(await Deno.readTextFile(path), /"mcpServers"/);
    assert.equal(await runInstall(["uninstall", "--client", "claude-code", "-y"], SOURCE, s.io), 0);
    assert.equal(await Deno.readTextFile(path), mine, 'byte for byte, no "mcpServers": {}');
    // On one line too (issue 38), and after installing twice (the backup then holds the entry).
    const line = `{"numStartups": 1}\n`;
    await Deno.writeTextFile(path, line);
    assert.equal(await runInstall(["--client", "claude-code", "-y"], SOURCE, s.io), 0);
    assert.equal(await runInstall(["uninstall", "--client", "claude-code", "-y"], SOURCE, s.io), 0);
    assert.equal(await Deno.readTextFile(path), line, "byte for byte, from the backup");
    await runInstall(["--client", "claude-code", "-y"], SOURCE, s.io);
    await runInstall(["--client", "claude-code", "-y", "--allow-reply-read"], SOURCE, s.io);
    assert.equal(await runInstall(["uninstall", "--client", "claude-code", "-y"], SOURCE, s.io), 0);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(path)), { numStartups: 1 });
    // A server list the user wrote stays, even when empty.
    const own = `{\n  "mcpServers": {}\n}\n`;
    await Deno.writeTextFile(path, own);
    assert.equal(await runInstall(["--client", "claude-code", "-y"], SOURCE, s.io), 0);
    assert.equal(await runInstall(["uninstall", "--client", "claude-code", "-y"], SOURCE, s.io), 0);
    assert.equal(await Deno.readTextFile(path), own);
  } finally {
    await s.dispose();
  }
});

Deno.test("GUI clients' entries carry the install's PATH; every Deno entry its Deno cache", async () => {
  const vars = { PATH: "/opt/node/bin:/usr/bin:/bin", DENO_DIR: "/var/cache/deno" };
  for (const c of CASES) {
    const s = await sandbox({ vars });
    try {
      const path = `${s.home}/${c.file}`;
      await writeConfig(path, c.existing);
      assert.equal(await runInstall(["--client", c.client, "-y"], SOURCE, s.io), 0, s.err());
      const entry = plain(c.entry(await Deno.readTextFile(path))) as { env: unknown };
      const gui = ["claude-desktop", "cursor", "vscode"].includes(c.client);
      assert.deepEqual(entry.env, {
        ...MARKED,
        ...(gui ? { PATH: vars.PATH } : {}),
        DENO_DIR: "/var/cache/deno",
      }, c.client);
    } finally {
      await s.dispose();
    }
  }
  const s = await sandbox({ vars });
  try {
    await Deno.mkdir(`${s.home}/.cursor`);
    const args = ["--client", "cursor", "--binary", "/usr/local/bin/codex-relay", "-y"];
    assert.equal(await runInstall(args, SOURCE, s.io), 0);
    const entry = plain(CASES[2].entry(await Deno.readTextFile(`${s.home}/.cursor/mcp.json`)));
    assert.deepEqual(entry.env, { ...MARKED, PATH: vars.PATH }, "a binary needs no Deno cache");
  } finally {
    await s.dispose();
  }
});

Deno.test("the relay's own install passes --dry-run, --yes and --force on, and says a dry run writes nothing", async () => {
  const s = await sandbox({ granted: false });
  try {
    const args = ["--client", "cursor", "--allow-reply-read", "--force"];
    assert.equal(await runInstall(args, SOURCE, s.io, { printOnly: true }), 0);
    const real = s.out();
    assert.ok(
      real.includes(
        "/opt/codex-relay/install.ts install --client cursor --allow-reply-read --force\n",
      ),
      real,
    );
    assert.ok(real.includes(`--allow-write=${s.home}/.cursor `), "covers creating ~/.cursor");
    assert.doesNotMatch(real, /Dry run/);

    const dry = await sandbox({ granted: false });
    try {
      assert.equal(
        await runInstall([...args, "--dry-run", "--yes"], SOURCE, dry.io, { printOnly: true }),
        0,
      );
      assert.match(
        dry.out(),
        /^Dry run: nothing was written, and the command below writes nothing/,
      );
      assert.ok(dry.out().includes("--allow-reply-read --force --dry-run --yes\n"), dry.out());
      assert.notEqual(dry.out(), real);
    } finally {
      await dry.dispose();
    }
  } finally {
    await s.dispose();
  }
});

Deno.test("uninstall's errors name uninstall, install's name install", async () => {
  const s = await sandbox({ granted: true });
  try {
    assert.equal(await runInstall(["uninstall", "--client", "nope"], SOURCE, s.io), 64);
    assert.match(s.err(), /^codex-relay uninstall: Unknown client 'nope'/);
    assert.ok(!s.err().includes("codex-relay install:"), s.err());
  } finally {
    await s.dispose();
  }
  const t = await sandbox({ granted: true });
  try {
    assert.equal(await runInstall(["--client", "nope"], SOURCE, t.io), 64);
    assert.match(t.err(), /^codex-relay install: Unknown client 'nope'/);
  } finally {
    await t.dispose();
  }
});

/** npm's global install of Codex under /usr (the symlink /usr/bin/codex, the x64 platform package). */
const NATIVE =
  "/usr/lib/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";
const NPM_USR = simFs({
  "/usr/bin/codex": { link: "../lib/node_modules/@openai/codex/bin/codex.js" },
  "/usr/lib/node_modules/@openai/codex/bin/codex.js": "#!/usr/bin/env node\n",
  "/usr/lib/node_modules/@openai/codex-linux-x64/package.json": "{}",
  [NATIVE]: "",
});

Deno.test("install registers npm's native Codex: serve --codex and a run permission naming only it", async () => {
  const s = await sandbox({ vars: { PATH: "/usr/local/bin:/usr/bin" }, look: NPM_USR });
  try {
    await Deno.mkdir(`${s.home}/.cursor`);
    assert.equal(await runInstall(["--client", "cursor", "-y"], SOURCE, s.io), 0, s.err());
    const entry = plain(CASES[2].entry(await Deno.readTextFile(`${s.home}/.cursor/mcp.json`)));
    const { args } = entry as { args: string[] };
    // -P's run grant (codex on PATH) is replaced by the one binary, beside the group kill.
    assert.deepEqual(args.slice(0, 3), ["run", "-P", `--allow-run=${NATIVE},/bin/kill`]);
    assert.deepEqual(args.slice(-3), ["serve", "--codex", NATIVE]);
    assert.match(s.out(), /Codex: the entry runs .*npm's wrapper \/usr\/bin\/codex \(on PATH\)/);
  } finally {
    await s.dispose();
  }
});

Deno.test("the relay's own install (may read nothing) prints codex on PATH, and an apply command that may look", async () => {
  const vars = { PATH: "/usr/local/bin:/usr/bin" };
  const s = await sandbox({
    granted: false,
    vars,
    look: simFs({}, { unreadable: ["/"] }),
  });
  try {
    assert.equal(
      await runInstall(["--client", "cursor"], SOURCE, s.io, { printOnly: true }),
      0,
    );
    const out = s.out();
    assert.ok(!out.includes("--codex"), out);
    assert.match(out, /not looked for here, .*the apply command .* looks for npm's native binary/);
    assert.ok(
      out.includes(
        `/mcp.json.codex-relay.bak,${s.home}/.codex/config.toml,/usr/local/bin,/usr/local/lib/node_modules,/usr/bin,/usr/lib/node_modules --allow-write=`,
      ),
      out,
    );
  } finally {
    await s.dispose();
  }
});

Deno.test("install --codex: a native binary as named, npm's wrapper followed, a missing file refused", async () => {
  const look = simFs({
    "/home/u/codex/target/release/codex": "",
    "/usr/bin/codex": { link: "../lib/node_modules/@openai/codex/bin/codex.js" },
    "/usr/lib/node_modules/@openai/codex/bin/codex.js": "#!/usr/bin/env node\n",
    "/usr/lib/node_modules/@openai/codex-linux-x64/package.json": "{}",
    [NATIVE]: "",
  });
  for (
    const [chosen, runs] of [
      ["/home/u/codex/target/release/codex", "/home/u/codex/target/release/codex"],
      ["/usr/bin/codex", NATIVE],
    ]
  ) {
    const s = await sandbox({ vars: { PATH: "/usr/bin" }, look });
    try {
      await Deno.mkdir(`${s.home}/.cursor`);
      const argv = ["--client", "cursor", "--codex", chosen, "-y"];
      assert.equal(await runInstall(argv, SOURCE, s.io), 0, s.err());
      const entry = plain(CASES[2].entry(await Deno.readTextFile(`${s.home}/.cursor/mcp.json`)));
      const { args } = entry as { args: string[] };
      assert.deepEqual(args.slice(-3), ["serve", "--codex", runs]);
      assert.equal(args[2], `--allow-run=${runs},/bin/kill`);
    } finally {
      await s.dispose();
    }
  }
  const s = await sandbox({ look });
  try {
    const argv = ["--client", "cursor", "--codex", "/nowhere/codex", "-y"];
    assert.equal(await runInstall(argv, SOURCE, s.io), 64);
    assert.match(s.err(), /--codex \/nowhere\/codex: \/nowhere\/codex does not exist/);
    const compiled = ["--client", "cursor", "--binary", "/usr/local/bin/codex-relay"];
    assert.equal(await runInstall([...compiled, "--codex", "/usr/bin/codex"], SOURCE, s.io), 64);
    assert.match(s.err(), /--codex cannot be used with a compiled codex-relay/);
  } finally {
    await s.dispose();
  }
});

Deno.test("a codex on PATH that is not npm's wrapper stays codex on PATH (Deno's lookup at start-up)", async () => {
  const look = simFs({
    "/opt/homebrew/bin/codex": { link: "../Caskroom/codex/x/codex-bin" },
    "/opt/homebrew/Caskroom/codex/x/codex-bin": "\x7fELF",
  });
  const s = await sandbox({ vars: { PATH: "/opt/homebrew/bin" }, look });
  try {
    await Deno.mkdir(`${s.home}/.cursor`);
    assert.equal(await runInstall(["--client", "cursor", "-y"], SOURCE, s.io), 0, s.err());
    const entry = plain(CASES[2].entry(await Deno.readTextFile(`${s.home}/.cursor/mcp.json`)));
    assert.deepEqual((entry as { args: string[] }).args, ARGS);
    assert.match(
      s.out(),
      /runs codex as found on PATH when it starts \(now \/opt\/homebrew\/bin\/codex, not npm's wrapper\)/,
    );
  } finally {
    await s.dispose();
  }
});

Deno.test("install codex: the entry passes on the configured providers' key variables (env_vars), and a second run changes nothing", async () => {
  const s = await sandbox();
  try {
    const path = `${s.home}/.codex/config.toml`;
    await writeConfig(
      path,
      'model_provider = "azure"\n\n[model_providers.azure]\nenv_key = "AZURE_OPENAI_API_KEY"\n\n[model_providers.local]\nbase_url = "http://localhost:1"\n\n[model_providers.other]\nenv_key = "OTHER_KEY"\n',
    );
    assert.equal(await runInstall(["--client", "codex", "--yes"], SOURCE, s.io), 0, s.err());
    const entry = (parseToml(await Deno.readTextFile(path)) as {
      mcp_servers: Record<string, { env_vars: string[] }>;
    }).mcp_servers["codex-relay"];
    assert.deepEqual(entry.env_vars, [
      "CODEX_HOME",
      "OPENAI_API_KEY",
      "CODEX_API_KEY",
      "DENO_DIR",
      "XDG_CACHE_HOME",
      "AZURE_OPENAI_API_KEY",
      "OTHER_KEY",
    ]);
    assert.equal(await runInstall(["--client", "codex", "--yes"], SOURCE, s.io), 0, s.err());
    assert.match(s.out(), /already has this "codex-relay" entry; nothing to do/);
  } finally {
    await s.dispose();
  }
});

const AZURE_CONFIG =
  'model_provider = "azure"\n\n[model_providers.azure]\nenv_key = "AZURE_OPENAI_API_KEY"\n';

Deno.test("install for the other clients: each entry hands on the providers' key variables as its client allows, never a value", async () => {
  const secret = "sk-never-written-1234";
  for (const c of CASES.filter((c) => c.client !== "codex")) {
    const s = await sandbox({ vars: { AZURE_OPENAI_API_KEY: secret } });
    try {
      await writeConfig(`${s.home}/.codex/config.toml`, AZURE_CONFIG);
      const path = `${s.home}/${c.file}`;
      await writeConfig(path, c.existing);
      assert.equal(await runInstall(["--client", c.client, "-y"], SOURCE, s.io), 0, s.err());
      const text = await Deno.readTextFile(path);
      assert.ok(!text.includes(secret) && !s.out().includes(secret), c.client);
      const env = (plain(c.entry(text)) as { env: Record<string, string> }).env;
      const expected = c.client === "cursor" || c.client === "vscode"
        ? "${env:AZURE_OPENAI_API_KEY}"
        : undefined;
      assert.equal(env.AZURE_OPENAI_API_KEY, expected, c.client);
      const said = {
        "claude-code":
          /Claude Code starts codex-relay with its own environment, so AZURE_OPENAI_API_KEY reaches it/,
        "claude-desktop":
          /Claude Desktop starts codex-relay without your shell's environment and takes only literal values.*add "AZURE_OPENAI_API_KEY": "<its value>"/,
        cursor: /passes AZURE_OPENAI_API_KEY from Cursor's environment/,
        vscode: /passes AZURE_OPENAI_API_KEY from VS Code's environment/,
      }[c.client as "cursor"];
      assert.match(s.out(), said, c.client);
      // A value the user put in place of the reference is theirs: kept, never shown.
      if (expected) {
        await Deno.writeTextFile(path, text.replace(expected, "sk-user-own-42"));
        const again = ["--client", c.client, "--allow-reply-read", "-y"];
        assert.equal(await runInstall(again, SOURCE, s.io), 0, s.err());
        const kept = (plain(c.entry(await Deno.readTextFile(path))) as {
          env: Record<string, string>;
        }).env;
        assert.equal(kept.AZURE_OPENAI_API_KEY, "sk-user-own-42", c.client);
        assert.ok(!s.out().includes("sk-user-own-42"), s.out());
      }
      // Without a provider key: the entry install always wrote, and nothing said.
      await Deno.writeTextFile(`${s.home}/.codex/config.toml`, 'model = "o3"\n');
      assert.equal(await runInstall(["--client", c.client, "-y"], SOURCE, s.io), 0, s.err());
      assert.deepEqual(plain(c.entry(await Deno.readTextFile(path))), c.expected, c.client);
    } finally {
      await s.dispose();
    }
  }
});

Deno.test("install for Claude Desktop keeps a key the user set in the entry, and never shows its value", async () => {
  const s = await sandbox();
  try {
    await writeConfig(`${s.home}/.codex/config.toml`, AZURE_CONFIG);
    const path = `${s.home}/.config/Claude/claude_desktop_config.json`;
    assert.equal(await runInstall(["--client", "claude-desktop", "-y"], SOURCE, s.io), 0, s.err());
    // The user adds the key's value by hand, as install told them.
    const secret = "sk-user-set-5678";
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(
      path,
      text.replace(
        `"${MARKER.name}": "1"`,
        `"${MARKER.name}": "1",\n        "AZURE_OPENAI_API_KEY": "${secret}"`,
      ),
    );
    // Installing again with other flags replaces the entry: the key stays, unseen.
    const args = ["--client", "claude-desktop", "--allow-turn-start", "-y"];
    assert.equal(await runInstall(args, SOURCE, s.io), 0, s.err());
    const env = (plain(CASES[1].entry(await Deno.readTextFile(path))) as {
      env: Record<string, string>;
    }).env;
    assert.equal(env.AZURE_OPENAI_API_KEY, secret);
    assert.ok(!s.out().includes(secret), s.out());
    assert.doesNotMatch(s.out().split("--allow-turn-start")[1], /add "AZURE_OPENAI_API_KEY"/);
    // Uninstall's diff, which shows the whole entry, does not show it either.
    const uninstall = ["uninstall", "--client", "claude-desktop", "-y"];
    assert.equal(await runInstall(uninstall, SOURCE, s.io), 0, s.err());
    assert.ok(!s.out().includes(secret), s.out());
    assert.match(s.out(), /-\s+"AZURE_OPENAI_API_KEY": "…"/);
  } finally {
    await s.dispose();
  }
});

Deno.test("--print shows the providers' key references when it may read Codex's config, and says so when it may not", async () => {
  const s = await sandbox();
  try {
    await writeConfig(`${s.home}/.codex/config.toml`, AZURE_CONFIG);
    assert.equal(await runInstall(["--client", "vscode", "--print"], SOURCE, s.io), 0, s.err());
    assert.match(s.out(), /"AZURE_OPENAI_API_KEY": "\$\{env:AZURE_OPENAI_API_KEY\}"/);
    assert.match(s.out(), /passes AZURE_OPENAI_API_KEY from VS Code's environment/);
  } finally {
    await s.dispose();
  }
  const denied = await sandbox({ granted: false });
  try {
    await writeConfig(`${denied.home}/.codex/config.toml`, AZURE_CONFIG);
    const args = ["--client", "cursor"];
    assert.equal(await runInstall(args, SOURCE, denied.io, { printOnly: true }), 0);
    assert.ok(!denied.out().includes("AZURE_OPENAI_API_KEY"), denied.out());
    assert.match(
      denied.out(),
      /Provider keys: \S+\/\.codex\/config\.toml was not read here \(no read permission\); the command below reads it/,
    );
  } finally {
    await denied.dispose();
  }
});

Deno.test("the relay's own install offers no claude mcp add-json line for an entry its apply command would write otherwise (issue 38)", async () => {
  const vars = { PATH: "/usr/local/bin:/usr/bin" };
  const blind = await sandbox({ granted: false, vars, look: simFs({}, { unreadable: ["/"] }) });
  const seeing = await sandbox({ vars });
  try {
    await runInstall(["--client", "claude-code"], SOURCE, blind.io, { printOnly: true });
    assert.doesNotMatch(blind.out(), /^ *claude mcp add-json/m);
    assert.match(blind.out(), /add --print to the command above; it looks for Codex/);
    // Where it may look (the apply command with --print), the line is the entry it writes.
    await runInstall(["--client", "claude-code", "--print"], SOURCE, seeing.io);
    assert.match(seeing.out(), /^ {2}claude mcp add-json --scope user codex-relay /m);
  } finally {
    await blind.dispose();
    await seeing.dispose();
  }
});

Deno.test("install --compat codex-mcp-server writes the entry as codex; an old codex entry needs --force", async () => {
  const s = await sandbox();
  try {
    const path = `${s.home}/.claude.json`;
    const old =
      `{\n  "mcpServers": {\n    "codex": { "command": "codex", "args": ["mcp-server"] }\n  }\n}\n`;
    await writeConfig(path, old);
    const args = ["--client", "claude-code", "--allow-turn-start", "--compat", "codex-mcp-server"];
    assert.equal(await runInstall([...args, "-y"], SOURCE, s.io), 1);
    assert.match(
      s.err(),
      /already has a "codex" entry that codex-relay install did not write; run again with --force .*the old codex mcp-server's/,
    );
    assert.equal(await Deno.readTextFile(path), old, "nothing was written");
    assert.equal(await runInstall([...args, "-y", "--force"], SOURCE, s.io), 0);
    const servers = (parseJsonc(await Deno.readTextFile(path)) as {
      mcpServers: Record<string, { args: string[] }>;
    }).mcpServers;
    assert.deepEqual(Object.keys(servers), ["codex"]);
    assert.deepEqual(servers.codex.args.slice(servers.codex.args.indexOf("serve")), [
      "serve",
      "--allow-turn-start",
      "--compat",
      "codex-mcp-server",
    ]);
    const uninstall = ["uninstall", "--client", "claude-code", "--compat", "codex-mcp-server"];
    assert.equal(await runInstall([...uninstall, "-y"], SOURCE, s.io), 0);
    const left = parseJsonc(await Deno.readTextFile(path)) as { mcpServers?: object };
    assert.ok(!("codex" in (left.mcpServers ?? {})), "uninstall --compat removed the codex entry");
    assert.equal(
      await runInstall(["--client", "cursor", "--compat", "codex-mcp-server"], SOURCE, s.io),
      64,
    );
    assert.match(s.err(), /--compat needs --allow-turn-start/);
  } finally {
    await s.dispose();
  }
});
