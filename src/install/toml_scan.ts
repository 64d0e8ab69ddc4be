/**
 * The statement scanner of the TOML edit (`toml_edit.ts`): splits a TOML
 * document the parser already accepted into headers, key/value pairs,
 * comments and blank lines, with their offsets, so the edit can cut exactly
 * one table's text. Anything it cannot follow safely is refused.
 * @module
 */

import { EXIT, InstallError } from "./install_error.ts";

/** One statement of the document: a header, a key/value pair (maybe over several lines), or other. */
export interface Statement {
  kind: "header" | "pair" | "comment" | "blank";
  /** Offset of the statement's first line. */
  start: number;
  /** Offset just past the newline that ends the statement. */
  end: number;
  /** Header keys, or the pair's (dotted) key. */
  keys?: string[];
  /** `[[...]]`. */
  arrayTable?: boolean;
}

/** Splits `text` into statements. A TOML syntax error was already ruled out by the parser. */
export function scan(text: string, path: string): Statement[] {
  const out: Statement[] = [];
  let i = 0;
  const n = text.length;
  const fail = (): never => {
    throw new InstallError(
      `${path} uses TOML this installer cannot edit safely near offset ${i}; add the entry by hand. Nothing was written`,
      EXIT.refused,
    );
  };
  const skipSpaces = () => {
    while (i < n && (text[i] === " " || text[i] === "\t")) i++;
  };
  const toLineEnd = () => {
    while (i < n && text[i] !== "\n") i++;
    if (i < n) i++;
  };
  const readKey = (): string[] => {
    const keys: string[] = [];
    for (;;) {
      skipSpaces();
      if (text[i] === '"') {
        const end = basicStringEnd(text, i);
        if (end < 0) fail();
        keys.push(decodeBasic(text.slice(i + 1, end - 1)));
        i = end;
      } else if (text[i] === "'") {
        const end = text.indexOf("'", i + 1);
        if (end < 0) fail();
        keys.push(text.slice(i + 1, end));
        i = end + 1;
      } else {
        const m = /^[A-Za-z0-9_-]+/.exec(text.slice(i, i + 256));
        if (!m) fail();
        keys.push(m![0]);
        i += m![0].length;
      }
      skipSpaces();
      if (text[i] !== ".") return keys;
      i++;
    }
  };
  while (i < n) {
    const start = i;
    skipSpaces();
    const c = text[i];
    if (c === "\n" || c === "\r" || i >= n) {
      toLineEnd();
      out.push({ kind: "blank", start, end: i });
    } else if (c === "#") {
      toLineEnd();
      out.push({ kind: "comment", start, end: i });
    } else if (c === "[") {
      const arrayTable = text[i + 1] === "[";
      i += arrayTable ? 2 : 1;
      const keys = readKey();
      if (text[i] !== "]" || (arrayTable && text[i + 1] !== "]")) fail();
      i += arrayTable ? 2 : 1;
      toLineEnd();
      out.push({ kind: "header", start, end: i, keys, arrayTable });
    } else {
      const keys = readKey();
      if (text[i] !== "=") fail();
      i++;
      i = valueEnd(text, i);
      if (i < 0) fail();
      toLineEnd();
      out.push({ kind: "pair", start, end: i, keys });
    }
  }
  return out;
}

const ESCAPES: Record<string, string> = {
  b: "\b",
  t: "\t",
  n: "\n",
  f: "\f",
  r: "\r",
  e: "\u001b",
  '"': '"',
  "\\": "\\",
};

/** The value of a basic string's content (between the quotes). */
function decodeBasic(raw: string): string {
  return raw.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{2}|.)/g, (_, e: string) => {
    if (e.length > 1) return String.fromCodePoint(parseInt(e.slice(1), 16));
    return ESCAPES[e] ?? e;
  });
}

/** Offset just past a basic string starting at `at` (`"`), or -1. */
function basicStringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
    else if (text[i] === "\n") return -1;
  }
  return -1;
}

/**
 * Offset of the end of the value that starts at `at` (on the line where the
 * statement ends: the newline or a comment follows). Tracks strings of all
 * four kinds and nesting of arrays and inline tables over several lines.
 */
function valueEnd(text: string, at: number): number {
  let depth = 0;
  let i = at;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (text.startsWith('"""', i)) {
      i += 3;
      for (;;) {
        if (i >= n) return -1;
        if (text[i] === "\\") {
          i += 2;
          continue;
        }
        if (text.startsWith('"""', i)) {
          i += 3;
          while (text[i] === '"') i++; // Up to two quotes may end the string's content.
          break;
        }
        i++;
      }
      continue;
    }
    if (text.startsWith("'''", i)) {
      const end = text.indexOf("'''", i + 3);
      if (end < 0) return -1;
      i = end + 3;
      while (text[i] === "'") i++;
      continue;
    }
    if (c === '"') {
      const end = basicStringEnd(text, i);
      if (end < 0) return -1;
      i = end;
      continue;
    }
    if (c === "'") {
      const end = text.indexOf("'", i + 1);
      if (end < 0) return -1;
      i = end + 1;
      continue;
    }
    if (c === "#") {
      while (i < n && text[i] !== "\n") i++;
      continue;
    }
    if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth--;
    else if (c === "\n" && depth === 0) return i;
    i++;
  }
  return i;
}
