/**
 * Edits one server entry of a JSON or JSONC config. The file is parsed with
 * `jsonc-parser` (comments and trailing commas allowed); the edit is one
 * splice of text at the entry's place, so every other byte (comments, order,
 * spacing, the other servers) stays as it was. `jsonc-parser`'s
 * `modify`/`applyEdits` only creates a file from nothing. Every edit is
 * checked by parsing the result: only the entry may have changed.
 * @module
 */

import {
  applyEdits,
  createScanner,
  findNodeAtLocation,
  modify,
  type Node,
  parse,
  type ParseError,
  parseTree,
  printParseErrorCode,
  type SyntaxKind,
} from "jsonc-parser";
import { deepEqual } from "./deep_equal.ts";
import { EXIT, InstallError } from "./install_error.ts";

/** What a JSON config holds at the entry's place. */
export interface JsonConfig {
  /** The entry, or `undefined` when absent. */
  entry: unknown;
  /** Whether the servers object exists. */
  hasContainer: boolean;
  /** The parsed document (`undefined` for an empty file). */
  document: unknown;
}

/** `SyntaxKind` values (a `const enum`, which isolated modules cannot read). */
const COMMA = 5 as SyntaxKind;
const TRIVIA: ReadonlySet<number> = new Set([12, 13, 14, 15]); // Comments, line breaks, spaces.

const PARSE_OPTIONS = { allowTrailingComma: true, disallowComments: false };

/** Parses `text` (comments and trailing commas allowed) and finds `container[name]`. */
export function readJsonConfig(
  text: string,
  container: readonly string[],
  name: string,
  path: string,
): JsonConfig {
  if (text.trim() === "") return { entry: undefined, hasContainer: false, document: undefined };
  const errors: ParseError[] = [];
  const root = parse(text, errors, PARSE_OPTIONS);
  if (errors.length > 0) {
    const e = errors[0];
    const { line, column } = position(text, e.offset);
    throw new InstallError(
      `${path} is not valid JSON (${
        printParseErrorCode(e.error)
      } at line ${line}, column ${column}); fix or move the file, then run again. Nothing was written`,
      EXIT.malformed,
    );
  }
  if (!isObject(root)) {
    throw new InstallError(`${path} does not hold a JSON object; nothing was written`, 65);
  }
  let node: unknown = root;
  for (const key of container) {
    const next = (node as Record<string, unknown>)[key];
    if (next === undefined) return { entry: undefined, hasContainer: false, document: root };
    if (!isObject(next)) {
      throw new InstallError(
        `"${container.join(".")}" in ${path} is not an object; nothing was written`,
        EXIT.malformed,
      );
    }
    node = next;
  }
  return { entry: (node as Record<string, unknown>)[name], hasContainer: true, document: root };
}

/** `text` with `container[name]` set to `value`: replaced in place, or added first. */
export function setJsonEntry(
  text: string,
  container: readonly string[],
  name: string,
  value: unknown,
  path: string,
): string {
  const before = readJsonConfig(text, container, name, path);
  const style = styleOf(text);
  let out: string;
  if (before.document === undefined) {
    out = applyEdits("", modify("", [...container, name], value, { formattingOptions: style.fo }));
    out += style.eol;
  } else {
    const tree = parseTree(text, [], PARSE_OPTIONS)!;
    const property = findProperty(tree, [...container, name]);
    if (property) {
      const valueNode = property.children![1];
      const indent = lineIndent(text, property.offset);
      out = splice(text, valueNode.offset, valueNode.length, render(value, indent, style));
    } else {
      // The innermost existing object on the path gets the missing rest, first in its object.
      let depth = container.length;
      let object = findNodeAtLocation(tree, [...container]);
      while (!object) {
        depth--;
        object = depth === 0 ? tree : findNodeAtLocation(tree, container.slice(0, depth));
      }
      const keys = [...container.slice(depth), name];
      let rest: unknown = value;
      for (const key of keys.slice(1).reverse()) rest = { [key]: rest };
      out = insertFirst(text, object, keys[0], rest, style);
    }
  }
  verify(out, before.document, container, name, value, path);
  return out;
}

/** `text` without `container[name]`; the lines of the entry go, nothing else. */
export function removeJsonEntry(
  text: string,
  container: readonly string[],
  name: string,
  path: string,
): string {
  const before = readJsonConfig(text, container, name, path);
  if (before.entry === undefined) return text;
  const tree = parseTree(text, [], PARSE_OPTIONS)!;
  const property = findProperty(tree, [...container, name])!;
  const object = property.parent!;
  const siblings = object.children!;
  const index = siblings.indexOf(property);
  let start = property.offset;
  let end = property.offset + property.length;
  // The comma after the entry goes with it; if the entry is last, the one before it.
  const after = tokenAfter(text, end, object.offset + object.length);
  let commaBefore = -1;
  if (after.kind === COMMA) end = after.offset + 1;
  else if (index > 0) {
    const prev = siblings[index - 1];
    commaBefore = commaBetween(text, prev.offset + prev.length, property.offset);
  }
  // Whole lines: the indentation before and the line break after.
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  if (text.slice(lineStart, start).trim() === "") {
    const rest = text.slice(end).match(/^[ \t]*(\r?\n)/);
    if (rest) {
      start = lineStart;
      end += rest[0].length;
    }
  }
  let out = text.slice(0, start) + text.slice(end);
  if (commaBefore >= 0) out = out.slice(0, commaBefore) + out.slice(commaBefore + 1);
  // An object left with only whitespace inside becomes `{}`.
  const emptied = parseTree(out, [], PARSE_OPTIONS);
  const holder = emptied && findNodeAtLocation(emptied, [...container]);
  if (holder && holder.type === "object" && (holder.children?.length ?? 0) === 0) {
    const inner = out.slice(holder.offset + 1, holder.offset + holder.length - 1);
    if (inner !== "" && inner.trim() === "") out = splice(out, holder.offset, holder.length, "{}");
  }
  verify(out, before.document, container, name, undefined, path);
  return out;
}

