/**
 * Protects: a client author reading docs/design.md gets the levels, tools, reasons, bounds the code has.
 *
 * docs/design.md is the contract: its tables (capability levels and their methods, tools,
 * what each backend can do, reasons, bounds) must say what the code does. Each test parses one
 * table of the markdown and compares it with the code's own constants.
 */
import assert from "assert";
import { type Capabilities, capabilitiesOf } from "../../src/core/capabilities.ts";
import {
  allowedMethods,
  isMethod,
  levelOf,
  type Method,
  METHOD_NAMES,
  type MethodLevel,
} from "../../src/codex/methods.ts";
import { REASON_CODES } from "../../src/core/errors.ts";
import { toolNames, TOOLS } from "../../src/host/tools/all_tools.ts";
import { DEFAULT_LIMITS } from "../../src/connect/connection.ts";
import { WARM_IDLE_MS } from "../../src/connect/spawn/warm_helper.ts";
import { DEFAULT_SPAWN_LIMITS } from "../../src/connect/spawn/spawn_limits.ts";
import { DEFAULT_DAEMON_LIMITS } from "../../src/connect/daemon/daemon_limits.ts";
import { openConnection } from "../../src/connect/open.ts";
import { MAX_REF_BYTES, MAX_TEXT_BYTES } from "../../src/reply/inputs.ts";
import { MCP_SKIP_MS } from "../../src/turn/mcp_memory.ts";
import { WAIT_SECONDS } from "../../src/turn/wait_pacing.ts";
import { WAIT_MESSAGES } from "../../src/reply/wait_set.ts";
import { REPLY_BUDGET_BYTES } from "../../src/reply/project_replies.ts";
import { SEARCH_PAGE_LIMIT } from "../../src/reply/match_user_item.ts";
import { TURN_STATUS_WINDOW } from "../../src/reply/turn_status.ts";
import { UNSEEN_MAX } from "../../src/turn/run_book.ts";
import { OTHER_RELAY_PROBES } from "../../src/ops/listed_runs.ts";
import { PENDING_DEADLINE_MS } from "../../src/elicit/router.ts";
import { MAX_MESSAGE_BYTES } from "../../src/host/stdio_transport.ts";
import { MAX_ROUNDS_PER_CALL } from "../../src/host/input_rounds.ts";
import { SHUTDOWN_GRACE_MS, SIGNAL_GRACE_MS } from "../../src/host/serve.ts";
import {
  MAX_ANSWER_DEPTH,
  MAX_CHECK_STEPS,
  MAX_OUTPUT_SCHEMA_BYTES,
  MAX_PATTERN_LENGTH,
  MAX_SCHEMA_DEPTH,
} from "../../src/reply/structured.ts";
import { CODEX_STARTUP_TIMEOUT_SEC } from "../../src/turn/mcp_startup.ts";
import { MCP_WAIT_RESERVE_MS } from "../../src/turn/mcp_wait.ts";
import { START_BUDGET_MS } from "../../src/turn/turn_start.ts";
import { listedRunSchema, RESULT_TURN_STATUSES, runOutput } from "../../src/reply/schemas.ts";
import type { z } from "zod";

const DESIGN = await Deno.readTextFile(new URL("../../docs/design.md", import.meta.url));
const KiB = 1024;
const MiB = 1024 * 1024;

