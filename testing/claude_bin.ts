/**
 * The real Claude Code for the push e2e tests: `CLAUDE_BIN`, else npm's
 * `.claude-npm/node_modules/.bin/claude` in the checkout (`.ci/run` installs
 * `@anthropic-ai/claude-code` there). Missing: a `SKIPPED:` line, or a failing
 * test under `CLAUDE_E2E_REQUIRED=1` (set by `.ci/run` after it installed it).
 * @module
 */

import { ROOT } from "./paths.ts";

/** The Claude Code release the push tests were written against. */
export const CLAUDE_VERSION = "2.1.332";

/** The claude executable for `file`'s tests, or null (then none of them run). */
export function claudeForTests(file: string): string | null {
  const path = Deno.env.get("CLAUDE_BIN") ?? `${ROOT}/.claude-npm/node_modules/.bin/claude`;
  try {
    if (Deno.statSync(path).isFile) return path;
  } catch {
    // Not installed.
  }
  const why =
    `Claude Code not installed (set CLAUDE_BIN, or npm install --prefix .claude-npm @anthropic-ai/claude-code@${CLAUDE_VERSION})`;
  if (Deno.env.get("CLAUDE_E2E_REQUIRED") === "1") {
    Deno.test(`${file}: Claude Code is required (CLAUDE_E2E_REQUIRED=1)`, () => {
      throw new Error(`${why}; the push e2e tests cannot run`);
    });
  } else {
    // deno-lint-ignore no-console
    console.error(`SKIPPED: ${why} — ${file} runs no test`);
  }
  return null;
}
