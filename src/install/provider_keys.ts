/**
 * The key variables of the model providers a Codex config names
 * (`[model_providers.NAME] env_key = "VAR"`): Codex starts MCP servers with
 * only a few variables of its own environment, so its entry for the relay
 * names these in `env_vars`, or the relay's Codex would fail every turn of
 * such a provider ("Missing environment variable"). Pure, no I/O.
 * @module
 */

import { parse } from "smol-toml";

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * The `env_key` variables of the providers in `configToml` (a Codex
 * `config.toml`; `null`: no file), sorted, each once; none when the text is
 * not TOML (the edit reports that itself).
 *
 * @example
 * ```ts
 * providerKeyVars('[model_providers.azure]\nenv_key = "AZURE_OPENAI_API_KEY"\n'); // ["AZURE_OPENAI_API_KEY"]
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
