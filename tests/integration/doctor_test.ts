/**
 * `codex-relay doctor` as users run it (`deno run -P mod.ts doctor`, the
 * relay's own permission set) against the fixture app-server.
 */

import assert from "assert";
import { HOOK_MATCHER } from "../../src/install/push_hooks.ts";
import { FIXTURE_BIN, thread, withFixture } from "../../testing/fixture_home.ts";
import { entryArgs, ROOT } from "../../testing/relay.ts";
import { denoChildEnv } from "../../testing/child_env.ts";

async function doctor(
  env: Record<string, string>,
  options: { flags?: string[]; permissions?: string[] } = {},
): Promise<{ code: number; out: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: entryArgs(["doctor", ...(options.flags ?? [])], {
      permissions: options.permissions,
      cachedOnly: true,
      noPrompt: true,
    }),
    env: denoChildEnv(env),
    clearEnv: true,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  return { code: out.code, out: text + new TextDecoder().decode(out.stderr) };
}

Deno.test("doctor: codex, its version, the app-server, threads and the permission set all pass (exit 0)", async () => {
  await withFixture({ threads: [thread({ name: "alpha" })] }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 0, out);
    assert.match(out, new RegExp(`ok +codex resolves to ${FIXTURE_BIN}/codex`));
    assert.match(out, /ok +codex --version: codex-cli 0\.169\.0/);
    assert.match(
      out,
      /ok +codex app-server answered initialize \(experimental API\) and thread\/list/,
    );
    assert.match(out, new RegExp(`ok +CODEX_HOME \\(${f.home}\\) has threads`));
    assert.match(out, /ok +run: codex only \(and \/bin\/kill, to end a helper.s process group\)/);
    assert.match(out, /ok +env: only the 15 names the relay reads/);
    assert.match(out, /ok +read, write, net, ffi, sys: none/);
    assert.match(out, /tools at these flags: codex_list_threads, codex_queue_message/);
    assert.match(out, /No problems found\./);
    const methods = (await f.requests()).map((r) => r.method);
    assert.deepEqual(methods, [
      "initialize",
      "thread/list",
      "account/read",
      "config/read",
      "model/list",
    ]);
    assert.match(out, /ok +Codex is logged in \(apiKey\)/);
    // The models of model/list (transcript 24, 0.169), each with its efforts.
    assert.match(
      out,
      /info +Codex offers 9 model\(s\) for codex_run's and codex_review's model and effort:\n +gpt-6\.1-sol \(default\): low, medium, high, xhigh, max, ultra\n +gpt-6-astra: /,
    );
    const init = (await f.requests())[0].params as { capabilities: unknown };
    assert.deepEqual(init.capabilities, { experimentalApi: true });
  });
});

Deno.test("doctor: names a provider whose key variable Codex would miss, and loader variables Codex gets empty", async () => {
  const scenario = {
    threads: [thread()],
    modelProvider: "keyed",
    modelProviders: {
      keyed: { env_key: "RELAY_TEST_MISSING_KEY" },
      other: { env_key: "RELAY_TEST_SET_KEY" },
      plain: {},
    },
  };
  await withFixture(scenario, async (f) => {
    const { code, out } = await doctor({
      ...f.env,
      RELAY_TEST_SET_KEY: "set-but-never-shown",
      LD_RELAY_TEST: "1",
    });
    assert.equal(code, 0, out);
    assert.match(
      out,
      /warn +model provider keyed \(the default\) reads its key from RELAY_TEST_MISSING_KEY, which is not set in the environment codex-relay was started with/,
    );
    assert.match(out, /fix: set RELAY_TEST_MISSING_KEY in the "env" of codex-relay's entry/);
    assert.match(out, /ok +model provider other: its key variable RELAY_TEST_SET_KEY is set/);
    assert.doesNotMatch(out, /plain/, "a provider without env_key needs no variable");
    assert.match(out, /warn +LD_RELAY_TEST set in the environment codex-relay was started with/);
    assert.ok(!out.includes("set-but-never-shown"), "no value is shown");
    const asked = (await f.log()).filter((e) => e.event === "doctor").map((e) => e.args);
    assert.deepEqual(asked, [
      ["doctor", "--json", "-c", 'model_provider="keyed"'],
      ["doctor", "--json", "-c", 'model_provider="other"'],
    ]);
  });
});

Deno.test("doctor: without codex on PATH it fails (exit 1) and says how to fix it", async () => {
  await withFixture({ threads: [] }, async (f) => {
    const { code, out } = await doctor({ ...f.env, PATH: "/nonexistent" });
    assert.equal(code, 1, out);
    assert.match(out, /problem +codex is not on the PATH the relay sees \(PATH=\S*\/nonexistent\)/);
    assert.match(out, /fix: install Codex \(npm install -g @openai\/codex\)/);
    assert.match(out, /1 problem\(s\) found/);
    assert.deepEqual(await f.spawned(), []);
  });
});

Deno.test("doctor: an app-server that dies on initialize is a problem with its fix", async () => {
  await withFixture({ threads: [], startup: { exitOnInitialize: 3 } }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 1, out);
    assert.match(out, /problem +codex app-server failed \(\w+\): /);
    assert.match(out, /fix: /);
  });
});

