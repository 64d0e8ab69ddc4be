/**
 * The subset of the Codex app-server protocol (0.169) that codex-relay reads.
 *
 * Only the fields the relay relies on are typed; every object may carry more
 * (Codex adds fields in minor releases) and unknown item types are allowed.
 */

/** A JSON-RPC request id: the app-server's, and the MCP client's. */
export type RpcId = number | string;

/** Every `thread.status.type` the relay knows. */
export const THREAD_STATUSES = ["idle", "active", "notLoaded", "systemError"] as const;

/** `thread.status.type` as reported by `thread/list`. */
export type ThreadStatus = typeof THREAD_STATUSES[number];

/**
 * `thread/list`'s `sourceKinds` (0.169 and 0.171). Without it Codex lists
 * only interactive threads (`cli`, `vscode`).
 */
export type ThreadSourceKind =
  | "cli"
  | "vscode"
  | "exec"
  | "appServer"
  | "subAgent"
  | "subAgentReview"
  | "subAgentCompact"
  | "subAgentThreadSpawn"
  | "subAgentOther"
  | "unknown";

/**
 * The sources of the threads the relay lists, finds by name and counts: the
 * user's interactive and scripted threads (`codex exec`, app-server clients
 * such as the relay's own `codex_run`, and `unknown`: old rollouts without a
 * source), never sub-agent threads (Codex's own reviews, compactions, spawns).
 */
export const LISTED_SOURCE_KINDS: readonly ThreadSourceKind[] = Object.freeze([
  "cli",
  "vscode",
  "exec",
  "appServer",
  "unknown",
]);

/** One thread of `thread/list` (subset). */
export interface Thread {
  id: string;
  name: string | null;
  status: ThreadStatus;
  /** Unix seconds. */
  updatedAt: number;
  /** The thread's working directory (null when absent or not a string). */
  cwd: string | null;
  /** What an `active` thread waits on (`status.activeFlags`, e.g. `waitingOnApproval`); else []. */
  activeFlags: string[];
  /** The thread a sub-agent thread (a review's reviewer) works for; null for others. */
  parentThreadId?: string | null;
}

/** `thread/list` result (subset). */
export interface ThreadListPage {
  data: Thread[];
  nextCursor: string | null;
}

/** A queued submission of `thread/queue/add` and `thread/queue/list`. */
export interface QueuedSubmission {
  id: string;
  clientUserMessageId: string | null;
}

/** `thread/queue/list` result (subset). */
export interface QueueListPage {
  data: QueuedSubmission[];
  nextCursor: string | null;
}

/** `agentMessage.phase`; null when the provider sent none. */
export type AgentPhase = typeof AGENT_PHASES[number];

/** Every agentMessage phase the relay knows. */
export const AGENT_PHASES = ["commentary", "partial_answer", "final_answer"] as const;

/** A user message item (subset; content is never read by the relay). */
export interface UserMessageItem {
  type: "userMessage";
  id: string;
  clientId: string | null;
}

/** An agent message item (subset). */
export interface AgentMessageItem {
  type: "agentMessage";
  id: string;
  text: string;
  phase: AgentPhase | null;
  /** `moderation` as stored (null when absent); judged by the reply projector. */
  moderation: unknown;
}

/** Any other item type: only its type and id are looked at. */
export interface OtherItem {
  type: string;
  id: string;
}

/** A thread item the relay distinguishes. */
export type ThreadItem = UserMessageItem | AgentMessageItem | OtherItem;

/** An item as stored: an object with a string `type`, otherwise unvalidated. */
export type RawItem = { type: string } & Record<string, unknown>;

/** One entry of `thread/items/list` / `thread/items/read`; the item is parsed on use. */
export interface ItemEntry {
  turnId: string;
  item: RawItem;
}

/** `thread/items/list` result (subset). */
export interface ItemsPage {
  data: ItemEntry[];
  nextCursor: string | null;
}

/** `turn.status`. */
export type TurnStatus = typeof TURN_STATUSES[number];

/** Every turn status the relay knows. */
export const TURN_STATUSES = ["inProgress", "completed", "failed", "interrupted"] as const;

/** `turn.error` (subset). */
export interface TurnError {
  message: string;
  /** A string such as `"internalServerError"`, an object such as `{httpConnectionFailed: {...}}`, or null. */
  codexErrorInfo: unknown;
}

/** A turn summary of `thread/turns/list` (subset). */
export interface Turn {
  id: string;
  status: TurnStatus;
  error: TurnError | null;
  /** Unix seconds, null while running (or when running in another process). */
  completedAt: number | null;
  /** Unix seconds, null when Codex gives none (set by the parser). */
  startedAt?: number | null;
  /** The `clientId` of each user message among the turn's items (set by the parser; [] when read without items). */
  clientIds?: string[];
  /** The turn this one runs under (a reviewer's turn: the review's turn R; set by the parser). */
  rootTurnId?: string | null;
}

/** `thread/turns/list` result (subset). */
export interface TurnsPage {
  data: Turn[];
  nextCursor: string | null;
}
