/**
 * The environment of the processes the relay starts (`codex app-server`,
 * `codex --version`, `codex doctor`): the environment the MCP client gave
 * the relay, inherited as a whole, so a model provider's own key variable
 * (`env_key`), proxies, CA bundles and toolchain variables reach Codex and
 * its shell commands. A Deno child inherits without the parent reading
 * anything, so this needs no env permission: the relay itself still reads
 * only its own list (`permissions.default.env`).
 *
 * One exception: Deno refuses to spawn under a restricted run permission
 * while a loader variable (`LD_*`, `DYLD_*`) with a value would reach the
 * child, and the relay may not read the environment to find them. Deno's
 * refusal names them, so the spawn is tried once more with those set empty
 * (an empty value is allowed, and loads nothing); the names are remembered
 * for later spawns and reported (one stderr line, and `doctor`).
 * @module
 */

/** How a child gets its environment. */
export interface ChildEnv {
  /** Whether the child inherits the relay's environment (else it gets exactly `env`). */
  inherit: boolean;
  /** Variables set for the child (over the inherited ones when `inherit`). */
  env: Record<string, string>;
}

/** The production environment: everything the relay was given, nothing added. */
export const INHERITED: ChildEnv = Object.freeze({ inherit: true, env: Object.freeze({}) });

/** Deno 2's refusal: "... spawn subprocess with LD_A, DYLD_B environment variables. ...". */
const REFUSAL = /spawn subprocess with (.+?) environment variables?\. Alternatively/;
const LOADER = /^(LD_|DYLD_)/;

/**
 * The loader variables Deno's refusal `error` names (a `NotCapable` error),
 * or an empty list when it is another error.
 */
export function refusedLoaderVars(error: unknown): string[] {
  if (!(error instanceof Deno.errors.NotCapable)) return [];
  const m = REFUSAL.exec(error.message);
  if (!m) return [];
  const names = m[1].split(", ").map((n) => n.trim());
  return names.every((n) => LOADER.test(n)) ? names : [];
}

/** Loader variables found set in this process's environment (it does not change). */
const blanked = new Set<string>();

/** The loader variables the relay's environment holds, as far as spawns have found them. */
export function blankedLoaderVars(): string[] {
  return [...blanked].sort();
}

/** The options of a child with `childEnv`, loader variables found so far set empty. */
function withEnv(options: Deno.CommandOptions, childEnv: ChildEnv): Deno.CommandOptions {
  if (!childEnv.inherit) return { ...options, env: { ...childEnv.env }, clearEnv: true };
  const env: Record<string, string> = {};
  for (const name of blanked) env[name] = "";
  return { ...options, env: { ...env, ...childEnv.env }, clearEnv: false };
}

/**
 * Spawns `command` with `childEnv`. When Deno refuses because of loader
 * variables the inherited environment holds, spawns once more with them set
 * empty; `found` lists the names this call found (for the caller to report).
 * Any other error is thrown as Deno threw it.
 */
export function spawnChild(
  command: string,
  options: Deno.CommandOptions,
  childEnv: ChildEnv,
): { child: Deno.ChildProcess; found: string[] } {
  try {
    return { child: new Deno.Command(command, withEnv(options, childEnv)).spawn(), found: [] };
  } catch (error) {
    const names = childEnv.inherit ? refusedLoaderVars(error) : [];
    const found = names.filter((n) => !blanked.has(n));
    if (found.length === 0) throw error;
    for (const n of found) blanked.add(n);
    return { child: new Deno.Command(command, withEnv(options, childEnv)).spawn(), found };
  }
}

/** The one stderr line that names loader variables Codex gets empty. */
export function loaderVarsNote(names: readonly string[]): string {
  return `${names.join(", ")} ${
    names.length === 1 ? "is" : "are"
  } set in codex-relay's environment: Deno does not pass loader variables (LD_*, DYLD_*) to the processes codex-relay starts, so Codex gets ${
    names.length === 1 ? "it" : "them"
  } empty`;
}
