/**
 * What a turn runtime tells the client beyond the turn's status: earlier
 * queued messages its start also started, notes (an answer that counted as a
 * decline, a name that could not be set), and what Codex is doing, in words.
 * Ids and kinds only, never message text or output. Bounded.
 * @module
 */

import { parseItemActivity } from "../codex/validate.ts";
import { activityText } from "./activity.ts";

/** An earlier queued message that ran before the runtime's own. */
export interface EarlierMessage {
  /** Its `clientMessageId` (null when it was queued without one). */
  clientMessageId: string | null;
  /** The turn that took it. */
  turnId: string | null;
}

const MAX_EARLIER = 50;
const MAX_NOTES = 20;

/** The story of one run. */
export class RunStory {
  readonly #earlier: EarlierMessage[] = [];
  readonly #notes: string[] = [];

  /** Earlier queued messages seen so far. */
  get earlier(): EarlierMessage[] {
    return [...this.#earlier];
  }

  /** Notes so far. */
  get notes(): string[] {
    return [...this.#notes];
  }

  /** Records an earlier message; the progress line to send, or undefined when nothing is new. */
  earlierMessage(clientMessageId: string | null, turnId: string | null): string | undefined {
    if (this.#earlier.length >= MAX_EARLIER) return undefined;
    if (this.#earlier.some((e) => e.turnId === turnId && e.clientMessageId === clientMessageId)) {
      return undefined;
    }
    this.#earlier.push({ clientMessageId, turnId });
    return `An earlier queued message runs first${
      clientMessageId ? ` (clientMessageId ${clientMessageId})` : ""
    }`;
  }

  /** Records a note; false when the bound is reached. */
  note(note: string): boolean {
    if (this.#notes.length >= MAX_NOTES) return false;
    this.#notes.push(note);
    return true;
  }

  /** The progress line for an item Codex started (`ours`: in the runtime's own turn). */
  activity(item: unknown, ours: boolean): string | undefined {
    const text = activityText(parseItemActivity(item));
    if (!text) return undefined;
    return ours ? text : `${text} (for an earlier queued message)`;
  }
}
