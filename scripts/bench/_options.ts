// deno-lint-ignore-file no-console
/**
 * `deno task bench`: the bench's command-line options (`--samples N`, `--no-codex`, `--daemon`, `--quick`, `--only spawn|daemon|sustained|memory|schemas|wait-any|fanout|start`).
 * @module
 */

/** The sections `--only` can name. */
export const SECTIONS = [
  "spawn",
  "daemon",
  "sustained",
  "memory",
  "schemas",
  "wait-any",
  "fanout",
  "start",
] as const;
/** One of {@linkcode SECTIONS}. */
export type Section = (typeof SECTIONS)[number];

export interface Options {
  samples: number;
  codex: boolean;
  /** Run only this section. */
  only?: Section;
  /** Only real Codex: its spawn-mode figures and the daemon figures (`--daemon`). */
  daemonOnly: boolean;
  /**
   * The edit loop's run (`--quick`): the per-call figures only (spawn and
   * daemon, fixture and real Codex), start and projector; no wait lags,
   * sustained load, fan-out, wait-any or 100 concurrent calls; 7 samples
   * unless `--samples` says otherwise.
   */
  quick: boolean;
}

export function parseOptions(args: string[]): Options {
  const options: Options = { samples: 9, codex: true, daemonOnly: false, quick: false };
  let samples: number | undefined;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--samples") samples = Number(args[++i]);
    else if (args[i] === "--quick") options.quick = true;
    else if (args[i] === "--no-codex") options.codex = false;
    else if (args[i] === "--daemon") options.daemonOnly = true;
    else if (args[i] === "--only" && SECTIONS.some((x) => x === args[i + 1])) {
      options.only = args[++i] as Section;
    } else {
      throw new Error(
        `Unknown option '${args[i]}' (give --samples N, --no-codex, --daemon, --quick or --only ${
          SECTIONS.join("|")
        })`,
      );
    }
  }
  options.samples = samples ?? (options.quick ? 7 : 9);
  if (!Number.isInteger(options.samples) || options.samples < 7) {
    throw new Error("--samples must be an integer of at least 7");
  }
  return options;
}

// ------------------------------------------------------------------ stats
