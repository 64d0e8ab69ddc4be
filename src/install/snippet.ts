/**
 * What `install --print` (and the relay's own print-only install) shows: the
 * client's entry in its own format and the one command that applies it.
 * @module
 */

import type { InstallArgs } from "./args.ts";
import { entryNameOf, type Launcher, type Target } from "./clients.ts";
import type { InstallIo } from "./io.ts";
import { commandLine } from "./launch.ts";
import { setTomlEntry, type TomlEntry } from "./toml_edit.ts";

/**
 * Prints the entry for `target` and the command that applies it (`--print`,
 * the relay's own install). `settled`: the entry is the one the command
 * writes; when not (Codex not looked for here), no `claude mcp add-json` line
 * is offered, since it would register another Codex than the command does.
 */
export function printSnippet(
  args: InstallArgs,
  target: Target,
  launcher: Launcher,
  apply: string,
  io: InstallIo,
  codexNote = "",
  settled = true,
): void {
  const lines: string[] = [];
  const dry = args.dryRun
    ? "Dry run: nothing was written, and the command below writes nothing either (it has --dry-run): it shows the exact change. Run it without --dry-run to write."
    : undefined;
  if (args.action === "uninstall") {
    lines.push(
      ...(dry ? [dry, ""] : []),
      `To remove the "${
        entryNameOf(target)
      }" entry from ${target.label} (${target.scope}) in ${target.path}, run (${
        args.yes ? "it shows the change and writes it" : "it shows the change and asks first"
      }):`,
      "",
      `  ${apply}`,
      "",
    );
    io.out(lines.join("\n"));
    return;
  }
  const entry = target.entry(launcher);
  lines.push(
    ...(dry ? [dry, ""] : []),
    `codex-relay entry for ${target.label} (${target.scope} scope), in ${target.path}:`,
    "",
    target.format === "json"
      ? JSON.stringify({ [target.container[0]]: { [entryNameOf(target)]: entry } }, null, 2)
      : setTomlEntry("", entryNameOf(target), entry as unknown as TomlEntry, target.path).trimEnd(),
    "",
    ...(codexNote ? [codexNote, ""] : []),
    args.dryRun
      ? "See the change with this command:"
      : args.yes
      ? "Write it with this command (it shows the change, keeps a backup and writes it):"
      : "Write it with this command (it shows the change, keeps a backup and asks before writing):",
    "",
    `  ${apply}`,
    "",
  );
  if (target.client === "claude-code" && !args.dryRun && !settled) {
    lines.push(
      "Or let Claude Code write it: add --print to the command above; it looks for Codex and prints the `claude mcp add-json` line of the entry it would write.",
      "",
    );
  } else if (target.client === "claude-code" && !args.dryRun) {
    lines.push(
      "Or let Claude Code write it:",
      "",
      `  ${
        commandLine(
          [
            "claude",
            "mcp",
            "add-json",
            "--scope",
            target.scope,
            entryNameOf(target),
            JSON.stringify(entry),
          ],
          io.os,
        )
      }`,
      "",
    );
  }
  io.out(lines.join("\n"));
}
