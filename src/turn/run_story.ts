/**
 * What a turn runtime tells the client beyond the turn's status: messages
 * queued ahead of its own that its start also started (`queuedAhead`), notes (an answer that counted as a
 * decline, a name that could not be set), and what Codex is doing, in words
 * (the latest of it kept for a running result).
 * Ids and kinds only, never message text or output. Bounded.
 * @module
 */

import type { ItemActivity } from "../codex/validate.ts";
import { activityText, streamErrorText } from "./activity.ts";
import type { QueuedAhead } from "../reply/schemas.ts";

const MAX_AHEAD = 50;
const MAX_NOTES = 20;

/** The story of one run. */
export class RunStory {
  readonly #ahead: QueuedAhead[] = [];
  readonly #notes: string[] = [];
  #latest: string | undefined;

  /** The messages queued ahead of the run's own seen so far. */
  get queuedAhead(): QueuedAhead[] {
    return [...this.#ahead];
  }

  /** Notes so far. */
  get notes(): string[] {
    return [...this.#notes];
  }

  /** Records a message queued ahead; the progress line to send, or undefined when nothing is new. */
  aheadStarted(clientMessageId: string | null, turnId: string | null): string | undefined {
    if (this.#ahead.length >= MAX_AHEAD) return undefined;
    if (this.#ahead.some((e) => e.turnId === turnId && e.clientMessageId === clientMessageId)) {
      return undefined;
    }
    this.#ahead.push({ clientMessageId, turnId });
    return `A message queued ahead of yours runs first${
      clientMessageId ? ` (clientMessageId ${clientMessageId})` : ""
    }`;
  }

  /** Records a note; false when the bound is reached. */
  note(note: string): boolean {
    if (this.#notes.length >= MAX_NOTES) return false;
    this.#notes.push(note);
    return true;
  }

  /** The latest thing Codex reported doing (an item started, a failed model request), one line. */
  get latest(): string | undefined {
    return this.#latest;
  }

  /** The progress line for an item Codex started (`ours`: in the runtime's own turn). */
  activity(item: ItemActivity, ours: boolean): string | undefined {
    const text = activityText(item);
    if (!text) return undefined;
    return this.#told(text, ours);
  }

  /** The progress line for a request to the model that failed (`willRetry`: Codex retries it). */
  streamError(
    error: { willRetry: boolean; message?: string; details?: string },
    ours: boolean,
  ): string {
    return this.#told(streamErrorText(error.willRetry, error.message, error.details), ours);
  }

  #told(text: string, ours: boolean): string {
    this.#latest = ours ? text : `${text} (for a message queued ahead of yours)`;
    return this.#latest;
  }
}
