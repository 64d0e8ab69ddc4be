import assert from "assert";
import denoJson from "../../deno.json" with { type: "json" };
import { parseInstallArgs, passOnArgs } from "../../src/install/args.ts";
import {
  applyCommand,
  cliCommand,
  commandLine,
  installEnvFlags,
  RELAY_V8_FLAGS,
  relayFlags,
  serveLauncher,
  shellQuote,
  startCommand,
} from "../../src/install/launch.ts";
import { detectSource } from "../../src/install/running.ts";
import { UsageError } from "../../src/core/usage_error.ts";
import { RELAY_PERMISSIONS, withCodex } from "../../src/core/permissions.ts";
import { normalizePermissionSet, permissionSetOfFlags } from "../../testing/permission_flags.ts";
import { entryKeyState, keyNote, providerKeyVars } from "../../src/install/provider_keys.ts";
import { type ClientId, resolveTarget, type TargetEnv } from "../../src/install/clients.ts";

const TARGET_ENV: TargetEnv = { os: "linux", cwd: "/p", get: (n) => ({ HOME: "/h" })[n] };

const flags = { replyRead: true, turnStart: false };

Deno.test("serveLauncher() starts each source with exactly the relay's permission set", () => {
  assert.deepEqual(serveLauncher({ kind: "checkout", root: "/opt/relay" }, "/bin/deno", flags), {
    command: "/bin/deno",
    args: [
      "run",
      "-P",
      "--no-prompt",
      "--quiet",
      RELAY_V8_FLAGS,
      "--config",
      "/opt/relay/deno.json",
      "/opt/relay/mod.ts",
      "serve",
      "--allow-reply-read",
    ],
  });
  assert.deepEqual(serveLauncher({ kind: "jsr", version: "1.2.3" }, "/bin/deno", flags).args, [
    "run",
    "--no-prompt",
    "--quiet",
    RELAY_V8_FLAGS,
    ...relayFlags(),
    "jsr:@codex-relay/cli@1.2.3",
    "serve",
    "--allow-reply-read",
  ]);
  assert.deepEqual(
    serveLauncher({ kind: "bundle", path: "/d/relay.js" }, "/bin/deno", {
      replyRead: false,
      turnStart: true,
    }).args,
    [
      "run",
      "--no-prompt",
      "--quiet",
      "--no-remote",
      "--cached-only",
      RELAY_V8_FLAGS,
      ...relayFlags(),
      "/d/relay.js",
      "serve",
      "--allow-turn-start",
    ],
  );
  assert.deepEqual(
    serveLauncher({ kind: "binary", path: "/usr/local/bin/codex-relay" }, "/bin/deno", flags),
    {
      command: "/usr/local/bin/codex-relay",
      args: ["serve", "--allow-reply-read"],
    },
  );
});

Deno.test("a resolved Codex: every Deno source runs it by --codex, and its run grant names only it", () => {
  const codex =
    "/usr/lib/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex";
  const checkout = serveLauncher(
    { kind: "checkout", root: "/opt/relay" },
    "/bin/deno",
    flags,
    codex,
  );
  // A later --allow-run replaces -P's run grant (codex on PATH); every other kind stays -P's.
  assert.deepEqual(checkout.args.slice(0, 3), ["run", "-P", `--allow-run=${codex},/bin/kill`]);
  assert.deepEqual(checkout.args.slice(-4), ["serve", "--allow-reply-read", "--codex", codex]);
  for (
    const source of [{ kind: "jsr", version: "1.2.3" }, {
      kind: "bundle",
      path: "/d/r.js",
    }] as const
  ) {
    const args = serveLauncher(source, "/bin/deno", flags, codex).args;
    const granted = permissionSetOfFlags(
      args.filter((a) => /^--(allow|deny|ignore)-(run|env|read|write|net|sys|ffi|import)/.test(a)),
    );
    assert.deepEqual(granted, normalizePermissionSet(withCodex(RELAY_PERMISSIONS, codex)));
    assert.deepEqual((granted.run as { allow: string[] }).allow, [codex, "/bin/kill"]);
    assert.deepEqual(args.slice(-2), ["--codex", codex]);
  }
  // A compiled binary's permissions are fixed: it runs codex on PATH whatever was resolved.
  assert.deepEqual(
    serveLauncher(
      { kind: "binary", path: "/usr/local/bin/codex-relay" },
      "/bin/deno",
      flags,
      codex,
    ),
    { command: "/usr/local/bin/codex-relay", args: ["serve", "--allow-reply-read"] },
  );
});

