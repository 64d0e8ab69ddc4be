import assert from "node:assert/strict";
import { startCommand } from "../../src/install/launch.ts";
import { parseInstallArgs } from "../../src/install/args.ts";
import { entryGit } from "../../src/install/entry_git.ts";
import type { FsView } from "../../src/connect/process/codex_binary.ts";

const WT = { replyRead: false, turnStart: true, worktrees: true };
const CHECKOUT = { kind: "checkout" as const, root: "/r" };

Deno.test("install --allow-worktrees: the entry serves with it, and its run permission names the git found", () => {
  const line = startCommand(CHECKOUT, WT, "deno", "/opt/codex", "/usr/bin/git");
  assert.ok(line.includes("--allow-run=/opt/codex,/bin/kill,/usr/bin/git"), line.join(" "));
  assert.deepEqual(line.slice(line.indexOf("serve")), [
    "serve",
    "--allow-turn-start",
    "--allow-worktrees",
    "--codex",
    "/opt/codex",
    "--git",
    "/usr/bin/git",
  ]);
  const jsr = startCommand({ kind: "jsr", version: "1.0.0" }, WT);
  assert.ok(jsr.includes("--allow-run=codex,/bin/kill,git"), "none found: git on PATH");
  assert.ok(!jsr.includes("--git"));
  const plain = startCommand(
    CHECKOUT,
    { replyRead: false, turnStart: true },
    "deno",
    "/opt/codex",
    "/usr/bin/git",
  );
  assert.ok(plain.includes("--allow-run=/opt/codex,/bin/kill"), "no git without the flag");
  assert.ok(!plain.join(" ").includes("git"));
});

Deno.test("install --allow-worktrees needs --allow-turn-start, and is passed on", () => {
  assert.throws(
    () => parseInstallArgs(["--client", "codex", "--allow-worktrees"]),
    /needs --allow-turn-start/,
  );
  const args = parseInstallArgs(["--client", "codex", "--allow-turn-start", "--allow-worktrees"]);
  assert.equal(args.worktrees, true);
  assert.throws(
    () => parseInstallArgs(["uninstall", "--client", "codex", "--allow-worktrees"]),
    /not an option/,
  );
});

Deno.test("entryGit: the first git on PATH the installer sees; none without the flag or from a compiled relay", () => {
  const files = new Set(["/usr/bin/git", "/opt/git/bin/git"]);
  const look: FsView = {
    kind: (p) => files.has(p) ? "file" : "missing",
    realPath: (p) => p,
    head: () => null,
  };
  const io = {
    os: "linux" as const,
    env: (n: string) => n === "PATH" ? "/nope:/usr/bin/:/opt/git/bin" : undefined,
    look,
  };
  assert.equal(entryGit({ worktrees: true }, CHECKOUT, io), "/usr/bin/git");
  assert.equal(entryGit({}, CHECKOUT, io), undefined);
  assert.equal(entryGit({ worktrees: true }, { kind: "binary", path: "/b" }, io), undefined);
  assert.equal(
    entryGit({ worktrees: true }, CHECKOUT, { ...io, env: () => "rel:/nope" }),
    undefined,
  );
});
