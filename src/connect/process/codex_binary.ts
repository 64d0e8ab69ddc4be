/**
 * Which Codex executable to run, found the way a shell finds `codex` (each
 * PATH folder in order; on Windows each PATHEXT extension in each folder),
 * then, when that is npm's wrapper (the `bin/codex.js` Node script, its
 * symlink, or the `codex.cmd`/sh shim npm writes beside it), the native
 * binary that wrapper would start: its platform package, found as
 * `@openai/codex/bin/codex.js` finds it (Node's module lookup from the
 * script's real folder, else the package's own `vendor/`). Pure: every look
 * at the file system goes through an injected {@linkcode FsView}, so the
 * resolution is tested over simulated layouts of every platform.
 *
 * The resolver never picks something that would need `cmd.exe`: a batch file
 * that is not npm's shim, or npm's shim whose native binary is missing, is
 * reported as not runnable, never run.
 * @module
 */

/** What the resolver may ask of the file system (nothing else; all synchronous). */
export interface FsView {
  /** What is at `path`, following symlinks; `unreadable` when it may not be looked at. */
  kind(path: string): "file" | "dir" | "missing" | "unreadable";
  /** The path with every symlink resolved, or `null` (missing or not readable). */
  realPath(path: string): string | null;
  /** The first few KiB of a small text file (a shim), or `null`. */
  head(path: string): string | null;
}

/** Where to look: the platform and the environment of the relay. */
export interface CodexQuery {
  /** `Deno.build.os`. */
  os: string;
  /** `Deno.build.arch` (`x86_64` or `aarch64`). */
  arch: string;
  /** The PATH value (undefined: unset). */
  path?: string;
  /** The PATHEXT value (Windows; undefined: cmd.exe's default). */
  pathext?: string;
  /** The binary the user named (an absolute path), looked at instead of PATH. */
  chosen?: string;
}

/** npm's wrapper and the native binary it would start. */
export interface NpmWrapper {
  /** The file found (the symlink, `codex.js`, or the shim). */
  found: string;
  /** `bin/codex.js` with every symlink resolved. */
  script: string;
  /** The platform package (`@openai/codex-linux-x64`, ...). */
  platformPackage: string;
}

/** The answer: one of these, never a flag combination. */
export type CodexBinary =
  /** A native executable to run by its path (from PATH or the user's choice). */
  | { kind: "direct"; path: string; from: "path" | "chosen" }
  /** npm's wrapper was found; `path` is the native binary it would start. */
  | { kind: "native"; path: string; from: "path" | "chosen"; wrapper: NpmWrapper }
  /** npm's wrapper without its native binary (the platform package is missing or unreadable). */
  | { kind: "wrapperOnly"; found: string; from: "path" | "chosen"; reason: string }
  /** Something that cannot be run without a shell or an interpreter (a batch file, a script). */
  | { kind: "notRunnable"; found: string; from: "path" | "chosen"; reason: string }
  /** Nothing named codex on PATH (or the chosen file is missing). */
  | { kind: "notFound"; reason: string };

/** cmd.exe's PATHEXT when the variable is unset. */
export const DEFAULT_PATHEXT = ".COM;.EXE;.BAT;.CMD";

/** npm's platform package of each target triple, as `bin/codex.js` names them. */
export const PLATFORM_PACKAGE_BY_TARGET: Readonly<Record<string, string>> = {
  "x86_64-unknown-linux-musl": "@openai/codex-linux-x64",
  "aarch64-unknown-linux-musl": "@openai/codex-linux-arm64",
  "x86_64-apple-darwin": "@openai/codex-darwin-x64",
  "aarch64-apple-darwin": "@openai/codex-darwin-arm64",
  "x86_64-pc-windows-msvc": "@openai/codex-win32-x64",
  "aarch64-pc-windows-msvc": "@openai/codex-win32-arm64",
};