Deno.test("applyCommand() grants read/write on exactly the files, -P=install from a checkout", () => {
  const files = {
    read: ["/h/.cursor/mcp.json", "/h/.cursor/mcp.json.codex-relay.tmp"],
    write: ["/h/.cursor/mcp.json", "/h/b", "/h/t"],
  };
  assert.deepEqual(
    applyCommand({
      source: { kind: "checkout", root: "/opt/r" },
      action: "install",
      args: ["--client", "cursor"],
      ...files,
    }),
    [
      "deno",
      "run",
      "--no-prompt",
      "--quiet",
      "-P=install",
      "--config",
      "/opt/r/deno.json",
      "--allow-read=/h/.cursor/mcp.json,/h/.cursor/mcp.json.codex-relay.tmp",
      "--allow-write=/h/.cursor/mcp.json,/h/b,/h/t",
      "/opt/r/install.ts",
      "install",
      "--client",
      "cursor",
    ],
  );
  const fromBinary = applyCommand({
    source: { kind: "binary", path: "/bin/codex-relay" },
    action: "uninstall",
    args: ["--client", "codex"],
    ...files,
  });
  assert.deepEqual(fromBinary.slice(0, 5), [
    "deno",
    "run",
    "--no-prompt",
    "--quiet",
    ...installEnvFlags(),
  ]);
  assert.equal(fromBinary[7], `jsr:@codex-relay/cli@${denoJson.version}/install`);
  // uninstall registers nothing: it refuses --binary and --bundle.
  assert.deepEqual(fromBinary.slice(8), ["uninstall", "--client", "codex"]);
  const installBinary = applyCommand({
    source: { kind: "binary", path: "/bin/codex-relay" },
    action: "install",
    args: ["--client", "codex"],
    ...files,
  });
  assert.deepEqual(installBinary.slice(-2), ["--binary", "/bin/codex-relay"]);
  const fromBundle = applyCommand({
    source: { kind: "bundle", path: "/n/dist/codex-relay.js" },
    running: { kind: "bundle", path: "/n/dist/codex-relay.js" },
    deno: "/n/deno",
    action: "install",
    args: ["--client", "codex"],
    ...files,
  });
  assert.deepEqual(fromBundle.slice(0, 4), ["/n/deno", "run", "--no-prompt", "--quiet"]);
  assert.ok(!fromBundle.some((w) => w.startsWith("jsr:")), "a bundle brings its installer");
  assert.deepEqual(fromBundle.slice(-6), [
    "/n/dist/codex-relay-install.js",
    "install",
    "--client",
    "codex",
    "--bundle",
    "/n/dist/codex-relay.js",
  ]);
  assert.throws(
    () =>
      applyCommand({
        source: { kind: "jsr", version: "1" },
        action: "install",
        args: [],
        read: ["/a,b"],
        write: [],
      }),
    /comma/,
  );
});

Deno.test("detectSource() tells a binary, JSR, a checkout and a bundle apart", () => {
  assert.deepEqual(
    detectSource(
      "file:///tmp/deno-compile-x/src/cli/install.ts",
      "/usr/local/bin/codex-relay",
      "file:///x",
    ),
    { kind: "binary", path: "/usr/local/bin/codex-relay" },
  );
  assert.deepEqual(
    detectSource(
      "https://jsr.io/@codex-relay/cli/0.4.0/src/cli/install.ts",
      "/bin/deno",
      "https://jsr.io/x",
    ),
    { kind: "jsr", version: "0.4.0" },
  );
  assert.deepEqual(
    detectSource(
      "file:///opt/my%20relay/src/cli/install.ts",
      "/bin/deno",
      "file:///opt/my%20relay/mod.ts",
    ),
    { kind: "checkout", root: "/opt/my relay" },
  );
  assert.deepEqual(
    detectSource(
      "file:///opt/relay/install.ts",
      "C:\\deno\\deno.exe",
      "file:///opt/relay/install.ts",
    ),
    { kind: "checkout", root: "/opt/relay" },
  );
  assert.deepEqual(
    detectSource("file:///d/codex-relay.js", "/bin/deno", "file:///d/codex-relay.js"),
    { kind: "bundle", path: "/d/codex-relay.js" },
  );
});

