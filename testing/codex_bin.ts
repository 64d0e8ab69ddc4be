/**
 * Which `codex` binary the end-to-end tests and the bench run: env `CODEX_BIN`, the repo's
 * `.codex-npm` install, or `codex` on PATH, preferring the native binary inside the npm package;
 * {@link codexForTests} makes a test file skip visibly (or fail, with `CODEX_E2E_REQUIRED=1`)
 * when there is none.
 * @module
 */

import { resolveCodexBinary } from "../src/connect/process/codex_binary.ts";
import { denoFsView } from "../src/connect/process/codex_binary_fs.ts";
import { ROOT } from "./paths.ts";

/** Where the codex binary was found. */
export interface CodexBinInfo {
  /** What to spawn (the native binary when it could be located). */
  path: string;
  /** The npm wrapper (`.bin/codex` → `codex.js`) it was derived from, if any. */
  wrapper: string | null;
  /** Which rule found it. */
  source: "CODEX_BIN" | "repo .codex-npm" | "PATH";
  /** True when `path` is the platform binary, not the Node wrapper. */
  native: boolean;
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function onPath(name: string): string | null {
  const sep = Deno.build.os === "windows" ? ";" : ":";
  for (const dir of (Deno.env.get("PATH") ?? "").split(sep)) {
    if (dir && isFile(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return null;
}

/**
 * Given a path to `codex` (npm `.bin` link, `codex.js`, or a native binary), returns the native
 * binary inside the npm package when it can be found, else null.
 */
export function nativeCodexFor(path: string): string | null {
  // The relay's own resolution (what `codex-relay install` registers), not a copy of it.
  const r = resolveCodexBinary(
    { os: Deno.build.os, arch: Deno.build.arch, chosen: path },
    denoFsView(),
  );
  return r.kind === "native" ? r.path : null;
}

/**
 * Resolves the codex binary: env `CODEX_BIN`, else `<repo>/.codex-npm/node_modules/.bin/codex`,
 * else `codex` on PATH. Prefers the native binary inside the npm package (about half the
 * spawn time and 44 MB less RSS than the Node wrapper). Null when none is found.
 */
export function resolveCodexBinInfo(): CodexBinInfo | null {
  let found: string | null = null;
  let source: CodexBinInfo["source"] = "PATH";
  const env = Deno.env.get("CODEX_BIN");
  if (env) {
    found = env.includes("/") ? (isFile(env) ? env : null) : onPath(env);
    source = "CODEX_BIN";
    if (!found) return null; // an explicit but broken CODEX_BIN must not silently fall back
  }
  if (!found) {
    const repoBin = `${ROOT}/.codex-npm/node_modules/.bin/codex`;
    if (isFile(repoBin)) {
      found = repoBin;
      source = "repo .codex-npm";
    }
  }
  if (!found) {
    found = onPath("codex");
    source = "PATH";
  }
  if (!found) return null;
  const native = nativeCodexFor(found);
  if (native) return { path: native, wrapper: found, source, native: true };
  let real = found;
  try {
    real = Deno.realPathSync(found);
  } catch { /* keep found */ }
  return { path: found, wrapper: null, source, native: !real.endsWith(".js") };
}

/** Path of the codex binary to spawn, or null when none is installed (see {@link resolveCodexBinInfo}). */
export function resolveCodexBin(): string | null {
  return resolveCodexBinInfo()?.path ?? null;
}

/**
 * The codex binary for an e2e test file, or null when none is installed. When null, prints a
 * visible `SKIPPED: ...` line (the file's tests are then registered as ignored), unless env
 * `CODEX_E2E_REQUIRED=1` (set by `.ci/run`): then it registers a failing test instead, so a run
 * where codex is missing can never pass as if the e2e suite had run.
 */
export function codexForTests(file: string): CodexBinInfo | null {
  const info = resolveCodexBinInfo();
  if (info) return info;
  const why = "codex not installed (set CODEX_BIN, or install it into .codex-npm/)";
  if (Deno.env.get("CODEX_E2E_REQUIRED") === "1") {
    Deno.test(`${file}: codex is required (CODEX_E2E_REQUIRED=1)`, () => {
      throw new Error(`${why}; the e2e suite cannot run`);
    });
  } else {
    // deno-lint-ignore no-console
    console.error(`SKIPPED: ${why} — ${file} runs no test`);
  }
  return null;
}
