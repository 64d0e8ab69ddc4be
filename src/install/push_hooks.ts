/**
 * `install --client claude-code --push hooks`: the Claude Code hook that runs
 * `hook-wait` after the relay's run tools (docs/design.md, "Push"), written
 * into the settings file of the chosen scope (`~/.claude/settings.json`,
 * `.claude/settings.json`) beside the MCP entry, with the entry's care: the
 * change shown, asked, a backup, an atomic write, every other byte (comments,
 * other hooks) kept. `uninstall ... --push hooks` removes only the hook group
 * install wrote (found by its matcher and its `hook-wait` command), and the
 * `PostToolUse` list or `hooks` object it leaves empty.
 * @module
 */

import {
  applyEdits,
  findNodeAtLocation,
  modify,
  type Node,
  parse,
  type ParseError,
  parseTree,
} from "jsonc-parser";
import type { Launcher, Scope } from "./clients.ts";
import { commandLine } from "./launch.ts";
import { unifiedDiff } from "./diff.ts";
import { deepEqual } from "./deep_equal.ts";
import { EXIT, InstallError } from "./install_error.ts";
import type { InstallIo } from "./io.ts";

/** The push routes `install --push` takes. */
export const PUSH_ROUTES = ["hooks"] as const;

/** The tools after which the hook runs, as Claude Code's matcher names them. */
export const HOOK_MATCHER =
  "mcp__codex-relay__(codex_run|codex_review|codex_queue_message|codex_steer)";

/** The bound of the hook's wait (minutes) install writes. */
export const HOOK_MINUTES = 30;

/** Where Claude Code's settings and transcripts are, for a scope. */
export function hookPaths(
  scope: Scope,
  env: (name: string) => string | undefined,
  cwd: string,
): { settings: string; folder: string; projects: string; backup: string; tmp: string } {
  const home = env("HOME") ?? env("USERPROFILE");
  const config = env("CLAUDE_CONFIG_DIR") || `${home}/.claude`;
  const settings = scope === "user" ? `${config}/settings.json` : `${cwd}/.claude/settings.json`;
  return {
    settings,
    folder: settings.replace(/[\\/][^\\/]*$/, ""),
    projects: `${config}/projects`,
    backup: `${settings}.codex-relay.bak`,
    tmp: `${settings}.codex-relay.tmp`,
  };
}

/** The files the hook step reads and the folder it writes (for the apply command's grants). */
export function hookFiles(
  args: { push?: string; scope: Scope },
  io: Pick<InstallIo, "env" | "cwd">,
): { read: string[]; write: string[] } {
  if (!args.push) return { read: [], write: [] };
  const p = hookPaths(args.scope, io.env, io.cwd);
  return { read: [p.settings, p.backup, p.tmp], write: [p.folder] };
}

/**
 * The hook's command line, from the MCP entry's launcher: the same Deno,
 * permissions and Codex, plus read of Claude Code's `projects` folder (the
 * transcript that tells whether the agent followed the run itself), running
 * `hook-wait` instead of `serve`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const command = hookCommand(
 *   { command: "/bin/deno", args: ["run", "-P", "/r/mod.ts", "serve", "--allow-turn-start"] },
 *   "/h/.claude/projects",
 * );
 * assert.equal(
 *   command,
 *   "exec /bin/deno run -P --allow-read=/h/.claude/projects /r/mod.ts hook-wait --timeout-minutes 30",
 * );
 * ```
 */
export function hookCommand(
  launcher: Launcher,
  projects: string,
  os?: typeof Deno.build.os,
): string {
  const at = launcher.args.indexOf("serve");
  // Stryker disable next-line MethodExpression: the words before serve are Deno's and the module's, never --codex or --app-server
  const serve = launcher.args.slice(at + 1);
  // How the entry reaches Codex: the same for the hook (its Codex, its app-server mode).
  const passOn = ["--codex", "--app-server"].flatMap((flag) => {
    const at = serve.indexOf(flag);
    return at >= 0 ? serve.slice(at, at + 2) : [];
  });
  const tail = ["hook-wait", "--timeout-minutes", String(HOOK_MINUTES), ...passOn];
  const words = at <= 0 ? [launcher.command, ...tail] : [
    launcher.command,
    ...launcher.args.slice(0, at - 1),
    `--allow-read=${projects}`,
    launcher.args[at - 1],
    ...tail,
  ];
  const env = Object.entries(launcher.env ?? {}).map(([k, v]) => `${k}=${commandLine([v], os)}`);
  // `exec`: hook-wait replaces Claude Code's shell, so its parent is Claude Code (a session that
  // ended is one whose parent is gone).
  return [...env, "exec", commandLine(words, os)].join(" ");
}

