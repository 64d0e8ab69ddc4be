/**
 * Prints what breaks the size rule in `src/` (a file over 400 lines, a
 * function over 80; `testing/sizes.ts`), and with `--all` every function's
 * length, longest first. `tests/unit/sizes_test.ts` fails on the same findings.
 * Run: `deno run --allow-read=src scripts/sizes.ts [--all]`.
 * @module
 */

import { functionSpans, sizeViolations, tsFiles } from "../testing/sizes.ts";

if (import.meta.main) {
  const src = new URL("../src/", import.meta.url);
  const rows: string[] = [];
  const all: { at: string; lines: number }[] = [];
  for (const path of await tsFiles(src)) {
    const text = await Deno.readTextFile(new URL(path, src));
    rows.push(...sizeViolations(`src/${path}`, text));
    for (const span of functionSpans(text)) {
      all.push({ at: `src/${path}:${span.line} ${span.name}`, lines: span.lines });
    }
  }
  const lines = Deno.args.includes("--all")
    ? all.sort((a, b) => b.lines - a.lines).map((s) => `${s.lines}\t${s.at}`)
    : rows;
  // deno-lint-ignore no-console
  console.log(lines.length === 0 ? "src/ keeps the size rule" : lines.join("\n"));
}