Deno.test("doctor: an empty CODEX_HOME is reported, not a problem; an old codex is a warning", async () => {
  await withFixture({ threads: [], startup: { version: "0.150.2" } }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 0, out);
    assert.match(out, /info +CODEX_HOME \(.*\) has no threads yet/);
    assert.match(
      out,
      /warn +codex 0\.150\.2 is older than the Codex releases codex-relay supports \(0\.169\.0 to 0\.171\.0\)/,
    );
    assert.match(out, /fix: npm install -g @openai\/codex@0\.171\.0/);
  });
});

Deno.test("doctor: a codex newer than the supported range is a warning with its fix; the newest supported is not", async () => {
  await withFixture({ threads: [], startup: { version: "0.172.0" } }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 0, out);
    assert.match(
      out,
      /warn +codex 0\.172\.0 is newer than the Codex releases codex-relay supports/,
    );
    assert.match(out, /fix: npm install -g @openai\/codex@0\.171\.0, or update codex-relay/);
  });
  await withFixture({ threads: [], startup: { version: "0.171.0" } }, async (f) => {
    const { out } = await doctor(f.env);
    assert.match(out, /ok +codex --version: codex-cli 0\.171\.0/);
    assert.doesNotMatch(out, /supports/, "no warning at the newest supported release");
  });
});

Deno.test("doctor: capability flags change the tools and the entry's arguments", async () => {
  await withFixture({ threads: [thread()] }, async (f) => {
    const { code, out } = await doctor(f.env, {
      flags: ["--allow-reply-read", "--allow-turn-start"],
    });
    assert.equal(code, 0, out);
    assert.match(
      out,
      /tools at these flags: codex_list_threads, codex_queue_message, codex_read_reply, codex_wait_reply, codex_run, codex_review, codex_steer, codex_interrupt, codex_withdraw_message/,
    );
    assert.match(
      out,
      /the client entry's arguments end with: serve --allow-reply-read --allow-turn-start/,
    );
  });
});

Deno.test("doctor: run with -A, every needless permission is a problem", async () => {
  await withFixture({ threads: [thread()] }, async (f) => {
    const { code, out } = await doctor(f.env, { permissions: ["-A"] });
    assert.equal(code, 1, out);
    assert.match(out, /problem +run: any program may be started/);
    assert.match(out, /problem +env: every environment variable is readable/);
    assert.match(out, /problem +read, write, net, ffi, sys: granted but not needed/);
    assert.match(out, /fix: start the relay with exactly its permission set/);
  });
});

