/**
 * A minimal, careful edit of one `[mcp_servers.<name>]` table in a TOML file
 * (Codex's `config.toml`): the table (and its sub-tables) is cut out or
 * written as new text; every other byte of the file stays as it was. There is
 * no re-serialization of the document. `smol-toml` only parses: the file
 * before the edit (to read the entry and refuse a malformed file) and after it,
 * to prove the edit changed exactly that entry and nothing else.
 * @module
 */

import { parse } from "smol-toml";
import { EXIT, InstallError } from "./install_error.ts";
import { deepEqual } from "./deep_equal.ts";
import { scan, type Statement } from "./toml_scan.ts";

/** What a TOML config holds at `mcp_servers.<name>`. */
export interface TomlConfig {
  /** The entry, or `undefined` when absent. */
  entry: unknown;
  /** The whole parsed document. */
  document: Record<string, unknown>;
}

/** The entry written: `command`, `args` and `env` of a stdio server. */
export interface TomlEntry {
  /** Executable. */
  command: string;
  /** Arguments. */
  args: string[];
  /** Environment variables for the server. */
  env: Record<string, string>;
  /** Names of variables Codex passes on from its own environment. */
  env_vars?: string[];
}

const CONTAINER = "mcp_servers";

/** Parses `text` and finds `mcp_servers.<name>`. */
export function readTomlConfig(text: string, name: string, path: string): TomlConfig {
  let document: Record<string, unknown>;
  try {
    document = parse(text) as Record<string, unknown>;
  } catch (error) {
    const e = error as { line?: number; column?: number; message?: string };
    const where = e.line ? ` at line ${e.line}, column ${e.column}` : "";
    const what = (e.message ?? String(error)).split("\n")[0].replace(
      /^Invalid TOML document: /,
      "",
    );
    throw new InstallError(
      `${path} is not valid TOML (${what}${where}); fix or move the file, then run again. Nothing was written`,
      EXIT.malformed,
    );
  }
  const servers = document[CONTAINER];
  if (servers !== undefined && !isTable(servers)) {
    throw new InstallError(`"${CONTAINER}" in ${path} is not a table; nothing was written`, 65);
  }
  return {
    entry: plain(servers ? (servers as Record<string, unknown>)[name] : undefined),
    document,
  };
}

