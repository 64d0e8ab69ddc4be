/**
 * The one table of `serve`'s options: each row's flag, library option, type,
 * what it needs, help text, and what it adds to a client entry's arguments
 * and run permission. The CLI's parser (`cli/flags.ts`), the library's checks
 * (`host/serve_flags.ts`), the help (`cli/help.ts`), `install`'s entry and its
 * options (`install/args.ts`, `install/launch.ts`), `doctor`'s report and the
 * arguments a printed command passes on are all read from it: a new flag is
 * one row here (CONTRIBUTING, "Adding a serve option").
 * @module
 */

/** A library option of `serve` (`ServeOptions` in `host/serve_flags.ts`). */
export type ServeOptionKey =
  | "allowReplyRead"
  | "allowTurnStart"
  | "autoApproveMcpTools"
  | "disableCodexMcpServers"
  | "allowWorktrees"
  | "git"
  | "logLevel"
  | "appServer"
  | "codex"
  | "compat"
  | "channels";

/** The options' values in the command line's shape: a switch, a string, or a repeated string. */
export type ServeValues = { [K in ServeOptionKey]?: boolean | string | readonly string[] };

/** One row of the table. */
export interface ServeOption {
  /** The option's name in `ServeOptions`. */
  option: ServeOptionKey;
  /** The flag, `--name`. */
  flag: string;
  /** A switch, a string, or a string given once per value (repeatable). */
  type: "boolean" | "string" | "strings";
  /** The value's name in the help (`PATH`). */
  value?: string;
  /** The option it needs given too (a usage error otherwise). */
  needs?: ServeOptionKey;
  /** The help's lines. */
  help: readonly string[];
  /** `doctor` takes it: its help lines there (`true`: the serve help's). */
  doctor?: readonly string[] | true;
  /** `install` takes it and writes it into the entry: its line in install's help. */
  install?: readonly string[];
  /** The value an entry's arguments leave out (the default). */
  unwritten?: string;
  /**
   * What it adds to the entry's run permission: the value of `from` (else
   * `otherwise`), appended, or in place of `replaces`.
   */
  run?: { from: ServeOptionKey; otherwise?: string; replaces?: string };
}

/** Every option of `serve`, in the order of the help and of an entry's arguments. */
export const SERVE_OPTIONS: readonly ServeOption[] = [
  {
    option: "allowReplyRead",
    flag: "--allow-reply-read",
    type: "boolean",
    help: ["Add codex_read_reply and codex_wait_reply (final answers only)"],
    doctor: ["Report the tools and entry arguments of the reply-read level"],
    install: ["Serve with --allow-reply-read (final answers)"],
  },
  {
    option: "allowTurnStart",
    flag: "--allow-turn-start",
    type: "boolean",
    help: [
      "Add codex_run, codex_review, codex_steer, codex_interrupt,",
      "codex_withdraw_message (runs turns and reviews, steers them,",
      "forwards approvals, takes back queued messages); includes",
      "--allow-reply-read: the levels stack",
    ],
    doctor: ["Report those of the turn-start level"],
    install: ["Serve with --allow-turn-start (runs turns, forwards approvals)"],
  },
  {
    option: "autoApproveMcpTools",
    flag: "--auto-approve-mcp-tools",
    type: "boolean",
    needs: "allowTurnStart",
    help: ["With --allow-turn-start: accept MCP tool-call approvals unasked"],
  },
  {
    option: "disableCodexMcpServers",
    flag: "--disable-codex-mcp-server",
    type: "strings",
    value: "NAME",
    needs: "allowTurnStart",
    help: [
      "With --allow-turn-start: disable this Codex MCP server in turns",
      "the relay runs (repeatable; NAME is [A-Za-z0-9_-]+)",
    ],
  },
  {
    option: "allowWorktrees",
    flag: "--allow-worktrees",
    type: "boolean",
    needs: "allowTurnStart",
    help: [
      "With --allow-turn-start: codex_run {worktree} runs a new thread",
      "in a git worktree of its own; add codex_worktree (runs git)",
    ],
    doctor: ["Also check the git it runs"],
    install: ["Serve with --allow-worktrees (runs git; needs --allow-turn-start)"],
    run: { from: "git", otherwise: "git" },
  },
  {
    option: "channels",
    flag: "--channels",
    type: "boolean",
    needs: "allowTurnStart",
    help: ["With --allow-turn-start: push runs' ends (Claude Code Channels)"],
  },
  {
    option: "compat",
    flag: "--compat",
    type: "string",
    value: "SURFACE",
    needs: "allowTurnStart",
    help: [
      "codex-mcp-server, with --allow-turn-start: serve only the old",
      "codex mcp-server's tools, codex and codex-reply",
    ],
    doctor: true,
    install: [
      "Serve the removed codex mcp-server's tools, in an entry named codex",
      "(needs --allow-turn-start; another codex entry needs --force)",
    ],
  },
  {
    option: "codex",
    flag: "--codex",
    type: "string",
    value: "PATH",
    help: [
      "The Codex executable to run (absolute path; default: codex on",
      "PATH). codex-relay install writes npm's native binary here",
    ],
    doctor: true,
    install: [
      "The Codex the entry runs (default: codex as found on PATH). npm's",
      "wrapper (codex, codex.cmd) is followed to the native binary it starts;",
      "the entry then runs that binary (serve --codex) and may run only it",
    ],
    run: { from: "codex", replaces: "codex" },
  },
  {
    option: "git",
    flag: "--git",
    type: "string",
    value: "PATH",
    needs: "allowWorktrees",
    help: ["The git to run with --allow-worktrees (default: git on PATH)"],
    doctor: true,
    unwritten: "git",
  },
  {
    option: "logLevel",
    flag: "--log-level",
    type: "string",
    value: "LEVEL",
    help: ["debug, info, warn (default), error, silent; logs go to stderr"],
    unwritten: "warn",
  },
  {
    option: "appServer",
    flag: "--app-server",
    type: "string",
    value: "MODE",
    help: [
      "spawn (default: a private codex app-server the tool calls",
      "share, started by the first and ended 30 s after the last;",
      "turns run on one of their own), daemon (the running daemon",
      "of CODEX_HOME, via codex app-server proxy) or",
      "unix:///absolute/path.sock (a daemon socket, e.g. over SSH)",
    ],
    doctor: true,
    unwritten: "spawn",
  },
];