Deno.test("doctor: Codex not logged in is a problem with its fix (exit 1), as account/read tells", async () => {
  // Codex 0.169 and 0.171 answer this with no auth.json and the default (OpenAI) provider.
  const account = { account: null, userId: null, requiresOpenaiAuth: true, workspaceRouting: null };
  await withFixture({ threads: [thread({ name: "alpha" })], account }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 1, out);
    assert.match(
      out,
      /problem +Codex is not logged in \(account\/read has no account\): turns would fail/,
    );
    assert.match(out, /fix: run `codex login` in a terminal/);
    assert.doesNotMatch(out, /No problems found/);
  });
  // A model provider that needs no OpenAI login (requiresOpenaiAuth: false) is fine.
  await withFixture(
    { threads: [], account: { ...account, requiresOpenaiAuth: false } },
    async (f) => {
      const { code, out } = await doctor(f.env);
      assert.equal(code, 0, out);
      assert.match(out, /ok +Codex's model provider needs no OpenAI login/);
    },
  );
});

Deno.test("doctor --codex: names the binary and why, and the run permission that names it; a missing one is a problem with its fix", async () => {
  await withFixture({ threads: [thread()] }, async (f) => {
    const codex = `${FIXTURE_BIN}/codex`;
    const named = await doctor(f.env, {
      flags: ["--codex", codex],
      permissions: ["-P", `--allow-run=${codex},/bin/kill`],
    });
    assert.equal(named.code, 0, named.out);
    assert.match(named.out, new RegExp(`info +codex: runs ${codex} \\(named by --codex\\)`));
    assert.match(named.out, /ok +codex --version: codex-cli 0\.169\.0/);
    assert.match(named.out, new RegExp(`ok +run: ${codex} only \\(and /bin/kill`));
    assert.doesNotMatch(named.out, /codex resolves to/, "PATH is not what runs");

    const gone = await doctor(f.env, { flags: ["--codex", "/nonexistent/codex"] });
    assert.equal(gone.code, 1, gone.out);
    // The start line's run permission names the binary: one it does not name may not run.
    assert.match(
      gone.out,
      /problem +the relay may not run \/nonexistent\/codex \(no --allow-run=\/nonexistent\/codex\)/,
    );
    // A complete command: install without --client exits 64.
    assert.match(
      gone.out,
      /fix: register the relay again: sh -c "\$\(deno run .*mod\.ts install --client <claude-code\|claude-desktop\|cursor\|vscode\|codex> --print-command\)"/,
    );
  });
});

Deno.test("doctor counts the threads codex_list_threads lists: a codex exec thread, not a sub-agent's (issue 32)", async () => {
  await withFixture({ threads: [thread({ source: "exec" })] }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 0, out);
    assert.match(out, /ok +CODEX_HOME \(.*\) has threads/);
  });
  await withFixture({ threads: [thread({ source: "subAgentReview" })] }, async (f) => {
    const { out } = await doctor(f.env);
    assert.match(out, /info +CODEX_HOME \(.*\) has no threads yet/);
  });
});

Deno.test("doctor: a codex that cannot start (npm's codex, no node on PATH) shows Codex's own error and the fix", async () => {
  const bin = await Deno.makeTempDir({ prefix: "codex-relay-nonode-" });
  try {
    // npm's codex is a Node script: where no node is found, env says so and exits 127 (a Deno
    // child finds Deno's own node shim on PATH, so the failure is written out here).
    await Deno.writeTextFile(
      `${bin}/codex`,
      "#!/bin/sh\necho \"/usr/bin/env: 'node': No such file or directory\" >&2\nexit 127\n",
      { mode: 0o755 },
    );
    await withFixture({ threads: [] }, async (f) => {
      const { code, out } = await doctor({ ...f.env, PATH: bin });
      assert.equal(code, 1, out);
      assert.match(
        out,
        /problem +codex --version exited 127: .*'?node'?: No such file or directory/,
      );
      assert.match(out, /fix: npm's codex runs on Node: put the folder of node/);
      assert.doesNotMatch(out, /app-server failed/, "no second problem for the same cause");
      assert.deepEqual(await f.spawned(), []);
    });
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});

Deno.test("doctor: its hints name the command this checkout runs, not a codex-relay it does not have", async () => {
  await withFixture({ threads: [thread()] }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 0, out);
    const relay = `deno run -P --no-prompt --quiet --config ${ROOT}/deno.json ${ROOT}/mod.ts`;
    assert.ok(
      out.includes(`(${relay} install --client <client> --allow-reply-read)`),
      out,
    );
    assert.ok(out.includes(`(${relay} install --client <client> --allow-turn-start)`), out);
    assert.doesNotMatch(out, /codex-relay install/);
  });
});