/** The body rows of the first table under the heading `heading`, as trimmed cells. */
export function tableUnder(markdown: string, heading: string): string[][] {
  const lines = markdown.split("\n");
  const at = lines.findIndex((line) => /^#+ /.test(line) && line.replace(/^#+ /, "") === heading);
  assert.notEqual(at, -1, `docs/design.md has a heading "${heading}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(at + 1)) {
    if (/^#+ /.test(line)) break;
    if (!line.startsWith("|")) {
      if (rows.length > 0) break;
      continue;
    }
    rows.push(line.slice(1, line.lastIndexOf("|")).split("|").map((cell) => cell.trim()));
  }
  assert.ok(rows.length > 2, `a table under "${heading}"`);
  assert.match(rows[1].join(""), /^[-: ]+$/, `the table under "${heading}" has a header row`);
  return rows.slice(2);
}

/** The `code` spans of a cell, in order. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
}

const NONE: Capabilities = { replyRead: false, turnStart: false };
/** Each level with its flag alone: the levels stack (turn start includes reply read). */
const LEVELS: readonly { name: string; flag: string[]; caps: Capabilities }[] = [
  { name: "queue", flag: [], caps: NONE },
  {
    name: "reply read",
    flag: ["--allow-reply-read"],
    caps: capabilitiesOf({ allowReplyRead: true, allowTurnStart: false }),
  },
  {
    name: "turn start",
    flag: ["--allow-turn-start"],
    caps: capabilitiesOf({ allowReplyRead: false, allowTurnStart: true }),
  },
  {
    name: "worktrees",
    flag: ["--allow-turn-start", "--allow-worktrees"],
    caps: capabilitiesOf({
      allowReplyRead: false,
      allowTurnStart: true,
      worktrees: { git: "git" },
    }),
  },
];

/** What the level `caps` adds to the one before it (`below`; none: the default level itself). */
function added<T>(
  all: (caps: Capabilities) => Iterable<T>,
  caps: Capabilities,
  below?: Capabilities,
): T[] {
  const base = new Set(below ? all(below) : []);
  return [...all(caps)].filter((x) => !base.has(x)).sort();
}

Deno.test("tableUnder() and codeSpans() read a markdown table", () => {
  const md = "# A\n\ntext\n\n| x | y |\n|---|:-:|\n| `a`, `b` | 2 |\n| c | d |\n\nafter\n## B\n";
  assert.deepEqual(tableUnder(md, "A"), [["`a`, `b`", "2"], ["c", "d"]]);
  assert.deepEqual(codeSpans("+ `a`, `b` (x)"), ["a", "b"]);
  assert.throws(() => tableUnder(md, "B"), /a table under "B"/);
});

Deno.test("docs/design.md: each capability level's flag, tools and app-server methods are the code's", () => {
  const rows = tableUnder(DESIGN, "Capability levels");
  assert.deepEqual(rows.map((r) => r[0].replace(/ \(default\)$/, "")), LEVELS.map((l) => l.name));
  for (const [i, { name, flag: given, caps }] of LEVELS.entries()) {
    const [, flag, tools, methods] = rows[i];
    const below = LEVELS[i - 1]?.caps;
    assert.deepEqual(codeSpans(flag), given, `flag of the ${name} level`);
    assert.deepEqual(codeSpans(tools).sort(), added(toolNames, caps, below), `${name} level tools`);
    assert.deepEqual(
      codeSpans(methods).sort(),
      added(allowedMethods, caps, below),
      `app-server methods the ${name} level adds`,
    );
  }
  const both = { replyRead: true, turnStart: true };
  const union = rows.flatMap((r) => codeSpans(r[3])).sort();
  assert.deepEqual([...allowedMethods(both)].sort(), union, "both flags allow the union");
  assert.deepEqual([...METHOD_NAMES].sort(), union, "the table lists every method of the map");
  const levels: MethodLevel[] = ["queue", "replyRead", "turnStart"];
  for (const [i, row] of rows.entries()) {
    for (const method of codeSpans(row[3])) {
      assert.ok(isMethod(method), `${method} (the ${LEVELS[i].name} level) is in the method map`);
      assert.equal(levelOf(method), levels[i], `the map's level of ${method}`);
    }
  }
});

Deno.test("docs/design.md: the tools table lists every tool at the level that registers it", () => {
  const levelOf = (name: string) =>
    LEVELS.find((level) => toolNames(level.caps).includes(name))?.name ?? "none";
  const documented = tableUnder(DESIGN, "Tools").map((r) => [codeSpans(r[0])[0], r[1]]);
  const code = TOOLS.map((tool) => [tool.name, levelOf(tool.name)]);
  assert.deepEqual(documented.sort(), code.sort());
});

Deno.test("docs/design.md: what each backend can do is what the backends declare", async () => {
  const rows = tableUnder(DESIGN, "What a backend can do");
  const options = { allowlist: new Set<Method>(), version: "0.0.0-test", env: {} };
  const spawn = await openConnection({ kind: "spawn" }, options);
  const daemon = await openConnection({ kind: "daemon" }, options);
  const yes = (cell: string) => ({ yes: true, no: false })[cell];
  const documented = (column: number) =>
    Object.fromEntries(rows.map((r) => [codeSpans(r[0])[0], yes(r[column])]));
  assert.deepEqual(documented(1), { ...spawn.capabilities });
  assert.deepEqual(documented(2), { ...daemon.capabilities });
});

Deno.test("docs/design.md: the reasons table lists exactly the code's reason codes", () => {
  const documented = tableUnder(DESIGN, "Reasons").map((r) => codeSpans(r[0])[0]);
  assert.deepEqual(documented.sort(), [...REASON_CODES].sort());
});

