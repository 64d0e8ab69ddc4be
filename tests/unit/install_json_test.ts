import assert from "assert";
import { InstallError } from "../../src/install/install_error.ts";
import { readJsonConfig, removeJsonEntry, setJsonEntry } from "../../src/install/json_edit.ts";

const ENTRY = {
  command: "/bin/deno",
  args: ["run", "-P", "serve"],
  env: { CODEX_RELAY_MANAGED: "1" },
};
const C = ["mcpServers"];
const set = (t: string, c = C) => setJsonEntry(t, c, "codex-relay", ENTRY, "f.json");
const remove = (t: string, c = C) => removeJsonEntry(t, c, "codex-relay", "f.json");

/** `after` is `before` with one contiguous stretch of text inserted. */
function isPureInsertion(before: string, after: string): boolean {
  let p = 0;
  while (p < before.length && before[p] === after[p]) p++;
  return after.endsWith(before.slice(p));
}

Deno.test("setJsonEntry() adds the entry first in the servers object, one insertion, comments kept", () => {
  const before = `{
  // my settings, with a comma, here
  "theme": "dark",
  "mcpServers": {
    /* first */ "other": { "command": "x", "args": ["a,b"] }, // trailing, comment
    "second": {}
  }
}
`;
  const after = set(before);
  assert.ok(isPureInsertion(before, after), after);
  assert.deepEqual(readJsonConfig(after, C, "codex-relay", "f.json").entry, ENTRY);
  assert.equal(remove(after), before, "removing the entry restores every byte");
});

Deno.test("setJsonEntry() creates a missing servers object and an empty file", () => {
  for (const before of ["", "   \n", "{}", "{\n}\n", '{\n  "numStartups": 3\n}\n', '{"x":1}']) {
    const after = set(before);
    assert.deepEqual(readJsonConfig(after, C, "codex-relay", "f.json").entry, ENTRY, before);
    const doc = JSON.parse(after);
    assert.equal(
      Object.keys(doc).length,
      Object.keys(before.trim() ? JSON.parse(before) : {}).length + 1,
    );
  }
  assert.ok(set("").endsWith("}\n"), "a new file ends with a newline");
});

Deno.test("setJsonEntry() follows the file's indentation and line endings", () => {
  const tabs = set('{\n\t"mcpServers": {\n\t\t"a": 1\n\t}\n}\n');
  assert.match(tabs, /\n\t\t"codex-relay": \{\n\t\t\t"command"/);
  const crlf = set('{\r\n    "mcpServers": {}\r\n}\r\n');
  assert.ok(!/[^\r]\n/.test(crlf), "only CRLF line ends");
  assert.ok(crlf.includes('\r\n        "codex-relay": {\r\n            "command"'), crlf);
});

Deno.test("setJsonEntry() replaces an existing entry's value in place", () => {
  const before = `{
  "mcpServers": {
    "a": 1, // keep
    "codex-relay": { "command": "old" },
    "z": 2
  }
}
`;
  const after = set(before);
  assert.ok(
    after.startsWith(
      `{\n  "mcpServers": {\n    "a": 1, // keep\n    "codex-relay": {\n      "command": "/bin/deno",`,
    ),
  );
  assert.ok(after.endsWith(`    },\n    "z": 2\n  }\n}\n`));
  assert.deepEqual(JSON.parse(after.replace("// keep", "")).mcpServers.z, 2);
});

Deno.test("removeJsonEntry() removes only the entry's lines and the comma that goes with it", () => {
  const last =
    `{\n  "mcpServers": {\n    "a": 1, // a, note\n    "codex-relay": {"command": "x"}\n  }\n}\n`;
  assert.equal(remove(last), `{\n  "mcpServers": {\n    "a": 1 // a, note\n  }\n}\n`);
  const only = `{\n  "mcpServers": {\n    "codex-relay": {"command": "x"}\n  },\n  "b": true\n}\n`;
  assert.equal(remove(only), `{\n  "mcpServers": {},\n  "b": true\n}\n`);
  const inline = `{"mcpServers":{"a":1,"codex-relay":{"command":"x"}}}`;
  assert.equal(remove(inline), `{"mcpServers":{"a":1}}`);
  const trailing = `{\n  "mcpServers": {\n    "codex-relay": {},\n  },\n}\n`;
  assert.equal(remove(trailing), `{\n  "mcpServers": {},\n}\n`);
  assert.equal(
    remove('{"mcpServers": {"a": 1}}'),
    '{"mcpServers": {"a": 1}}',
    "no entry: unchanged",
  );
});

Deno.test("VS Code's servers object is edited the same way", () => {
  const before =
    `{\n\t// inputs below\n\t"inputs": [],\n\t"servers": {\n\t\t"x": { "type": "stdio", "command": "x" }\n\t}\n}\n`;
  const after = set(before, ["servers"]);
  assert.ok(isPureInsertion(before, after));
  assert.equal(remove(after, ["servers"]), before);
});

Deno.test("a malformed file is refused with where and what, exit 65", () => {
  const cases: [string, RegExp][] = [
    ['{\n  "mcpServers": {\n    "a": 1\n  \n', /not valid JSON \(CloseBraceExpected at line 5/],
    ['{ "a": 1 "b": 2 }', /not valid JSON \(CommaExpected at line 1, column 10\)/],
    ["[1, 2]", /does not hold a JSON object/],
    ['{"mcpServers": []}', /"mcpServers" in f.json is not an object/],
    ['{"mcpServers": "x"}', /is not an object/],
  ];
  for (const [text, message] of cases) {
    assert.throws(
      () => set(text),
      (e: unknown) => e instanceof InstallError && e.code === 65 && message.test(e.message),
      text,
    );
  }
});
