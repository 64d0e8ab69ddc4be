/**
 * The one list of the `src/` modules that carry a promise of docs/design.md, each with the
 * promise in a few words. Every one is in a mutation group (scripts/mutate_groups.ts):
 * tests/unit/mutate_select_test.ts fails on a listed module in no group. A new module that carries
 * a promise comes with its group and its line here (CONTRIBUTING, "End-to-end, bench, mutate").
 * @module
 */

/** Module → the promise it carries. */
export const PROMISE_MODULES: Readonly<Record<string, string>> = {
  "src/reply/cursor.ts": "reply cursors: opaque, bound to their message",
  "src/reply/_base64url.ts": "reply cursors: refused when forged",
  "src/reply/project_replies.ts": "a reply is its own turn's final answer",
  "src/reply/match_user_item.ts": "a message is matched by its clientMessageId only",
  "src/reply/moderation.ts": "moderated replies are said so",
  "src/reply/utf8_truncate.ts": "reply text within its page bound",
  "src/reply/turn_status.ts": "a turn's status as Codex tells it",
  "src/reply/read_result.ts": "a read's result says what it read",
  "src/reply/schemas.ts": "every result carries what its schema promises",
  "src/reply/thread_schemas.ts": "every result carries what its schema promises",
  "src/reply/schema_match.ts": "answers judged within their bound, never passing a mismatch",
  "src/reply/linear_regexp.ts": "patterns in linear time",
  "src/reply/schema_rules.ts": "a schema is refused unless strict mode takes it",
  "src/reply/structured.ts": "a structured answer is valid only when it matches",
  "src/reply/wait_set.ts": "waits on one message or several (any/all)",
  "src/reply/review_text.ts": "a verdict says findings or no_findings only when true",
  "src/ops/read_review.ts":
    "a verdict says findings or no_findings only when true: the reviewer's own JSON",
  "src/reply/token_usage.ts": "usage counts each model request once",
  "src/ops/worktree_active.ts": "a worktree in use by a run of Codex is not removed without force",
  "src/ops/worktree_remove.ts": "the relay removes only the worktree, branch and files it made",
  "src/ops/worktree_git.ts": "git runs bounded and never prunes the user's repository",
  "src/codex/notifications.ts":
    "changedFiles names exactly the files a run changed: Codex's reports",
  "src/turn/worktree_files.ts": "changedFiles names exactly the files a run changed: git's view",
  "src/ops/read_reply.ts": "bounded, cursor-paged reads",
  "src/ops/queue_message.ts": "a receipt says only what Codex confirmed",
  "src/ops/resolve_thread.ts": "a thread by its id or exact, unique name",
  "src/ops/withdraw_message.ts": "only this relay's messages are withdrawn",
  "src/ops/worktree.ts": "never removes a worktree or branch it did not make, or one in use",
  "src/ops/worktree_record.ts": "the record of the worktrees this relay made",
  "src/turn/changed_files.ts": "changedFiles names exactly the files a run changed",
  "src/turn/wait_pacing.ts": "waits within their bound",
  "src/turn/wait_engine.ts": "every wait within its bound",
  "src/turn/run_options.ts": "sandbox and approvalPolicy only tighten",
  "src/turn/run_state.ts": "a run's state only moves forward",
  "src/turn/run_book.ts": "one live run per thread, the listing rule",
  "src/turn/turn_events.ts": "a run's own turn is told by its events",
  "src/turn/own_requests.ts": "a runtime takes only its own turn's server requests",
  "src/turn/turn_attach.ts": "attaching never resumes a thread the daemon has not loaded",
  "src/elicit/mappings.ts": "what each server request becomes for the client",
  "src/elicit/validate_answer.ts": "answers to elicitations are validated",
  "src/elicit/router.ts": "answers reach their runtime, once",
  "src/core/capabilities.ts": "the capability levels",
  "src/codex/methods.ts": "the method map's levels",
  "src/host/stdio_transport.ts": "one MCP message is bounded",
  "src/host/wire_budget.ts": "stdin stops at the bounds of unanswered requests and bytes",
  "src/host/line_scan.ts": "every request read is answered, by its top-level id",
  "src/connect/operation_frame.ts": "the allowlist every backend checks (checkAllowed)",
  "src/codex/validate.ts": "a run's settings parsed as Codex gives them (parseRunConfig)",
  "src/connect/daemon/daemon_connection.ts": "the daemon connection's bounds",
  "src/connect/shared_link.ts": "a failed link is not handed out again",
  "src/connect/daemon/liveness.ts": "a lost daemon is noticed within its bound",
  "src/connect/held_view.ts": "a lost daemon ends every view at once",
  "src/connect/thread_routing.ts": "a thread's notifications reach only its views",
  "src/connect/process/process_group.ts": "a helper's whole process group ends with it",
  "src/connect/process/helper_process.ts": "a helper is reaped within the reap bound",
  "src/host/compat_args.ts":
    "the old server's names and schemas; what compat honours, maps, refuses",
  "src/host/tools/compat_tools.ts": "a compat call runs to its end; refusals send nothing",
  "src/reply/images.ts": "images within their bounds, refused before anything is sent",
  // The frame bound (#46) and the push (#49).
  "src/connect/cut_frame.ts": "a cut frame keeps only its ends, and is told by them",
  "src/connect/daemon/ws_skip.ts": "an oversized WebSocket message is skipped unbuffered",
  "src/connect/spawn/line_reader.ts":
    "an oversized line is skipped unbuffered, the lines after it read",
  "src/host/push_text.ts":
    "a pushed text is bounded and never shows commentary or a moderated answer",
  "src/cli/hook_input.ts":
    "the hook waits only on a run not yet final, and not one the agent followed",
  "src/cli/hook_wait.ts":
    "hook-wait wakes the agent only for an end it has not seen (followForHook)",
  "src/host/channels.ts": "a channel push once per run, only when unseen",
  "src/install/push_hooks.ts": "the push hook written beside the user's settings, removed alone",
};
