/**
 * The `clientMessageId`s of the messages `codex_run` starts: a random UUID
 * (version 4 form) whose last group begins with a fixed tag, so that a later
 * relay process can tell, in a thread the daemon runs, which running turns a
 * codex-relay started (`codex_list_threads` lists them). The tag says "some
 * codex-relay's `codex_run`", not which process: it is a label, not a
 * credential (anyone may mint such an id). 90 random bits remain.
 * @module
 */

/** The tag: the first 8 hex digits of the last group. */
export const RUN_ID_TAG = "c0de4e1a";

const RUN_ID = new RegExp(
  `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-${RUN_ID_TAG}[0-9a-f]{4}$`,
);

/**
 * A new `clientMessageId` for a message `codex_run` starts.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const id = mintRunId(); // e.g. "1b9d6bcd-bbfd-4b2d-9b5d-c0de4e1a1f0e"
 * assert.equal(isRunId(id), true);
 * ```
 */
export function mintRunId(): string {
  const uuid = crypto.randomUUID();
  return `${uuid.slice(0, 24)}${RUN_ID_TAG}${uuid.slice(32)}`;
}

/** Whether `id` has the form {@linkcode mintRunId} gives (lowercase, tagged). */
export function isRunId(id: string | null | undefined): boolean {
  return typeof id === "string" && RUN_ID.test(id);
}
