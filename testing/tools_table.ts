/**
 * The README's tools tables, printed from the code: which tools each
 * capability level has (`src/host/tools/all_tools.ts`; the methods are in
 * docs/design.md's capability table), and each tool's input fields and
 * description as `tools/list` gives them (spawn mode, full level).
 * `scripts/tools_table.ts` prints them; `tests/unit/readme_tools_test.ts`
 * fails when the README differs.
 * @module
 */

import { type Capabilities, capabilitiesOf } from "../src/core/capabilities.ts";
import { TOOLS } from "../src/host/tools/all_tools.ts";
import { advertised } from "../src/host/tool_schema.ts";
import { spawnSurface } from "../src/host/surface.ts";
import { FMT_IGNORE, markdownTable } from "./markdown.ts";

/** Marks the generated tables in the README. */
export const TOOLS_MARKERS = {
  start: "<!-- tools-table:start (deno run scripts/tools_table.ts) -->",
  end: "<!-- tools-table:end -->",
} as const;

/** The levels, each with what its flag alone gives (they stack: turn start includes reply read). */
const LEVELS: { name: string; flag: string; caps: Capabilities }[] = [
  { name: "queue (default)", flag: "none", caps: capabilitiesOf(flagsOf(false, false)) },
  { name: "reply read", flag: "`--allow-reply-read`", caps: capabilitiesOf(flagsOf(true, false)) },
  {
    name: "turn start",
    flag: "`--allow-turn-start` (reply read included)",
    caps: capabilitiesOf(flagsOf(false, true)),
  },
  {
    name: "worktrees",
    flag: "`--allow-worktrees` (with `--allow-turn-start`)",
    caps: capabilitiesOf({ ...flagsOf(false, true), worktrees: { git: "git" } }),
  },
];

function flagsOf(allowReplyRead: boolean, allowTurnStart: boolean) {
  return { allowReplyRead, allowTurnStart };
}

const FULL: Capabilities = { replyRead: true, turnStart: true, worktrees: true };

const code = (names: Iterable<string>) => [...names].map((n) => `\`${n}\``).join(", ");

/** The lowest level a tool registers at. */
function levelOf(tool: (typeof TOOLS)[number]): string {
  return LEVELS.find((l) => tool.enabled(l.caps))?.name.replace(" (default)", "") ?? "both flags";
}

/** A tool's input fields, optional ones marked `?`. */
function inputsOf(tool: (typeof TOOLS)[number]): string {
  const std = advertised(
    tool.inputSchemaAt?.(FULL) ?? tool.inputSchema,
  )["~standard"] as unknown as {
    jsonSchema: { input(): { properties?: Record<string, unknown>; required?: string[] } };
  };
  const schema = std.jsonSchema.input();
  const required = new Set(schema.required ?? []);
  return Object.keys(schema.properties ?? {}).map((f) => `\`${f}${required.has(f) ? "" : "?"}\``)
    .join(", ");
}

/** The two tables (levels, then tools), separated by a blank line. */
export function toolsTableMarkdown(): string {
  const levels = markdownTable(
    ["level", "flag", "tools"],
    LEVELS.map((l, i) => {
      const before = LEVELS.slice(0, i).map((p) => p.caps);
      const tools = TOOLS.filter((t) => t.enabled(l.caps) && !before.some((c) => t.enabled(c)));
      return [l.name, l.flag, (i === 0 ? "" : "+ ") + code(tools.map((t) => t.name))];
    }),
  );
  const surface = spawnSurface(FULL);
  const tools = markdownTable(
    ["tool", "level", "input (`?`: optional)", "what it does"],
    TOOLS.map((t) => [
      `\`${t.name}\``,
      levelOf(t),
      inputsOf(t),
      (typeof t.description === "string" ? t.description : t.description(surface))
        .replaceAll("|", "\\|"),
    ]),
  );
  return [levels, "", tools].join("\n");
}

/**
 * `readme` with its tools tables (between {@linkcode TOOLS_MARKERS}, inside
 * one pair of fmt-ignore markers) printed from the code; idempotent: any
 * fmt-ignore markers already around the tables are replaced, never added to.
 */
export function withToolsTable(readme: string, table = toolsTableMarkdown()): string {
  const start = readme.indexOf(TOOLS_MARKERS.start);
  const end = readme.indexOf(TOOLS_MARKERS.end, start);
  if (start < 0 || end < 0) throw new Error("README.md has no tools-table markers");
  let from = start;
  while (readme.slice(0, from).endsWith(`${FMT_IGNORE.start}\n`)) {
    from -= FMT_IGNORE.start.length + 1;
  }
  let to = end + TOOLS_MARKERS.end.length;
  while (readme.startsWith(`\n${FMT_IGNORE.end}`, to)) to += FMT_IGNORE.end.length + 1;
  const block = [
    FMT_IGNORE.start,
    TOOLS_MARKERS.start,
    "",
    table,
    "",
    TOOLS_MARKERS.end,
    FMT_IGNORE.end,
  ].join("\n");
  return readme.slice(0, from) + block + readme.slice(to);
}
