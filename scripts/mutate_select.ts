/**
 * The pure parts of `deno task mutate`: which groups a change touched, the
 * line ranges of named functions (so a group names a function, not lines
 * that move), and a report's score (mutants disabled in the source, the
 * equivalent ones, are out of it). No I/O; unit-tested in tests/unit/mutate_select_test.ts.
 * @module
 */

import { RELAY_REGEXP_FLAG } from "../src/install/launch.ts";

/** A file to mutate: a whole file (a glob), or named functions/methods of one file. */
export type Target = string | { file: string; functions: string[] };

/** A group of modules and the fast tests that guard them. */
export interface Group {
  /** What the group's modules promise (docs/design.md), one line. */
  promise: string;
  mutate: Target[];
  /** Unit tests only: in-process, each mutant runs all of them. */
  tests: string[];
  /**
   * Why this group's mutants could signal processes outside its tests (`/bin/kill` with a
   * mutated group id): its tests then run contained, in a PID namespace and a session of
   * their own (testing/pid_namespace.ts), and the group does not run where none can be made.
   */
  contained?: string;
}

/** A glob (`*` within a path segment, `**` across segments) as an anchored RegExp. */
export function globRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** The file (or glob) a target mutates. */
export function targetFile(target: Target): string {
  return typeof target === "string" ? target.replace(/:\d+(?:-\d+)?$/, "") : target.file;
}

/**
 * The groups whose mutated files or tests a change touched (`changed`: paths
 * relative to the repository), in the order of `groups`.
 */
export function changedGroups(groups: Record<string, Group>, changed: string[]): string[] {
  return Object.entries(groups).filter(([, g]) => {
    const globs = [...g.mutate.map(targetFile), ...g.tests].map(globRegExp);
    return changed.some((path) => globs.some((re) => re.test(path)));
  }).map(([name]) => name);
}

