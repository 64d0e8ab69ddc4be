/**
 * What runs where without a real Codex (the CI workflow's macOS and Windows
 * jobs): every unit and integration test file, less the ones a platform
 * cannot run yet. The one place such a gap is named, with its reason.
 * @module
 */

/** An operating system as `Deno.build.os` names it. */
export type Os = typeof Deno.build.os;

const FIXTURE_POSIX =
  "the fixture harness is POSIX-only: barriers are FIFOs (mkfifo), leftover processes are found with `ps`, and the fixture's faults use `sh` and POSIX signals";
const POSIX_PATHS = "asserts POSIX absolute paths (/bin/deno, /repo, file:///d/...)";

/**
 * Test files (relative to the repository root) that cannot run on Windows
 * yet, each with the reason. Everything else in tests/unit/ and
 * tests/integration/ runs there.
 */
export const WINDOWS_GAPS: Readonly<Record<string, string>> = {
  "tests/unit/deadline_test.ts": FIXTURE_POSIX,
  "tests/unit/helper_stderr_test.ts": "spawns `sh -c` as the helper",
  "tests/unit/mcp_client_test.ts": "its children are stopped with POSIX signals (SIGTERM/SIGKILL)",
  "tests/unit/install_launch_test.ts": POSIX_PATHS,
  "tests/unit/permission_flags_test.ts": POSIX_PATHS,
  "tests/integration/agent_tools_test.ts": FIXTURE_POSIX,
  "tests/integration/cancelled_start_test.ts": FIXTURE_POSIX,
  "tests/integration/cli_test.ts": `${FIXTURE_POSIX}; one test needs \`script\` for a terminal`,
  "tests/integration/daemon_cli_test.ts": FIXTURE_POSIX,
  "tests/integration/daemon_connection_test.ts": FIXTURE_POSIX,
  "tests/integration/demo_test.ts": FIXTURE_POSIX,
  "tests/integration/doctor_test.ts": FIXTURE_POSIX,
  "tests/integration/elicit_modes_test.ts": FIXTURE_POSIX,
  "tests/integration/fork_compact_test.ts": `${FIXTURE_POSIX}; its daemon mode too`,
  "tests/integration/host_test.ts": FIXTURE_POSIX,
  "tests/integration/install_cli_test.ts":
    `${FIXTURE_POSIX}; the printed install line is run with \`sh -c\``,
  "tests/integration/install_test.ts": POSIX_PATHS,
  "tests/integration/moderation_test.ts": FIXTURE_POSIX,
  "tests/integration/spawn_connection_test.ts": FIXTURE_POSIX,
  "tests/integration/permissions_test.ts": FIXTURE_POSIX,
  "tests/integration/documented_commands_test.ts":
    `${FIXTURE_POSIX}; the README's lines are POSIX shell`,
  "tests/integration/npm_shim_test.ts": `${FIXTURE_POSIX}; the shim is a POSIX Node script`,
  "tests/integration/reply_test.ts": FIXTURE_POSIX,
  "tests/integration/turn_runtime_test.ts": FIXTURE_POSIX,
  "tests/integration/turn_test.ts": FIXTURE_POSIX,
  "tests/integration/changed_files_test.ts": FIXTURE_POSIX,
  "tests/integration/worktree_git_test.ts": POSIX_PATHS,
};

/** The gaps of `os` (none outside Windows). */
export function gapsOf(os: Os): Readonly<Record<string, string>> {
  return os === "windows" ? WINDOWS_GAPS : {};
}

/** Which of `files` run on `os` and which are skipped there (with the reason). Pure. */
export function portablePlan(
  files: readonly string[],
  os: Os,
): { run: string[]; skipped: { file: string; reason: string }[] } {
  const gaps = gapsOf(os);
  const run: string[] = [];
  const skipped: { file: string; reason: string }[] = [];
  for (const file of [...files].sort()) {
    const reason = gaps[file];
    if (reason === undefined) run.push(file);
    else skipped.push({ file, reason });
  }
  return { run, skipped };
}

/** The folders whose tests need no real Codex. */
export const PORTABLE_DIRS: readonly string[] = ["tests/unit", "tests/integration"];
