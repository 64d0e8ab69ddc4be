/**
 * What a turn runtime makes of its thread's notifications: which turn is
 * its own (the one whose user message carries its `clientMessageId`), the
 * earlier queued messages that ran first, what Codex is doing (in words),
 * the items its turn completed, and how that turn ended. It keeps that state
 * and returns what happened ({@linkcode Happened}); the runtime acts on it.
 * @module
 */

import type { TurnError } from "../codex/types.ts";
import { type ItemRef, parseTurnEvent } from "../codex/notifications.ts";
import { classifyFailure, type Failure, withLimitReset } from "./classify_failure.ts";
import { limitRetryAfterMs, type RateLimits } from "../codex/rate_limits.ts";
import { RunStory } from "./run_story.ts";
import { addTokenUsage } from "../reply/token_usage.ts";
import type { RunUsage } from "../reply/schemas.ts";
import type { TurnEnd } from "./run_state.ts";
import type { Run } from "./run_book.ts";
import { jobKind } from "./run_job.ts";

/** What the events told, for the runtime to act on. */
export type Happened =
  /** A progress note for the client. */
  | { kind: "note"; text: string }
  /** The runtime's own turn started. */
  | { kind: "ownTurnStarted" }
  /** The own turn ended so (an interrupted one carries no failure: the runtime keeps its own). */
  | { kind: "ended"; end: TurnEnd; error?: string; failure?: Failure }
  /** An MCP tool call started or completed. */
  | { kind: "toolCall"; id: string; completed: boolean }
  /** Codex resolved a server request (another client answered it). */
  | { kind: "resolved"; requestId: unknown }
  /** An earlier message's turn was interrupted before the own one started: Codex paused the queue. */
  | { kind: "queuePaused" };

/** The turn-level state of one runtime, fed by its thread's notifications. */
export class TurnEvents {
  #turnId: string | null;
  #currentTurnId: string | null = null;
  #itemsCompleted = 0;
  #usage: RunUsage | undefined;
  /** The account's rate limits as Codex last told them (`account/rateLimits/updated`). */
  #limits: RateLimits | undefined;
  /** Wall-clock ms (a spent limit's reset is a wall-clock time). */
  readonly #wallNow: () => number;
  /** Earlier messages and notes. */
  readonly story: RunStory = new RunStory();
  /** Whose events: a review's turn is claimed (`review/start`'s answer), never told by a user message. */
  readonly #run: Pick<Run, "threadId" | "clientMessageId" | "job">;
  /** Recent turns started inside another, and that turn (a review's R' names R). */
  readonly #roots = new Map<string, string>();
  /** Recent turns that ended (a claim may come after its turn ended). */
  readonly #endedEarly = new Map<string | null, { status?: string; error?: TurnError | null }>();

  /** The events of `run`'s turn; `turnId` when the runtime attaches to a turn that runs. */
  constructor(
    run: Pick<Run, "threadId" | "clientMessageId" | "job">,
    turnId: string | null,
    wallNow: () => number = Date.now,
  ) {
    this.#run = run;
    this.#turnId = turnId;
    this.#wallNow = wallNow;
  }

  /** The runtime's own turn, once its user message was seen (or given when attaching). */
  get turnId(): string | null {
    return this.#turnId;
  }

  /** The turn running now (perhaps an earlier message's). */
  get currentTurnId(): string | null {
    return this.#currentTurnId;
  }

  /** Items the own turn completed (user messages excluded). */
  get itemsCompleted(): number {
    return this.#itemsCompleted;
  }