Deno.test("shellQuote() quotes only what the shell would split or expand", () => {
  assert.equal(shellQuote("--allow-env=PATH,HOME"), "--allow-env=PATH,HOME");
  assert.equal(
    shellQuote("/Users/me/Library/Application Support/Claude/x.json"),
    "'/Users/me/Library/Application Support/Claude/x.json'",
  );
  assert.equal(shellQuote("it's", "linux"), `'it'\\''s'`);
  assert.equal(shellQuote('{"a":1}', "linux"), `'{"a":1}'`);
  assert.equal(shellQuote("C:\\Program Files\\x", "windows"), '"C:\\Program Files\\x"');
  assert.equal(commandLine(["deno", "run", "a b"], "linux"), "deno run 'a b'");
});

Deno.test("parseInstallArgs() reads the install command line strictly", () => {
  const a = parseInstallArgs([
    "--client",
    "vscode",
    "--scope",
    "project",
    "--allow-turn-start",
    "-y",
  ]);
  assert.deepEqual(
    [a.action, a.client, a.scope, a.turnStart, a.replyRead, a.yes, a.dryRun, a.force],
    ["install", "vscode", "project", true, false, true, false, false],
  );
  // The flags of the first step travel into the printed command, --yes included.
  assert.deepEqual(passOnArgs(a), [
    "--client",
    "vscode",
    "--scope",
    "project",
    "--allow-turn-start",
    "--yes",
  ]);
  assert.deepEqual(
    passOnArgs(parseInstallArgs(["--client", "cursor", "--dry-run", "--force", "--print"])),
    ["--client", "cursor", "--force", "--dry-run"],
  );
  assert.equal(parseInstallArgs(["uninstall", "--client", "codex"]).action, "uninstall");
  assert.equal(
    parseInstallArgs(["install", "--client", "codex", "--binary", "/x/relay"]).binary,
    "/x/relay",
  );
  const bad: [string[], RegExp][] = [
    [[], /Missing --client/],
    [["--client", "emacs"], /Unknown client 'emacs'/],
    [["--client", "cursor", "--client", "codex"], /given more than once/],
    [["--client", "cursor", "--scope", "global"], /--scope must be user or project/],
    [["--client", "cursor", "--frobnicate"], /Unknown flag '--frobnicate'/],
    [["reinstall", "--client", "cursor"], /Unknown command 'reinstall'/],
    [["install", "extra", "--client", "cursor"], /Unexpected argument 'extra'/],
    [["uninstall", "--client", "cursor", "--allow-reply-read"], /not an option of uninstall/],
    [["--client", "cursor", "--binary", "relay"], /absolute path/],
    [["--client", "cursor", "--binary", "/a", "--bundle", "/b"], /one of --binary, --bundle/],
    [["--client", "cursor", "--bundle", "/b", "--npx"], /one of --binary, --bundle and --npx/],
    [["uninstall", "--client", "cursor", "--npx"], /--npx is not an option of uninstall/],
  ];
  assert.deepEqual(passOnArgs(parseInstallArgs(["--client", "cursor", "--npx"])), [
    "--client",
    "cursor",
    "--npx",
  ]);
  for (const [args, message] of bad) {
    assert.throws(
      () => parseInstallArgs(args),
      (e: unknown) => e instanceof UsageError && e.code === 64 && message.test(e.message),
      args.join(" "),
    );
  }
});

Deno.test("every way of starting the relay caps V8's old space the same way", async () => {
  assert.match(
    RELAY_V8_FLAGS,
    /^--v8-flags=--max-old-space-size=\d+,--max-semi-space-size=\d+,--enable-experimental-regexp-engine$/,
  );
  assert.ok(denoJson.tasks.start.split(" ").includes(RELAY_V8_FLAGS), denoJson.tasks.start);
  const { compileArgs } = await import("../../scripts/compile.ts");
  assert.ok(compileArgs("x86_64-unknown-linux-gnu").includes(RELAY_V8_FLAGS), "deno compile");
  for (
    const source of [
      { kind: "checkout", root: "/opt/relay" },
      { kind: "jsr", version: "1.2.3" },
      { kind: "bundle", path: "/d/relay.js" },
    ] as const
  ) {
    const args = serveLauncher(source, "/bin/deno", flags).args;
    assert.equal(args.filter((a) => a === RELAY_V8_FLAGS).length, 1, source.kind);
    assert.ok(
      args.indexOf(RELAY_V8_FLAGS) < args.indexOf("serve") - 1,
      "a deno flag, not a script arg",
    );
  }
});

