import assert from "assert";
import {
  CLIENTS,
  isMarked,
  MARKER,
  resolveTarget,
  type TargetEnv,
} from "../../src/install/clients.ts";
import { UsageError } from "../../src/core/usage_error.ts";
import { dedupePath, entryEnv } from "../../src/install/entry_env.ts";

function env(os: TargetEnv["os"], vars: Record<string, string>, cwd = "/work/proj"): TargetEnv {
  return { os, cwd, get: (name) => vars[name] };
}

const linux = env("linux", { HOME: "/home/me" });
const mac = env("darwin", { HOME: "/Users/me" });
const win = env("windows", {
  USERPROFILE: "C:\\Users\\me",
  APPDATA: "C:\\Users\\me\\AppData\\Roaming",
}, "C:\\src\\proj");

Deno.test("resolveTarget() finds each client's user config on Linux, macOS and Windows", () => {
  const expected: Record<string, [string, string, string]> = {
    "claude-code": [
      "/home/me/.claude.json",
      "/Users/me/.claude.json",
      "C:\\Users\\me\\.claude.json",
    ],
    "claude-desktop": [
      "/home/me/.config/Claude/claude_desktop_config.json",
      "/Users/me/Library/Application Support/Claude/claude_desktop_config.json",
      "C:\\Users\\me\\AppData\\Roaming\\Claude\\claude_desktop_config.json",
    ],
    cursor: [
      "/home/me/.cursor/mcp.json",
      "/Users/me/.cursor/mcp.json",
      "C:\\Users\\me\\.cursor\\mcp.json",
    ],
    vscode: [
      "/home/me/.config/Code/User/mcp.json",
      "/Users/me/Library/Application Support/Code/User/mcp.json",
      "C:\\Users\\me\\AppData\\Roaming\\Code\\User\\mcp.json",
    ],
    codex: [
      "/home/me/.codex/config.toml",
      "/Users/me/.codex/config.toml",
      "C:\\Users\\me\\.codex\\config.toml",
    ],
  };
  for (const client of CLIENTS) {
    const paths = [linux, mac, win].map((e) => resolveTarget(client, "user", e).path);
    assert.deepEqual(paths, expected[client], client);
  }
});

Deno.test("resolveTarget() honours CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME and CODEX_HOME", () => {
  const e = env("linux", {
    HOME: "/home/me",
    CLAUDE_CONFIG_DIR: "/cfg/claude",
    XDG_CONFIG_HOME: "/xdg",
    CODEX_HOME: "/data/codex",
  });
  assert.equal(resolveTarget("claude-code", "user", e).path, "/cfg/claude/.claude.json");
  assert.equal(
    resolveTarget("claude-desktop", "user", e).path,
    "/xdg/Claude/claude_desktop_config.json",
  );
  assert.equal(resolveTarget("vscode", "user", e).path, "/xdg/Code/User/mcp.json");
  assert.equal(resolveTarget("codex", "user", e).path, "/data/codex/config.toml");
});

Deno.test("resolveTarget() puts project scope files in the current folder, in each client's shape", () => {
  const t = (c: (typeof CLIENTS)[number]) => resolveTarget(c, "project", linux);
  assert.equal(t("claude-code").path, "/work/proj/.mcp.json");
  assert.equal(t("cursor").path, "/work/proj/.cursor/mcp.json");
  assert.equal(t("vscode").path, "/work/proj/.vscode/mcp.json");
  assert.equal(t("codex").path, "/work/proj/.codex/config.toml");
  assert.equal(resolveTarget("vscode", "project", win).path, "C:\\src\\proj\\.vscode\\mcp.json");
  assert.throws(
    () => t("claude-desktop"),
    (e: unknown) => e instanceof UsageError && /no project scope/.test(e.message),
  );
});

