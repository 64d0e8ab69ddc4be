/**
 * A unified-style diff of an edit. Edits made by `install` change one
 * contiguous stretch of lines (or a few), so the diff is the changed middle
 * between the common first and last lines, with context.
 * @module
 */

/**
 * A unified-style diff of `before` → `after` (`null` = no file), labelled
 * with `path`. The values of JSON members named in `hide` (variables the user
 * set in an entry, which may be keys) are shown as `"…"`, unless they are a
 * `${...}` reference.
 */
export function unifiedDiff(
  before: string | null,
  after: string | null,
  path: string,
  context = 3,
  hide: readonly string[] = [],
): string {
  const masked = (l: string) =>
    hide.some((name) => l.trimStart().startsWith(`${JSON.stringify(name)}:`))
      ? l.replace(/^(\s*"[^"]*"\s*:\s*)"(?!\$\{)(?:[^"\\]|\\.)*"/, '$1"…"')
      : l;
  const a = lines(before ?? "").map(masked);
  const b = lines(after ?? "").map(masked);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head && tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) tail++;
  if (head === a.length && head === b.length) return "";
  const from = Math.max(0, head - context);
  const aEnd = a.length - tail;
  const bEnd = b.length - tail;
  const toA = Math.min(a.length, aEnd + context);
  const toB = Math.min(b.length, bEnd + context);
  const out = [
    `--- ${before === null ? "/dev/null" : path}`,
    `+++ ${after === null ? "/dev/null" : path}`,
    `@@ -${from + 1},${toA - from} +${from + 1},${toB - from} @@`,
  ];
  for (let i = from; i < head; i++) out.push(` ${a[i]}`);
  for (let i = head; i < aEnd; i++) out.push(`-${a[i]}`);
  for (let i = head; i < bEnd; i++) out.push(`+${b[i]}`);
  for (let i = aEnd; i < toA; i++) out.push(` ${a[i]}`);
  return out.join("\n") + "\n";
}

function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n").map((l) => l.replace(/\r$/, ""));
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}
