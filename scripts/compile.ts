/**
 * `deno task compile`: builds `dist/codex-relay-<target>` for each release
 * target with `deno compile -P` (the relay's permission set from deno.json,
 * never `-A`). The relay's V8 flags (`RELAY_V8_FLAGS`: its heap caps) are
 * baked into the binary only: `deno compile` would apply them to itself too,
 * and its type check does not fit in the relay's heap, so the code is type
 * checked first by a `deno check` without them, then compiled with
 * `--no-check`. `deno compile` downloads the Deno runtime for each target; on
 * a machine that cannot reach it this fails with a one-line explanation (use
 * `deno task bundle` there; the release workflow builds the binaries).
 *
 * Usage: deno task compile [--target TARGET]
 * @module
 */

import { RELAY_V8_FLAGS } from "../src/install/launch.ts";

/** The release targets. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/**
 * The `deno check` arguments run once before compiling: Deno's own heap, no
 * relay V8 flags.
 *
 * @example
 * ```ts
 * checkArgs("/src/relay"); // ["check", "--quiet", "/src/relay/mod.ts"]
 * ```
 */
export function checkArgs(root = ROOT): string[] {
  return ["check", "--quiet", `${root}/mod.ts`];
}

/**
 * The `deno compile` arguments for one target: already type checked
 * ({@linkcode checkArgs}), so `--no-check`, and the relay's V8 flags, which
 * the binary keeps.
 *
 * @example
 * ```ts
 * compileArgs("x86_64-unknown-linux-gnu", "/tmp/dist").includes("--no-check"); // true
 * ```
 */
export function compileArgs(target: string, outDir = `${ROOT}/dist`): string[] {
  return [
    "compile",
    "-P",
    "--no-prompt",
    "--no-check",
    // Baked into the binary: its heap stays as flat as `deno run`'s.
    RELAY_V8_FLAGS,
    "--target",
    target,
    "--output",
    `${outDir}/codex-relay-${target}`,
    `${ROOT}/mod.ts`,
  ];
}

/** Whether `deno compile`'s error output says the runtime download failed. */
export function isRuntimeDownloadFailure(stderr: string): boolean {
  return /denort|dl\.deno\.land|Setting up base binary/.test(stderr) &&
    /error sending request|dns error|Connect|timed out|failed to download|404|proxy/i.test(stderr);
}

/**
 * The one line printed when the runtime cannot be downloaded.
 *
 * @example
 * ```ts
 * downloadFailureMessage("x86_64-apple-darwin"); // "compile: could not download ..."
 * ```
 */
export function downloadFailureMessage(target: string): string {
  return `compile: could not download the Deno runtime for ${target} (denort, from dl.deno.land); nothing was built. The release workflow builds the binaries; here, deno task bundle builds the one-file bundle (or give a local runtime: DENORT_BIN=/path/to/denort).`;
}

/** Deno's own error, without the Rust stack backtrace it appends. */
export function denoError(stderr: string): string {
  return stderr.split(/\n\s*Stack backtrace:/)[0].trim();
}

async function deno(args: string[]): Promise<{ success: boolean; stderr: string }> {
  const result = await new Deno.Command("deno", {
    args,
    cwd: ROOT,
    stdin: "null",
    stdout: "inherit",
    stderr: "piped",
  }).output();
  return { success: result.success, stderr: new TextDecoder().decode(result.stderr) };
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--target");
  const targets = i >= 0 ? [Deno.args[i + 1]] : [...TARGETS];
  if (targets.some((t) => !(TARGETS as readonly string[]).includes(t))) {
    console.error(`compile: --target must be one of ${TARGETS.join(", ")}`);
    Deno.exit(64);
  }
  console.error("compile: type checking mod.ts");
  const checked = await deno(checkArgs());
  if (!checked.success) {
    console.error(`compile: type check failed; nothing was built.\n${denoError(checked.stderr)}`);
    Deno.exit(1);
  }
  await Deno.mkdir(`${ROOT}/dist`, { recursive: true });
  for (const target of targets) {
    console.error(`compile: ${target}`);
    const result = await deno(compileArgs(target));
    if (!result.success) {
      console.error(
        isRuntimeDownloadFailure(result.stderr)
          ? downloadFailureMessage(target)
          : `compile: deno compile failed for ${target}: ${denoError(result.stderr)}`,
      );
      Deno.exit(1);
    }
  }
  console.error(`compile: built ${targets.map((t) => `dist/codex-relay-${t}`).join(", ")}`);
}
