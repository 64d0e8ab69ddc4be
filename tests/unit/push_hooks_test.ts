/**
 * Protects: the settings edit of `install --client claude-code --push hooks` (src/install/push_hooks.ts,
 * issue 49), as the user's settings file shows it: the hook added once, in place of its own earlier
 * one, every other byte kept; uninstall removes only its own group and what it leaves empty; the
 * hook's command runs the entry's relay; doctor's word on it. The whole flow on real files:
 * tests/integration/install_push_test.ts.
 */

import assert from "assert";
import { parse as parseJsonc } from "jsonc-parser";
import {
  HOOK_MATCHER,
  HOOK_MINUTES,
  hookCommand,
  hookFiles,
  hookFindings,
  hookGroup,
  hookPaths,
  withHook,
  withoutHook,
} from "../../src/install/push_hooks.ts";
import { InstallError } from "../../src/install/install_error.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];
const P = "/h/.claude/settings.json";
const COMMAND = "exec /bin/deno run -P /r/mod.ts hook-wait --timeout-minutes 30";
const GROUP = hookGroup(COMMAND);

Deno.test("hookPaths: the user's settings under CLAUDE_CONFIG_DIR or ~/.claude, the project's under cwd", () => {
  assert.deepEqual(hookPaths("user", env({ HOME: "/h" }), "/p"), {
    settings: "/h/.claude/settings.json",
    folder: "/h/.claude",
    projects: "/h/.claude/projects",
    backup: "/h/.claude/settings.json.codex-relay.bak",
    tmp: "/h/.claude/settings.json.codex-relay.tmp",
  });
  assert.equal(
    hookPaths("user", env({ USERPROFILE: "/u" }), "/p").settings,
    "/u/.claude/settings.json",
  );
  const dir = env({ HOME: "/h", CLAUDE_CONFIG_DIR: "/c" });
  assert.equal(hookPaths("user", dir, "/p").settings, "/c/settings.json");
  assert.equal(hookPaths("user", dir, "/p").projects, "/c/projects");
  const empty = env({ HOME: "/h", CLAUDE_CONFIG_DIR: "" });
  assert.equal(hookPaths("user", empty, "/p").settings, P, "an empty variable is unset");
  const project = hookPaths("project", dir, "/p");
  assert.equal(project.settings, "/p/.claude/settings.json");
  assert.equal(project.folder, "/p/.claude");
  assert.equal(
    project.projects,
    "/c/projects",
    "the transcripts are the user's, whatever the scope",
  );
  assert.equal(hookPaths("project", env({}), "C:\\p").folder, "C:\\p/.claude");
});

Deno.test("hookFiles: the settings files read and their folder written, only with --push", () => {
  const io = { env: env({ HOME: "/h" }), cwd: "/p" };
  assert.deepEqual(hookFiles({ scope: "user" }, io), { read: [], write: [] });
  assert.deepEqual(hookFiles({ push: "hooks", scope: "user" }, io), {
    read: [P, `${P}.codex-relay.bak`, `${P}.codex-relay.tmp`],
    write: ["/h/.claude"],
  });
});

Deno.test("hookCommand: the entry's Deno, permissions, Codex and mode, plus read of the transcripts, running hook-wait", () => {
  const launcher = {
    command: "/bin/deno",
    args: [
      "run",
      "-P",
      "--allow-env",
      "/r/mod.ts",
      "serve",
      "--allow-turn-start",
      "--codex",
      "/c/codex",
      "--app-server",
      "daemon",
    ],
    env: { DENO_DIR: "/d d" },
  };
  assert.equal(
    hookCommand(launcher, "/h/.claude/projects", "linux"),
    "DENO_DIR='/d d' exec /bin/deno run -P --allow-env --allow-read=/h/.claude/projects /r/mod.ts " +
      "hook-wait --timeout-minutes 30 --codex /c/codex --app-server daemon",
  );
  // A compiled relay (serve first): no Deno permissions to add.
  assert.equal(
    hookCommand({ command: "/bin/codex-relay", args: ["serve", "--codex", "/c"] }, "/x", "linux"),
    "exec /bin/codex-relay hook-wait --timeout-minutes 30 --codex /c",
  );
  assert.equal(
    hookCommand({ command: "deno", args: ["run", "/r/mod.ts", "serve"] }, "/p p", "windows"),
    'exec deno run "--allow-read=/p p" /r/mod.ts hook-wait --timeout-minutes 30',
  );
});

