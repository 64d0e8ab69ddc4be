import assert from "assert";
import { parse } from "smol-toml";
import { InstallError } from "../../src/install/install_error.ts";
import {
  readTomlConfig,
  removeTomlEntry,
  setTomlEntry,
  tomlString,
} from "../../src/install/toml_edit.ts";

const ENTRY = {
  command: "/usr/bin/deno",
  args: ["run", "-P", "--config", "/opt/codex relay/deno.json", "serve"],
  env: { CODEX_RELAY_MANAGED: "1" },
};
const set = (t: string) => setTomlEntry(t, "codex-relay", ENTRY, "config.toml");
const remove = (t: string) => removeTomlEntry(t, "codex-relay", "config.toml");
const entryOf = (t: string) => readTomlConfig(t, "codex-relay", "config.toml").entry;

const CONFIG = `# Codex settings
model = "o3" # the model
approval_policy = "on-request"

[mcp_servers.other]
command = "other-server"
args = [
  "--flag", # a comment with [brackets]
  "]",
]
env = { KEY = "v" }

# a comment that belongs to the next table
[profiles.fast]
model = """
[mcp_servers.codex-relay]
not a header
"""
notes = '''
[mcp_servers.fake]
'''
`;

Deno.test("setTomlEntry() appends one table; every byte of the file stays as it was", () => {
  const after = set(CONFIG);
  assert.ok(after.startsWith(CONFIG), "the file is only appended to");
  assert.equal(
    after.slice(CONFIG.length),
    `\n[mcp_servers.codex-relay]\ncommand = "/usr/bin/deno"\nargs = ["run", "-P", "--config", "/opt/codex relay/deno.json", "serve"]\nenv = { CODEX_RELAY_MANAGED = "1" }\n`,
  );
  assert.deepEqual(entryOf(after), ENTRY);
  assert.equal(remove(after), CONFIG, "removing it restores the file exactly");
});

Deno.test("setTomlEntry() writes a new file and a file without a final newline", () => {
  assert.deepEqual(entryOf(set("")), ENTRY);
  assert.ok(set("").startsWith("[mcp_servers.codex-relay]\n"));
  assert.equal(set('model = "o3"').split("\n")[0], 'model = "o3"');
  assert.match(set('model = "o3"'), /^model = "o3"\n\n\[mcp_servers\.codex-relay\]\n/);
});

Deno.test("setTomlEntry() replaces the entry's table and sub-tables in place", () => {
  const before = `a = 1

[mcp_servers.codex-relay]
command = "old"
args = []
# inside the table
startup_timeout_sec = 20

[mcp_servers.codex-relay.env]
CODEX_RELAY_MANAGED = "1"

# before z
[z]
b = 2
`;
  const after = set(before);
  assert.equal(
    after,
    `a = 1

[mcp_servers.codex-relay]
command = "/usr/bin/deno"
args = ["run", "-P", "--config", "/opt/codex relay/deno.json", "serve"]
env = { CODEX_RELAY_MANAGED = "1" }

# before z
[z]
b = 2
`,
  );
});

Deno.test("setTomlEntry() finds quoted and spaced headers of the entry", () => {
  for (const header of ['[mcp_servers."codex-relay"]', "[ mcp_servers . 'codex-relay' ] # mine"]) {
    const before = `${header}\ncommand = "old"\nenv = { CODEX_RELAY_MANAGED = "1" }\n`;
    const after = set(before);
    assert.equal((after.match(/codex-relay/g) ?? []).length, 1, after);
    assert.deepEqual(entryOf(after), ENTRY);
  }
});

Deno.test("setTomlEntry() keeps CRLF line ends and writes long args over several lines", () => {
  const after = setTomlEntry("a = 1\r\n", "codex-relay", {
    ...ENTRY,
    args: Array(12).fill("--allow-env=SOMETHING"),
  }, "c.toml");
  assert.ok(!/[^\r]\n/.test(after));
  assert.ok(after.includes('args = [\r\n  "--allow-env=SOMETHING",\r\n'), after);
  assert.equal(
    (parse(after) as { mcp_servers: { "codex-relay": { args: string[] } } })
      .mcp_servers["codex-relay"].args.length,
    12,
  );
});

Deno.test("an entry written as an inline table or dotted keys is refused, nothing changed", () => {
  for (
    const before of [
      '[mcp_servers]\ncodex-relay = { command = "x" }\n',
      'mcp_servers.codex-relay.command = "x"\n',
      '[mcp_servers]\ncodex-relay.command = "x"\n',
    ]
  ) {
    assert.throws(
      () => set(before),
      (e: unknown) =>
        e instanceof InstallError && e.code === 1 &&
        /inline table or with dotted keys/.test(e.message),
      before,
    );
  }
});

Deno.test("a servers table the installer cannot extend is refused (the result would not parse)", () => {
  assert.throws(
    () => set('mcp_servers = { other = { command = "x" } }\n'),
    (e: unknown) => e instanceof InstallError && /cannot extend/.test(e.message),
  );
});

Deno.test("a malformed TOML file is refused with where and what, exit 65", () => {
  for (
    const [text, at] of [["a = 1\n[x\nb = 2", /line 2/], ['a = "unterminated\n', /line 1/], [
      "a = 1\na = 2\n",
      /line 2/,
    ]] as const
  ) {
    assert.throws(
      () => set(text),
      (e: unknown) =>
        e instanceof InstallError && e.code === 65 && /is not valid TOML/.test(e.message) &&
        at.test(e.message),
      text,
    );
  }
  assert.throws(
    () => set("mcp_servers = 3\n"),
    (e: unknown) => e instanceof InstallError && /not a table/.test(e.message),
  );
});

Deno.test("removeTomlEntry() leaves a file without the entry as it is", () => {
  assert.equal(remove(CONFIG), CONFIG);
  assert.equal(remove(""), "");
});

Deno.test("tomlString() escapes quotes, backslashes and control characters", () => {
  for (const s of ['C:\\Users\\me "x"', "tab\there", "del\u007f", "ünï"]) {
    assert.equal((parse(`v = ${tomlString(s)}`) as { v: string }).v, s);
  }
});