Deno.test("each client's entry has its own shape and carries the marker", () => {
  const launcher = { command: "/bin/deno", args: ["run", "x"] };
  const env = { [MARKER.name]: MARKER.value };
  const shape = (c: (typeof CLIENTS)[number]) => resolveTarget(c, "user", linux);
  assert.deepEqual(shape("vscode").container, ["servers"]);
  assert.deepEqual(shape("vscode").entry(launcher), { type: "stdio", ...launcher, env });
  assert.deepEqual(shape("claude-code").entry(launcher), { type: "stdio", ...launcher, env });
  assert.deepEqual(shape("claude-desktop").entry(launcher), { ...launcher, env });
  assert.deepEqual(shape("cursor").entry(launcher), { ...launcher, env });
  assert.equal(shape("codex").format, "toml");
  for (const c of CLIENTS) assert.ok(isMarked(shape(c).entry(launcher)), c);
  assert.ok(!isMarked({ command: "x" }));
  assert.ok(!isMarked({ command: "x", env: { [MARKER.name]: "0" } }));
});

Deno.test("resolveTarget() without a home folder is a clear error", () => {
  assert.throws(
    () => resolveTarget("cursor", "user", env("linux", {})),
    (e: unknown) => e instanceof UsageError && e.code === 78 && /HOME/.test(e.message),
  );
  assert.throws(
    () => resolveTarget("vscode", "user", env("windows", { USERPROFILE: "C:\\u" })),
    (e: unknown) => e instanceof UsageError && /APPDATA/.test(e.message),
  );
});

Deno.test("a Codex entry names each variable once: one it sets in env (DENO_DIR) is not in env_vars too", () => {
  const codex = resolveTarget("codex", "user", linux);
  const launcher = { command: "/bin/deno", args: ["run"], env: { DENO_DIR: "/cache/deno" } };
  const entry = codex.entry(launcher) as { env: Record<string, string>; env_vars: string[] };
  assert.equal(entry.env.DENO_DIR, "/cache/deno");
  assert.deepEqual(entry.env_vars, [
    "CODEX_HOME",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "XDG_CACHE_HOME",
  ]);
  const plain = codex.entry({ command: "/bin/deno", args: [] }) as { env_vars: string[] };
  assert.ok(plain.env_vars.includes("DENO_DIR"), "passed through when the entry does not set it");
});

Deno.test("a GUI entry's PATH lists each folder once, in the order a lookup finds them", () => {
  const cursor = resolveTarget("cursor", "user", linux);
  const vars: Record<string, string> = {
    PATH: "/a/bin:/usr/bin:/a/bin::/usr/bin/:/b",
  };
  const got = entryEnv(cursor, { kind: "checkout", root: "/r" }, (n) => vars[n], "linux");
  assert.equal(got.PATH, "/a/bin:/usr/bin:/b");
  assert.equal(dedupePath("C:\\A;c:\\a\\;D:\\x;;C:\\A", "windows"), "C:\\A;D:\\x");
});

Deno.test("each client's entry hands on the providers' key variables as the client allows, never a value", () => {
  const launcher = {
    command: "/usr/bin/deno",
    args: ["run"],
    env: { PATH: "/usr/bin" },
    passEnv: ["AZURE_OPENAI_API_KEY"],
  };
  const entryEnv = (client: typeof CLIENTS[number], l = launcher) =>
    (resolveTarget(client, "user", linux).entry(l) as { env: Record<string, string> }).env;
  const base = { [MARKER.name]: MARKER.value, PATH: "/usr/bin" };
  // Cursor and VS Code resolve ${env:NAME} from their own environment.
  for (const client of ["cursor", "vscode"] as const) {
    assert.deepEqual(entryEnv(client), {
      ...base,
      AZURE_OPENAI_API_KEY: "${env:AZURE_OPENAI_API_KEY}",
    }, client);
    assert.deepEqual(entryEnv(client, { ...launcher, passEnv: [] }), base, `${client}: no keys`);
  }
  // Claude Code passes its whole environment; Claude Desktop takes only literal values.
  assert.deepEqual(entryEnv("claude-code"), base);
  assert.deepEqual(entryEnv("claude-desktop"), base);
  const codex = resolveTarget("codex", "user", linux).entry(launcher) as { env_vars: string[] };
  assert.ok(codex.env_vars.includes("AZURE_OPENAI_API_KEY"));
  assert.deepEqual(
    CLIENTS.map((c) => resolveTarget(c, "user", linux).keyRoute),
    ["inherited", "literal", "reference", "reference", "env_vars"],
  );
});