/** Parsed TOML as ordinary objects (the parser makes prototype-less ones). */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (isTable(value)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

/** `text` with the `[mcp_servers.<name>]` table set to `entry` (replaced in place, or appended). */
export function setTomlEntry(text: string, name: string, entry: TomlEntry, path: string): string {
  const before = readTomlConfig(text, name, path);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const table = renderTable(name, entry, eol);
  const groups = entryGroups(text, name, before, path);
  let out: string;
  if (groups.length === 0) {
    const base = text === "" || text.endsWith("\n") ? text : text + eol;
    out = base.trim() === "" ? table : base + eol + table;
  } else {
    out = cutGroups(text, groups.slice(1));
    const first = groups[0];
    out = out.slice(0, first.start) + table + out.slice(first.end);
  }
  verify(out, before.document, name, entry, path);
  return out;
}

/** `text` without the `[mcp_servers.<name>]` table and its sub-tables. */
export function removeTomlEntry(text: string, name: string, path: string): string {
  const before = readTomlConfig(text, name, path);
  if (before.entry === undefined) return text;
  const groups = entryGroups(text, name, before, path);
  const out = cutGroups(text, groups);
  verify(out, before.document, name, undefined, path);
  return out;
}

/** A TOML basic string for `value`. */
export function tomlString(value: string): string {
  return JSON.stringify(value).replace(/\u007f/g, "\\u007F");
}

function renderTable(name: string, entry: TomlEntry, eol: string): string {
  const args = entry.args.map(tomlString);
  const oneLine = `args = [${args.join(", ")}]`;
  const argsText = oneLine.length <= 100
    ? oneLine
    : `args = [${eol}${args.map((a) => `  ${a},${eol}`).join("")}]`;
  const env = Object.entries(entry.env).map(([k, v]) => `${tomlKey(k)} = ${tomlString(v)}`);
  return [
    `[${CONTAINER}.${tomlKey(name)}]`,
    `command = ${tomlString(entry.command)}`,
    argsText,
    `env = { ${env.join(", ")} }`,
    ...(entry.env_vars ? [`env_vars = [${entry.env_vars.map(tomlString).join(", ")}]`] : []),
  ].join(eol) + eol;
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

/** A span of the file: one table of the entry (header through its last key/value). */
interface Group {
  start: number;
  end: number;
}

/**
 * The tables that make up `mcp_servers.<name>`: its header table and every
 * sub-table. An entry defined another way (inline table, dotted keys) is
 * refused: this editor only cuts and writes whole tables.
 */
function entryGroups(text: string, name: string, config: TomlConfig, path: string): Group[] {
  const statements = scan(text, path);
  const groups: Group[] = [];
  let current: Group | null = null;
  let foundMain = false;
  for (const s of statements) {
    if (s.kind === "header") {
      current = null;
      const keys = s.keys!;
      if (keys.length >= 2 && keys[0] === CONTAINER && keys[1] === name) {
        if (keys.length === 2 && !s.arrayTable) foundMain = true;
        current = { start: s.start, end: s.end };
        groups.push(current);
      }
    } else if (s.kind === "pair" && current) {
      current.end = s.end;
    } else if (s.kind === "comment" && current) {
      // A comment inside the table (before a later pair) is extended over by
      // that pair; comments after its last pair belong to what follows.
    }
  }
  if (config.entry !== undefined && (!foundMain || containsOtherDefinition(statements, name))) {
    throw new InstallError(
      `The "${name}" entry in ${path} is written as an inline table or with dotted keys, which this installer does not edit; change or remove it by hand. Nothing was written`,
      EXIT.refused,
    );
  }
  return groups;
}

/** Whether `[mcp_servers]` (or the root) defines `<name>` with dotted keys or an inline table. */
function containsOtherDefinition(statements: Statement[], name: string): boolean {
  let table: string[] = [];
  for (const s of statements) {
    if (s.kind === "header") table = s.keys!;
    if (s.kind !== "pair") continue;
    const full = [...table, ...s.keys!];
    if (full.length >= 2 && full[0] === CONTAINER && full[1] === name && table.length < 2) {
      return true;
    }
  }
  return false;
}

/** `text` with `groups` cut out, without leaving a doubled blank line. */
function cutGroups(text: string, groups: Group[]): string {
  let out = text;
  for (const g of [...groups].sort((a, b) => b.start - a.start)) {
    let before = out.slice(0, g.start);
    const after = out.slice(g.end);
    const blankBefore = /(^|\n)\r?\n$/.test(before);
    const blankAfterOrEnd = after === "" || /^\r?\n/.test(after);
    if (blankBefore && blankAfterOrEnd) before = before.replace(/\r?\n$/, "");
    out = before + after;
  }
  return out;
}

/** Proves the edit: the new document is the old one with only the entry changed. */
function verify(
  text: string,
  old: Record<string, unknown>,
  name: string,
  entry: TomlEntry | undefined,
  path: string,
): void {
  let now: Record<string, unknown>;
  try {
    now = parse(text) as Record<string, unknown>;
  } catch {
    throw new InstallError(
      `Editing ${path} would make it invalid TOML (the "${CONTAINER}" table is defined in a way this installer cannot extend); add the entry by hand. Nothing was written`,
      EXIT.refused,
    );
  }
  const expected = { ...old };
  const servers = { ...(old[CONTAINER] as Record<string, unknown> | undefined ?? {}) };
  if (entry) servers[name] = entry;
  else delete servers[name];
  expected[CONTAINER] = servers;
  if (!deepEqual(dropEmpty(now), dropEmpty(expected))) {
    throw new InstallError(
      `Editing ${path} would change more than the "${name}" entry; add the entry by hand. Nothing was written`,
      EXIT.refused,
    );
  }
}

function dropEmpty(doc: Record<string, unknown>): Record<string, unknown> {
  const copy = { ...doc };
  const servers = copy[CONTAINER];
  if (isTable(servers) && Object.keys(servers).length === 0) delete copy[CONTAINER];
  return copy;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    !(value instanceof Date);
}