/** The target triple `bin/codex.js` picks on `os`/`arch`, or `null` (unsupported). */
export function targetTriple(os: string, arch: string): string | null {
  const cpu = arch === "x86_64" ? "x86_64" : arch === "aarch64" ? "aarch64" : null;
  if (cpu === null) return null;
  if (os === "linux" || os === "android") return `${cpu}-unknown-linux-musl`;
  if (os === "darwin") return `${cpu}-apple-darwin`;
  if (os === "windows") return `${cpu}-pc-windows-msvc`;
  return null;
}

/**
 * Resolves the Codex executable for `query` over `fs`.
 *
 * @example npm's global install on Linux
 * ```ts ignore
 * const r = resolveCodexBinary({ os: "linux", arch: "x86_64", path: "/usr/bin" }, view);
 * // r.kind === "native", r.path === "/usr/lib/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex"
 * ```
 */
export function resolveCodexBinary(query: CodexQuery, fs: FsView): CodexBinary {
  if (query.chosen !== undefined) return classify(query.chosen, "chosen", query, fs);
  const found = searchPath(query, fs);
  if (typeof found !== "string") return found;
  return classify(found, "path", query, fs);
}

/**
 * What is wrong with `value` as a binary to run by name (`serve --codex`, the
 * library's `codex` option), or `undefined`: it must be absolute (never
 * relative to the current folder), nameable in an `--allow-run=` list (no
 * comma), and not a batch file (Windows runs those through cmd.exe).
 *
 * @example
 * ```ts ignore
 * codexPathProblem("codex"); // "needs an absolute path (got 'codex')"
 * ```
 */
export function codexPathProblem(value: string): string | undefined {
  if (!/^(\/|[A-Za-z]:[\\/]|\\\\)/.test(value)) {
    return `needs an absolute path (got '${value.length > 80 ? `${value.slice(0, 80)}…` : value}')`;
  }
  // deno-lint-ignore no-control-regex
  if (/[,\u0000-\u001f\u007f]/.test(value)) {
    return "the path has a comma or a control character, which a Deno --allow-run list cannot name";
  }
  if (/\.(cmd|bat)$/i.test(value)) {
    return "names a batch file, which only cmd.exe runs: name the codex.exe it starts (codex-relay install finds it)";
  }
  return undefined;
}

/** One sentence saying what was found and why it is (or is not) what runs. */
export function explainCodexBinary(binary: CodexBinary): string {
  const named = (from: "path" | "chosen") => from === "chosen" ? "named by --codex" : "on PATH";
  switch (binary.kind) {
    case "direct":
      return `${binary.path} (${named(binary.from)}, a native executable)`;
    case "native":
      return `${binary.path}: the native binary npm's wrapper ${binary.wrapper.found} (${
        named(binary.from)
      }) would start, from its package ${binary.wrapper.platformPackage} (no Node in between)`;
    case "wrapperOnly":
    case "notRunnable":
      return `${binary.found} (${named(binary.from)}): ${binary.reason}`;
    case "notFound":
      return binary.reason;
  }
}

/**
 * The folders a resolution of `query` reads in the usual npm layouts: each
 * absolute PATH folder (and the chosen binary's), npm's global packages
 * beside it (`<prefix>/lib/node_modules` for `<prefix>/bin`; on Windows they
 * are inside the folder) and a project's `node_modules` for its
 * `node_modules/.bin`. What `install` asks read permission on; a package
 * reached through a symlink elsewhere is then reported as unreadable.
 *
 * @example
 * ```ts ignore
 * lookupFolders({ os: "linux", arch: "x86_64", path: "/usr/bin" }); // ["/usr/bin", "/usr/lib/node_modules"]
 * ```
 */
