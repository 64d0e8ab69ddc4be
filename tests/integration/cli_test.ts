import assert from "assert";
import { entryArgs, ROOT } from "../../testing/relay.ts";
import { FixtureHome } from "../../testing/fixture_home.ts";
import denoJson from "../../deno.json" with { type: "json" };
import { CACHED_ONLY, denoChildEnv } from "../../testing/child_env.ts";

/** Runs the real entry point under the relay's permission set with exactly these arguments. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: entryArgs(args, { cachedOnly: true }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: denoChildEnv({ HOME: Deno.env.get("HOME") ?? "/", PATH: "/usr/bin:/bin" }),
  }).output();
  const d = new TextDecoder();
  return { code: out.code, stdout: d.decode(out.stdout), stderr: d.decode(out.stderr) };
}

Deno.test("codex-relay --version prints the deno.json version", async () => {
  const r = await cli("--version");
  assert.equal(r.code, 0);
  assert.equal(r.stdout, `codex-relay ${denoJson.version}\n`);
});

Deno.test("codex-relay --help prints usage on stdout and exits 0", async () => {
  const r = await cli("--help");
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^codex-relay \S+: an MCP server/);
  assert.match(r.stdout, /--allow-reply-read/);
});

Deno.test("codex-relay help is a command: the same text as --help; help install shows the install options", async () => {
  const help = await cli("help");
  assert.equal(help.code, 0, help.stderr);
  assert.equal(help.stdout, (await cli("--help")).stdout);
  const install = await cli("help", "install");
  assert.equal(install.code, 0);
  assert.match(install.stdout, /--dry-run +Show the change, write nothing/);
});

Deno.test("help serve, help doctor and help uninstall each print their own text, with their options", async () => {
  const general = (await cli("help")).stdout;
  const texts: Record<string, string> = {};
  for (const topic of ["serve", "doctor", "install", "uninstall"]) {
    const r = await cli("help", topic);
    assert.equal(r.code, 0, r.stderr);
    assert.notEqual(r.stdout, general, `help ${topic} is not the general help`);
    texts[topic] = r.stdout;
  }
  assert.equal(new Set(Object.values(texts)).size, 4, "four different texts");
  assert.match(texts.serve, /^codex-relay \S+ serve: /);
  assert.match(texts.serve, /--disable-codex-mcp-server NAME/);
  assert.match(texts.doctor, /^codex-relay \S+ doctor: /);
  assert.match(texts.doctor, /--app-server MODE/);
  assert.doesNotMatch(texts.doctor, /--log-level|--auto-approve/, "only doctor's own options");
  assert.match(texts.uninstall, /uninstall --client CLIENT/);
  assert.doesNotMatch(texts.uninstall, /--allow-reply-read|--binary/, "only uninstall's options");
  // The same texts through --help.
  assert.equal((await cli("serve", "--help")).stdout, texts.serve);
  assert.equal((await cli("doctor", "--help")).stdout, texts.doctor);
  assert.equal((await cli("uninstall", "--help")).stdout, texts.uninstall);
});

Deno.test("help uninstall and help install name a command this checkout has; the README says how to uninstall (issue 47)", async () => {
  for (const topic of ["install", "uninstall"]) {
    const r = await cli("help", topic);
    assert.match(
      r.stdout,
      /^Here codex-relay is this command:\n {2}deno run -P .*\/mod\.ts\n/,
      r.stdout,
    );
    assert.equal((await cli(topic, "--help")).stdout, r.stdout);
  }
  const readme = await Deno.readTextFile(`${ROOT}/README.md`);
  const line = readme.match(
    /sh -c "\$\((deno run -P --no-prompt --quiet mod\.ts uninstall [^)]*)\)"/,
  );
  assert.ok(line, "README.md has an uninstall line");
  // Run as written, in the checkout, from the cache the tests use.
  const printed = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--cached-only", ...line[1].split(" ").slice(2)],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: denoChildEnv({ HOME: "/nonexistent-home", PATH: "/usr/bin:/bin" }),
  }).output();
  const out = new TextDecoder().decode(printed.stdout);
  assert.equal(printed.code, 0, new TextDecoder().decode(printed.stderr));
  assert.match(out, /install\.ts uninstall --client cursor/);
});

Deno.test("the general help lists doctor's options and --allow-turn-start for install", async () => {
  const help = (await cli("help")).stdout;
  assert.match(help, /\nDoctor options:\n {2}--allow-reply-read/);
  const usage = help.slice(
    help.indexOf("codex-relay install"),
    help.indexOf("codex-relay uninstall"),
  );
  assert.match(usage, /\[--allow-reply-read\]/);
  assert.match(usage, /\[--allow-turn-start\]/);
  // Every line but the command codex-relay stands for from a checkout (its paths).
  const lines = help.split("\n").filter((l) => !l.startsWith("  deno run "));
  assert.ok(lines.every((l) => l.length <= 100), "fits 100 columns");
});

const USAGE_ERRORS: [string[], RegExp][] = [
  [
    ["serve", "--allow-reply-reads"],
    /Unknown flag '--allow-reply-reads'; did you mean --allow-reply-read\?/,
  ],
  [["doctor", "--app-sever", "daemon"], /did you mean --app-server\?/],
  [["install", "--client", "cursor", "--dry-runn"], /did you mean --dry-run\?/],
  [
    ["uninstall", "--client", "cursor", "--forse"],
    /^codex-relay uninstall: .*did you mean --force\?/,
  ],
  [[], /^codex-relay: Missing command: give one of serve, doctor, install, uninstall, help$/m],
  [["launch"], /Unknown command 'launch': give one of serve, doctor, install, uninstall, help/],
  [["help", "launch"], /No help for 'launch'/],
  [["install", "--client", "emacs"], /Unknown client 'emacs'/],
  [["serve", "--bogus"], /Unknown flag '--bogus'/],
  [
    ["serve", "--allow-reply-read", "--allow-reply-read"],
    /--allow-reply-read is given more than once/,
  ],
  [["serve", "--log-level", "loud"], /--log-level must be one of/],
  [["serve", "--log-level"], /needs a value/],
  [["serve", "--allow-turn-start", "--disable-codex-mcp-server", "my relay"], /letters, digits/],
  [["serve", "--disable-codex-mcp-server", "x"], /needs --allow-turn-start/],
  [["serve", "--auto-approve-mcp-tools"], /needs --allow-turn-start/],
  [["serve", "extra"], /Unexpected argument 'extra'/],
  [["--version", "serve"], /--version takes no other arguments/],
  [["serve", "--client", "cursor"], /--client is not an option of serve/],
  [["doctor", "--scope", "project"], /--scope needs --client/],
  [["doctor", "--client", "emacs"], /Unknown client 'emacs'/],
];

for (const [args, message] of USAGE_ERRORS) {
  Deno.test(`codex-relay ${args.join(" ") || "(no arguments)"} is a usage error: exit 64, stderr only`, async () => {
    const r = await cli(...args);
    assert.equal(r.code, 64);
    assert.equal(r.stdout, "", "nothing on stdout (the MCP channel)");
    assert.match(r.stderr, message);
    // One line and a hint, not the whole usage.
    const lines = r.stderr.split("\n").filter((l) =>
      l.startsWith("codex-relay") || l.startsWith("Run ")
    );
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[1], /^Run .*(help|--help)/);
    assert.doesNotMatch(r.stderr, /Usage:/);
    assert.ok(!r.stderr.includes("    at "), "no stack trace");
  });
}

Deno.test("codex-relay accepts --disable-codex-mcp-server more than once", async () => {
  // A valid command line starts serving: close stdin at once and expect a clean exit.
  const r = await cli(
    "serve",
    "--allow-turn-start",
    "--disable-codex-mcp-server",
    "a",
    "--disable-codex-mcp-server",
    "b_2",
  );
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "");
});

Deno.test("importing mod.ts runs no command and starts no helper", async () => {
  const f = await FixtureHome.create({ threads: [] });
  try {
    const probe = `${f.home}/import_probe.ts`;
    await Deno.writeTextFile(
      probe,
      `import * as relay from "${ROOT}/mod.ts";\nconsole.log(JSON.stringify(Object.keys(relay).sort()));\n`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-P",
        CACHED_ONLY,
        "--quiet",
        "--config",
        `${ROOT}/deno.json`,
        "--allow-read=" + f.home,
        probe,
      ],
      stdout: "piped",
      stderr: "piped",
      clearEnv: true,
      env: f.env,
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.equal(
      new TextDecoder().decode(out.stdout).trim(),
      JSON.stringify(["VERSION", "main", "serve"]),
    );
    assert.deepEqual(await f.spawned(), [], "no codex was started");
  } finally {
    await f.dispose();
  }
});

Deno.test("serve in a terminal says once on stderr that it serves MCP on stdio; piped, it says nothing", async () => {
  // `script` gives the relay a terminal for stdin, stdout and stderr; EOF (Ctrl-D) ends it.
  const script = await new Deno.Command("script", {
    args: ["--version"],
    stdout: "null",
    stderr: "null",
  })
    .output().then((o) => o.success, () => false);
  if (!script) {
    console.log("SKIPPED: no `script` to give the relay a terminal");
    return;
  }
  const command = ["deno", ...entryArgs(["serve"], { cachedOnly: true })]
    .map((w) => `'${w}'`).join(" ").replace("'deno'", `'${Deno.execPath()}'`);
  const child = new Deno.Command("script", {
    args: ["-q", "-e", "-c", command, "/dev/null"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: denoChildEnv({ HOME: Deno.env.get("HOME") ?? "/", PATH: "/usr/bin:/bin", TERM: "dumb" }),
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode("\x04")); // Ctrl-D: end of input for the relay.
  await writer.close();
  let seen = "";
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) seen += chunk;
  await child.stderr.cancel();
  const status = await child.status;
  assert.equal(status.code, 0, seen);
  assert.equal(seen.split("serving MCP on stdin/stdout").length - 1, 1, seen);
  assert.match(seen, /press Ctrl-D or Ctrl-C to stop/);

  const piped = await cli("serve");
  assert.equal(piped.code, 0);
  assert.doesNotMatch(piped.stderr, /serving MCP/);
});

Deno.test("every deno.json task that selects a permission set is quiet: deno task test prints no 'experimental feature' warning", async () => {
  const tasks = Object.entries(denoJson.tasks as Record<string, string>);
  for (const [name, task] of tasks) {
    for (const command of task.split("&&").map((c) => c.trim())) {
      const words = command.split(/\s+/);
      if (!words.some((w) => w === "-P" || w.startsWith("-P="))) continue;
      assert.ok(words.includes("--quiet"), `deno task ${name}: ${command}`);
    }
  }
  // The test task's own command, on one small file: its report, and no warning.
  const test = denoJson.tasks.test.split("&&").at(-1)!.trim().split(/\s+/);
  assert.deepEqual(test.slice(0, 2), ["deno", "test"]);
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      ...test.slice(1),
      "--config",
      `${ROOT}/deno.json`,
      `${ROOT}/tests/unit/promises_test.ts`,
    ],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: denoChildEnv({ HOME: Deno.env.get("HOME") ?? "/", PATH: "/usr/bin:/bin", NO_COLOR: "1" }),
  }).output();
  const all = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, all);
  assert.match(all, /ok \| \d+ passed \| 0 failed/);
  assert.doesNotMatch(all, /experimental feature/);
});
