/**
 * What `account/read` says about Codex's login, and what to do about a
 * missing one. Codex 0.169 and 0.171 answer `{account: {type, ...} | null,
 * requiresOpenaiAuth, ...}`; `requiresOpenaiAuth: false` is a model provider
 * that needs no OpenAI login (its own key variable, or none). Pure: the
 * environment comes in as a function.
 * @module
 */

/** The variables Codex may take an OpenAI key from (both are in the relay's env set). */
export const KEY_VARIABLES: readonly string[] = ["OPENAI_API_KEY", "CODEX_API_KEY"];

/** How Codex would authenticate a turn, as far as the relay can tell. */
export type LoginState =
  /** Logged in; `how` is the account type (`apiKey`, `chatgpt`, ...). */
  | { kind: "logged_in"; how: string }
  /** The model provider needs no OpenAI login. */
  | { kind: "not_needed" }
  /** No login, but a key variable Codex may use instead is set. */
  | { kind: "key_variable"; name: string }
  /** No login and no key: a turn would fail. */
  | { kind: "not_logged_in" };

/** Reads an `account/read` answer (anything unexpected counts as no account). */
export function loginState(
  answer: unknown,
  env: (name: string) => string | undefined,
): LoginState {
  const r = (typeof answer === "object" && answer !== null ? answer : {}) as {
    account?: { type?: unknown } | null;
    requiresOpenaiAuth?: unknown;
  };
  if (r.account && typeof r.account.type === "string") {
    return { kind: "logged_in", how: r.account.type };
  }
  if (r.requiresOpenaiAuth === false) return { kind: "not_needed" };
  const name = KEY_VARIABLES.find((v) => env(v));
  return name ? { kind: "key_variable", name } : { kind: "not_logged_in" };
}

/** The fix for {@linkcode LoginState} `not_logged_in`, said the same way everywhere. */
export const LOGIN_FIX =
  "run `codex login` in a terminal (or `codex login --with-api-key`), or give the MCP client's entry for codex-relay the model provider's key variable (OPENAI_API_KEY)";
