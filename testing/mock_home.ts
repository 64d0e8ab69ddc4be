/**
 * The preamble and the end of every e2e test against real Codex: the
 * Responses mock, a temp CODEX_HOME whose model provider it is, the relay's
 * environment with the real `codex` first on PATH, and at the end the check
 * that no process tagged with the temp root is left.
 * @module
 */

import assert from "assert";
import {
  type CodexHome,
  type CodexHomeOptions,
  createCodexHome,
  linkCodexBin,
  relayEnv,
} from "./codex_home.ts";
import { processesTagged, type TaggedProcess } from "./process_table.ts";
import { type MockResponses, startMockResponses } from "./mock_responses.ts";

/** What {@link withMockHome} hands the test. */
export interface MockHome {
  /** The Responses mock (the home's model provider). */
  mock: MockResponses;
  /** The temp CODEX_HOME and its root. */
  home: CodexHome;
  /**
   * The relay's environment (`relayEnv`): `<root>/bin/codex`, a link to
   * `bin`, first on PATH. Empty when no `bin` was given.
   */
  env: Record<string, string>;
}

/** Options of {@link withMockHome}: the home's (all but the mock's URL) and the codex to link. */
export type MockHomeOptions = Omit<CodexHomeOptions, "mockUrl"> & {
  /** The codex binary to link into `<root>/bin` for the relay's PATH; none when omitted. */
  bin?: string;
};

/**
 * Runs `fn` with a fresh mock and home; whatever `fn` starts it closes
 * itself. Then the mock is closed, the home removed, and the test fails when
 * a process tagged with the home's root is still alive (checked before the
 * removal, after `fn` returned or threw).
 *
 * @example
 * ```ts
 * await withMockHome({ bin: BIN.path }, async ({ home, env }) => {
 *   const relay = await startRelay({ env, flags: [], protocol: "2026-07-28" });
 *   try {
 *     // ... calls ...
 *   } finally {
 *     await relay.close();
 *   }
 * });
 * ```
 */
export async function withMockHome(
  opts: MockHomeOptions,
  fn: (w: MockHome) => Promise<void>,
): Promise<void> {
  const { bin, ...homeOpts } = opts;
  const mock = await startMockResponses();
  let home: CodexHome;
  let env: Record<string, string> = {};
  try {
    home = await createCodexHome({ ...homeOpts, mockUrl: mock.url });
  } catch (error) {
    await mock.close();
    throw error;
  }
  let left: TaggedProcess[] = [];
  try {
    if (bin !== undefined) env = await relayEnv(home, await linkCodexBin(home, bin));
    await fn({ mock, home, env });
  } finally {
    try {
      left = await processesTagged(home.root);
    } finally {
      await mock.close();
      await home.cleanup();
    }
  }
  assert.deepEqual(left, [], "no process of the test's CODEX_HOME is left");
}
