/**
 * The README's commands are generated from deno.json, so they cannot drift:
 * the JSR one-liner and the bundle command carry exactly the flags of
 * `permissions.default`.
 */

import assert from "assert";
import { bundleServeCommand, commandLine, jsrServeCommand } from "../../src/install/launch.ts";
import { ROOT } from "../../testing/relay.ts";

const readme = await Deno.readTextFile(`${ROOT}/README.md`);
const lines = readme.split("\n").map((l) => l.trim());

Deno.test("the README's JSR one-liner is the one generated from deno.json", () => {
  const expected = commandLine(jsrServeCommand(), "linux");
  assert.ok(
    lines.includes(expected),
    `README.md must contain this line (generated from deno.json permissions.default):\n${expected}`,
  );
  assert.match(
    expected,
    /^deno run --v8-flags=--max-old-space-size=\d+,--max-semi-space-size=\d+ --allow-run=codex,\/bin\/kill --allow-env=\S+ jsr:@codex-relay\/cli serve$/,
  );
  const stale = lines.filter((l) => l.includes("jsr:@codex-relay/cli serve") && l !== expected);
  assert.deepEqual(stale, [], "no other (stale) form of the one-liner");
});

Deno.test("the README's bundle command is the one generated from deno.json", () => {
  const expected = commandLine(bundleServeCommand("dist/codex-relay.js"), "linux");
  assert.ok(lines.includes(expected), `README.md must contain this line:\n${expected}`);
});

Deno.test("the README opens with one copy-paste per client, then the two newcomer commands", () => {
  const [, first, second] = readme.split("```sh\n");
  assert.ok(readme.indexOf("```sh\n") < readme.indexOf("\n## "), "before the first section");
  const lines = first.split("```")[0].trim().split("\n");
  assert.match(
    lines[0],
    /^claude mcp add -s user codex-relay -- deno run -P .* serve +# Claude Code$/,
  );
  const clients = lines.slice(1).map((l) => l.match(/--client (\S+) /)?.[1]);
  assert.deepEqual(clients, ["codex", "cursor", "vscode", "claude-desktop"]);
  assert.ok(
    second.startsWith(
      "deno task start   # start the MCP server on stdio (= deno run -P --v8-flags=--max-old-space-size=64,--max-semi-space-size=2 mod.ts serve)\ndeno task test    # run the tests\n```\n",
    ),
  );
});