Deno.test("hookGroup: after the relay's four run tools, asyncRewake, a timeout past the wait's bound", () => {
  assert.deepEqual(GROUP, {
    matcher: "mcp__codex-relay__(codex_run|codex_review|codex_queue_message|codex_steer)",
    hooks: [{ type: "command", command: COMMAND, asyncRewake: true, timeout: 30 * 60 + 60 }],
  });
  assert.equal(HOOK_MINUTES, 30);
  assert.equal(GROUP.matcher, HOOK_MATCHER);
});

const MINE = `{
  // my own settings
  "model": "opus",
  "hooks": {
    "PostToolUse": [
      { "matcher": "Write", "hooks": [{ "type": "command", "command": "prettier --write" }] }, // mine
    ],
  },
}
`;

const groups = (text: string) =>
  (parseJsonc(text) as { hooks: { PostToolUse: Record<string, unknown>[] } }).hooks.PostToolUse;

Deno.test("withHook: added before the user's hooks, every other byte kept; the same again changes nothing", () => {
  const out = withHook(MINE, GROUP, P);
  assert.match(out, /\/\/ my own settings/);
  assert.match(out, /\/\/ mine/);
  assert.deepEqual(groups(out).map((g) => g.matcher), [HOOK_MATCHER, "Write"]);
  assert.deepEqual(groups(out)[0], GROUP);
  assert.equal(withHook(out, hookGroup(COMMAND), P), out, "the same group: the text itself");
  // A new command replaces the earlier one in place.
  const moved = withHook(out, hookGroup(`${COMMAND} --codex /c`), P);
  assert.deepEqual(groups(moved).map((g) => g.matcher), [HOOK_MATCHER, "Write"]);
  assert.equal(
    (groups(moved)[0].hooks as { command: string }[])[0].command,
    `${COMMAND} --codex /c`,
  );
  assert.match(moved, /\/\/ mine/);
});

Deno.test("withHook: a missing, empty or blank file becomes one with the hook alone", () => {
  for (const text of ["", "  \n", "{}"]) {
    assert.deepEqual(parseJsonc(withHook(text, GROUP, P)), { hooks: { PostToolUse: [GROUP] } });
  }
});

