import assert from "node:assert/strict";
import { parseCommand } from "../../src/cli/flags.ts";
import { serveFlags } from "../../src/host/serve_flags.ts";
import { capabilityArgs } from "../../src/core/capabilities.ts";
import { toolNames } from "../../src/host/tools/all_tools.ts";

Deno.test("serve --allow-worktrees [--git PATH]: the git to run; misuse is a usage error", () => {
  const on = parseCommand(["serve", "--allow-turn-start", "--allow-worktrees"]);
  assert.deepEqual(on.kind === "serve" && on.flags.worktrees, { git: "git" });
  const named = parseCommand([
    "serve",
    "--allow-turn-start",
    "--allow-worktrees",
    "--git",
    "/usr/bin/git",
  ]);
  assert.deepEqual(named.kind === "serve" && named.flags.worktrees, { git: "/usr/bin/git" });
  const off = parseCommand(["serve", "--allow-turn-start"]);
  assert.equal(off.kind === "serve" && off.flags.worktrees, undefined);
  assert.throws(() => parseCommand(["serve", "--allow-worktrees"]), /needs --allow-turn-start/);
  assert.throws(
    () => parseCommand(["serve", "--allow-turn-start", "--git", "/g"]),
    /needs --allow-worktrees/,
  );
  assert.throws(
    () => parseCommand(["serve", "--allow-turn-start", "--allow-worktrees", "--git", "git"]),
    /absolute path/,
  );
});

Deno.test("the library's allowWorktrees needs allowTurnStart; git defaults to git on PATH", () => {
  assert.deepEqual(
    serveFlags({ allowTurnStart: true, allowWorktrees: true }, "options").worktrees,
    {
      git: "git",
    },
  );
  assert.deepEqual(
    serveFlags({ allowTurnStart: true, allowWorktrees: true, git: "/usr/bin/git" }, "options")
      .worktrees,
    { git: "/usr/bin/git" },
  );
  assert.throws(() => serveFlags({ allowWorktrees: true }, "options"), /needs allowTurnStart/);
  assert.equal(serveFlags({ allowTurnStart: true }, "options").worktrees, undefined);
});

Deno.test("the worktrees level adds codex_worktree and its flag; the others are unchanged", () => {
  const turnStart = { replyRead: false, turnStart: true };
  const worktrees = { ...turnStart, worktrees: true };
  assert.deepEqual(capabilityArgs(worktrees), ["--allow-turn-start", "--allow-worktrees"]);
  assert.deepEqual(capabilityArgs(turnStart), ["--allow-turn-start"]);
  assert.deepEqual(toolNames(worktrees), [...toolNames(turnStart), "codex_worktree"]);
  assert.ok(
    !toolNames({ replyRead: true, turnStart: false, worktrees: true }).includes("codex_worktree"),
  );
});
