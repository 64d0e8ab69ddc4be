/**
 * Strict command-line parsing shared by every entry point: an unknown,
 * malformed or repeated flag is a {@linkcode UsageError}.
 * @module
 */

import { parseArgs, type ParseArgsConfig } from "parse-args";
import { UsageError } from "./usage_error.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** What {@linkcode parseStrict} returns: the values, the positionals and the flags seen. */
export interface Parsed<T extends Options> {
  values: ReturnType<
    typeof parseArgs<{ options: T; allowPositionals: true; strict: true }>
  >["values"];
  positionals: string[];
  /** The long names of the flags given. */
  seen: Set<string>;
}

/**
 * Parses `args` against `options`. Flags not in `repeatable` may be given
 * once; everything else about them is `node:util` `parseArgs` strict mode.
 */
export function parseStrict<T extends Options>(
  args: readonly string[],
  options: T,
  repeatable: ReadonlySet<string> = new Set(),
): Parsed<T> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      options,
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError(cleanParseError(error, Object.keys(options)));
  }
  const seen = new Set<string>();
  for (const token of parsed.tokens ?? []) {
    if (token.kind !== "option") continue;
    if (seen.has(token.name) && !repeatable.has(token.name)) {
      throw new UsageError(`The flag --${token.name} is given more than once`);
    }
    seen.add(token.name);
  }
  return { values: parsed.values as Parsed<T>["values"], positionals: parsed.positionals, seen };
}

function cleanParseError(error: unknown, known: readonly string[]): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = message.match(/Unknown option '([^']+)'/);
  if (unknown) {
    const near = closest(unknown[1].replace(/^-+/, "").split("=")[0], known);
    return `Unknown flag '${unknown[1]}'${near ? `; did you mean --${near}?` : ""}`;
  }
  const missing = message.match(/Option '([^']+?)(?: <value>)?' argument missing/);
  if (missing) return `The flag ${missing[1].split(",").pop()!.trim()} needs a value`;
  const noValue = message.match(/Option '([^']+)' does not take an argument/);
  if (noValue) return `The flag ${noValue[1].split(",").pop()!.trim()} takes no value`;
  return message.split("\n")[0].replace(/\.$/, "");
}

/**
 * The known flag closest to `given`, when it is close enough to be a typo:
 * at most 2 edits (1 for names of 4 letters or fewer), and a single best one.
 */
export function closest(given: string, known: readonly string[]): string | undefined {
  const limit = given.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = limit + 1;
  let tie = false;
  for (const name of known) {
    const d = editDistance(given.toLowerCase(), name);
    if (d < bestDistance) [best, bestDistance, tie] = [name, d, false];
    else if (d === bestDistance) tie = true;
  }
  return best !== undefined && !tie ? best : undefined;
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}
