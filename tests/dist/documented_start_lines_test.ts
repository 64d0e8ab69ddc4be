/**
 * Protects: a user who pastes a start line from the docs starts the relay as `install` would.
 *
 * Every start line the README and docs/install.md print is the one command
 * line `startCommand()` builds (`src/install/launch.ts`), which client
 * entries and `install` use too: `--quiet`, the V8 flags and exactly the
 * permission set of deno.json, everywhere.
 */

import assert from "assert";
import denoJson from "../../deno.json" with { type: "json" };
import {
  bundleServeCommand,
  commandLine,
  jsrServeCommand,
  startCommand,
} from "../../src/install/launch.ts";
import { ROOT } from "../../testing/relay.ts";

const readme = await Deno.readTextFile(`${ROOT}/README.md`);
const install = await Deno.readTextFile(`${ROOT}/docs/install.md`);
const docs = { "README.md": readme, "docs/install.md": install };
const NONE = { replyRead: false, turnStart: false };
const PLACEHOLDER = "/path/to/codex-relay";

/** The lines of `text`, trimmed, without a trailing shell comment. */
function lines(text: string): string[] {
  return text.split("\n").map((l) => l.trim().replace(/\s+#\s.*$/, ""));
}

/** Every documented line that starts the relay's server, and the doc it is in. */
function startLines(): [string, string][] {
  const found: [string, string][] = [];
  for (const [name, text] of Object.entries(docs)) {
    for (const line of lines(text)) {
      if (/^(claude mcp add .* -- )?deno run .*\bserve\b/.test(line)) found.push([name, line]);
    }
  }
  return found;
}

Deno.test("every documented start line is the one command line startCommand() builds", () => {
  const expected = new Set([
    // By hand, for a checkout elsewhere.
    `claude mcp add -s user codex-relay -- ${
      commandLine(startCommand({ kind: "checkout", root: PLACEHOLDER }, NONE), "linux")
    }`,
    commandLine(startCommand({ kind: "checkout", root: "." }, NONE), "linux"),
    commandLine(jsrServeCommand(), "linux"),
    commandLine(bundleServeCommand("dist/codex-relay.js"), "linux"),
  ]);
  const found = startLines();
  assert.ok(found.length >= 4, JSON.stringify(found));
  for (const [doc, line] of found) {
    assert.ok(expected.has(line), `${doc} has a start line that is not startCommand()'s:\n${line}`);
  }
  for (const line of expected) {
    assert.ok(found.some(([, l]) => l === line), `the docs show this start line:\n${line}`);
  }
});

Deno.test("deno task start is the same command line, and every start line is quiet and V8-capped", () => {
  assert.equal(
    denoJson.tasks.start,
    commandLine(startCommand({ kind: "checkout", root: "." }, NONE), "linux"),
  );
  for (const [doc, line] of [...startLines(), ["deno.json", denoJson.tasks.start]]) {
    assert.match(line, / --quiet /, `${doc}: ${line}`);
    assert.match(
      line,
      / --v8-flags=--max-old-space-size=\d+,--max-semi-space-size=\d+,--enable-experimental-regexp-engine /,
      line,
    );
    assert.ok(!/ -A | --allow-all/.test(line), line);
  }
});

Deno.test("the JSON entry of docs/install.md carries the same arguments", () => {
  const block = install.match(/```json\n([\s\S]*?)```/)?.[1];
  assert.ok(block, "docs/install.md has a JSON entry");
  const entry = JSON.parse(block).mcpServers["codex-relay"];
  assert.deepEqual(
    [entry.command, ...entry.args],
    startCommand({ kind: "checkout", root: PLACEHOLDER }, NONE),
  );
});

Deno.test("the JSR one-liner pins this version and carries exactly the flags of deno.json", () => {
  assert.match(
    commandLine(jsrServeCommand(), "linux"),
    new RegExp(
      `^deno run --no-prompt --quiet --v8-flags=--max-old-space-size=\\d+,--max-semi-space-size=\\d+,--enable-experimental-regexp-engine --allow-run=codex,/bin/kill --allow-env=\\S+ jsr:@codex-relay/cli@${
        denoJson.version.replaceAll(".", "\\.")
      } serve$`,
    ),
  );
});

Deno.test("the README's first commands are tasks of deno.json, before its first section", () => {
  const first = readme.indexOf("```sh\n");
  assert.ok(
    first !== -1 && first < readme.indexOf("\n## "),
    "a command block before the first section",
  );
  const commands = lines(readme.slice(first + 6).split("```")[0]).filter((l) => l !== "");
  assert.deepEqual(
    commands.map((l) => l.match(/^deno task (\S+)$/)?.[1]).filter((task) =>
      task && task in denoJson.tasks
    ),
    ["start", "test"],
    `the two commands are deno.json tasks: ${commands.join("; ")}`,
  );
});
