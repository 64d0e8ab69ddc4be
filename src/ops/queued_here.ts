/**
 * The messages this relay process queued (`codex_queue_message`,
 * `codex_run`): the only ones `codex_withdraw_message` deletes. A thread's
 * queue also holds messages the user queued from Codex itself, or another
 * client did; their ids are not the relay's to delete. The record lives in
 * memory (the relay reads no files): a message a previous relay process
 * queued can no longer be withdrawn by this one, and runs as queued.
 * @module
 */

/** How many queued messages are remembered; the oldest are forgotten first. */
export const QUEUED_HERE_LIMIT = 10_000;

/** Bounded record of (thread, clientMessageId) pairs this process may have stored. */
export class QueuedHere {
  readonly #keys = new Set<string>();
  readonly #limit: number;

  constructor(limit = QUEUED_HERE_LIMIT) {
    this.#limit = limit;
  }

  /** Records a message that was (or may have been) stored in the thread's queue. */
  record(threadId: string, clientMessageId: string): void {
    const key = keyOf(threadId, clientMessageId);
    this.#keys.delete(key);
    this.#keys.add(key);
    if (this.#keys.size > this.#limit) {
      const oldest = this.#keys.values().next().value;
      if (oldest !== undefined) this.#keys.delete(oldest);
    }
  }

  /** Whether this process queued `clientMessageId` into the thread (a canonical id). */
  has(threadId: string, clientMessageId: string): boolean {
    return this.#keys.has(keyOf(threadId, clientMessageId));
  }
}

function keyOf(threadId: string, clientMessageId: string): string {
  return `${threadId}\n${clientMessageId}`;
}