interface Style {
  eol: string;
  unit: string;
  fo: { insertSpaces: boolean; tabSize: number; eol: string };
}

function styleOf(text: string): Style {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const unit = text.match(/^([ \t]+)["/]/m)?.[1] ?? "  ";
  const fo = unit.startsWith("\t")
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: Math.min(unit.length, 8), eol };
  return { eol, unit: unit.startsWith("\t") ? "\t" : " ".repeat(fo.tabSize), fo };
}

/** `value` as JSON text whose later lines start with `indent`. */
function render(value: unknown, indent: string, style: Style): string {
  return JSON.stringify(value, null, style.unit).split("\n").join(style.eol + indent);
}

/** Inserts `"key": value` as the first property of `object`. */
function insertFirst(text: string, object: Node, key: string, value: unknown, style: Style) {
  const open = object.offset;
  const close = object.offset + object.length - 1;
  const children = object.children ?? [];
  const baseIndent = lineIndent(text, open);
  const firstLine = text.lastIndexOf("\n", (children[0]?.offset ?? close) - 1) + 1;
  const childIndent = children.length > 0 && text.slice(firstLine, children[0].offset).trim() === ""
    ? text.slice(firstLine, children[0].offset)
    : baseIndent + style.unit;
  const property = `${JSON.stringify(key)}: ${render(value, childIndent, style)}`;
  const restOfOpenLine = text.slice(open + 1).match(/^[ \t]*(?:\/\/[^\n]*)?\r?\n/);
  if (children.length === 0 && text.slice(open + 1, close).trim() === "") {
    return splice(
      text,
      open + 1,
      close - open - 1,
      `${style.eol}${childIndent}${property}${style.eol}${baseIndent}`,
    );
  }
  if (restOfOpenLine) {
    // After the line of `{`: a line of its own, before anything else (comments stay with what follows).
    const at = open + 1 + restOfOpenLine[0].length;
    const comma = children.length > 0 ? "," : "";
    return splice(text, at, 0, `${childIndent}${property}${comma}${style.eol}`);
  }
  // `{` with content on the same line: stay on that line.
  const inline = `${JSON.stringify(key)}: ${JSON.stringify(value)}`;
  return splice(text, open + 1, 0, children.length > 0 ? `${inline}, ` : inline);
}

function findProperty(tree: Node, path: string[]): Node | undefined {
  const valueNode = findNodeAtLocation(tree, path);
  return valueNode?.parent?.type === "property" ? valueNode.parent : undefined;
}

/** The first token after `from` (before `limit`), skipping whitespace and comments. */
function tokenAfter(
  text: string,
  from: number,
  limit: number,
): { kind: SyntaxKind; offset: number } {
  const scanner = createScanner(text.slice(from, limit), false);
  for (;;) {
    const kind = scanner.scan();
    if (TRIVIA.has(kind)) continue;
    return { kind, offset: from + scanner.getTokenOffset() };
  }
}

/** The offset of the comma token between two properties. */
function commaBetween(text: string, from: number, to: number): number {
  const t = tokenAfter(text, from, to);
  return t.kind === COMMA ? t.offset : -1;
}

function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return text.slice(start, offset).match(/^[ \t]*/)![0];
}

function splice(text: string, at: number, remove: number, insert: string): string {
  return text.slice(0, at) + insert + text.slice(at + remove);
}

/** Proves the edit: the new document is the old one with only the entry changed. */
function verify(
  text: string,
  old: unknown,
  container: readonly string[],
  name: string,
  value: unknown,
  path: string,
): void {
  const errors: ParseError[] = [];
  const now = parse(text, errors, PARSE_OPTIONS);
  const expected = structuredClone(old ?? {}) as Record<string, unknown>;
  let node = expected;
  for (const key of container) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  if (value === undefined) delete node[name];
  else node[name] = value;
  if (errors.length > 0 || !deepEqual(now, expected)) {
    throw new InstallError(
      `Editing ${path} would change more than the "${name}" entry; add the entry by hand. Nothing was written`,
      EXIT.refused,
    );
  }
}

function position(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  return { line, column: offset - before.lastIndexOf("\n") };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
