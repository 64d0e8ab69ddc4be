/**
 * The size rule of `src/` (CONTRIBUTING.md, "The layer rule"): no file over
 * {@link MAX_FILE_LINES} lines, no function or method over
 * {@link MAX_FUNCTION_LINES}. The scanner reads code as `deno fmt` lays it out:
 * a function starts on a line that ends with `{` and is a function header
 * (`function`, an arrow `=> {`, a method `name(…) {`, or the `) {` that ends
 * a header broken over lines), and ends at the next line of the same indent
 * that starts with `}`. Arrows with an expression body (`=> (`) are not
 * counted. The scanner is pure: text in, findings out.
 * @module
 */

/** Most lines a `src/` file may have. */
export const MAX_FILE_LINES = 400;
/** Most lines a function or method may span, header to closing brace. */
export const MAX_FUNCTION_LINES = 80;

/** One function found by {@link functionSpans}. */
export interface FunctionSpan {
  /** What the header names (`resolveTarget`, `run`), or `(arrow)`. */
  name: string;
  /** 1-based line of the header's first line. */
  line: number;
  /** Lines from the header's first line to the closing brace, both included. */
  lines: number;
}

const CONTROL = /^(?:\}\s*)?(?:else\s+)?(?:if|for|while|switch|catch|with|do|try|return|await)\b/;
const METHOD =
  /^(?:(?:public|private|protected|static|readonly|override|async|get|set|\*)\s*)*([#\w$]+)\s*(?:<.*>)?\(.*\)(?::\s*.+)?\s*\{$/;
const HEADER_TAIL = /^\)(?::\s*.+)?\s*\{$/;
const NAMED = [
  /\bfunction\*?\s+([\w$]+)/,
  /^(?:export\s+)?(?:const|let|var)\s+([\w$]+)/,
  /^(?:(?:public|private|protected|static|readonly|override|async|get|set)\s+)*([#\w$]+)\s*[:=(<]/,
];

const indentOf = (line: string) => line.length - line.trimStart().length;

/** The name a header's first line gives, or `(arrow)`. */
function nameOf(header: string): string {
  for (const pattern of NAMED) {
    const match = header.trim().match(pattern);
    if (match) return match[1];
  }
  return "(arrow)";
}

/** The index of the header's first line when line `i` ends a function header, else -1. */
function headerStart(lines: string[], i: number): number {
  const trimmed = lines[i].trim();
  if (!trimmed.endsWith("{") || trimmed.startsWith("}") || CONTROL.test(trimmed)) return -1;
  if (HEADER_TAIL.test(trimmed) || (trimmed.startsWith(")") && trimmed.endsWith("=> {"))) {
    for (let j = i - 1; j >= 0; j--) {
      if (lines[j].trim() === "" || indentOf(lines[j]) !== indentOf(lines[i])) continue;
      return CONTROL.test(lines[j].trim()) ? -1 : j;
    }
    return -1;
  }
  const isFunction = /\bfunction\b/.test(trimmed) || trimmed.endsWith("=> {") ||
    METHOD.test(trimmed);
  return isFunction ? i : -1;
}

/**
 * The index of the line closing the block opened on line `open`, or -1: the
 * next line of its indent that starts with `}` and does not go on with the
 * header (`}: Options): T {` after a destructured parameter).
 */
function blockEnd(lines: string[], open: number): number {
  const indent = indentOf(lines[open]);
  for (let j = open + 1; j < lines.length; j++) {
    const trimmed = lines[j].trim();
    if (indentOf(lines[j]) !== indent || !trimmed.startsWith("}")) continue;
    if (!trimmed.endsWith("{")) return j;
  }
  return -1;
}

/**
 * Every function and method in `text` (TypeScript formatted by `deno fmt`),
 * nested ones included, in the order their headers appear.
 *
 * @example
 * ```ts
 * functionSpans("function f() {\n  return 1;\n}\n");
 * // [{ name: "f", line: 1, lines: 3 }]
 * ```
 */
export function functionSpans(text: string): FunctionSpan[] {
  const lines = text.split("\n");
  const spans: FunctionSpan[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = headerStart(lines, i);
    if (start < 0) continue;
    const end = blockEnd(lines, i);
    if (end < 0) continue;
    spans.push({ name: nameOf(lines[start]), line: start + 1, lines: end - start + 1 });
  }
  return spans;
}

/** Lines in `text`, as `wc -l` counts them for a file that ends with a newline. */
export function lineCount(text: string): number {
  return text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
}

/** A StrykerJS directive (`// Stryker disable …`): a note for the mutation run, not code. */
const DIRECTIVE = /^\s*\/\/ Stryker (disable|restore)\b/;

/**
 * What breaks the size rule in one file: `path` over {@link MAX_FILE_LINES}
 * lines, and each function over {@link MAX_FUNCTION_LINES}, as
 * `path:line name (N lines)`. Stryker directive lines are not counted.
 */
export function sizeViolations(path: string, text: string): string[] {
  const out: string[] = [];
  const lines = text.split("\n");
  const directives = (from: number, to: number) =>
    lines.slice(from, to).filter((l) => DIRECTIVE.test(l)).length;
  const count = lineCount(text) - directives(0, lines.length);
  if (count > MAX_FILE_LINES) out.push(`${path} (${count} lines, most ${MAX_FILE_LINES})`);
  for (const span of functionSpans(text)) {
    const size = span.lines - directives(span.line - 1, span.line - 1 + span.lines);
    if (size > MAX_FUNCTION_LINES) {
      out.push(`${path}:${span.line} ${span.name} (${size} lines, most ${MAX_FUNCTION_LINES})`);
    }
  }
  return out;
}

/** Every `.ts` file under the directory `dir`, as paths relative to it, sorted. */
export async function tsFiles(dir: URL, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const rel = prefix + entry.name;
    if (entry.isDirectory) out.push(...await tsFiles(new URL(entry.name + "/", dir), rel + "/"));
    else if (entry.name.endsWith(".ts")) out.push(rel);
  }
  return out.sort();
}
