// deno-lint-ignore-file no-console
/**
 * `deno task bench`: the bench's command-line options (`--samples N`, `--no-codex`, `--daemon`, `--only spawn|daemon|sustained|wait-any|fanout`).
 * @module
 */

/** The sections `--only` can name. */
export const SECTIONS = ["spawn", "daemon", "sustained", "wait-any", "fanout"] as const;
/** One of {@linkcode SECTIONS}. */
export type Section = (typeof SECTIONS)[number];

export interface Options {
  samples: number;
  codex: boolean;
  /** Run only this section. */
  only?: Section;
  /** Only real Codex: its spawn-mode figures and the daemon figures (`--daemon`). */
  daemonOnly: boolean;
}

export function parseOptions(args: string[]): Options {
  const options: Options = { samples: 9, codex: true, daemonOnly: false };
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--samples") options.samples = Number(args[++i]);
    else if (args[i] === "--no-codex") options.codex = false;
    else if (args[i] === "--daemon") options.daemonOnly = true;
    else if (args[i] === "--only" && SECTIONS.some((x) => x === args[i + 1])) {
      options.only = args[++i] as Section;
    } else {
      throw new Error(
        `Unknown option '${args[i]}' (give --samples N, --no-codex, --daemon or --only ${
          SECTIONS.join("|")
        })`,
      );
    }
  }
  if (!Number.isInteger(options.samples) || options.samples < 7) {
    throw new Error("--samples must be an integer of at least 7");
  }
  return options;
}

// ------------------------------------------------------------------ stats