/**
 * What `doctor --client claude-code` says of the push hook in the settings
 * file `text` (`null`: none): installed and running the entry's relay
 * (`entryPaths`), installed for another one, or absent (optional).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(hookFindings(null, "/h/.claude/settings.json", [])[0].level, "info");
 * ```
 */
export function hookFindings(
  text: string | null,
  path: string,
  entryPaths: readonly string[],
): { level: "ok" | "info" | "warn"; text: string; fix?: string }[] {
  let list: unknown[];
  try {
    list = postToolUse(document(text ?? "", path), path);
  } catch (error) {
    return [{ level: "warn", text: error instanceof Error ? error.message : String(error) }];
  }
  const group = list.find(ours) as
    | { hooks: { command: string; asyncRewake?: boolean }[] }
    | undefined;
  const fix = "install --client claude-code --push hooks writes it again";
  if (!group) {
    return [{
      level: "info",
      text: `no push hook in ${path} (optional: install --push hooks adds it)`,
    }];
  }
  const hook = group.hooks.find((h) => h.command.includes(" hook-wait"))!;
  const other = entryPaths.filter((p) => !hook.command.includes(p));
  if (hook.asyncRewake !== true || other.length > 0) {
    return [{
      level: "warn",
      text: `the push hook in ${path} ${
        other.length ? `does not run the entry's ${other.join(", ")}` : "lacks asyncRewake"
      }`,
      fix,
    }];
  }
  return [{ level: "ok", text: `the push hook in ${path} runs hook-wait after the relay's runs` }];
}

/** The hook group install writes. */
export function hookGroup(command: string): Record<string, unknown> {
  return {
    matcher: HOOK_MATCHER,
    hooks: [{ type: "command", command, asyncRewake: true, timeout: HOOK_MINUTES * 60 + 60 }],
  };
}

const PARSE = { allowTrailingComma: true, disallowComments: false };

/** Whether `group` is one install wrote. */
function ours(group: unknown): boolean {
  const g = group as { matcher?: unknown; hooks?: { command?: unknown }[] };
  return g?.matcher === HOOK_MATCHER && Array.isArray(g.hooks) &&
    g.hooks.some((h) => typeof h?.command === "string" && h.command.includes(" hook-wait"));
}

function document(text: string, path: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  const errors: ParseError[] = [];
  const root = parse(text, errors, PARSE);
  if (errors.length > 0 || typeof root !== "object" || root === null || Array.isArray(root)) {
    throw new InstallError(
      `${path} is not a JSON object; fix or move it, then run again. Nothing was written`,
      EXIT.malformed,
    );
  }
  return root;
}

/** The `hooks.PostToolUse` list of a settings file, `[]` when it has none. */
function postToolUse(root: Record<string, unknown>, path: string): unknown[] {
  const hooks = root.hooks as Record<string, unknown> | undefined;
  const list = hooks?.PostToolUse;
  if (list !== undefined && !Array.isArray(list)) {
    throw new InstallError(`"hooks.PostToolUse" in ${path} is not a list; nothing was written`, 65);
  }
  // Stryker disable next-line ArrayDeclaration: no list: nothing in it is ours, and jsonc-parser makes the list where there is none
  return list ?? [];
}

/**
 * `text` (a settings file, `""` when absent) with the hook group `group`:
 * added first in `hooks.PostToolUse`, or in place of the one install
 * wrote before. The text itself when it holds that group already.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const out = withHook('{\n  // mine\n  "model": "x"\n}\n', hookGroup("deno hook-wait"), "s.json");
 * assert.match(out, /\/\/ mine/);
 * assert.equal(JSON.parse(withoutHook(out, "s.json").replace(/\/\/.*\n/, "")).model, "x");
 * ```
 */
export function withHook(text: string, group: Record<string, unknown>, path: string): string {
  const root = document(text, path);
  const list = postToolUse(root, path);
  const at = list.findIndex(ours);
  if (deepEqual(list[at], group)) return text;
  if (list.length > 0) {
    const node = items(text)[Math.max(at, 0)];
    const { body, gap } = written(text, node.offset, group);
    // Ours in place, or first (not last: a comment after the user's last group stays theirs,
    // and withoutItem takes back exactly this; Claude Code runs every matching group).
    const end = at < 0 ? node.offset : node.offset + node.length;
    return text.slice(0, node.offset) + body + (at < 0 ? `,${gap}` : "") + text.slice(end);
  }
  // No list, or an empty one (at: -1): jsonc-parser writes it.
  const where = ["hooks", "PostToolUse", at];
  return applyEdits(text, modify(text, where, group, { formattingOptions: format(text) }));
}

/** `text` without the hook group install wrote (and the empty list and object it leaves). */
export function withoutHook(text: string, path: string): string {
  const root = document(text, path);
  const at = postToolUse(root, path).findIndex(ours);
  if (at < 0) return text;
  const list = items(text);
  if (list.length > 1) return withoutItem(text, list, at);
  // Ours alone: the list goes, and the hooks object it leaves empty. Unformatted: a removal
  // formatted would rewrite the user's text.
  const fo = {};
  let out = applyEdits(text, modify(text, ["hooks", "PostToolUse"], undefined, fo));
  if (Object.keys(document(out, path).hooks as object).length === 0) {
    out = applyEdits(out, modify(out, ["hooks"], undefined, fo));
  }
  return out;
}

/** The groups of `hooks.PostToolUse` (a file `document` read), as jsonc-parser places them. */
function items(text: string): Node[] {
  return findNodeAtLocation(parseTree(text, undefined, PARSE)!, ["hooks", "PostToolUse"])!
    .children!;
}

/**
 * `group` written at `at` in `text`, and the gap before what follows it: on its
 * own lines, with the file's indentation and line ends, when `at` starts a line.
 */
function written(text: string, at: number, group: Record<string, unknown>) {
  const line = text.lastIndexOf("\n", at) + 1;
  const indent = text.slice(line, at);
  if (!/^[ \t]*$/.test(indent)) return { body: JSON.stringify(group), gap: " " };
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const f = format(text);
  const unit = f.insertSpaces ? " ".repeat(f.tabSize) : "\t";
  return {
    body: JSON.stringify(group, null, unit).replaceAll("\n", eol + indent),
    gap: eol + indent,
  };
}

/** Spaces, line ends and comments, then maybe a comma: where it is (-1: none). */
function commaAt(text: string, from: number): number {
  const trivia = /(?:\s|\/\/[^\n]*|\/\*[\s\S]*?\*\/)*/y;
  trivia.lastIndex = from;
  trivia.exec(text);
  return text[trivia.lastIndex] === "," ? trivia.lastIndex : -1;
}

/**
 * `text` without the group `list[at]` (one of two or more), every other byte
 * kept, comments too (jsonc-parser 3.3.1 breaks the file removing a last item
 * written `},{...}]`, its issue #108). Before another group: ours, its comma
 * and the blank after. Last: ours with the blank before, and the comma before
 * unless ours has one after (the user's trailing comma stays).
 */
function withoutItem(text: string, list: Node[], at: number): string {
  const node = list[at];
  const end = node.offset + node.length;
  if (at < list.length - 1) {
    const after = commaAt(text, end) + 1;
    // The blank at its start (the pattern matches there, if only empty).
    return text.slice(0, node.offset) + text.slice(after).replace(/[ \t]*(\r?\n[ \t]*)?/, "");
  }
  const comma = commaAt(text, list[at - 1].offset + list[at - 1].length);
  let start = node.offset;
  while (/\s/.test(text[start - 1])) start--; // to the comma, or a comment after it
  const trailing = commaAt(text, end);
  if (trailing !== -1) return text.slice(0, start) + text.slice(trailing + 1);
  const tail = text.slice(0, start) + text.slice(end);
  return tail.slice(0, comma) + tail.slice(comma + 1);
}

/** The file's own indentation (its line ends jsonc-parser keeps itself). */
function format(text: string) {
  const unit = text.match(/^([ \t]+)["/]/m)?.[1] ?? "  ";
  // Stryker disable next-line MethodExpression,ObjectLiteral: an indentation is tabs or spaces, not both; jsonc-parser indents with tabs unless told insertSpaces
  if (unit.startsWith("\t")) return { insertSpaces: false, tabSize: 1 };
  return { insertSpaces: true, tabSize: unit.length };
}

/** What the hook step is given by the install flow. */
export interface HookStep {
  action: "install" | "uninstall";
  scope: Scope;
  push?: "hooks";
  dryRun: boolean;
  yes: boolean;
  print: boolean;
  printCommand: boolean;
}

/** What the install flow resolved: the entry's launcher and the one apply command. */
export interface HookResolved {
  launcher: Launcher;
  /** The one command that applies the whole change (with the settings files' permissions). */
  applyLine(): string;
}

/**
 * The hook step of `install`/`uninstall --push hooks`, after the entry's:
 * shows the settings change, asks, backs up, writes. Resolves with the exit
 * code; nothing without `--push`, or when only printing.
 *
 * @example
 * ```ts ignore
 * const code = await runHookStep(args, {}, () => resolved, io);
 * ```
 */
export async function runHookStep(
  args: HookStep,
  options: { printOnly?: boolean },
  resolved: () => HookResolved,
  io: InstallIo,
): Promise<number> {
  if (!args.push || options.printOnly || args.print || args.printCommand) return 0;
  const { launcher, applyLine } = resolved();
  const step = { ...args, launcher, applyLine };
  const paths = hookPaths(step.scope, io.env, io.cwd);
  const { settings } = paths;
  const needed = [
    { name: "read", path: settings } as const,
    ...(step.dryRun ? [] : [
      { name: "read", path: paths.backup } as const,
      { name: "read", path: paths.tmp } as const,
      { name: "write", path: paths.folder } as const,
    ]),
  ].filter((d) => !io.granted(d));
  if (needed.length > 0) {
    throw new InstallError(
      `The hook goes into ${settings}, and there is no permission for ${
        needed.map((d) => `${d.name} ${d.path}`).join(", ")
      }. Run exactly:\n  ${step.applyLine()}`,
      EXIT.permission,
    );
  }
  const before = await io.fs.read(settings);
  const after = step.action === "install"
    ? withHook(before ?? "", hookGroup(hookCommand(step.launcher, paths.projects, io.os)), settings)
    : withoutHook(before ?? "", settings);
  if (after === (before ?? "")) {
    io.out(
      `Claude Code (${step.scope}): ${settings} already ${
        step.action === "install" ? "has" : "lacks"
      } the codex-relay hook; nothing to do.\n`,
    );
    return 0;
  }
  io.out(
    `Claude Code (${step.scope}): will ${
      step.action === "install"
        ? "add the codex-relay hook (push, hook-wait) to"
        : "remove the codex-relay hook from"
    } ${settings}\n\n${unifiedDiff(before, after, settings, 3)}\n`,
  );
  if (step.dryRun) return 0;
  if (!step.yes && !(io.stdinIsTerminal && io.confirm(`Write this change to ${settings}?`))) {
    io.out("The hook was not written.\n");
    return EXIT.refused;
  }
  if (before === null) await io.fs.makeFolder(paths.folder);
  await io.fs.replace(settings, after, before, paths.backup, paths.tmp);
  io.out(
    `Wrote ${settings}${before === null ? "" : ` (the previous version is in ${paths.backup})`}.\n`,
  );
  return 0;
}
