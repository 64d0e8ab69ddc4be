/**
 * Patterns of an `outputSchema`, run in V8's linear-time regexp engine (the
 * `l` flag, enabled by `--enable-experimental-regexp-engine` in the relay's
 * V8 flags): a pattern V8 cannot run in linear time is refused when the
 * schema is checked, so no answer can make a pattern backtrack. Pure: no I/O.
 *
 * The engine takes no `u` flag (V8 15: "Cannot be executed in linear time"),
 * and V8's backtrack fallback does not cover `u` patterns either (measured:
 * `^(a+)+$`/u on 40 `a`s and `!` still runs past 10 s with
 * `--enable-experimental-regexp-engine-on-excessive-backtracks`), so patterns
 * run without it: what only `u` gives (`\p{…}`, `\u{…}`, characters beyond
 * U+FFFF) is refused, and `.` or a negated class sees one UTF-16 unit.
 *
 * A pattern is only tested, never asked for its groups, so it runs with every
 * group made non-capturing: the engine copies each thread's capture registers
 * at every step, which made a test cost grow with the square of the pattern
 * (measured: 170 nested groups, 79 ns per pattern unit and answer character;
 * without captures, at most 25).
 * @module
 */

/** The longest `pattern`, in UTF-16 units. */
export const MAX_PATTERN_LENGTH = 512;

// Stryker disable all: the relay (and the groups' tests) always run with the flag: the probe finds the engine whatever its pattern or flag, and its catch never runs
/** Whether this process runs V8 with the linear-time engine (`l` flag) enabled. */
export const LINEAR_REGEXP: boolean = (() => {
  try {
    new RegExp("", "l");
    return true;
  } catch {
    return false;
  }
})();
// Stryker restore all

/**
 * Why `pattern` cannot be checked in linear time, or undefined when it can.
 * `linear`: whether the engine is enabled (default: in this process).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(patternProblem("^[a-z]+$"), undefined); // With the relay's V8 flags.
 * assert.match(patternProblem("(a)\\1")!, /cannot be run in linear time/);
 * ```
 */
export function patternProblem(pattern: string, linear = LINEAR_REGEXP): string | undefined {
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return `the pattern is ${pattern.length} characters, over the ${MAX_PATTERN_LENGTH} allowed`;
  }
  try {
    new RegExp(pattern, "u");
  } catch (error) {
    return `the pattern is not a valid regular expression: ${(error as Error).message}`;
  }
  if (/\\[pP]\{|\\u\{|[\uD800-\uDFFF]/.test(pattern)) {
    return "the pattern uses what only the u flag gives (\\p{…}, \\u{…}, characters past U+FFFF)";
  }
  if (!linear) {
    return "this relay runs without V8's linear-time regexp engine " +
      "(--v8-flags=--enable-experimental-regexp-engine), so no pattern can be checked in bounded time";
  }
  try {
    new RegExp(pattern, "l");
  } catch {
    return "the pattern cannot be run in linear time (backreferences, lookahead, " +
      "large counted repeats)";
  }
  return undefined;
}

/**
 * `pattern` compiled for the linear-time engine; only for a pattern that
 * {@linkcode patternProblem} accepted.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(linearRegExp("^(a+)+$").test("a".repeat(40) + "!"), false); // In microseconds.
 * ```
 */
export function linearRegExp(pattern: string): RegExp {
  return new RegExp(withoutCaptures(pattern), "l");
}

/**
 * `pattern` with every capturing group, named ones included, made
 * non-capturing (`(?:`): what it matches is unchanged for a pattern without
 * backreferences (the linear-time engine refuses those). A `(` not followed
 * by `?` opens a group; one followed by `?<` and a name, a named group.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * assert.equal(withoutCaptures("^(a|[(])(?<n>b)\\($"), "^(?:a|[(])(?:b)\\($");
 * ```
 */
export function withoutCaptures(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") {
      out += pattern.slice(i, i + 2);
      i++;
    } else if (inClass) {
      out += c;
      inClass = c !== "]";
    } else if (c === "[") {
      out += c;
      inClass = true;
    } else if (c === "(" && pattern[i + 1] !== "?") {
      out += "(?:";
    } else if (c === "(" && pattern[i + 2] === "<" && !"=!".includes(pattern.slice(i + 3, i + 4))) {
      out += "(?:";
      i = pattern.indexOf(">", i);
    } else {
      out += c;
    }
  }
  return out;
}