/** The row of `option`. */
export function serveOption(option: ServeOptionKey): ServeOption {
  return SERVE_OPTIONS.find((o) => o.option === option)!;
}

/** Whether `value` counts as given (a switch on, a string, a non-empty list). */
export function given(value: ServeValues[ServeOptionKey]): boolean {
  return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== false;
}

/**
 * The `node:util` `parseArgs` options of `rows`, by flag name without `--`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const rows = SERVE_OPTIONS.filter((o) => o.option === "git");
 * assert.deepEqual(parseOptions(rows), { git: { type: "string" } });
 * ```
 */
export function parseOptions(
  rows: readonly ServeOption[],
): Record<string, { type: "boolean" | "string"; multiple?: true }> {
  return Object.fromEntries(rows.map((o) => [
    o.flag.slice(2),
    o.type === "strings" ? { type: "string", multiple: true } : { type: o.type },
  ]));
}

/**
 * The values `parseArgs` read for `rows`, by option.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(valuesOf({ "allow-worktrees": true, client: "x" }), { allowWorktrees: true });
 * ```
 */
export function valuesOf(
  parsed: Record<string, unknown>,
  rows: readonly ServeOption[] = SERVE_OPTIONS,
): ServeValues {
  const values: ServeValues = {};
  for (const o of rows) {
    const value = parsed[o.flag.slice(2)];
    if (value !== undefined) values[o.option] = value as ServeValues[ServeOptionKey];
  }
  return values;
}

/**
 * The arguments of `serve` that give `values`, in the table's order, leaving
 * out what is not given and each default; `rows` limits them (what `doctor`
 * or `install` takes).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(
 *   serveArgs({ allowTurnStart: true, allowWorktrees: true, git: "git", appServer: "daemon" }),
 *   ["--allow-turn-start", "--allow-worktrees", "--app-server", "daemon"],
 * );
 * ```
 */
export function serveArgs(values: ServeValues, rows = SERVE_OPTIONS): string[] {
  return rows.flatMap((o) => {
    const value = values[o.option];
    if (!given(value) || value === o.unwritten) return [];
    if (o.type === "boolean") return [o.flag];
    return (Array.isArray(value) ? value : [value as string]).flatMap((v) => [o.flag, v]);
  });
}

/**
 * The first option of `values` given without the option it needs, as
 * `[option, needed]`, or undefined.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.deepEqual(missingNeed({ allowWorktrees: true }), ["allowWorktrees", "allowTurnStart"]);
 * assert.equal(missingNeed({ allowWorktrees: true, allowTurnStart: true }), undefined);
 * ```
 */
export function missingNeed(
  values: ServeValues,
): [ServeOptionKey, ServeOptionKey] | undefined {
  for (const o of SERVE_OPTIONS) {
    if (o.needs && given(values[o.option]) && !given(values[o.needs])) return [o.option, o.needs];
  }
  return undefined;
}

/**
 * The run permission of an entry serving `values`: `base` with what each
 * option given adds (or replaces).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const values = { allowTurnStart: true, allowWorktrees: true, codex: "/opt/codex" };
 * assert.deepEqual(runGrant(values, ["codex", "/bin/kill"]), ["/opt/codex", "/bin/kill", "git"]);
 * ```
 */
export function runGrant(values: ServeValues, base: readonly string[]): string[] {
  let run = [...base];
  for (const o of SERVE_OPTIONS) {
    if (!o.run || !given(values[o.option])) continue;
    const from = values[o.run.from];
    const value = typeof from === "string" ? from : o.run.otherwise;
    if (value === undefined) continue;
    const at = o.run.replaces === undefined ? -1 : run.indexOf(o.run.replaces);
    run = at < 0 ? [...run, value] : run.map((w, i) => i === at ? value : w);
  }
  return run;
}

/**
 * The help's lines of `rows`: each flag (with its value's name) and its text
 * (`text` picks which: the serve help's, doctor's or install's).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const [git] = optionLines(SERVE_OPTIONS.filter((o) => o.option === "git"), (o) => o.help);
 * assert.equal(git[0], "--git PATH");
 * ```
 */
export function optionLines(
  rows: readonly ServeOption[],
  text: (o: ServeOption) => readonly string[] | true | undefined,
): [string, ...string[]][] {
  return rows.map((o) => {
    const lines = text(o);
    const shown = lines === true || lines === undefined ? o.help : lines;
    return [o.value ? `${o.flag} ${o.value}` : o.flag, ...shown];
  });
}
