/**
 * What a turn runtime makes of its thread's notifications: which turn is
 * its own (the one whose user message carries its `clientMessageId`), the
 * earlier queued messages that ran first, what Codex is doing (in words),
 * the items its turn completed, and how that turn ended. It keeps that state;
 * the runtime acts on what it reports ({@linkcode EventSink}).
 * @module
 */

import type { TurnError } from "../codex/types.ts";
import { type ItemRef, parseTurnEvent } from "../codex/notifications.ts";
import { classifyFailure, type Failure } from "./classify_failure.ts";
import { RunStory } from "./run_story.ts";
import type { RunEnd } from "./run_state.ts";

/** What the runtime does with what the events say. */
export interface EventSink {
  /** A progress note for the client. */
  note(message: string): void;
  /** The runtime's own turn started. */
  ownTurnStarted(): void;
  /** The runtime's own turn ended so. */
  finish(phase: RunEnd, error?: string, failure?: Failure): void;
  /** An MCP tool call started or completed. */
  toolCall(id: string, completed: boolean): void;
  /** Codex resolved a server request (another client answered it). */
  resolved(requestId: unknown): void;
  /** An earlier message's turn was interrupted before the own one started: Codex paused the queue. */
  queuePaused(): void;
  /** The failure recorded so far (an interrupt keeps it). */
  failure(): Failure | undefined;
}

/** The turn-level state of one runtime, fed by its thread's notifications. */
export class TurnEvents {
  /** The runtime's own turn, once its user message was seen (or given when attaching). */
  turnId: string | null;
  /** The turn running now (perhaps an earlier message's). */
  currentTurnId: string | null = null;
  /** Items the own turn completed (user messages excluded). */
  itemsCompleted = 0;
  /** Earlier messages and notes. */
  readonly story: RunStory = new RunStory();
  readonly #threadId: string;
  readonly #clientMessageId: string;
  readonly #sink: EventSink;
  /** A review: its turn is claimed (`review/start`'s answer), never told by a user message. */
  readonly #review: boolean;
  /** Recent turns started on the thread and the turn each runs inside (a review's R' names R). */
  readonly #roots = new Map<string, string>();
  /** Recent turns that ended before they were claimed. */
  readonly #endedEarly = new Map<string, { status?: string; error?: TurnError | null }>();

  constructor(
    threadId: string,
    clientMessageId: string,
    turnId: string | null,
    sink: EventSink,
    review = false,
  ) {
    this.#threadId = threadId;
    this.#clientMessageId = clientMessageId;
    this.turnId = turnId;
    this.#sink = sink;
    this.#review = review;
  }

  /** A review's inner turn R' (started inside the own turn R), once seen. */
  get innerTurnId(): string | null {
    for (const [id, root] of this.#roots) {
      if (root === this.turnId && id !== this.turnId) return id;
    }
    return null;
  }

  /**
   * The own turn is `turnId` (a review's R, as `review/start` answered): from
   * now on its events are the run's; when it already ended, the run ends so.
   */
  claim(turnId: string): void {
    if (this.turnId !== null) return;
    this.turnId = turnId;
    this.#sink.ownTurnStarted();
    const ended = this.#endedEarly.get(turnId);
    if (ended) this.ended(ended.status, ended.error);
  }

  /** One notification of the connection (other threads' are ignored). */
  notification(method: string, raw: unknown): void {
    const event = parseTurnEvent(method, raw);
    if (!event || (event.threadId !== undefined && event.threadId !== this.#threadId)) return;
    switch (event.kind) {
      case "turnStarted":
        this.currentTurnId = event.turnId;
        if (event.turnId !== null) remember(this.#roots, event.turnId, event.rootTurnId ?? "");
        if (this.turnId === null) this.#sink.note("A turn started");
        break;
      case "item":
        this.#item(event.completed, event.turnId ?? this.currentTurnId, event.item);
        if (!event.completed) {
          this.#activity((raw as { item?: unknown } | null)?.item, event.turnId);
        }
        break;
      case "turnCompleted":
        this.#turnCompleted(event.turnId, event.status, event.error);
        break;
      case "requestResolved":
        this.#sink.resolved(event.requestId);
        break;
    }
  }

  /** The own turn ended with `status` (from a notification or a read); others change nothing. */
  ended(status: string | undefined, error: TurnError | null | undefined): void {
    if (status === "completed") this.#sink.finish("completed");
    else if (status === "failed") {
      const failure = classifyFailure(error?.codexErrorInfo, error?.message);
      this.#sink.finish("failed", error?.message, failure);
    } else if (status === "interrupted") {
      this.#sink.finish("interrupted", undefined, this.#sink.failure());
    }
  }

  #item(completed: boolean, turnId: string | null, item: ItemRef): void {
    if (item.type === "userMessage" && this.turnId === null) {
      if (this.#review) return; // The reviewer's prompt: a review's turn is claimed, not told.
      if (item.clientId === this.#clientMessageId) {
        this.turnId = turnId;
        this.#sink.ownTurnStarted();
        return;
      }
      // A user message of another queued message ran before this runtime's own.
      const clientId = typeof item.clientId === "string" ? item.clientId : null;
      const line = this.story.aheadStarted(clientId, turnId);
      if (line) this.#sink.note(line);
      return;
    }
    if (item.type === "mcpToolCall" && item.id !== undefined) {
      this.#sink.toolCall(item.id, completed);
    }
    if (completed && item.type !== "userMessage" && turnId !== null && turnId === this.turnId) {
      this.itemsCompleted++;
    }
  }

  /** Notes what Codex started doing, in words (kinds and names, never content). */
  #activity(item: unknown, turnId: string | null): void {
    const ours = this.turnId !== null && (turnId ?? this.currentTurnId) === this.turnId;
    const line = this.story.activity(item, ours);
    if (line) this.#sink.note(line);
  }

  #turnCompleted(
    id: string | null,
    status: string | undefined,
    error: TurnError | null | undefined,
  ): void {
    if (id === null || id !== this.turnId) {
      // An earlier queued message's turn ended. After an interrupt Codex pauses the queue.
      this.currentTurnId = null;
      if (id !== null && this.turnId === null) remember(this.#endedEarly, id, { status, error });
      if (status === "interrupted" && this.turnId === null) this.#sink.queuePaused();
      return;
    }
    // The own turn ended: any status but completed and failed counts as interrupted.
    this.ended(status === "completed" || status === "failed" ? status : "interrupted", error);
  }
}

/** How many recent turns the maps above keep (a thread runs one turn at a time). */
const REMEMBERED_TURNS = 8;

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.set(key, value);
  if (map.size > REMEMBERED_TURNS) map.delete(map.keys().next().value!);
}
