/**
 * The one source of what a Deno child started by a test or a script inherits
 * when it is started with a cleared environment (`clearEnv: true`): the
 * module cache this process uses (`DENO_DIR`, always set, so a child with a
 * temp HOME finds what `deno task test` cached instead of a cold
 * `$HOME/.cache/deno`) and, when set, the cache, certificate and proxy
 * variables. Children also run with {@linkcode CACHED_ONLY}, so a module
 * missing from that cache is one clear error naming it, never a download.
 * @module
 */

/** Variables passed to every Deno child when this process has them. */
export const PASSED_TO_CHILDREN: readonly string[] = [
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "DENO_AUTH_TOKENS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "NODE_EXTRA_CA_CERTS",
  "NPM_CONFIG_REGISTRY",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "ALL_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "all_proxy",
  "no_proxy",
  // Windows: a process without it cannot load its system libraries (sockets, TLS).
  "SystemRoot",
];

/** The `deno run` flag that keeps a child off the network for modules. */
export const CACHED_ONLY = "--cached-only";

/**
 * The variables of {@linkcode PASSED_TO_CHILDREN} that `lookup` has (pure:
 * `lookup` answers `undefined` for a variable that is unset or not readable).
 */
export function passedVariables(
  lookup: (name: string) => string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of PASSED_TO_CHILDREN) {
    const value = lookup(name);
    if (value !== undefined && value !== "") env[name] = value;
  }
  return env;
}

/** This process's variable `name`, or `undefined` when unset or not granted to read. */
function readable(name: string): string | undefined {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    return undefined;
  }
  return Deno.env.get(name);
}

let cacheDir: string | undefined;

/**
 * The module cache this process uses: `DENO_DIR` when set, else the one
 * `deno info --json` reports (derived from XDG_CACHE_HOME / HOME by Deno).
 */
export function denoCacheDir(): string {
  if (cacheDir) return cacheDir;
  const fromEnv = readable("DENO_DIR");
  if (fromEnv) return (cacheDir = fromEnv);
  // Under a narrow permission set (`run: ["deno"]`) the running binary may only be allowed by name.
  const self = Deno.permissions.querySync({ name: "run", command: Deno.execPath() }).state;
  const out = new Deno.Command(self === "granted" ? Deno.execPath() : "deno", {
    args: ["info", "--json"],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).outputSync();
  const text = new TextDecoder().decode(out.stdout);
  let info: { denoDir?: unknown } = {};
  try {
    info = JSON.parse(text);
  } catch {
    // Reported below.
  }
  if (!out.success || typeof info.denoDir !== "string") {
    throw new Error(
      `deno info --json gave no module cache folder (exit ${out.code}): ${
        new TextDecoder().decode(out.stderr)
      }`,
    );
  }
  return (cacheDir = info.denoDir);
}

/**
 * The environment of a Deno child started with `clearEnv: true`: the passed
 * variables of this process, `DENO_DIR` set to this process's module cache,
 * then `env` on top (a test may set any of them on purpose).
 */
export function denoChildEnv(env: Record<string, string> = {}): Record<string, string> {
  return { ...passedVariables(readable), DENO_DIR: denoCacheDir(), ...env };
}

/**
 * `args` of a `deno run` with {@linkcode CACHED_ONLY} right after `run`
 * (unchanged when it is there already or the command is not `run`).
 */
export function cachedOnly(args: readonly string[]): string[] {
  if (args[0] !== "run" || args.includes(CACHED_ONLY)) return [...args];
  return ["run", CACHED_ONLY, ...args.slice(1)];
}

/**
 * Runs `deno args` ({@linkcode cachedOnly}) with only `env`, this process's
 * PATH and the module cache's variables, in `env.HOME`, stdin closed; resolves
 * with its exit code and output (an install or doctor line as a user runs it).
 */
export async function runDeno(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: cachedOnly(args),
    env: denoChildEnv({ PATH: Deno.env.get("PATH") ?? "", ...env }),
    clearEnv: true,
    cwd: env.HOME,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}
