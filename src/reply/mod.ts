/**
 * The reply projector of `codex_read_reply`: matching a user message,
 * projecting final answers under a byte budget, turn status, cursors and the
 * result object. Pure: no I/O (the operations that drive it are in `src/ops/`).
 * The result shapes are `./schemas.ts`'s (the one source), imported from there.
 * @module
 */

export { matchUserItem, SEARCH_PAGE_LIMIT } from "./match_user_item.ts";
export type { MatchOutcome } from "./match_user_item.ts";
export { projectReplies, REPLY_BUDGET_BYTES } from "./project_replies.ts";
export type { ProjectionPage, ProjectionState } from "./project_replies.ts";
export { DISPLAY_MODES, moderationVerdict } from "./moderation.ts";
export type { ModerationVerdict } from "./moderation.ts";
export { utf8Truncate } from "./utf8_truncate.ts";
export type { Utf8Prefix } from "./utf8_truncate.ts";
export { isTerminal, observedTurnStatus, TURN_STATUS_WINDOW } from "./turn_status.ts";
export {
  CURSOR_VERSION,
  decodeCursor,
  encodeCursor,
  MAX_APP_CURSOR_CHARS,
  MAX_CURSOR_ID_CHARS,
  MAX_CURSOR_TEXT_CHARS,
} from "./cursor.ts";
export type {
  CursorData,
  CursorKind,
  CursorScope,
  ReplyCursorData,
  SearchCursorData,
} from "./cursor.ts";
export { buildReadResult } from "./read_result.ts";
export type { ReadResultInput, Unavailable } from "./read_result.ts";
