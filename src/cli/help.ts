/**
 * Help text: the general usage, and one text per command (`help serve`,
 * `help doctor`; install and uninstall have theirs in `src/install/args.ts`).
 * @module
 */

import { optionLines, SERVE_OPTIONS as OPTION_ROWS } from "../core/serve_options.ts";
import { runsAs } from "../install/args.ts";

/** The line printed after a usage error (instead of the whole usage). */
export const USAGE_HINT = "Run 'codex-relay help' for the commands and options.";

/** The topics `codex-relay help TOPIC` knows. */
export const HELP_TOPICS: readonly string[] = [
  "serve",
  "doctor",
  "install",
  "uninstall",
  "hook-wait",
];

/** Said once on stderr when `serve` starts in a terminal, where it would look hung. */
export function servingNotice(version: string, relay = "codex-relay"): string {
  return `codex-relay ${version}: serving MCP on stdin/stdout. An MCP client starts it this way (${relay} help install says how to register it); press Ctrl-D or Ctrl-C to stop.\n`;
}

/** One option line: the flag and what it does (continuation lines indented). */
type Option = [flag: string, ...text: string[]];

/** The options of `serve` (`core/serve_options.ts`). */
const SERVE_OPTIONS: Option[] = optionLines(OPTION_ROWS, (o) => o.help);

/** The options of `doctor`: the serve options it takes, and whose entry it checks. */
const DOCTOR_OPTIONS: Option[] = [
  ...optionLines(OPTION_ROWS.filter((o) => o.doctor !== undefined), (o) => o.doctor),
  [
    "--client CLIENT",
    "Also check that client's entry for codex-relay: that the files",
    "it names exist (needs read permission on its config file,",
    "which the command --print-command prints has)",
  ],
  ["--scope user|project", "The client's user config (default) or the current project's"],
  [
    "--print-command",
    "With --client: print only the doctor command that may read",
    "that client's config file, to run as",
    'sh -c "$(codex-relay doctor --client CLIENT --print-command)"',
  ],
];

function options(list: Option[]): string {
  const width = 35;
  return list.map(([flag, first, ...more]) =>
    [`  ${flag.padEnd(width - 2)}${first}`, ...more.map((m) => `${"".padEnd(width)}${m}`)].join(
      "\n",
    )
  ).join("\n");
}

const FLAG_RULE =
  "Each flag may be given once (except --disable-codex-mcp-server). Unknown or repeated flags exit 64.";

/** The usage text printed by `help` and `--help`. */
export function helpText(version: string, relay = "codex-relay"): string {
  return `codex-relay ${version}: an MCP server (stdio) for local OpenAI Codex threads

${runsAs(relay)}Usage:
  codex-relay serve [options]      Serve MCP on stdin/stdout
  codex-relay doctor [options]     Check codex, its app-server, the login and the permissions
  codex-relay install --client CLIENT [--scope user|project] [--allow-reply-read]
                      [--allow-turn-start]
                                   Print the entry for an MCP client and the command that
                                   writes it (codex-relay help install)
  codex-relay uninstall --client CLIENT [--scope user|project]
                                   Likewise, to remove it (codex-relay help uninstall)
  codex-relay help [serve|doctor|install|uninstall]
                                   This text, or one command's
  codex-relay --help | --version

Serve options:
${options(SERVE_OPTIONS)}

Doctor options:
${options(DOCTOR_OPTIONS)}

${FLAG_RULE}
`;
}

/** \`codex-relay help serve\`. */
export function serveHelp(version: string, relay = "codex-relay"): string {
  return `codex-relay ${version} serve: the MCP server on stdin/stdout, as an MCP client starts it

${runsAs(relay)}Usage:
  codex-relay serve [options]

By default it has two tools (codex_list_threads, codex_queue_message); each flag adds tools.
It ends on stdin EOF, SIGINT or SIGTERM. Logs go to stderr; stdout is the MCP channel.

Options:
${options(SERVE_OPTIONS)}

${FLAG_RULE}
`;
}

/** \`codex-relay help doctor\`. */
export function doctorHelp(version: string, relay = "codex-relay"): string {
  return `codex-relay ${version} doctor: checks the setup a client would start the relay with

${runsAs(relay)}Usage:
  codex-relay doctor [options]

It reports which codex the relay finds and its version, whether its app-server answers, whether
CODEX_HOME has threads, whether Codex is logged in, the tools and entry arguments of the given
level, and the relay's effective permissions. Exit 0 when all is well, 1 otherwise (each problem
with its fix).

Options:
${options(DOCTOR_OPTIONS)}

Each flag may be given once. Unknown or repeated flags exit 64.
`;
}
