/**
 * `deno task bundle`: builds `dist/codex-relay.js`, the whole relay in one
 * file (and its installer, `dist/codex-relay-install.js`) (`deno bundle`, works offline once the npm packages are cached), and
 * prints the command that runs it with exactly the relay's permission set.
 * It stands in for the compiled binary where `deno compile` cannot run.
 *
 * Usage: deno task bundle [--out FILE]
 * @module
 */

import { bundleServeCommand, commandLine, installerBundle } from "../src/install/launch.ts";

/** The repository root. */
const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/**
 * Bundles `mod.ts` into `out` (an absolute path) and `install.ts` beside it
 * (`installerBundle(out)`: an install from the bundle needs no download);
 * `deno` is the Deno executable to use.
 */
export async function buildBundle(out: string, deno = "deno"): Promise<void> {
  await bundleOne(`${ROOT}/mod.ts`, out, deno);
  await bundleOne(`${ROOT}/install.ts`, installerBundle(out), deno);
}

async function bundleOne(entry: string, out: string, deno: string): Promise<void> {
  const result = await new Deno.Command(deno, {
    args: ["bundle", "--quiet", "--platform", "deno", "--output", out, entry],
    cwd: ROOT,
    stdin: "null",
    stdout: "inherit",
    stderr: "piped",
  }).output();
  if (!result.success) {
    const stderr = new TextDecoder().decode(result.stderr).trim();
    throw new Error(`deno bundle failed (exit ${result.code}): ${stderr.slice(-2000)}`);
  }
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--out");
  const out = i >= 0 ? Deno.args[i + 1] : `${ROOT}/dist/codex-relay.js`;
  if (!out || (Deno.args.length !== 0 && Deno.args.length !== 2)) {
    console.error("usage: deno task bundle [--out FILE]");
    Deno.exit(64);
  }
  await Deno.mkdir(out.replace(/\/[^/]*$/, "") || ".", { recursive: true });
  try {
    await buildBundle(out);
  } catch (error) {
    console.error(`bundle: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
  console.log(`Built ${out}. Run it with exactly the relay's permissions:\n`);
  console.log(`  ${commandLine(bundleServeCommand(out))}\n`);
}
