/**
 * Markdown tables as `deno fmt` lays them out, and their cells read back
 * (formatting-insensitive), for the tables generated into the docs.
 * @module
 */

/** A markdown table with padded columns, as `deno fmt` writes it. */
export function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(3, h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
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