  /** The own turn's token usage, once Codex told any (`thread/tokenUsage/updated`). */
  get usage(): RunUsage | undefined {
    return this.#usage;
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
  claim(turnId: string): Happened[] {
    if (this.turnId !== null) return [];
    this.#turnId = turnId;
    const ended = this.#endedEarly.get(turnId);
    return [{ kind: "ownTurnStarted" }, ...(ended ? this.ended(ended.status, ended.error) : [])];
  }

  /** One notification of the connection (other threads' are ignored). */
  notification(method: string, raw: unknown): Happened[] {
    const event = parseTurnEvent(method, raw);
    if (!event || (event.threadId !== undefined && event.threadId !== this.#run.threadId)) {
      return [];
    }
    switch (event.kind) {
      case "turnStarted":
        this.#currentTurnId = event.turnId;
        // Only a turn inside another is remembered (its root: a review's R' names R).
        if (event.turnId !== null && event.rootTurnId !== null) {
          remember(this.#roots, event.turnId, event.rootTurnId);
        }
        if (
          this.turnId === null && jobKind(this.#run.job).ownTurn === "next" && event.turnId !== null
        ) {
          // A job that takes no message (a compaction): the thread was idle, so the next turn is its own.
          this.#turnId = event.turnId;
          return [{ kind: "ownTurnStarted" }];
        }
        return this.turnId === null ? note("A turn started") : [];
      case "item": {
        const item = this.#item(event.completed, event.turnId ?? this.currentTurnId, event.item);
        if (event.completed) return item;
        return [...item, ...this.#activity((raw as { item?: unknown }).item, event.turnId)];
      }
      case "turnCompleted":
        return this.#turnCompleted(event.turnId, event.status, event.error);
      case "requestResolved":
        return [{ kind: "resolved", requestId: event.requestId }];
      case "streamError":
        return note(this.story.streamError(event, this.#ours(event.turnId)));
      case "rateLimits":
        this.#limits = event.limits;
        return [];
      case "tokenUsage":
        if (event.turnId !== null && this.#ownOrInner(event.turnId)) {
          // A compaction's first is Codex's repeat of the thread's previous request.
          const repeatsFirst = this.#run.job.kind === "compact";
          this.#usage = addTokenUsage(this.#usage, event.usage, repeatsFirst);
        }
        return [];
    }
    return [];
  }

  /** The own turn ended with `status` (from a notification or a read); others change nothing. */
  ended(status: string | undefined, error: TurnError | null | undefined): Happened[] {
    if (status === "completed") return [{ kind: "ended", end: "completed" }];
    if (status === "interrupted") return [{ kind: "ended", end: "interrupted" }];
    if (status !== "failed") return [];
    const info = error?.codexErrorInfo;
    const reset = limitRetryAfterMs(this.#limits, this.#wallNow());
    const failure = withLimitReset(classifyFailure(info, error?.message), info, reset);
    return [{ kind: "ended", end: "failed", error: error?.message, failure }];
  }

  /** Whether `turnId` is the own turn or a turn started inside it (a review's R'). */
  #ownOrInner(turnId: string): boolean {
    // No own turn yet (null): no turn id and no root equals it.
    return turnId === this.turnId || this.#roots.get(turnId) === this.turnId;
  }

  #item(completed: boolean, turnId: string | null, item: ItemRef): Happened[] {
    if (item.type === "userMessage" && this.turnId === null) {
      // A job whose turn is claimed (a review's): its user message is the reviewer's prompt.
      if (jobKind(this.#run.job).ownTurn === "claimed") return [];
      if (item.clientId === this.#run.clientMessageId) {
        this.#turnId = turnId;
        return [{ kind: "ownTurnStarted" }];
      }
      // A user message of another queued message ran before this runtime's own.
      const clientId = typeof item.clientId === "string" ? item.clientId : null;
      return note(this.story.aheadStarted(clientId, turnId));
    }
    if (completed && item.type !== "userMessage" && turnId !== null && turnId === this.turnId) {
      this.#itemsCompleted++;
    }
    if (item.type !== "mcpToolCall" || item.id === undefined) return [];
    return [{ kind: "toolCall", id: item.id, completed }];
  }

  /** Notes what Codex started doing, in words (kinds and names, never content). */
  #activity(item: unknown, turnId: string | null): Happened[] {
    return note(this.story.activity(item, this.#ours(turnId)));
  }

  /** Whether an event of `turnId` (none: the turn running now) is of the own turn. */
  #ours(turnId: string | null): boolean {
    return this.turnId !== null && (turnId ?? this.currentTurnId) === this.turnId;
  }

  #turnCompleted(
    id: string | null,
    status: string | undefined,
    error: TurnError | null | undefined,
  ): Happened[] {
    if (id === null || id !== this.turnId) {
      // An earlier queued message's turn ended. After an interrupt Codex pauses the queue.
      this.#currentTurnId = null;
      remember(this.#endedEarly, id, { status, error }); // Read only by a claim.
      return status === "interrupted" && this.turnId === null ? [{ kind: "queuePaused" }] : [];
    }
    // The own turn ended: any status but completed and failed counts as interrupted.
    return this.ended(
      status === "completed" || status === "failed" ? status : "interrupted",
      error,
    );
  }
}

/** A note, when there is one to send. */
function note(text: string | undefined): Happened[] {
  return text ? [{ kind: "note", text }] : [];
}

/** How many recent turns the maps above keep (a thread runs one turn at a time). */
const REMEMBERED_TURNS = 8;

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.set(key, value);
  if (map.size > REMEMBERED_TURNS) map.delete(map.keys().next().value!);
}
