/**
 * Which git an entry with `--allow-worktrees` runs, decided when it is
 * installed, as its Codex is: the first `git` on PATH the installer can see
 * (its apply command reads PATH's folders), written as `serve --git PATH`
 * with the run permission naming exactly that path; else `git` on PATH,
 * which Deno looks up when the relay starts.
 * @module
 */

import type { InstallArgs } from "./args.ts";
import type { InstallIo } from "./io.ts";
import type { Source } from "./launch.ts";

/**
 * The git the entry for `args` names, or undefined (none wanted, a compiled
 * relay, or none seen: `git` on PATH).
 *
 * @example
 * ```ts ignore
 * entryGit({ ...args, worktrees: true }, source, io); // "/usr/bin/git"
 * ```
 */
export function entryGit(
  args: Pick<InstallArgs, "worktrees">,
  source: Source,
  io: Pick<InstallIo, "os" | "env" | "look">,
): string | undefined {
  if (!args.worktrees || source.kind === "binary") return undefined;
  const windows = io.os === "windows";
  for (const dir of (io.env("PATH") ?? "").split(windows ? ";" : ":")) {
    if (dir === "" || !/^([A-Za-z]:[\\/]|\/)/.test(dir)) continue;
    const path = `${dir.replace(/[\\/]+$/, "")}${windows ? "\\git.exe" : "/git"}`;
    if (!path.includes(",") && io.look.kind(path) === "file") return path;
  }
  return undefined;
}
