/**
 * The one reducer of a run's events: what a turn runtime makes of its
 * thread's notifications (parsed once, `codex/notifications.ts`) and of the
 * requests it declined. Which turn is its own (the one whose user message
 * carries its `clientMessageId`, or a claimed one), the earlier queued
 * messages that ran first, what Codex is doing (in words), the items its
 * turn completed, the files and token usage of that turn (or of a turn
 * inside it: a review's R'), the requests declined, and how the turn ended.
 * It keeps that state behind one view ({@linkcode TurnEvents.view}) and
 * returns what happened ({@linkcode Happened}); the runtime acts on it.
 * @module
 */

import type { TurnError } from "../codex/types.ts";
import type { DeclinedRequest } from "../elicit/router.ts";
import type { ChangedFile } from "../reply/files_schema.ts";
import { FileChanges } from "./changed_files.ts";
import { type ItemRef, parseTurnEvent } from "../codex/notifications.ts";
import { classifyFailure, type Failure, withLimitReset } from "./classify_failure.ts";
import { limitRetryAfterMs, type RateLimits } from "../codex/rate_limits.ts";
import { RunStory } from "./run_story.ts";
import { addTokenUsage } from "../reply/token_usage.ts";
import type { RunUsage } from "../reply/schemas.ts";
import type { CutNotification } from "../reply/cut_schema.ts";
import type { TurnEnd } from "./run_state.ts";
import type { Run, RunView } from "./run_book.ts";
import { jobKind } from "./run_job.ts";
import { CUT_NOTIFICATION, type CutNotice } from "../connect/cut_frame.ts";

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

/** How many declined requests a run remembers. */
const MAX_DECLINED_KEPT = 20;

/** Where a run's changed files are listed from: its cwd (and its worktree's root). */
export interface FilesAt {
  readonly cwd: string;
  readonly root?: string;
}

/** The turn-level state of one runtime, fed by its thread's notifications. */
export class TurnEvents {
  #turnId: string | null;
  #currentTurnId: string | null = null;
  #itemsCompleted = 0;
  #usage: RunUsage | undefined;
  readonly #files = new FileChanges();
  readonly #declined: DeclinedRequest[] = [];
  /** The own turn's notifications skipped over the frame bound (the first {@linkcode MAX_CUT}). */
  readonly #cut: CutNotice[] = [];
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

  /** The own turn's notifications skipped over the frame bound (none: absent), as results say. */
  get cutNotifications(): { cutNotifications?: CutNotification[] } {
    if (this.#cut.length === 0) return {};
    return {
      cutNotifications: this.#cut.map(({ method, bytes, itemType, itemId }) => ({
        method,
        bytes,
        ...(itemType ? { itemType } : {}),
        ...(itemId ? { itemId } : {}),
      })),
    };
  }

  /** The own turn's token usage, once Codex told any (`thread/tokenUsage/updated`). */
  get usage(): RunUsage | undefined {
    return this.#usage;
  }

  /** Attached again to a lost run's turn: the usage that run counted (if any), counted on from. */
  carryUsage(usage: RunUsage | undefined): void {
    this.#usage ??= usage;
  }

  /**
   * The run as its events tell it; its changed files listed from `at` (none
   * when the run's cwd is unknown: a turn attached to).
   */
  view(at: FilesAt | undefined): RunView {
    const latest = this.story.latest;
    return {
      turnId: this.#turnId,
      itemsCompleted: this.#itemsCompleted,
      declinedRequests: this.#declined.map((d) => ({ ...d })),
      queuedAhead: this.story.queuedAhead,
      notes: this.story.notes,
      ...(at ? this.#files.list(at.cwd, at.root) : {}),
      ...(latest ? { activity: latest } : {}),
      ...(this.#usage ? { usage: this.#usage } : {}),
      ...this.cutNotifications,
    };
  }

  /** A request declined at once (it cannot be forwarded): the newest 20 are kept. */
  declined(declined: DeclinedRequest): void {
    this.#declined.push({ method: declined.method, summary: declined.summary });
    if (this.#declined.length > MAX_DECLINED_KEPT) this.#declined.shift();
  }

  /** What git says the run changed in its worktree `root` (at its end): its files from now on. */
  changedInGit(root: string, files: readonly ChangedFile[]): void {
    this.#files.fromGit(root, files);
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
    if (method === CUT_NOTIFICATION) return this.#cutNotice(raw as CutNotice);
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
        if (event.turnId !== null && this.#ownOrInner(event.turnId)) {
          this.#files.changes(event.item.changes);
        }
        if (event.completed) return item;
        return [
          ...item,
          ...note(this.story.activity(event.item.activity, this.#ours(event.turnId))),
        ];
      }
      case "turnDiff":
        if (event.turnId !== null && this.#ownOrInner(event.turnId)) this.#files.diff(event.diff);
        return [];
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

  /** A notification of the own turn that was over the frame bound: kept, and said in a note. */
  #cutNotice(cut: CutNotice): Happened[] {
    if (cut.threadId !== this.#run.threadId) return [];
    if (cut.turnId !== undefined ? !this.#ownOrInner(cut.turnId) : !this.#ours(null)) return [];
    if (this.#cut.length >= MAX_CUT) return [];
    this.#cut.push({ ...cut });
    if (cut.method === "item/completed" && cut.turnId === this.turnId) this.#itemsCompleted++;
    const what = [cut.itemType, cut.itemId].filter(Boolean).join(" ");
    const text = `Codex sent a ${cut.method}${what ? ` (${what})` : ""} of ${cut.bytes} bytes, ` +
      `over the relay's frame bound: the relay skipped it (see cutNotifications)`;
    this.story.note(text);
    return note(text);
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

/** How many cut notifications a run keeps (the first ones). */
const MAX_CUT = 20;

/** How many recent turns the maps above keep (a thread runs one turn at a time). */
const REMEMBERED_TURNS = 8;

function remember<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.set(key, value);
  if (map.size > REMEMBERED_TURNS) map.delete(map.keys().next().value!);
}