Deno.test("withHook: the file's own indentation and line ends are kept", () => {
  const tabs = withHook('{\n\t"model": "x"\n}\n', GROUP, P);
  assert.match(tabs, /\n\t"hooks": \{\n\t\t"PostToolUse": \[\n\t\t\t\{/);
  assert.doesNotMatch(tabs, / {2}/);
  const four = withHook('{\n    "model": "x"\n}\n', GROUP, P);
  assert.match(four, /\n {4}"hooks": \{\n {8}"PostToolUse": \[\n {12}\{/);
  const two = withHook('{ "model": "x" }', GROUP, P);
  assert.match(two, /\n {2}"hooks": \{\n {4}"PostToolUse"/);
  const crlf = withHook('{\r\n  "model": "x"\r\n}\r\n', GROUP, P);
  assert.doesNotMatch(crlf.replaceAll("\r\n", ""), /\n/);
  const lf = withHook('{\n  "model": "x"\n}\n', GROUP, P);
  assert.doesNotMatch(lf, /\r/);
});

Deno.test("a file that is not a JSON object, or whose PostToolUse is not a list, is refused: nothing written", () => {
  for (const text of ["{", "[1]", "null", '"x"', "{} {}"]) {
    for (const edit of [(t: string) => withHook(t, GROUP, P), (t: string) => withoutHook(t, P)]) {
      assert.throws(
        () => edit(text),
        (e) =>
          e instanceof InstallError && e.code === 65 &&
          e.message ===
            `${P} is not a JSON object; fix or move it, then run again. Nothing was written`,
        text,
      );
    }
  }
  const notList = '{ "hooks": { "PostToolUse": {} } }';
  assert.throws(
    () => withHook(notList, GROUP, P),
    (e) =>
      e instanceof InstallError && e.code === 65 &&
      e.message === `"hooks.PostToolUse" in ${P} is not a list; nothing was written`,
  );
  assert.throws(() => withoutHook(notList, P), InstallError);
});

Deno.test("withoutHook: only the group install wrote goes, and the list and object it leaves empty", () => {
  const out = withHook(MINE, GROUP, P);
  const back = withoutHook(out, P);
  assert.deepEqual(parseJsonc(back), parseJsonc(MINE));
  assert.match(back, /\/\/ my own settings/);
  assert.equal(withoutHook(MINE, P), MINE, "none of ours: the text itself");
  assert.equal(withoutHook("", P), "");
  // Alone: the list and the hooks object go too; other events stay.
  assert.deepEqual(parseJsonc(withoutHook(withHook('{"a":1}', GROUP, P), P)), { a: 1 });
  const other = withHook('{"hooks":{"Stop":[]}}', GROUP, P);
  assert.deepEqual(parseJsonc(withoutHook(other, P)), { hooks: { Stop: [] } });
  // A group with our matcher that runs something else, or hooks that are not a list: the user's.
  for (
    const theirs of [
      { matcher: HOOK_MATCHER, hooks: [{ type: "command", command: "notify-send done" }] },
      { matcher: HOOK_MATCHER, hooks: [{ type: "command" }] },
      { matcher: HOOK_MATCHER, hooks: {} },
      { matcher: "Write", hooks: [{ type: "command", command: COMMAND }] },
    ]
  ) {
    const text = JSON.stringify({ hooks: { PostToolUse: [theirs] } });
    assert.equal(withoutHook(text, P), text, JSON.stringify(theirs));
    assert.equal(groups(withHook(text, GROUP, P)).length, 2, JSON.stringify(theirs));
  }
  // Ours behind the user's: found wherever it is.
  const after = JSON.stringify(
    {
      hooks: { PostToolUse: [{ matcher: "Write", hooks: [] }, GROUP] },
    },
    null,
    2,
  );
  assert.deepEqual(groups(withoutHook(after, P)), [{ matcher: "Write", hooks: [] }]);
});

Deno.test("hookFindings: ok when the hook runs the entry's relay with asyncRewake; else a warning with the fix", () => {
  const ok = hookFindings(withHook(MINE, GROUP, P), P, ["/r/mod.ts"]);
  assert.deepEqual(ok, [{
    level: "ok",
    text: `the push hook in ${P} runs hook-wait after the relay's runs`,
  }]);
  assert.deepEqual(hookFindings(null, P, []), [
    { level: "info", text: `no push hook in ${P} (optional: install --push hooks adds it)` },
  ]);
  assert.equal(hookFindings(MINE, P, [])[0].level, "info");
  const fix = "install --client claude-code --push hooks writes it again";
  assert.deepEqual(hookFindings(withHook("", GROUP, P), P, ["/r/mod.ts", "/other/mod.ts"]), [
    { level: "warn", text: `the push hook in ${P} does not run the entry's /other/mod.ts`, fix },
  ]);
  const sync = { matcher: HOOK_MATCHER, hooks: [{ type: "command", command: COMMAND }] };
  assert.deepEqual(hookFindings(JSON.stringify({ hooks: { PostToolUse: [sync] } }), P, []), [
    { level: "warn", text: `the push hook in ${P} lacks asyncRewake`, fix },
  ]);
  const beside = {
    matcher: HOOK_MATCHER,
    hooks: [{ type: "command", command: "notify-send" }, GROUP.hooks],
  };
  beside.hooks[1] = (GROUP.hooks as unknown[])[0];
  assert.equal(
    hookFindings(JSON.stringify({ hooks: { PostToolUse: [beside] } }), P, [])[0].level,
    "ok",
  );
  assert.deepEqual(hookFindings("[", P, []), [
    {
      level: "warn",
      text: `${P} is not a JSON object; fix or move it, then run again. Nothing was written`,
    },
  ]);
  assert.equal(hookFindings('{"hooks":{"PostToolUse":1}}', P, [])[0].level, "warn");
});

Deno.test("hookCommand: serve's own options stay out of the hook's command", () => {
  assert.equal(
    hookCommand({ command: "/bin/deno", args: ["run", "/r/mod.ts", "serve", "--channels"] }, "/p"),
    "exec /bin/deno run --allow-read=/p /r/mod.ts hook-wait --timeout-minutes 30",
  );
});

Deno.test("withHook: a hook first in the list is kept as it is, or replaced in place", () => {
  const text = JSON.stringify({ hooks: { PostToolUse: [GROUP, { matcher: "W", hooks: [] }] } });
  assert.equal(withHook(text, hookGroup(COMMAND), P), text, "the same: not even reformatted");
  const moved = groups(withHook(text, hookGroup(`${COMMAND} --codex /c`), P));
  assert.deepEqual(moved.map((g) => g.matcher), [HOOK_MATCHER, "W"]);
  assert.equal((moved[0].hooks as { command: string }[])[0].command, `${COMMAND} --codex /c`);
});

Deno.test("withoutHook: the user's groups are left as they were written", () => {
  const text = '{\n  "hooks": {\n    "PostToolUse": [\n      { "matcher": "W", "hooks": [] },\n' +
    `      ${JSON.stringify(GROUP)},\n      { "matcher": "V", "hooks": [] }\n    ]\n  }\n}\n`;
  assert.equal(
    withoutHook(text, P),
    '{\n  "hooks": {\n    "PostToolUse": [\n      { "matcher": "W", "hooks": [] },\n' +
      '      { "matcher": "V", "hooks": [] }\n    ]\n  }\n}\n',
  );
});

Deno.test("hookFindings: every other relay the entry runs is named; odd groups and hooks are passed over", () => {
  const fix = "install --client claude-code --push hooks writes it again";
  assert.deepEqual(hookFindings(withHook("", GROUP, P), P, ["/a/mod.ts", "/b/mod.ts"]), [
    {
      level: "warn",
      text: `the push hook in ${P} does not run the entry's /a/mod.ts, /b/mod.ts`,
      fix,
    },
  ]);
  const odd = { hooks: { PostToolUse: [null, { matcher: HOOK_MATCHER, hooks: [null] }, GROUP] } };
  assert.equal(hookFindings(JSON.stringify(odd), P, [])[0].level, "ok");
  assert.equal(groups(withoutHook(JSON.stringify(odd, null, 2), P)).length, 2);
});

const W = '{ "matcher": "Write", "hooks": [] }';
const list = (inner: string, eol = "\n") =>
  `{${eol}  "hooks": {${eol}    "PostToolUse": [${eol}${inner}    ]${eol}  }${eol}}${eol}`;

Deno.test("withHook then withoutHook: the user's file byte for byte, its comments where they were (issue 49)", () => {
  const shapes = [
    `{"hooks":{"PostToolUse":[${W}]}}`,
    `{"hooks":{"PostToolUse":[ ${W} ],},}`,
    list(`      ${W}, // mine\n`),
    list(`      ${W} // mine\n`),
    list(`      ${W},\n      // after mine\n`),
    list(`      // my hooks\n      ${W},\n      { "matcher": "Edit", "hooks": [] } // and this\n`),
    list(`      ${W}, // mine\r\n`, "\r\n"),
    `{\n\t"hooks": {\n\t\t"PostToolUse": [\n\t\t\t${W} /* mine */\n\t\t]\n\t}\n}\n`,
    `{\n  "hooks": {\n    "PostToolUse": [{\n      "matcher": "Write", "hooks": [] } // mine\n    ]\n  }\n}\n`,
  ];
  for (const text of shapes) {
    const out = withHook(text, GROUP, P);
    assert.deepEqual(groups(out)[0], GROUP, text);
    assert.equal(withoutHook(out, P), text, text);
  }
  // On its own lines, indented as the file is, with its line ends.
  assert.equal(
    withHook(list(`      ${W}, // mine\r\n`, "\r\n"), GROUP, P),
    list(
      `      ${
        JSON.stringify(GROUP, null, 2).replaceAll("\n", "\r\n      ")
      },\r\n      ${W}, // mine\r\n`,
      "\r\n",
    ),
  );
  const tabs = `{\n\t"hooks": {\n\t\t"PostToolUse": [\n\t\t\t${W}\n\t\t]\n\t}\n}\n`;
  const tabbed = JSON.stringify(GROUP, null, "\t").replaceAll("\n", "\n\t\t\t");
  assert.equal(withHook(tabs, GROUP, P), tabs.replace(W, `${tabbed},\n\t\t\t${W}`));
  const lf = list(`      ${W}\n`);
  const spaced = JSON.stringify(GROUP, null, 2).replaceAll("\n", "\n      ");
  assert.equal(withHook(lf, GROUP, P), lf.replace(W, `${spaced},\n      ${W}`));
  // On one line where the user's first group starts on the line of "[" (or of something else).
  const compact = JSON.stringify(GROUP);
  assert.equal(
    withHook(`{"hooks":{"PostToolUse":[${W}]}}`, GROUP, P),
    `{"hooks":{"PostToolUse":[${compact}, ${W}]}}`,
  );
  const open =
    '{\n  "hooks": {\n    "PostToolUse": [{\n      "matcher": "W", "hooks": [] }]\n  }\n}\n';
  assert.equal(withHook(open, GROUP, P), open.replace("[{", `[${compact}, {`));
  // Ours as the user (or an older install) spaced it: kept as it is.
  const kept = `{"hooks":{"PostToolUse":[${JSON.stringify(GROUP, null, 2)}, ${W}]}}`;
  assert.equal(withHook(kept, GROUP, P), kept);
});

Deno.test("withoutHook: ours last, after the user's group, even on one line; every other byte kept (issue 49)", () => {
  const ours = JSON.stringify(GROUP);
  const cases: [string, string][] = [
    [`{"hooks":{"PostToolUse":[${W},${ours}]}}`, `{"hooks":{"PostToolUse":[${W}]}}`],
    [
      `{"hooks":{"PostToolUse":[${W}, /* x */ ${ours} , ]}}`,
      `{"hooks":{"PostToolUse":[${W}, /* x */ ]}}`,
    ],
    [list(`      ${W}, // mine\n      ${ours}\n`), list(`      ${W} // mine\n`)],
    [list(`      ${W},\n      ${ours},\n`), list(`      ${W},\n`)],
    [list(`      ${W},\r\n      ${ours}\r\n`, "\r\n"), list(`      ${W}\r\n`, "\r\n")],
    [
      `{"hooks":{"PostToolUse":[${W} /* a, b */ // c, d\n  , ${ours} /* e */ // f\n ]}}`,
      `{"hooks":{"PostToolUse":[${W} /* a, b */ // c, d\n   /* e */ // f\n ]}}`,
    ],
  ];
  for (const [text, want] of cases) assert.equal(withoutHook(text, P), want, text);
  // Ours first, then a comment of the user's: the comment stays.
  const first = list(`      ${ours}, // theirs\n      ${W}\n`);
  assert.equal(withoutHook(first, P), list(`      // theirs\n      ${W}\n`));
});

Deno.test("withHook: ours replaced in place, the user's groups not reformatted (issue 49)", () => {
  const again = hookGroup(`${COMMAND} --codex /c`);
  for (
    const text of [`{"hooks":{"PostToolUse":[${W}]}}`, list(`      ${W}, // mine\r\n`, "\r\n")]
  ) {
    const before = withHook(text, GROUP, P);
    const old = before.includes("\n") ? JSON.stringify(GROUP, null, 2) : JSON.stringify(GROUP);
    const now = before.includes("\n") ? JSON.stringify(again, null, 2) : JSON.stringify(again);
    const eol = (s: string) => s.replaceAll("\n", "\r\n      ");
    const replaced = withHook(before, again, P);
    assert.equal(replaced, before.replace(eol(old), eol(now)));
    assert.equal(withoutHook(replaced, P), text);
  }
});
