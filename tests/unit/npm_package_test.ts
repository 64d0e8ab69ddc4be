/**
 * The npm package's pure parts (scripts/npm_package.ts): `server.json` and
 * the MCPB manifest validate against the registry's and MCPB's published
 * schemas (copies in testing/registry/), the committed `server.json` is the
 * generated one, and the launcher's command lines are the installed entry's.
 */

import assert from "assert";
import { Ajv2020 } from "ajv";
import {
  launchSpec,
  mainPackageJson,
  mcpbManifest,
  platformPackageJson,
  platformPackageName,
  PLATFORMS,
  REGISTRY_NAME,
  serverJson,
} from "../../scripts/npm_package.ts";
import { TARGETS } from "../../scripts/compile.ts";
import { RELAY_V8_FLAGS, relayFlags, startCommand } from "../../src/install/launch.ts";
import { VERSION } from "../../src/core/version.ts";

const root = new URL("../../", import.meta.url);

/** A validator for a draft-07 schema file of testing/registry/ (formats: `uri` and `email`). */
async function validator(name: string) {
  const schema = JSON.parse(await Deno.readTextFile(new URL(`testing/registry/${name}`, root)));
  // The published schemas are draft-07; their keywords here mean the same under 2020-12.
  const ajv = new Ajv2020({ strict: false, validateSchema: false, allErrors: true });
  ajv.addFormat("uri", (s: string) => URL.canParse(s));
  ajv.addFormat("email", /^[^@\s]+@[^@\s]+$/);
  return ajv.compile(schema);
}

Deno.test("server.json validates against the MCP Registry's schema, and a broken one does not", async () => {
  const validate = await validator("server.schema.json");
  assert.ok(validate(serverJson()), JSON.stringify(validate.errors));
  const bad = serverJson();
  bad.packages[0] = { ...bad.packages[0], version: "latest" };
  assert.ok(!validate(bad), "a 'latest' version is refused");
  assert.ok(!validate({ ...serverJson(), name: "no-namespace" }), "a name needs a namespace");
  assert.ok(!validate({ ...serverJson(), description: "x".repeat(101) }), "100 characters at most");
});

Deno.test("the committed server.json is the generated one (npm, npx, stdio, the levels)", async () => {
  const committed = JSON.parse(await Deno.readTextFile(new URL("server.json", root)));
  assert.deepEqual(committed, serverJson(), "regenerate: deno task npm --server-json");
  const [pkg] = committed.packages;
  assert.deepEqual(
    [pkg.registryType, pkg.identifier, pkg.version, pkg.runtimeHint, pkg.transport.type],
    ["npm", "codex-relay", VERSION, "npx", "stdio"],
  );
  assert.deepEqual(
    pkg.packageArguments.map((a: { name?: string; value?: string }) => a.name ?? a.value),
    ["serve", "--allow-reply-read", "--allow-turn-start", "--allow-worktrees"],
  );
  assert.ok(pkg.environmentVariables.some((v: { name: string }) => v.name === "CODEX_HOME"));
  assert.equal(mainPackageJson().mcpName, REGISTRY_NAME, "npm ties the package to the entry");
});

Deno.test("the MCPB manifest validates against MCPB's 0.3 schema and runs the binary", async () => {
  const validate = await validator("mcpb-manifest-v0.3.schema.json");
  const manifest = mcpbManifest();
  assert.ok(validate(manifest), JSON.stringify(validate.errors));
  assert.ok(!validate({ ...manifest, server: { type: "binary" } }), "a server needs its command");
  const server = manifest.server as { type: string; mcp_config: { args: string[] } };
  assert.equal(server.type, "binary");
  assert.deepEqual(server.mcp_config.args, ["serve"]);
});

Deno.test("launchSpec() is the bundle entry's command line with its paths left to fill", () => {
  const spec = launchSpec();
  const entry = startCommand(
    { kind: "bundle", path: "/b.js" },
    {
      replyRead: false,
      turnStart: false,
    },
    "/deno",
    "/c",
  );
  const filled = spec.serve.map((w) =>
    w.replace("@DENO@", "/deno").replace("@BUNDLE@", "/b.js").replace("@CODEX@", "/c")
  );
  assert.deepEqual([...filled, "serve", "--codex", "/c"], entry);
  assert.ok(spec.serve.includes(RELAY_V8_FLAGS));
  assert.ok(!spec.cli.includes(RELAY_V8_FLAGS), "the CLI's other commands run without the caps");
  const worktrees = spec.serveWorktrees.map((w) => w.replace("@CODEX@", "codex"));
  assert.ok(worktrees.includes(relayFlags("codex", "@GIT@")[0]), "worktrees add git's grant");
  assert.ok(!spec.serve.join(" ").includes("@GIT@"));
  assert.ok(!spec.serve.some((w) => w === "-A" || w.startsWith("--allow-all")));
});

Deno.test("one platform package per compiled target, each for its os and cpu only", () => {
  const optional = mainPackageJson().optionalDependencies as Record<string, string>;
  assert.equal(Object.keys(optional).length, TARGETS.length);
  for (const target of TARGETS) {
    const pkg = platformPackageJson(target);
    assert.equal(optional[pkg.name as string], VERSION);
    assert.deepEqual(pkg.os, [PLATFORMS[target].os]);
    assert.deepEqual(pkg.cpu, [PLATFORMS[target].cpu]);
    const key = `${PLATFORMS[target].os}-${PLATFORMS[target].cpu}`;
    assert.equal(launchSpec().binaries[key].package, platformPackageName(target));
  }
  assert.deepEqual(mainPackageJson().dependencies, { deno: "2.9.6" });
  assert.equal(mainPackageJson().scripts, undefined, "no install script");
});