Deno.test("cliCommand(): the command that runs the relay's CLI from each source (a checkout has no codex-relay)", () => {
  assert.deepEqual(cliCommand({ kind: "checkout", root: "/opt/relay" }), [
    "deno",
    "run",
    "-P",
    "--no-prompt",
    "--quiet",
    "--config",
    "/opt/relay/deno.json",
    "/opt/relay/mod.ts",
  ]);
  assert.deepEqual(cliCommand({ kind: "binary", path: "/usr/local/bin/codex-relay" }), [
    "/usr/local/bin/codex-relay",
  ]);
  const jsr = cliCommand({ kind: "jsr", version: "1.2.3" });
  assert.deepEqual(jsr.slice(0, 4), ["deno", "run", "--no-prompt", "--quiet"]);
  assert.equal(jsr.at(-1), "jsr:@codex-relay/cli@1.2.3");
  assert.ok(!jsr.includes(RELAY_V8_FLAGS) && !jsr.includes("serve"));
});

Deno.test("providerKeyVars(): the providers' env_key variables of a Codex config, sorted, once; none for bad TOML", () => {
  const toml = '[model_providers.b]\nenv_key = "B_KEY"\n[model_providers.a]\nenv_key = "A_KEY"\n' +
    '[model_providers.c]\nenv_key = "A_KEY"\n[model_providers.d]\nenv_key = "NOT A NAME"\n' +
    '[model_providers.e]\nbase_url = "http://x"\n';
  assert.deepEqual(providerKeyVars(toml), ["A_KEY", "B_KEY"]);
  assert.deepEqual(providerKeyVars(null), []);
  assert.deepEqual(providerKeyVars("model = ["), []);
  assert.deepEqual(providerKeyVars('model = "x"\n'), []);
});

Deno.test("keyNote(): what install says of the providers' keys, per client; nothing without keys", () => {
  const target = (client: ClientId) => resolveTarget(client, "user", TARGET_ENV);
  assert.equal(keyNote(target("cursor"), []), undefined);
  assert.match(
    keyNote(target("cursor"), ["AZURE_KEY"])!,
    /passes AZURE_KEY from Cursor's environment \("AZURE_KEY": "\$\{env:AZURE_KEY\}"; no value is written\)/,
  );
  assert.match(keyNote(target("vscode"), ["A", "B"])!, /"A": "\$\{env:A\}", "B": "\$\{env:B\}"/);
  assert.match(
    keyNote(target("claude-code"), ["AZURE_KEY"])!,
    /Claude Code starts codex-relay with its own environment, so AZURE_KEY reaches it when set where Claude Code starts/,
  );
  assert.match(
    keyNote(target("claude-desktop"), ["AZURE_KEY"])!,
    /takes only literal values.*add "AZURE_KEY": "<its value>" to the "env" of the codex-relay entry in \/h\/\.config\/Claude\/claude_desktop_config\.json yourself/,
  );
  assert.match(keyNote(target("codex"), ["AZURE_KEY"])!, /names AZURE_KEY in env_vars/);
});

Deno.test("entryKeyState(): how an entry gives the relay a key variable, per client", () => {
  assert.equal(entryKeyState("reference", { env: { K: "${env:K}" } }, "K"), "referenced");
  assert.equal(entryKeyState("reference", { env: {} }, "K"), "missing");
  assert.equal(entryKeyState("reference", { env: { K: "${K}" } }, "K"), "unexpanded");
  assert.equal(entryKeyState("literal", { env: { K: "sk-1" } }, "K"), "set");
  assert.equal(entryKeyState("literal", { env: { K: "${env:K}" } }, "K"), "unexpanded");
  assert.equal(entryKeyState("literal", { env: { K: "" } }, "K"), "missing");
  assert.equal(entryKeyState("literal", {}, "K"), "missing");
  assert.equal(entryKeyState("inherited", { env: {} }, "K"), "inherited");
  assert.equal(entryKeyState("inherited", { env: { K: "${K}" } }, "K"), "referenced");
  assert.equal(entryKeyState("env_vars", { env_vars: ["K"] }, "K"), "passed");
  assert.equal(entryKeyState("env_vars", { env_vars: [] }, "K"), "missing");
});

Deno.test("an npx entry runs the npm package of this version, whose launcher grants the set", () => {
  assert.deepEqual(
    startCommand(
      { kind: "npx", version: "1.2.3" },
      { replyRead: true, turnStart: true, worktrees: true },
      "/ignored/deno",
      "/opt/codex",
      "/usr/bin/git",
    ),
    [
      "npx",
      "-y",
      "codex-relay@1.2.3",
      "serve",
      "--allow-reply-read",
      "--allow-turn-start",
      "--allow-worktrees",
      "--codex",
      "/opt/codex",
      "--git",
      "/usr/bin/git",
    ],
  );
});