Deno.test("doctor: checks the provider key as Codex would start the relay: its entry for codex-relay must pass the key (env_vars)", async () => {
  const relayEntry = (envVars: string[]) => ({
    command: "/usr/bin/deno",
    args: ["run", "-P", "/opt/codex-relay/mod.ts", "serve"],
    env: { CODEX_RELAY_MANAGED: "1" },
    env_vars: envVars,
  });
  const scenario = (envVars: string[]) => ({
    threads: [thread()],
    modelProvider: "keyed",
    modelProviders: { keyed: { env_key: "RELAY_TEST_KEY" } },
    mcpServers: { "codex-relay": relayEntry(envVars) },
  });
  // The key is set in this terminal: only Codex's entry decides whether the relay Codex starts gets it.
  await withFixture(scenario(["CODEX_HOME", "OPENAI_API_KEY"]), async (f) => {
    const { code, out } = await doctor({ ...f.env, RELAY_TEST_KEY: "set-here" });
    assert.equal(code, 1, out);
    assert.match(
      out,
      /ok +model provider keyed \(the default\): its key variable RELAY_TEST_KEY is set/,
    );
    assert.match(
      out,
      /problem +Codex's entry for codex-relay \(mcp_servers\.codex-relay\) does not pass RELAY_TEST_KEY \(not in its env_vars\)/,
    );
    assert.match(
      out,
      /fix: install for Codex again \(deno run -P --no-prompt --quiet .*mod\.ts install --client codex/,
    );
    assert.match(out, /add "RELAY_TEST_KEY" to env_vars of \[mcp_servers\.codex-relay\]/);
  });
  await withFixture(scenario(["CODEX_HOME", "RELAY_TEST_KEY"]), async (f) => {
    const { code, out } = await doctor({ ...f.env, RELAY_TEST_KEY: "set-here" });
    assert.equal(code, 0, out);
    assert.match(
      out,
      /ok +Codex's entry for codex-relay \(mcp_servers\.codex-relay\) passes the providers' key variables \(RELAY_TEST_KEY\)/,
    );
  });
});

Deno.test("doctor: a path Codex's entry for codex-relay names that does not exist is a problem (asked of Codex)", async () => {
  const scenario = {
    threads: [thread()],
    mcpServers: {
      "codex-relay": {
        command: "/opt/deno/bin/deno",
        args: [
          "run",
          "-P",
          "--config",
          "/moved/codex-relay/deno.json",
          "/moved/codex-relay/mod.ts",
          "serve",
        ],
        env_vars: ["CODEX_HOME"],
      },
    },
    files: ["/opt/deno/bin/deno"],
    directories: [],
  };
  await withFixture(scenario, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 1, out);
    assert.match(
      out,
      /problem +Codex's entry for codex-relay \(mcp_servers\.codex-relay\) starts \/moved\/codex-relay\/deno\.json, \/moved\/codex-relay\/mod\.ts, which does not exist/,
    );
    assert.match(
      out,
      /fix: register it again from the relay you mean: sh -c "\$\(deno run -P .*install --client codex --print-command\)"/,
    );
    const asked = (await f.requests()).filter((r) => r.method === "fs/getMetadata").map((r) =>
      r.params
    );
    assert.deepEqual(asked, [
      { path: "/opt/deno/bin/deno" },
      { path: "/moved/codex-relay/deno.json" },
      { path: "/moved/codex-relay/mod.ts" },
    ]);
  });
});