export function lookupFolders(query: CodexQuery): string[] {
  const win = windows(query);
  const dirs = query.chosen !== undefined
    ? [dirname(query.chosen, win)]
    : (query.path ?? "").split(win ? ";" : ":").map((d) => win ? d.replace(/^"(.*)"$/, "$1") : d);
  const out = new Set<string>();
  for (const dir of dirs) {
    if (dir === "" || !isAbsolute(dir, win)) continue;
    const folder = join(dir, ".", win);
    out.add(folder);
    if (/[\\/]node_modules[\\/]\.bin$/i.test(folder)) out.add(dirname(folder, win));
    else if (!win && folder.endsWith("/bin")) out.add(join(folder, "../lib/node_modules", win));
  }
  return [...out];
}

function windows(query: CodexQuery): boolean {
  return query.os === "windows";
}

/** The first `codex` a shell would find, or why there is none. */
function searchPath(query: CodexQuery, fs: FsView): string | CodexBinary {
  const win = windows(query);
  const dirs = (query.path ?? "").split(win ? ";" : ":")
    // An empty entry means the current folder: a shell may run from there, the relay never does.
    .map((d) => win ? d.replace(/^"(.*)"$/, "$1") : d)
    .filter((d) => d !== "" && isAbsolute(d, win));
  const exts = win
    ? (query.pathext ?? DEFAULT_PATHEXT).split(";").filter((e) => e.startsWith("."))
    : [""];
  let unreadable = 0;
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = join(dir, `codex${ext.toLowerCase()}`, win);
      const kind = fs.kind(candidate);
      if (kind === "file") return candidate;
      if (kind === "unreadable") unreadable++;
    }
  }
  const where = `PATH=${query.path ?? "(unset)"}${win ? `, PATHEXT=${exts.join(";")}` : ""}`;
  return {
    kind: "notFound",
    reason: unreadable > 0
      ? `codex could not be looked for in ${unreadable} place(s) (no read permission there; ${where})`
      : `no codex on ${where}`,
  };
}

/** What `file` is: a native executable, npm's wrapper (followed), or not runnable. */
function classify(
  file: string,
  from: "path" | "chosen",
  query: CodexQuery,
  fs: FsView,
): CodexBinary {
  const win = windows(query);
  const kind = fs.kind(file);
  if (kind !== "file") {
    return {
      kind: "notFound",
      reason: kind === "unreadable"
        ? `${file} could not be looked at (no read permission)`
        : `${file} does not exist`,
    };
  }
  const script = wrapperScript(file, win, fs);
  if (script !== null) return followWrapper(file, script, from, query, fs);
  const ext = extension(file);
  if (win && ext !== ".exe" && ext !== ".com") {
    return {
      kind: "notRunnable",
      found: file,
      from,
      reason: ext === ".cmd" || ext === ".bat"
        ? "a batch file that is not npm's shim of @openai/codex; codex-relay never runs codex through cmd.exe"
        : "not an .exe: Windows cannot start it without an interpreter",
    };
  }
  return { kind: "direct", path: file, from };
}

/** `bin/codex.js` of the `@openai/codex` package `file` is or starts, or `null`. */
function wrapperScript(file: string, win: boolean, fs: FsView): string | null {
  const real = fs.realPath(file) ?? file;
  if (isCodexScript(real)) return real;
  const ext = extension(file);
  // A shim is a small text file: npm's `codex.cmd` on Windows, a package manager's sh script.
  if (win && ext !== ".cmd" && ext !== ".bat") return null;
  const text = fs.head(real);
  if (text === null) return null;
  // cmd-shim: "%dp0%\node_modules\@openai\codex\bin\codex.js"; sh shims: "$basedir/../...".
  const m = text.match(
    /"(?:%~?dp0%?|\$basedir)[\\/]?([^"]*?@openai[\\/]codex[\\/]bin[\\/]codex\.js)"/,
  );
  if (m === null) return null;
  const target = join(dirname(file, win), m[1], win);
  const resolved = fs.realPath(target);
  return resolved !== null && isCodexScript(resolved) ? resolved : null;
}

function isCodexScript(path: string): boolean {
  return /[\\/]@openai[\\/]codex[\\/]bin[\\/]codex\.js$/.test(path);
}

