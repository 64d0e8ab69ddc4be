/**
 * Maps app-server JSON-RPC errors to reason codes, from the codes and
 * messages Codex 0.169 was observed to send (see the protocol captures).
 * @module
 */

import { type ReasonCode, RelayError } from "../core/errors.ts";

interface Rule {
  code?: number;
  pattern: RegExp;
  reason: ReasonCode;
}

const RULES: readonly Rule[] = [
  { pattern: /requires experimentalApi capability/, reason: "experimental_unavailable" },
  { pattern: /already has an active writer/, reason: "held_elsewhere" },
  { pattern: /^thread not loaded:/, reason: "thread_not_found" },
  { pattern: /^thread not found:/, reason: "thread_not_found" },
  { pattern: /no rollout found for thread id/, reason: "thread_not_found" },
  { pattern: /^invalid thread id:/, reason: "thread_not_found" },
  { code: -32601, pattern: /is not supported yet/, reason: "legacy_history" },
  { pattern: /^invalid cursor:/, reason: "invalid_cursor" },
  { pattern: /^invalid queue pagination cursor/, reason: "invalid_cursor" },
  { pattern: /cursor\.itemId does not identify an item/, reason: "invalid_cursor" },
  { code: -32001, pattern: /./, reason: "busy" },
  { pattern: /^Invalid request: unknown variant/, reason: "experimental_unavailable" },
  // account/rateLimits/read, account/usage/read with an API-key login (0.171, transcripts 24, 26).
  { code: -32600, pattern: /authentication required/, reason: "account_required" },
];

/**
 * Turns an app-server `error` object into a {@linkcode RelayError}. The frame
 * was written (the server answered it), so `written` is true. The app-server's
 * message is kept only up to 200 characters and never includes message text
 * (the relay never sends text in fields the server echoes in errors).
 */
export function mapRpcError(method: string, error: unknown): RelayError {
  const e = typeof error === "object" && error !== null ? error as Record<string, unknown> : {};
  const code = typeof e.code === "number" ? e.code : undefined;
  const message = typeof e.message === "string" ? e.message : "";
  const rule = RULES.find((r) =>
    (r.code === undefined || r.code === code) && r.pattern.test(message)
  );
  const reason = rule?.reason ?? "rpc_error";
  const shown = message.length > 200 ? `${message.slice(0, 200)}…` : message;
  return new RelayError(reason, `${method} failed (${code ?? "no code"}): ${shown}`, {
    written: true,
    rpcCode: code,
  });
}
