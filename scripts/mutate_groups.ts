/**
 * The groups of `deno task mutate`: each names the modules (whole files, or
 * named functions of a big one) that keep a promise of docs/design.md and the
 * fast unit tests that guard them (each mutant runs only these). A surviving
 * mutant that no input a user can give tells apart from the original is
 * disabled beside its code, with the reason
 * (`// Stryker disable next-line <mutator>: <why>`); any other survivor is a
 * missing test.
 * @module
 */

import type { Group } from "./mutate_select.ts";

/** The worktree groups' tests (fast: an in-memory git and a scripted Codex). */
const WORKTREE_TESTS = [
  "tests/unit/worktree_ops_test.ts",
  "tests/unit/worktree_record_test.ts",
  "tests/unit/worktree_active_test.ts",
];

/** The groups, by name. */
export const GROUPS: Record<string, Group> = {
  // The replies, in five groups of one concern each (one group of all ran 1,002 mutants
  // against all ten reply tests: about 26 minutes here).
  "reply-cursor": {
    promise: "reply cursors: opaque, bound to their message, refused when forged or stale",
    mutate: [
      "src/reply/cursor.ts",
      "src/reply/_base64url.ts",
    ],
    tests: [
      "tests/unit/reply_cursor_test.ts",
      "tests/unit/reply_edges_test.ts",
      "tests/unit/reply_read_flow_test.ts",
      "tests/unit/reply_result_test.ts",
    ],
  },
  "reply-project": {
    promise: "a reply is the final_answer text of the message's own turn, bounded and moderated",
    mutate: [
      "src/reply/project_replies.ts",
      "src/reply/match_user_item.ts",
      "src/reply/moderation.ts",
      "src/reply/utf8_truncate.ts",
      "src/reply/turn_status.ts",
      "src/reply/read_result.ts",
    ],
    tests: [
      "tests/unit/reply_project_test.ts",
      "tests/unit/reply_match_test.ts",
      "tests/unit/reply_moderation_test.ts",
      "tests/unit/reply_result_test.ts",
      "tests/unit/reply_turn_status_test.ts",
      "tests/unit/reply_read_test.ts",
      "tests/unit/reply_read_flow_test.ts",
      "tests/unit/reply_edges_test.ts",
    ],
  },
  // The schemas modules, apart: their mutants need only the schema tests (with the
  // projection's nine test files each mutant took 1.5-3 s).
  schemas: {
    promise: "every tool's result carries what its schema promises, and a schema refuses the rest",
    mutate: [
      "src/reply/schemas.ts",
      "src/reply/thread_schemas.ts",
    ],
    tests: [
      "tests/unit/result_schemas_test.ts",
      // The receipt's clientMessageId says what it is for (its description).
      "tests/unit/queue_message_tool_test.ts",
    ],
  },
  // The answer checker (issue 48), in two groups of one promise: each mutant runs only the fast
  // tests (tests/unit/answer_check_test.ts times the costly checks, outside the groups).
  "answer-match": {
    promise: "answers are judged within their bound and never pass when they do not match",
    mutate: [
      "src/reply/schema_match.ts",
      "src/reply/linear_regexp.ts",
    ],
    tests: [
      "tests/unit/schema_match_test.ts",
      "tests/unit/answer_rules_test.ts",
      "tests/unit/structured_test.ts",
    ],
  },
  "answer-rules": {
    promise:
      "answers are judged within their bound and never pass when they do not match: the schema's rules",
    mutate: [
      "src/reply/schema_rules.ts",
      "src/reply/structured.ts",
    ],
    tests: [
      "tests/unit/schema_match_test.ts",
      "tests/unit/answer_rules_test.ts",
      "tests/unit/structured_test.ts",
    ],
  },
  // The verdict in two groups, each within 10 minutes here (one of both took 11 at load 20-26).
  "review-verdict": {
    promise: "a review's verdict says findings or no_findings only when that is true",
    mutate: [
      "src/reply/review_text.ts",
    ],
    tests: [
      "tests/unit/review_text_test.ts",
    ],
  },
  "review-answer": {
    promise:
      "a review's verdict is built from its own reviewer's answer, or fails closed when none can be read",
    mutate: [
      "src/ops/read_review.ts",
    ],
    tests: [
      "tests/unit/read_review_test.ts",
    ],
  },
  "token-usage": {
    promise: "a run's usage counts each model request once",
    mutate: [
      "src/reply/token_usage.ts",
    ],
    tests: [
      "tests/unit/token_usage_test.ts",
    ],
  },
  "reply-read": {
    promise: "codex_read_reply: bounded, cursor-paged reads of the stored replies",
    mutate: [
      "src/ops/read_reply.ts",
    ],
    tests: [
      "tests/unit/reply_read_test.ts",
      "tests/unit/reply_read_flow_test.ts",
      "tests/unit/reply_edges_test.ts",
    ],
  },
  "reply-wait": {
    promise: "codex_wait_reply: waits within its bound, on one message or several (any/all)",
    mutate: [
      "src/turn/wait_pacing.ts",
      "src/reply/wait_set.ts",
      "src/turn/wait_engine.ts",
    ],
    tests: [
      "tests/unit/reply_wait_test.ts",
      "tests/unit/wait_set_test.ts",
      "tests/unit/wait_engine_test.ts",
    ],
  },
  elicit: {
    promise: "elicitation: what each server request becomes for the client, and answer validation",
    mutate: [
      "src/elicit/mappings.ts",
      "src/elicit/validate_answer.ts",
    ],
    tests: ["tests/unit/elicit_*_test.ts"],
  },
  capabilities: {
    promise:
      "the capability levels (the method map's levels) and the allowlist every backend checks",
    mutate: [
      "src/core/capabilities.ts",
      "src/codex/methods.ts",
      { file: "src/connect/operation_frame.ts", functions: ["checkAllowed"] },
    ],
    tests: ["tests/unit/capabilities_test.ts", "tests/unit/methods_test.ts"],
  },
  receipts: {
    promise: "codex_queue_message: a receipt says only what Codex confirmed",
    mutate: [
      "src/ops/queue_message.ts",
    ],
    tests: ["tests/unit/queue_message_tool_test.ts"],
  },
  "run-options": {
    promise: "codex_run's sandbox and approvalPolicy may only tighten the thread's settings",
    mutate: [
      "src/turn/run_options.ts",
      { file: "src/codex/validate.ts", functions: ["parseRunConfig"] },
    ],
    tests: ["tests/unit/run_options_test.ts"],
  },
  // The runs' core in two groups of one concern each (one group of both, 575 mutants, took
  // 572 s here at load 1-7: too near the 10 minutes).
  "run-book": {
    promise: "a run's state only moves forward (one live run per thread, the listing rule)",
    mutate: [
      "src/turn/run_state.ts",
      "src/turn/run_book.ts",
    ],
    tests: ["tests/unit/run_book_test.ts"],
  },
  "turn-events": {
    promise: "a run's own turn, and what it did, is told by its events",
    mutate: [
      "src/turn/turn_events.ts",
    ],
    tests: [
      "tests/unit/turn_events_test.ts",
      "tests/unit/compact_turn_test.ts",
      "tests/unit/token_usage_test.ts",
    ],
  },
  "changed-files": {
    promise:
      "changedFiles names exactly the files a run changed (Codex's items and diff; git's view in a worktree), outside cwd once",
    mutate: [
      "src/turn/changed_files.ts",
      "src/turn/worktree_files.ts",
      { file: "src/codex/notifications.ts", functions: ["parseFileChanges"] },
    ],
    tests: ["tests/unit/changed_files_test.ts"],
  },
  "own-requests": {
    promise:
      "a runtime takes only its own turn's server requests, once; answers reach their runtime",
    mutate: [
      "src/turn/own_requests.ts",
      "src/elicit/router.ts",
    ],
    tests: [
      "tests/unit/own_requests_test.ts",
      "tests/unit/elicit_*_test.ts",
      "tests/unit/promises_test.ts",
    ],
  },
  attach: {
    promise: "attaching to a running turn never resumes a thread the daemon has not loaded",
    mutate: [
      "src/turn/turn_attach.ts",
    ],
    tests: ["tests/unit/turn_attach_test.ts", "tests/unit/promises_test.ts"],
  },
  resolve: {
    promise: "a thread is named by its id or its exact, unique name",
    mutate: [
      "src/ops/resolve_thread.ts",
    ],
    tests: ["tests/unit/resolve_thread_test.ts", "tests/unit/promises_test.ts"],
  },
  withdraw: {
    promise: "codex_withdraw_message deletes only this relay's messages, with an honest receipt",
    mutate: [
      "src/ops/withdraw_message.ts",
    ],
    tests: ["tests/unit/withdraw_message_test.ts"],
  },
  stdio: {
    promise:
      "one MCP message is bounded; stdin stops at the bounds of unanswered requests and bytes",
    mutate: [
      "src/host/stdio_transport.ts",
      "src/host/wire_budget.ts",
    ],
    tests: [
      "tests/unit/stdio_transport_test.ts",
      "tests/unit/stdio_frames_test.ts",
      "tests/unit/wire_budget_test.ts",
      "tests/unit/stdio_oversized_test.ts",
    ],
  },
  "line-scan": {
    promise: "every request read is answered, by its top-level id, even past the message bound",
    mutate: [
      "src/host/line_scan.ts",
    ],
    tests: ["tests/unit/line_scan_test.ts"],
  },
  daemon: {
    promise:
      "the daemon connection's bounds; a lost daemon ends every view at once, never written to",
    mutate: [
      {
        file: "src/connect/daemon/daemon_connection.ts",
        functions: [
          "operation",
          "hold",
          "kill",
          "shutdown",
          "#usable",
          "#open",
          "#end",
          "asError",
        ],
      },
      "src/connect/shared_link.ts",
      "src/connect/daemon/liveness.ts",
      "src/connect/held_view.ts",
      "src/connect/thread_routing.ts",
    ],
    tests: [
      "tests/unit/daemon_bounds_test.ts",
      "tests/unit/daemon_loss_test.ts",
      "tests/unit/daemon_views_test.ts",
      "tests/unit/thread_views_test.ts",
      "tests/unit/liveness_test.ts",
      "tests/unit/liveness_use_test.ts",
      "tests/unit/shared_link_test.ts",
    ],
  },
  // #48: the worktrees over an in-memory git (testing/fake_git.ts); the integration tests
  // (tests/integration/worktree_*_test.ts) run the same cases on real git, too slow per mutant.
  // Two groups of one promise, so that each runs within 10 minutes.
  "worktree-make": {
    promise:
      "a worktree make takes down only what it made itself, and records what it makes before git makes it",
    mutate: [
      "src/ops/worktree.ts",
      "src/ops/worktree_record.ts",
    ],
    tests: WORKTREE_TESTS,
  },
  "worktree-remove": {
    promise:
      "the relay never removes or deletes a worktree, branch or file it did not make, or one in use",
    mutate: [
      "src/ops/worktree_remove.ts",
      "src/ops/worktree_git.ts",
      "src/ops/worktree_active.ts",
    ],
    tests: WORKTREE_TESTS,
  },
  // #48 (m-mutate-a): the frame bound (#46) and the push (#49).
  frames: {
    promise:
      "a frame over the bound is skipped as it comes, only its ends kept, told apart by its ends; the connection goes on",
    mutate: [
      "src/connect/cut_frame.ts",
      "src/connect/daemon/ws_skip.ts",
      "src/connect/spawn/line_reader.ts",
    ],
    tests: ["tests/unit/cut_frame_test.ts"],
  },
  "push-hook": {
    promise:
      "a run's end wakes the agent once, in a bounded text; never when final, not sent, followed, interrupted or the session gone",
    mutate: [
      "src/host/push_text.ts",
      "src/cli/hook_input.ts",
      {
        file: "src/cli/hook_wait.ts",
        functions: ["followForHook", "cannotFollow", "hookWaitArgs"],
      },
    ],
    tests: [
      "tests/unit/hook_wait_test.ts",
      "tests/unit/push_text_test.ts",
      "tests/unit/hook_input_test.ts",
      "tests/unit/channels_test.ts",
    ],
  },
  "push-channels": {
    promise:
      "a channel message for a run's end: once, only when no call waits on it and no result showed it, 64 runs at most",
    mutate: [
      {
        file: "src/host/channels.ts",
        functions: ["watching", "callStarted", "resulted", "#ended", "messagesNamed"],
      },
    ],
    tests: ["tests/unit/channels_test.ts"],
  },
  // The settings edit; runHookStep's flow (ask, backup, write) is on real files in
  // tests/integration/install_push_test.ts.
  "push-install": {
    promise:
      "the push hook is written once beside the user's settings, every other byte kept, and uninstall takes only it",
    mutate: [
      {
        file: "src/install/push_hooks.ts",
        functions: [
          "hookPaths",
          "hookFiles",
          "hookCommand",
          "hookFindings",
          "hookGroup",
          "ours",
          "document",
          "postToolUse",
          "withHook",
          "withoutHook",
          "items",
          "written",
          "commaAt",
          "withoutItem",
          "format",
        ],
      },
    ],
    tests: ["tests/unit/push_hooks_test.ts"],
  },
  reap: {
    promise: "a helper's whole process group ends with it, within the reap bound",
    mutate: [
      "src/connect/process/process_group.ts",
      {
        file: "src/connect/process/helper_process.ts",
        functions: [
          "reap",
          "#reap",
          "kill",
          "#signal",
          "#killLeader",
          "#exitWithin",
          "settlesWithin",
        ],
      },
    ],
    tests: ["tests/unit/process_group_test.ts"],
    contained:
      "its mutants run /bin/kill with mutated group ids: two uncontained runs on 2026-12-01 killed every process on the machine",
  },
  // #48: the drop-in `codex mcp-server` surface and the images of #50, one group per module.
  "compat-args": {
    promise:
      "--compat codex-mcp-server: names and schemas the old server's; each field honoured, mapped or refused as the design says",
    mutate: [
      "src/host/compat_args.ts",
    ],
    tests: ["tests/unit/compat_args_test.ts", "tests/unit/compat_tools_test.ts"],
  },
  "compat-tools": {
    promise:
      "a compat call is a run followed to its end, its result the old {threadId, content}; a refusal is isError with nothing sent",
    mutate: [
      "src/host/tools/compat_tools.ts",
    ],
    tests: ["tests/unit/compat_tools_test.ts"],
  },
  images: {
    promise:
      "images: at most 8, 768 KiB of data URLs in all, absolute image paths, no http(s); refused before anything is sent",
    mutate: [
      "src/reply/images.ts",
    ],
    tests: ["tests/unit/images_test.ts"],
  },
};
