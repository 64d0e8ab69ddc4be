/**
 * The project's Deno permission sets (deno.json `permissions`) and the
 * command-line flags that grant exactly the same: every way of starting the
 * relay without `-P` (the JSR one-liner, the bundle, the printed install
 * commands) derives its flags from here, never from a hand-written copy.
 * @module
 */

import denoJson from "../../deno.json" with { type: "json" };

/** One permission's value in a deno.json permission set. */
export type PermissionValue =
  | boolean
  | string[]
  | { allow?: boolean | string[]; deny?: boolean | string[]; ignore?: boolean | string[] };

/** A deno.json permission set (the subset of keys Deno accepts). */
export interface PermissionSet {
  /** `-A`. */
  all?: boolean;
  /** Subprocesses. */
  run?: PermissionValue;
  /** Environment variables. */
  env?: PermissionValue;
  /** File reads (paths relative to the config file's folder). */
  read?: PermissionValue;
  /** File writes (paths relative to the config file's folder). */
  write?: PermissionValue;
  /** Network. */
  net?: PermissionValue;
  /** OS information. */
  sys?: PermissionValue;
  /** Dynamic libraries (paths relative to the config file's folder). */
  ffi?: PermissionValue;
  /** Remote imports. */
  import?: PermissionValue;
}

/** The permission kinds, in the order flags are written. */
export const PERMISSION_KINDS = [
  "run",
  "env",
  "read",
  "write",
  "net",
  "sys",
  "ffi",
  "import",
] as const;

/** A permission kind. */
export type PermissionKind = typeof PERMISSION_KINDS[number];

const PATH_KINDS: ReadonlySet<PermissionKind> = new Set(["read", "write", "ffi"]);

const sets = denoJson.permissions as unknown as Record<string, PermissionSet>;

/** The relay's own set (`permissions.default`): what `serve` and `doctor` run with. */
export const RELAY_PERMISSIONS: PermissionSet = sets.default;

/**
 * `set` with its run grant of `codex` (the name Deno looks up on PATH at
 * start-up) replaced by `codex`, an absolute path: what a start line that
 * runs a resolved Codex binary grants.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(withCodex({ run: ["codex", "/bin/kill"] }, "/opt/codex").run, [
 *   "/opt/codex",
 *   "/bin/kill",
 * ]);
 * ```
 */
export function withCodex(set: PermissionSet, codex: string): PermissionSet {
  const run = Array.isArray(set.run) ? set.run.map((c) => c === "codex" ? codex : c) : set.run;
  return { ...set, run };
}

/** The install entry's set (`permissions.install`); file access comes from flags. */
export const INSTALL_PERMISSIONS: PermissionSet = sets.install;

/**
 * Every `(kind, mode, grant)` a set gives, in a fixed order; `false` grants are left out.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual([...grants({ run: ["codex"], net: false })], [["run", "allow", ["codex"]]]);
 * ```
 */
export function* grants(
  set: PermissionSet,
): Generator<[(typeof PERMISSION_KINDS)[number], "allow" | "deny" | "ignore", true | string[]]> {
  for (const kind of PERMISSION_KINDS) {
    const value = set[kind];
    if (value === undefined) continue;
    const parts = typeof value === "object" && !Array.isArray(value)
      ? value
      : { allow: value as boolean | string[] };
    for (const mode of ["allow", "deny", "ignore"] as const) {
      const part = parts[mode];
      if (part !== undefined && part !== false) yield [kind, mode, part];
    }
  }
}

/**
 * The `--allow-*`, `--deny-*` and `--ignore-*` flags that grant what `set`
 * grants. Relative paths of file kinds are made absolute against
 * `configDir` (Deno resolves them against the config file's folder).
 */
export function permissionFlags(set: PermissionSet, configDir?: string): string[] {
  if (set.all === true) return ["--allow-all"];
  const flags: string[] = [];
  for (const [kind, mode, part] of grants(set)) {
    if (part === true) {
      flags.push(`--${mode}-${kind}`);
      continue;
    }
    if (part.length === 0) continue;
    const items = PATH_KINDS.has(kind) && configDir
      ? part.map((p) => absolutePath(p, configDir))
      : part;
    flags.push(`--${mode}-${kind}=${items.join(",")}`);
  }
  return flags;
}

function absolutePath(path: string, base: string): string {
  if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\")) return path;
  const sep = base.includes("\\") && !base.includes("/") ? "\\" : "/";
  const trimmed = path.replace(/^\.[\\/]/, "");
  return trimmed === "." || trimmed === "" ? base : `${base.replace(/[\\/]$/, "")}${sep}${trimmed}`;
}
