/**
 * The key variables of the model providers a Codex config names
 * (`[model_providers.NAME] env_key = "VAR"`): Codex starts MCP servers with
 * only a few variables of its own environment, so its entry for the relay
 * names these in `env_vars`, or the relay's Codex would fail every turn of
 * such a provider ("Missing environment variable"); the other clients' entries
 * give them as the client allows ({@link KeyRoute}). Pure, no I/O.
 * @module
 */

import { parse } from "smol-toml";
import { keyReference, type KeyRoute, type Target } from "./clients.ts";

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * The `env_key` variables of the providers in `configToml` (a Codex
 * `config.toml`; `null`: no file), sorted, each once; none when the text is
 * not TOML (the edit reports that itself).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const toml = '[model_providers.azure]\nenv_key = "AZURE_OPENAI_API_KEY"\n';
 * assert.deepEqual(providerKeyVars(toml), ["AZURE_OPENAI_API_KEY"]);
 * ```
 */
export function providerKeyVars(configToml: string | null): string[] {
  if (configToml === null) return [];
  let config: Record<string, unknown>;
  try {
    config = parse(configToml);
  } catch {
    return [];
  }
  const providers = config.model_providers;
  if (typeof providers !== "object" || providers === null) return [];
  const names = new Set<string>();
  for (const provider of Object.values(providers)) {
    const key = (provider as { env_key?: unknown } | null)?.env_key;
    if (typeof key === "string" && VAR_NAME.test(key)) names.add(key);
  }
  return [...names].sort();
}

/**
 * What an install says about the providers' key variables `vars` for
 * `target` (`undefined`: nothing to say): how the entry gives them to the
 * relay, or, where the client cannot be told (Claude Desktop), what the user
 * sets. Never a value.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const target = {
 *   client: "cursor",
 *   label: "Cursor",
 *   keyRoute: "reference",
 *   path: "/h/.cursor/mcp.json",
 * } as const;
 * assert.match(keyNote(target, ["AZURE_KEY"]) ?? "", /passes AZURE_KEY from Cursor's environment/);
 * ```
 */
export function keyNote(
  target: Pick<Target, "client" | "label" | "keyRoute" | "path">,
  vars: readonly string[],
): string | undefined {
  if (vars.length === 0) return undefined;
  const names = vars.join(", ");
  switch (target.keyRoute) {
    case "env_vars":
      return `Provider keys: the entry names ${names} in env_vars, so Codex passes ${
        vars.length === 1 ? "it" : "them"
      } on when set`;
    case "inherited":
      return `Provider keys: ${target.label} starts codex-relay with its own environment, so ${names} ${
        vars.length === 1 ? "reaches" : "reach"
      } it when set where ${target.label} starts (nothing is written for ${
        vars.length === 1 ? "it" : "them"
      })`;
    case "reference":
      return `Provider keys: the entry passes ${names} from ${target.label}'s environment (${
        vars.map((v) => `"${v}": "${keyReference(v)}"`).join(", ")
      }; no value is written)`;
    case "literal":
      return `Provider keys: ${target.label} starts codex-relay without your shell's environment and takes only literal values, so install cannot pass ${names}: add ${
        vars.map((v) => `"${v}": "<its value>"`).join(", ")
      } to the "env" of the codex-relay entry in ${target.path} yourself (install never writes a key's value, and keeps ${
        vars.length === 1 ? "it" : "them"
      } when it writes the entry again)`;
  }
}

/**
 * How a client's entry gives the relay the key variable `name`:
 * `passed` (named in Codex's `env_vars`), `inherited` (the client passes its
 * whole environment), `referenced` (`${env:NAME}`, resolved from the
 * client's environment), `set` (a value in the entry's `env`: never read
 * out), `unexpanded` (a reference the client does not expand, passed as
 * text), or `missing`. Pure.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(entryKeyState("literal", { env: {} }, "AZURE_KEY"), "missing");
 * ```
 */
export function entryKeyState(
  route: KeyRoute,
  entry: unknown,
  name: string,
): "passed" | "inherited" | "referenced" | "set" | "unexpanded" | "missing" {
  const e = (typeof entry === "object" && entry !== null ? entry : {}) as {
    env?: unknown;
    env_vars?: unknown;
  };
  const env = typeof e.env === "object" && e.env !== null ? e.env as Record<string, unknown> : {};
  const value = env[name];
  if (typeof value === "string" && value !== "") {
    if (!/\$\{/.test(value)) return "set";
    if (route === "reference" && value === keyReference(name)) return "referenced";
    return route === "inherited" && /^\$\{[A-Za-z_]\w*(:-[^}]*)?\}$/.test(value)
      ? "referenced"
      : "unexpanded";
  }
  if (route === "inherited") return "inherited";
  if (route === "env_vars" && Array.isArray(e.env_vars) && e.env_vars.includes(name)) {
    return "passed";
  }
  return "missing";
}