/** Where a function, method or arrow constant named `name` starts (a 0-based line index). */
function startOf(lines: string[], name: string): number {
  const n = name.replace(/[$#]/g, "\\$&");
  const decl = new RegExp(
    `^\\s*(?:export\\s+)?(?:default\\s+)?(?:async\\s+)?(?:function\\*?\\s+${n}\\s*[<(]` +
      `|(?:const|let)\\s+${n}\\s*[=:])`,
  );
  const method = new RegExp(
    `^\\s*(?:(?:public|private|protected|static|readonly|override|async|get|set)\\s+)*` +
      `${n}\\s*[<(]`,
  );
  const at = lines.findIndex((l) => decl.test(l));
  return at !== -1
    ? at
    : lines.findIndex((l) => method.test(l) && !/^\s*(?:if|for|while)\b/.test(l));
}

/**
 * The 1-based line range `[first, last]` of the function or method `name` in
 * `source`: from its declaration (JSDoc excluded) to the first line that
 * ends with its braces closed. Strings, template literals and comments are skipped when
 * counting braces. Throws when there is no such function: a renamed function
 * must be renamed in its group too.
 */
export function functionRange(source: string, name: string): [number, number] {
  const lines = source.split("\n");
  const start = startOf(lines, name);
  if (start === -1) throw new Error(`No function ${name}`);
  let depth = 0;
  let parens = 0;
  let opened = false;
  let quote: string | null = null;
  /** The brace depth of each open `${` of a template literal: its `}` goes back into the literal. */
  const holes: number[] = [];
  for (let i = start; i < lines.length; i++) {
    const line = lines[i];
    for (let j = 0; j < line.length; j++) {
      const c = line[j];
      if (quote) {
        if (c === "\\") j++;
        else if (quote === "`" && c === "$" && line[j + 1] === "{") {
          [quote, j] = [null, j + 1];
          holes.push(depth);
        } else if (c === quote) quote = null;
        continue;
      }
      if (c === "/" && line[j + 1] === "/") break;
      if (c === '"' || c === "'" || c === "`") quote = c;
      else if (c === "(") parens++;
      else if (c === ")") parens--;
      // A parameter's type (`args: { a: string },`) is not the body.
      else if (c === "{") [depth, opened] = [depth + 1, opened || parens === 0];
      else if (c === "}" && holes.at(-1) === depth) {
        holes.pop();
        quote = "`";
      } else if (c === "}") depth--;
    }
    if (quote !== "`") quote = null;
    // At a line's end: a return type's braces (`): { a: string } {`) leave the body open.
    if (opened && depth === 0) return [start + 1, i + 1];
  }
  throw new Error(`The braces of ${name} do not close`);
}

/**
 * The command Stryker runs for each mutant of `group`: the group's tests under
 * the test permission set and the relay's V8 flag (the linear-time regexp
 * engine: the tests run the code as users run it), prefixed by `container`
 * (`unshare …`, from testing/pid_namespace.ts) when the group is contained.
 */
export function testCommand(group: Group, container: readonly string[] = []): string {
  const flags = `--v8-flags=${RELAY_REGEXP_FLAG}`;
  return [...container, "deno", "test", "-P", "--no-check", "--quiet", flags, ...group.tests]
    .join(" ");
}

/** Stryker `mutate` entries of a target: the file (glob), or `file:first-last` per function. */
export function mutateEntries(target: Target, read: (file: string) => string): string[] {
  if (typeof target === "string") return [target];
  const source = read(target.file);
  return target.functions.map((name) => {
    const [first, last] = functionRange(source, name);
    return `${target.file}:${first}-${last}`;
  });
}

/** One mutant of a Stryker JSON report (mutation-testing-elements schema). */
export interface ReportMutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}

/** A report's score: detected / valid mutants, in percent; the ignored ones are out. */
export interface Score {
  score: number;
  killed: number;
  /** Of those detected, how many by a timeout (a hang, or a test slowed past the bound). */
  timedOut: number;
  survived: number;
  /**
   * Mutants not run, out of the score: disabled in the source (`// Stryker disable …: why`, the
   * equivalent ones) or inside a log call (scripts/stryker_ignore_logs.mjs).
   */
  ignored: number;
  /** Valid mutants, the ignored ones included. */
  total: number;
  /** Survivors: `file:line:column mutator -> replacement`. */
  unexplained: string[];
}

/**
 * Why a group's score may count survivors as detected: other work competed
 * with the group while it ran, so a test slowed past Stryker's bound counted
 * as a timeout. `load`: the 1-minute load averages seen; the group's own
 * `workers` (Stryker's concurrency) account for up to that much of it on
 * top of the machine's `cores`. `undefined` when the load stayed within that
 * or nothing timed out.
 */
export function loadWarning(
  load: number[],
  cores: number,
  workers: number,
  timedOut: number,
): string | undefined {
  const peak = Math.max(...load);
  if (timedOut === 0 || !(peak > cores + workers)) return undefined;
  return `load reached ${peak.toFixed(1)} on ${cores} cores with ${workers} workers: some of the ` +
    `${timedOut} timeouts may be slowed tests, not hangs; rerun on a quiet machine before ` +
    "trusting the score";
}

/** The score of a report: detected over detected and survived; an ignored mutant counts in neither. */
export function scoreOf(
  report: { files: Record<string, { mutants: ReportMutant[] }> },
): Score {
  let detected = 0;
  let timedOut = 0;
  let ignored = 0;
  const unexplained: string[] = [];
  for (const [file, { mutants }] of Object.entries(report.files)) {
    for (const m of mutants) {
      if (m.status === "Killed" || m.status === "Timeout") detected++;
      if (m.status === "Timeout") timedOut++;
      else if (m.status === "Ignored") ignored++;
      else if (m.status === "Survived" || m.status === "NoCoverage") {
        const at = `${file}:${m.location.start.line}:${m.location.start.column}`;
        unexplained.push(`${at} ${m.mutatorName} -> ${m.replacement ?? ""}`);
      }
    }
  }
  const counted = detected + unexplained.length;
  return {
    score: counted === 0 ? 100 : Math.round((detected / counted) * 10000) / 100,
    killed: detected,
    timedOut,
    survived: unexplained.length,
    ignored,
    total: counted + ignored,
    unexplained,
  };
}
