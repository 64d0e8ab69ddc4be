/**
 * Which `codex` binary the end-to-end tests and the bench run: env `CODEX_BIN`, the repo's
 * `.codex-npm` install, or `codex` on PATH, preferring the native binary inside the npm package;
 * {@link codexForTests} makes a test file skip visibly (or fail, with `CODEX_E2E_REQUIRED=1`)
 * when there is none.
 * @module
 */

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

const TRIPLES: Record<string, { pkg: string; triple: string }> = {
  "linux-x86_64": { pkg: "codex-linux-x64", triple: "x86_64-unknown-linux-musl" },
  "linux-aarch64": { pkg: "codex-linux-arm64", triple: "aarch64-unknown-linux-musl" },
  "darwin-x86_64": { pkg: "codex-darwin-x64", triple: "x86_64-apple-darwin" },
  "darwin-aarch64": { pkg: "codex-darwin-arm64", triple: "aarch64-apple-darwin" },
  "windows-x86_64": { pkg: "codex-win32-x64", triple: "x86_64-pc-windows-msvc" },
  "windows-aarch64": { pkg: "codex-win32-arm64", triple: "aarch64-pc-windows-msvc" },
};

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function dirname(p: string): string {
  const i = p.replace(/\/+$/, "").lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
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
  let real: string;
  try {
    real = Deno.realPathSync(path);
  } catch {
    return null;
  }
  if (!real.endsWith(".js")) return null; // already native (or something we do not know)
  const t = TRIPLES[`${Deno.build.os}-${Deno.build.arch}`];
  if (!t) return null;
  const exe = Deno.build.os === "windows" ? "codex.exe" : "codex";
  const pkgRoot = dirname(dirname(real)); // .../node_modules/@openai/codex
  const candidates = [
    `${dirname(pkgRoot)}/${t.pkg}/vendor/${t.triple}/bin/${exe}`, // hoisted (npm)
    `${pkgRoot}/node_modules/@openai/${t.pkg}/vendor/${t.triple}/bin/${exe}`, // nested
    `${pkgRoot}/vendor/${t.triple}/bin/${exe}`, // fallback used by codex.js
  ];
  return candidates.find(isFile) ?? null;
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
