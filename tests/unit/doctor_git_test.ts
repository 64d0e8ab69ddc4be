import assert from "node:assert/strict";
import { gitFindings } from "../../src/cli/doctor_git.ts";
import { RelayError } from "../../src/core/errors.ts";
import type { Git } from "../../src/connect/process/git_runner.ts";

const says = (stdout: string, code = 0): Git => () => Promise.resolve({ code, stdout, stderr: "" });

Deno.test("doctor --allow-worktrees: git's version is ok from 2.17; older, silent or missing is a problem with its fix", async () => {
  const ok = await gitFindings(says("git version 2.39.5\n"), "/usr/bin/git", "codex-relay");
  assert.deepEqual(ok.map((f) => f.level), ["ok"]);
  assert.match(ok[0].text, /git version 2\.39\.5 \(\/usr\/bin\/git\)/);
  const old = await gitFindings(says("git version 2.16.0\n"), "git", "codex-relay");
  assert.equal(old[0].level, "problem");
  assert.match(old[0].text, /need git 2\.17/);
  const silent = await gitFindings(says("", 1), "git", "codex-relay");
  assert.equal(silent[0].level, "problem");
  const missing: Git = () =>
    Promise.reject(new RelayError("git_missing", "git (git) could not be started: not found"));
  const gone = await gitFindings(missing, "git", "codex-relay");
  assert.equal(gone[0].level, "problem");
  assert.match(gone[0].text, /could not be started/);
  assert.match(gone[0].fix!, /--allow-worktrees/);
});
