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

/** What an `account/read` answer says, as the relay reads it. */
export interface AccountAnswer {
  /** The account's type (`apiKey`, `chatgpt`, ...); null: no account. */
  accountType: string | null;
  /** Whether the model provider needs an OpenAI login; null when not said. */
  requiresOpenaiAuth: boolean | null;
}

/** Reads an `account/read` answer; never fails (anything unexpected counts as no account). */
export function parseAccountRead(answer: unknown): AccountAnswer {
  const r = (typeof answer === "object" && answer !== null ? answer : {}) as {
    account?: { type?: unknown } | null;
    requiresOpenaiAuth?: unknown;
  };
  const type = r.account ? r.account.type : undefined;
  return {
    accountType: typeof type === "string" ? type : null,
    requiresOpenaiAuth: typeof r.requiresOpenaiAuth === "boolean" ? r.requiresOpenaiAuth : null,
  };
}

/** How Codex would authenticate a turn, from its `account/read` answer and the environment. */
export function loginState(
  answer: AccountAnswer,
  env: (name: string) => string | undefined,
): LoginState {
  if (answer.accountType !== null) return { kind: "logged_in", how: answer.accountType };
  if (answer.requiresOpenaiAuth === false) return { kind: "not_needed" };
  const name = KEY_VARIABLES.find((v) => env(v));
  return name ? { kind: "key_variable", name } : { kind: "not_logged_in" };
}

/** The fix for {@linkcode LoginState} `not_logged_in`, said the same way everywhere. */
export const LOGIN_FIX =
  "run `codex login` in a terminal (or `codex login --with-api-key`), or give the MCP client's entry for codex-relay the model provider's key variable (OPENAI_API_KEY)";
