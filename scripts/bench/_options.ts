// deno-lint-ignore-file no-console
/**
 * `deno task bench`: the bench's command-line options (`--samples N`, `--no-codex`, `--daemon`, `--only sustained|wait-any|fanout`).
 * @module
 */

export interface Options {
  samples: number;
  codex: boolean;
  /** Run only this section. */
  only?: "sustained" | "wait-any" | "fanout";
  /** Only real Codex: its spawn-mode figures and the daemon figures (`--daemon`). */
  daemonOnly: boolean;
}

export function parseOptions(args: string[]): Options {
  const options: Options = { samples: 9, codex: true, daemonOnly: false };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--samples") options.samples = Number(args[++i]);
    else if (args[i] === "--no-codex") options.codex = false;
    else if (args[i] === "--daemon") options.daemonOnly = true;
    else if (args[i] === "--only" && ["sustained", "wait-any", "fanout"].includes(args[i + 1])) {
      options.only = args[++i] as "sustained" | "wait-any" | "fanout";
    } else {
      throw new Error(
        `Unknown option '${
          args[i]
        }' (give --samples N, --no-codex, --daemon or --only sustained|wait-any|fanout)`,
      );
    }
  }
  if (!Number.isInteger(options.samples) || options.samples < 7) {
    throw new Error("--samples must be an integer of at least 7");
  }
  return options;
}

// ------------------------------------------------------------------ stats
