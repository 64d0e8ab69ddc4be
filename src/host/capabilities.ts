/**
 * Capability levels: which tools are registered and which app-server methods
 * the owner allows. Each opt-in flag adds; nothing else changes.
 * @module
 */

/** The capability flags in force. */
export interface Capabilities {
  /** `--allow-reply-read`. */
  replyRead: boolean;
  /** `--allow-turn-start`. */
  turnStart: boolean;
}

const QUEUE_METHODS = ["thread/list", "thread/queue/add", "thread/queue/list"] as const;
const READ_METHODS = ["thread/items/list", "thread/items/read", "thread/turns/list"] as const;
const TURN_METHODS = [
  "config/read",
  "thread/start",
  "thread/resume",
  "thread/queue/start",
  "turn/interrupt",
  "thread/unsubscribe",
] as const;

/** The app-server methods helpers may be sent at these capabilities. */
export function allowedMethods(caps: Capabilities): ReadonlySet<string> {
  return new Set<string>([
    ...QUEUE_METHODS,
    ...(caps.replyRead ? READ_METHODS : []),
    ...(caps.turnStart ? TURN_METHODS : []),
  ]);
}

/** The tool names registered at these capabilities, in registration order. */
export function toolNames(caps: Capabilities): string[] {
  return [
    "codex_list_threads",
    "codex_queue_message",
    ...(caps.replyRead ? ["codex_read_reply", "codex_wait_reply"] : []),
    ...(caps.turnStart ? ["codex_run", "codex_interrupt"] : []),
  ];
}