/** The native binary `bin/codex.js` at `script` would start, exactly as it finds it. */
function followWrapper(
  found: string,
  script: string,
  from: "path" | "chosen",
  query: CodexQuery,
  fs: FsView,
): CodexBinary {
  const win = windows(query);
  const triple = targetTriple(query.os, query.arch);
  const pkg = triple === null ? undefined : PLATFORM_PACKAGE_BY_TARGET[triple];
  if (triple === null || pkg === undefined) {
    return {
      kind: "wrapperOnly",
      found,
      from,
      reason: `npm's Node wrapper; Codex ships no native binary for ${query.os} ${query.arch}`,
    };
  }
  const scriptDir = dirname(script, win);
  let vendorRoot = join(scriptDir, "../vendor", win);
  for (const modules of nodeModulePaths(scriptDir, win)) {
    const manifest = join(modules, `${pkg}/package.json`, win);
    const seen = fs.kind(manifest);
    if (seen === "unreadable") return unseen(found, from, manifest);
    if (seen !== "file") continue;
    vendorRoot = join(dirname(fs.realPath(manifest) ?? manifest, win), "vendor", win);
    break;
  }
  const exe = join(vendorRoot, `${triple}/bin/${win ? "codex.exe" : "codex"}`, win);
  const kind = fs.kind(exe);
  if (kind === "file") {
    return { kind: "native", path: exe, from, wrapper: { found, script, platformPackage: pkg } };
  }
  if (kind === "unreadable") return unseen(found, from, exe);
  return {
    kind: "wrapperOnly",
    found,
    from,
    reason:
      `npm's Node wrapper, and its platform package ${pkg} is missing (${exe} does not exist): reinstall Codex (npm install -g @openai/codex@latest)`,
  };
}

function unseen(found: string, from: "path" | "chosen", path: string): CodexBinary {
  return {
    kind: "wrapperOnly",
    found,
    from,
    reason:
      `npm's Node wrapper; where its native binary is could not be told: ${path} could not be looked at (no read permission)`,
  };
}

/** Node's `Module._nodeModulePaths(from)`: `<dir>/node_modules` for `from` and each parent not named node_modules. */
export function nodeModulePaths(from: string, win: boolean): string[] {
  const parts = split(from, win);
  const out: string[] = [];
  for (let i = parts.segments.length; i >= 0; i--) {
    const segs = parts.segments.slice(0, i);
    if (segs.length > 0 && segs[segs.length - 1] === "node_modules") continue;
    out.push(assemble(parts.root, [...segs, "node_modules"], win));
  }
  return out;
}

function isAbsolute(path: string, win: boolean): boolean {
  return win ? /^([A-Za-z]:[\\/]|\\\\)/.test(path) : path.startsWith("/");
}

function extension(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot <= 0 ? "" : base.slice(dot).toLowerCase();
}

function split(path: string, win: boolean): { root: string; segments: string[] } {
  const m = win ? path.match(/^([A-Za-z]:[\\/]|\\\\[^\\/]+[\\/][^\\/]+[\\/]?)/) : null;
  const root = win ? (m ? m[1].replace(/\//g, "\\") : "") : path.startsWith("/") ? "/" : "";
  const rest = path.slice(win && m ? m[1].length : root.length);
  const segments: string[] = [];
  for (const s of rest.split(win ? /[\\/]/ : "/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") segments.pop();
    else segments.push(s);
  }
  return { root, segments };
}

function assemble(root: string, segments: string[], win: boolean): string {
  const sep = win ? "\\" : "/";
  const r = win && root !== "" && !/[\\/]$/.test(root) ? root + sep : root;
  return r + segments.join(sep);
}

/** `rel` (with `/` or `\`) under `dir`, normalized (`.` and `..` resolved). */
function join(dir: string, rel: string, win: boolean): string {
  const { root, segments } = split(`${dir}${win ? "\\" : "/"}${rel}`, win);
  return assemble(root, segments, win);
}

function dirname(path: string, win: boolean): string {
  return join(path, "..", win);
}