Deno.test("docs/design.md: the bounds that are constants in the code have the code's values", () => {
  const bounds = new Map(tableUnder(DESIGN, "Bounds").map((r) => [r[0], r[1]]));
  const value = (name: string) => {
    const cell = bounds.get(name);
    assert.ok(cell !== undefined, `a bound "${name}"`);
    return cell;
  };
  const says = (name: string, text: string) =>
    assert.ok(value(name).includes(text), `"${name}" says ${text}: ${value(name)}`);
  const l = DEFAULT_LIMITS;
  says("operation budget (list, queue, read)", `${l.operationMs / 1000} s`);
  says("one RPC", `${l.rpcTimeoutMs / 1000} s`);
  says("one frame from an app-server", `${l.frameBytes / MiB} MiB`);
  says("helper stderr kept", `last ${l.stderrBytes / KiB} KiB`);
  says("message text", `1..${MAX_TEXT_BYTES / KiB} KiB UTF-8`);
  says("`codex_review`'s `base`, `commit`", `1..${MAX_REF_BYTES} bytes UTF-8`);
  says("an MCP server not up at a start", `${MCP_SKIP_MS / 60_000} min`);
  says("reply text per page", `${REPLY_BUDGET_BYTES / KiB} KiB UTF-8`);
  says("`codex_run`'s `outputSchema`", `${MAX_OUTPUT_SCHEMA_BYTES / KiB} KiB of JSON`);
  says(
    "`outputSchema` nesting / one `pattern`",
    `${MAX_SCHEMA_DEPTH} JSON levels (rule \`depth\`)`,
  );
  says("`outputSchema` nesting / one `pattern`", `${MAX_PATTERN_LENGTH} UTF-16 units`);
  says("checking a structured answer", `${MAX_ANSWER_DEPTH} JSON levels, ${MAX_CHECK_STEPS} steps`);
  says("search page", `newest ${SEARCH_PAGE_LIMIT} items`);
  says("turn status", `newest ${TURN_STATUS_WINDOW} turn summaries`);
  says(
    "`codex_wait_reply`",
    `${WAIT_SECONDS.min}..${WAIT_SECONDS.max} s per call (default ${WAIT_SECONDS.default})`,
  );
  says("`codex_wait_reply`", `${WAIT_MESSAGES.min}..${WAIT_MESSAGES.max} messages per call`);
  says("helpers per read operation", `at most ${l.connectionsPerOperation} sequential`);
  const concurrency = "operations in flight (`spawn` / `daemon`)";
  says(
    concurrency,
    `${DEFAULT_SPAWN_LIMITS.inFlight} / ${DEFAULT_DAEMON_LIMITS.inFlight} in flight`,
  );
  says("warm helper idle (`spawn`)", `${WARM_IDLE_MS / 1000} s with no operation`);
  says(concurrency, `bounded queue (${l.queue})`);
  const turns = "turns running at once";
  says(turns, `${DEFAULT_SPAWN_LIMITS.turns} (\`spawn\``);
  says(turns, `${DEFAULT_DAEMON_LIMITS.turns} (\`daemon\`)`);
  says("one MCP message from the client", `${MAX_MESSAGE_BYTES / MiB} MiB`);
  says("pending elicitation", `${PENDING_DEADLINE_MS / 60_000} min`);
  says("input rounds per tool call", `${MAX_ROUNDS_PER_CALL};`);
  says("shutdown (stdin EOF, SIGINT, SIGTERM)", "within 2 s");
  says("after SIGINT or SIGTERM", `get ${SIGNAL_GRACE_MS} ms, then`);
  says("ended runs kept for the next list", `${UNSEEN_MAX};`);
  says("threads asked for other relays' turns, per list", `${OTHER_RELAY_PROBES} (`);
  const mcp = "a run's wait for its thread's MCP servers";
  says(mcp, `Codex's default ${CODEX_STARTUP_TIMEOUT_SEC} s`);
  says(mcp, `ends ${MCP_WAIT_RESERVE_MS / 1000} s before the start's ${START_BUDGET_MS / 1000} s`);
  assert.ok(SHUTDOWN_GRACE_MS < 2_000, "the shutdown grace leaves time to kill within 2 s");
});
/** The field names of a `{a, b?, c: {…}}` shape as the design writes it, `?` kept. */
function shapeFields(span: string): string[] {
  let inner = span.slice(span.indexOf("{") + 1, span.lastIndexOf("}"));
  while (/\{[^{}]*\}/.test(inner)) inner = inner.replace(/\{[^{}]*\}/g, "");
  return inner.replace(/\([^)]*\)/g, "").split(",").map((f) => f.trim().replace(/:.*$/, ""));
}

Deno.test("docs/design.md: the result names are the schemas' (the one module, src/reply/schemas.ts)", () => {
  const runs = DESIGN.match(/`(runs: \[\{[^`]*)`/)?.[1];
  assert.ok(runs, "the design shows a listed run");
  const shape = listedRunSchema.shape;
  const optional = (field: z.ZodType) => field.safeParse(undefined).success;
  assert.deepEqual(
    shapeFields(runs),
    Object.entries(shape).map(([name, field]) => optional(field) ? `${name}?` : name),
  );
  const run = DESIGN.match(/`(\{receipt, turn:[^`]*)`/)?.[1];
  assert.ok(run, "the design shows codex_run's result");
  const statuses = run.match(/status: ([a-z|]+)/)![1].split("|");
  assert.deepEqual(statuses.sort(), [...runOutput.shape.turn.unwrap().shape.status.options].sort());
  const named = DESIGN.slice(DESIGN.indexOf("a turn's `status` is"));
  assert.deepEqual(
    codeSpans(named.slice(0, named.indexOf(";"))).slice(1).sort(),
    [...RESULT_TURN_STATUSES].sort(),
    "the one-name note lists every turn status a result carries",
  );
  for (const field of ["pendingRequests", "declinedRequests", "queuedAhead"]) {
    assert.ok(field in runOutput.shape, `codex_run's result has ${field}`);
    assert.ok(DESIGN.includes(`\`${field}\``), `the design names ${field}`);
  }
});
