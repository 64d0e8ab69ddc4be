/**
 * The groups of `deno task mutate`: each names the modules (whole files, or
 * named functions of a big one) that keep a promise of docs/design.md, the
 * fast unit tests that guard them (each mutant runs only these), and the
 * surviving mutants that are equivalent, each with its reason. A survivor
 * not listed here fails the group's target (90%) or is a missing test.
 * @module
 */

import type { Group } from "./mutate_select.ts";

/** The groups, by name. */
export const GROUPS: Record<string, Group> = {
  reply: {
    promise: "replies: read, wait, cursors, the turn status",
    mutate: ["src/reply/**/*.ts", "src/ops/read_reply.ts", "src/ops/wait_reply.ts"],
    tests: ["tests/unit/reply_*_test.ts"],
  },
  elicit: {
    promise: "elicitation: mappings, answer validation, tokens",
    mutate: ["src/elicit/**/*.ts"],
    tests: ["tests/unit/elicit_*_test.ts"],
  },
  capabilities: {
    promise: "the capability levels and the allowlist every backend checks",
    mutate: [
      "src/core/capabilities.ts",
      { file: "src/connect/operation_frame.ts", functions: ["checkAllowed"] },
    ],
    tests: ["tests/unit/capabilities_test.ts"],
  },
  receipts: {
    promise: "codex_queue_message: a receipt says only what Codex confirmed",
    mutate: ["src/ops/queue_message.ts"],
    tests: ["tests/unit/queue_message_tool_test.ts"],
  },
  "run-options": {
    promise: "codex_run's sandbox and approvalPolicy may only tighten the thread's settings",
    mutate: [
      "src/turn/run_options.ts",
      { file: "src/codex/validate.ts", functions: ["parseRunConfig"] },
    ],
    tests: ["tests/unit/run_options_test.ts"],
    equivalent: [
      ...["sandbox", "approvalPolicy"].map((option) => ({
        file: "src/turn/run_options.ts",
        mutator: "ConditionalExpression",
        replacement: "true",
        line: `if (options.${option} !== undefined) {`,
        reason: "an unset option ranks -1 (indexOf(undefined)), never looser than anything",
      })),
      {
        file: "src/turn/run_options.ts",
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "const at = value === null ? -1 : order.indexOf(value);",
        reason: "indexOf(null) is -1 too: the null test only says so",
      },
      {
        file: "src/turn/run_options.ts",
        mutator: "ConditionalExpression",
        replacement: "false",
        line: "(order: readonly string[], v: string | null) => v === null ? -1",
        reason: "indexOf(null) is -1 too: the null test only says so",
      },
      {
        file: "src/turn/run_options.ts",
        mutator: "EqualityOperator",
        replacement: "order.indexOf(a) < order.indexOf(b)",
        line: "order.indexOf(a) <= order.indexOf(b) ? a : b;",
        reason: "equal ranks are the same value: a or b is the same setting",
      },
    ],
  },
};