Deno.test("doctor --client claude-code: an entry naming a checkout that does not exist is a problem; without read permission on the file it says the exact command", async () => {
  const home = await Deno.makeTempDir({ prefix: "codex-relay-doctor-client-" });
  const config = `${home}/.claude.json`;
  try {
    // The README's old Claude Code line, run outside the checkout: $PWD was some other folder.
    await Deno.writeTextFile(
      config,
      JSON.stringify({
        mcpServers: {
          "codex-relay": {
            type: "stdio",
            command: "/opt/deno/bin/deno",
            args: [
              "run",
              "-P",
              "--config",
              "/tmp/elsewhere/deno.json",
              "/tmp/elsewhere/mod.ts",
              "serve",
            ],
          },
        },
      }),
    );
    const scenario = { threads: [thread()], files: ["/opt/deno/bin/deno"], directories: [] };
    await withFixture(scenario, async (f) => {
      const env = { ...f.env, HOME: home };
      const denied = await doctor(env, { flags: ["--client", "claude-code"] });
      // The doctor's own missing grant is not the user's problem (issue 47).
      assert.equal(denied.code, 0, denied.out);
      assert.match(
        denied.out,
        new RegExp(`warn +cannot read ${config} to check Claude Code's entry`),
      );
      assert.ok(
        denied.out.includes(
          `fix: run exactly: deno run --allow-read=${config},${home}/.claude/settings.json -P --no-prompt --quiet --config ${ROOT}/deno.json ${ROOT}/mod.ts doctor --client claude-code`,
        ),
        denied.out,
      );

      const { code, out } = await doctor(env, {
        flags: ["--client", "claude-code"],
        permissions: ["-P", `--allow-read=${config}`],
      });
      assert.equal(code, 1, out);
      assert.match(
        out,
        /problem +Claude Code's entry for codex-relay in \S+\.claude\.json starts \/tmp\/elsewhere\/deno\.json, \/tmp\/elsewhere\/mod\.ts, which does not exist/,
      );
      assert.match(
        out,
        /fix: register it again .* install --client claude-code --print-command\)"/,
      );
      assert.match(
        out,
        /ok +read, write, net, ffi, sys: none/,
        "one file's read permission is not broad",
      );

      // The push hook (issue 49): checked when Claude Code's settings file may be read.
      const settings = `${home}/.claude/settings.json`;
      const read = ["-P", `--allow-read=${config},${settings}`];
      const none = await doctor(env, { flags: ["--client", "claude-code"], permissions: read });
      assert.match(none.out, /info +no push hook in \S+settings\.json/);
      await Deno.mkdir(`${home}/.claude`);
      const hook = { type: "command", command: "deno run /x/mod.ts hook-wait", asyncRewake: true };
      await Deno.writeTextFile(
        settings,
        JSON.stringify({ hooks: { PostToolUse: [{ matcher: HOOK_MATCHER, hooks: [hook] }] } }),
      );
      const other = await doctor(env, { flags: ["--client", "claude-code"], permissions: read });
      assert.match(
        other.out,
        /warn +the push hook in \S+settings\.json does not run the entry's \/opt\/deno\/bin\/deno, \/tmp\/elsewhere/,
      );
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("doctor --client: checks the provider key as each client would start the relay, with the fix, never showing a value", async () => {
  const home = await Deno.makeTempDir({ prefix: "codex-relay-doctor-keys-" });
  const files = {
    "claude-code": `${home}/.claude.json`,
    "claude-desktop": `${home}/.config/Claude/claude_desktop_config.json`,
    cursor: `${home}/.cursor/mcp.json`,
    vscode: `${home}/.config/Code/User/mcp.json`,
  };
  const write = async (client: keyof typeof files, env: Record<string, string>) => {
    const entry = { command: "/opt/deno/bin/deno", args: ["serve"], env };
    const container = client === "vscode" ? "servers" : "mcpServers";
    await Deno.mkdir(files[client].replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(
      files[client],
      JSON.stringify({ [container]: { "codex-relay": entry } }),
    );
  };
  const scenario = {
    threads: [thread()],
    modelProvider: "keyed",
    modelProviders: { keyed: { env_key: "RELAY_TEST_KEY" } },
    files: ["/opt/deno/bin/deno"],
    directories: [],
  };
  try {
    await withFixture(scenario, async (f) => {
      const env = { ...f.env, HOME: home, RELAY_TEST_KEY: "set-here" };
      const check = (client: keyof typeof files) =>
        doctor(env, {
          flags: ["--client", client],
          permissions: ["-P", `--allow-read=${files[client]}`],
        });
      // Claude Desktop takes only literal values: the user sets the key in the entry.
      await write("claude-desktop", { CODEX_RELAY_MANAGED: "1" });
      let r = await check("claude-desktop");
      assert.equal(r.code, 1, r.out);
      assert.match(
        r.out,
        /problem +Claude Desktop's entry for codex-relay does not give it RELAY_TEST_KEY: Claude Desktop starts codex-relay without it, so turns of model provider keyed \(the default\) fail \(missing_provider_key/,
      );
      assert.match(
        r.out,
        /fix: Claude Desktop starts codex-relay with only USER, HOME, PATH and the entry's "env", and takes only literal values there: add "RELAY_TEST_KEY": "<its value>" to the "env" of codex-relay's entry in \S+claude_desktop_config\.json yourself/,
      );
      await write("claude-desktop", { CODEX_RELAY_MANAGED: "1", RELAY_TEST_KEY: "sk-in-entry" });
      r = await check("claude-desktop");
      assert.equal(r.code, 0, r.out);
      assert.match(
        r.out,
        /ok +Claude Desktop's entry for codex-relay sets RELAY_TEST_KEY \(model provider keyed \(the default\); value not shown\)/,
      );
      assert.ok(!r.out.includes("sk-in-entry"), r.out);
      // Cursor and VS Code resolve ${env:NAME} from their environment.
      await write("cursor", { CODEX_RELAY_MANAGED: "1" });
      r = await check("cursor");
      assert.equal(r.code, 1, r.out);
      assert.match(
        r.out,
        /problem +Cursor's entry for codex-relay does not give it RELAY_TEST_KEY/,
      );
      assert.match(
        r.out,
        /fix: install for Cursor again \(.* install --client cursor prints the command; it adds "RELAY_TEST_KEY": "\$\{env:RELAY_TEST_KEY\}"\)/,
      );
      await write("vscode", { CODEX_RELAY_MANAGED: "1", RELAY_TEST_KEY: "${env:RELAY_TEST_KEY}" });
      r = await check("vscode");
      assert.equal(r.code, 0, r.out);
      assert.match(
        r.out,
        /ok +VS Code's entry for codex-relay passes RELAY_TEST_KEY from VS Code's environment/,
      );
      // Claude Code passes its own environment: the environment section checks it here.
      await write("claude-code", { CODEX_RELAY_MANAGED: "1" });
      r = await check("claude-code");
      assert.equal(r.code, 0, r.out);
      assert.match(
        r.out,
        /info +Claude Code starts codex-relay with its own environment: model provider keyed \(the default\) gets RELAY_TEST_KEY when it is set where Claude Code starts/,
      );
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("doctor --client after install: the entry install writes (--allow-run=CODEX,/bin/kill) is no problem (issue 38)", async () => {
  const { serveLauncher } = await import("../../src/install/launch.ts");
  const home = await Deno.makeTempDir({ prefix: "codex-relay-doctor-installed-" });
  const config = `${home}/.claude.json`;
  const codex = `${FIXTURE_BIN}/codex`;
  const caps = { replyRead: false, turnStart: false };
  const entry = serveLauncher({ kind: "checkout", root: ROOT }, Deno.execPath(), caps, codex);
  await Deno.writeTextFile(config, JSON.stringify({ mcpServers: { "codex-relay": entry } }));
  const files = [Deno.execPath(), `${ROOT}/deno.json`, `${ROOT}/mod.ts`, codex, "/bin/kill"];
  try {
    await withFixture({ threads: [thread()], files, directories: [] }, async (f) => {
      const { code, out } = await doctor({ ...f.env, HOME: home }, {
        flags: ["--client", "claude-code"],
        permissions: ["-P", `--allow-read=${config}`],
      });
      assert.equal(code, 0, out);
      assert.ok(out.includes(`${codex}, /bin/kill`), out);
      assert.doesNotMatch(out, /does not exist/);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("doctor --client on an entry with every flag reports that entry's flags, tools and run grant, not its own (issue 47)", async () => {
  const { serveLauncher } = await import("../../src/install/launch.ts");
  const home = await Deno.makeTempDir({ prefix: "codex-relay-doctor-every-" });
  const config = `${home}/.claude.json`;
  const codex = `${FIXTURE_BIN}/codex`;
  const git = "/usr/bin/git";
  const caps = { replyRead: true, turnStart: true, worktrees: true };
  const entry = serveLauncher({ kind: "checkout", root: ROOT }, Deno.execPath(), caps, codex, git);
  await Deno.writeTextFile(config, JSON.stringify({ mcpServers: { "codex-relay": entry } }));
  const files = [Deno.execPath(), `${ROOT}/deno.json`, `${ROOT}/mod.ts`, codex, "/bin/kill", git];
  try {
    await withFixture({ threads: [thread()], files, directories: [] }, async (f) => {
      // The doctor itself runs at the default level, as --print-command's line does.
      const { code, out } = await doctor({ ...f.env, HOME: home }, {
        flags: ["--client", "claude-code"],
        permissions: ["-P", `--allow-read=${config}`],
      });
      assert.equal(code, 0, out);
      assert.match(out, /tools Claude Code's entry serves: .*codex_run.*codex_worktree/);
      assert.ok(
        out.includes(
          `Claude Code's entry arguments end with: serve --allow-reply-read --allow-turn-start --allow-worktrees --codex ${codex} --git ${git}`,
        ),
        out,
      );
      assert.match(
        out,
        new RegExp(`ok +run: Claude Code's entry may run ${codex}, /bin/kill, ${git} only`),
      );
      assert.doesNotMatch(out, /tools at these flags|arguments end with: serve\n|run: \S+ only \(/);
      assert.match(out, new RegExp(`info +the relay runs ${git}, which this doctor may not run`));
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("doctor --client --print-command: one line that checks the client's entry, with nothing to run twice (issue 38)", async () => {
  const home = await Deno.makeTempDir({ prefix: "codex-relay-doctor-print-" });
  const config = `${home}/.cursor/mcp.json`;
  await Deno.mkdir(`${home}/.cursor`);
  const entry = { command: Deno.execPath(), args: ["run", "-P", `${ROOT}/mod.ts`, "serve"] };
  await Deno.writeTextFile(config, JSON.stringify({ mcpServers: { "codex-relay": entry } }));
  const files = [Deno.execPath(), `${ROOT}/mod.ts`];
  try {
    await withFixture({ threads: [thread()], files, directories: [] }, async (f) => {
      const env = { ...f.env, HOME: home };
      const flags = ["--client", "cursor", "--allow-reply-read", "--print-command"];
      const printed = await doctor(env, { flags });
      assert.equal(printed.code, 0, printed.out);
      const line = printed.out.trim();
      assert.ok(line.includes(`--allow-read=${config} `), line);
      assert.match(line, /doctor --allow-reply-read --client cursor$/);
      // Run as printed (sh -c "$(...)"), from the cache the tests use.
      const out = await new Deno.Command("sh", {
        args: ["-c", line.replace(/^deno run /, `${Deno.execPath()} run --cached-only `)],
        env: denoChildEnv(env),
        clearEnv: true,
        cwd: ROOT,
        stdin: "null",
        stdout: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      assert.equal(out.code, 0, text);
      assert.match(text, /ok +Cursor's entry for codex-relay in \S+mcp\.json starts /);
      assert.doesNotMatch(text, /cannot read/);
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
