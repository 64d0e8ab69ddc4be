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
    throw new UsageError(cleanParseError(error));
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

function cleanParseError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknown = message.match(/Unknown option '([^']+)'/);
  if (unknown) return `Unknown flag '${unknown[1]}'`;
  const missing = message.match(/Option '([^']+?)(?: <value>)?' argument missing/);
  if (missing) return `The flag ${missing[1].split(",").pop()!.trim()} needs a value`;
  const noValue = message.match(/Option '([^']+)' does not take an argument/);
  if (noValue) return `The flag ${noValue[1].split(",").pop()!.trim()} takes no value`;
  return message.split("\n")[0].replace(/\.$/, "");
}
