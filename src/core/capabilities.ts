/**
 * Capability levels: which app-server methods a connection allows at each
 * level, and the serve flags that select a level. Each opt-in flag adds;
 * nothing else changes (the tools of each level: `src/host/tools/all_tools.ts`).
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
  // codex_withdraw_message: deleting from a queue controls what Codex does.
  "thread/queue/delete",
  // codex_run refuses at once without a login or key.
  "account/read",
  // codex_run's options: the thread's cwd (its config layers: the tightening check and the
  // recursion guard), name a new thread, check that a cwd exists.
  "thread/read",
  "thread/name/set",
  "fs/getMetadata",
] as const;

/** The app-server methods helpers may be sent at these capabilities. */
export function allowedMethods(caps: Capabilities): ReadonlySet<string> {
  return new Set<string>([
    ...QUEUE_METHODS,
    ...(caps.replyRead ? READ_METHODS : []),
    ...(caps.turnStart ? TURN_METHODS : []),
  ]);
}

/** The serve flags that select these capabilities (client entries, printed commands). */
export function capabilityArgs(caps: Capabilities): string[] {
  return [
    ...(caps.replyRead ? ["--allow-reply-read"] : []),
    ...(caps.turnStart ? ["--allow-turn-start"] : []),
  ];
}
