/**
 * `deno task compile`: builds `dist/codex-relay-<target>` for each release
 * target with `deno compile -P` (the relay's permission set from deno.json,
 * never `-A`). `deno compile` downloads the Deno runtime for each target; on
 * a machine that cannot reach it this fails with an explanation (use
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

/** The `deno compile` arguments for one target. */
export function compileArgs(target: string, outDir = `${ROOT}/dist`): string[] {
  return [
    "compile",
    "-P",
    "--no-prompt",
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
    /error sending request|dns error|Connect|timed out|failed to download|404/i.test(stderr);
}

/** The explanation printed when the runtime cannot be downloaded. */
export function downloadFailureMessage(target: string): string {
  return [
    `compile: deno compile needs the Deno runtime for ${target} (denort, downloaded from dl.deno.land),`,
    "and this machine cannot reach it. Nothing was built.",
    "- Binaries are built by the release workflow (.github/workflows/release.yml) when a v* tag is pushed.",
    "- Here, build the one-file bundle instead: deno task bundle (same code, run with the same permission flags).",
    "- With a denort binary for this platform at hand: DENORT_BIN=/path/to/denort deno task compile --target <this platform>.",
  ].join("\n");
}

if (import.meta.main) {
  const i = Deno.args.indexOf("--target");
  const targets = i >= 0 ? [Deno.args[i + 1]] : [...TARGETS];
  if (targets.some((t) => !(TARGETS as readonly string[]).includes(t))) {
    console.error(`compile: --target must be one of ${TARGETS.join(", ")}`);
    Deno.exit(64);
  }
  await Deno.mkdir(`${ROOT}/dist`, { recursive: true });
  for (const target of targets) {
    console.error(`compile: ${target}`);
    const result = await new Deno.Command("deno", {
      args: compileArgs(target),
      cwd: ROOT,
      stdin: "null",
      stdout: "inherit",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(result.stderr);
    if (!result.success) {
      console.error(isRuntimeDownloadFailure(stderr) ? downloadFailureMessage(target) : stderr);
      Deno.exit(1);
    }
  }
  console.error(`compile: built ${targets.map((t) => `dist/codex-relay-${t}`).join(", ")}`);
}
