/**
 * Markdown tables as `deno fmt` lays them out, and their cells read back
 * (formatting-insensitive), for the tables generated into the docs.
 * @module
 */

/**
 * Around a generated table in a doc: `deno fmt` leaves it unpadded (padding
 * wide generated tables took a tenth of the docs' bytes).
 */
export const FMT_IGNORE = {
  start: "<!-- deno-fmt-ignore-start -->",
  end: "<!-- deno-fmt-ignore-end -->",
} as const;

/**
 * A markdown table without column padding (kept so by {@linkcode FMT_IGNORE}).
 *
 * @example
 * ```ts
 * markdownTable(["a", "b"], [["1", "2"]]); // "| a | b |\n| --- | --- |\n| 1 | 2 |"
 * ```
 */
export function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** The rows of every markdown table in `text`, cells trimmed, one array per table. */
export function tablesOf(text: string): string[][][] {
  const tables: string[][][] = [];
  let rows: string[][] = [];
  for (const raw of [...text.split("\n"), ""]) {
    const l = raw.trim();
    if (!l.startsWith("|")) {
      if (rows.length > 0) tables.push(rows);
      rows = [];
      continue;
    }
    const cells = l.slice(1, l.endsWith("|") ? -1 : undefined).split(/(?<!\\)\|/).map((c) =>
      c.trim()
    );
    rows.push(cells.every((c) => /^:?-+:?$/.test(c)) ? cells.map(() => "---") : cells);
  }
  return tables;
}

/** The text between two marker lines of `doc`, or undefined when they are missing. */
export function between(doc: string, start: string, end: string): string | undefined {
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from === -1 || to < from) return undefined;
  return doc.slice(from + start.length, to);
}
