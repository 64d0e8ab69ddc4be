// deno-lint-ignore-file no-console
/**
 * `deno task bench --only schemas` (issue 39): the relay's RSS over 2,000 mixed calls that include
 * 300 structured runs (`codex_run` with `outputSchema`, one in three answered with a string that
 * makes `^(a+)+$` backtrack) and 500 refused schemas (nested `$id`s, too deep, a backreference),
 * after a warm-up of 200 of the same mix; a hostile answer's run against a plain one; and the
 * costliest answer check known against a plain one (issue 46).
 * @module
 */

import { agentItem, FIXTURE_BIN, thread } from "../../testing/fixture_home.ts";
import { callTool, rssKiB, startRelay, SUCCESS, TMP } from "./_relay.ts";
import { figures, median } from "./_stats.ts";
import { HOME, PATH } from "./targets.ts";
import { benchOneCheck } from "./one_check.ts";

type Obj = Record<string, unknown>;

export const SCHEMA_CALLS = 2_000;
export const SCHEMA_WARMUP = 200;
/** Per 20 calls of the mix: 3 structured runs, 5 refused schemas, 12 of the other tools. */
const MIX = { runs: 3, refused: 5, of: 20 };

const closed = (properties: Obj): Obj => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
const PATTERN_SCHEMA = closed({ v: { type: "string", pattern: "^(a+)+$" } });
const HOSTILE = `{"v":"${"a".repeat(40)}!"}`;
const PLAIN = `{"v":"${"a".repeat(40)}"}`;

/** The n-th refused schema: 1,700 nested `$id`s, 600 levels, or a backreference. */
function refusedSchema(n: number): Obj {
  if (n % 3 === 1) {
    let deep: Obj = { type: "string" };
    for (let i = 0; i < 600; i++) deep = closed({ o: deep });
    return deep;
  }
  if (n % 3 === 2) return closed({ v: { type: "string", pattern: "(a+)\\1" } });
  const properties: Obj = {};
  for (let i = 0; i < 1_700; i++) properties[`p${i}`] = { $id: `${n}/${i}` };
  return closed({ a: closed(properties) });
}

/** A fixture home: a bench thread for the other tools and one thread per lane of runs. */
async function schemaHome(lanes: number) {
  const home = await Deno.makeTempDir({ dir: TMP, prefix: "schemas-" });
  const scripts = [PLAIN, HOSTILE, PLAIN].map((text) => [{ item: agentItem("msg_s", text) }]);
  const runThreads = Array.from({ length: lanes }, () => thread({ scripts }));
  const main = thread({ name: "bench" });
  await Deno.writeTextFile(
    `${home}/fixture.json`,
    JSON.stringify({ threads: [main, ...runThreads] }),
  );
  return { home, main: main.id, runThreads: runThreads.map((t) => t.id) };
}

/** One lane of the mix: its own thread for structured runs; the run times of each answer kind. */
async function lane(
  client: Parameters<typeof callTool>[0],
  ids: { main: string; run: string },
  calls: number,
  times: { hostile: number[]; plain: number[] },
  start: number,
): Promise<void> {
  const others = ["codex_list_threads", "codex_queue_message", "codex_read_reply"];
  for (let i = start; i < start + calls; i++) {
    const slot = i % MIX.of;
    if (slot < MIX.runs) {
      const t0 = performance.now();
      const out = await callTool(client, "codex_run", {
        threadId: ids.run,
        text: "answer v",
        outputSchema: PATTERN_SCHEMA,
      });
      const ms = performance.now() - t0;
      const s = out.structured as Obj | undefined;
      if (!s || !("valid" in s)) throw new Error(`codex_run: ${JSON.stringify(out)}`);
      (s.valid ? times.plain : times.hostile).push(ms);
    } else if (slot < MIX.runs + MIX.refused) {
      const out = await callTool(client, "codex_run", {
        threadId: ids.main,
        text: "refused",
        outputSchema: refusedSchema(i),
      });
      if (out.reason !== "invalid_schema") throw new Error(`refused: ${JSON.stringify(out)}`);
    } else {
      const tool = others[i % others.length];
      const args: Obj = tool === "codex_list_threads"
        ? { limit: 20 }
        : tool === "codex_queue_message"
        ? { threadId: ids.main, text: "a message from the bench" }
        : { threadId: ids.main, clientMessageId: "none-0001" };
      const out = await callTool(client, tool, args);
      const ok = tool === "codex_read_reply" ? "status" in out : out.status === SUCCESS[tool];
      if (!ok) throw new Error(`${tool}: ${JSON.stringify(out)}`);
    }
  }
}

/**
 * RSS after the warm-up and after {@linkcode SCHEMA_CALLS} calls, 4 lanes at a time; then one
 * answer check's bound (scripts/bench/one_check.ts).
 */
export async function benchSchemas(samples = 9): Promise<void> {
  await benchOneCheck(samples);
  const lanes = 4;
  const { home, main, runThreads } = await schemaHome(lanes);
  const env = { PATH: `${FIXTURE_BIN}:${PATH}`, HOME, CODEX_HOME: home };
  const relay = await startRelay(env, ["--allow-turn-start", "--allow-reply-read"]);
  const pid = relay.transport.pid!;
  const times = { hostile: [] as number[], plain: [] as number[] };
  const batch = (count: number, from: number) =>
    Promise.all(
      runThreads.map((run, k) =>
        lane(relay.client, { main, run }, count / lanes, times, from + k * (count / lanes))
      ),
    );
  try {
    await batch(SCHEMA_WARMUP, 0);
    const warm = await rssKiB(pid);
    const t0 = performance.now();
    await batch(SCHEMA_CALLS, SCHEMA_WARMUP);
    const s = Math.round((performance.now() - t0) / 1000);
    const after = await rssKiB(pid);
    const mib = (k: number) => k / 1024;
    const ratio = after / warm;
    figures.push({
      id: "schemas_rss",
      target: "fixture",
      what:
        `relay RSS after ${SCHEMA_CALLS} mixed calls (300 structured runs, 500 refused schemas) vs after a warm-up of ${SCHEMA_WARMUP}`,
      a: { label: "after", unit: "MiB", samples: [mib(after)], median: mib(after) },
      b: { label: "warm-up", unit: "MiB", samples: [mib(warm)], median: mib(warm) },
      ratio,
      goal: "≤ 1.2",
      met: ratio <= 1.2,
      note: `${s} s for the ${SCHEMA_CALLS}`,
    });
    const hostile = median(times.hostile);
    const plain = median(times.plain);
    figures.push({
      id: "schemas_hostile",
      target: "fixture",
      what: "structured run whose answer makes ^(a+)+$ backtrack (40 a's and !) vs a plain answer",
      a: { label: "hostile", unit: "ms", samples: times.hostile, median: hostile },
      b: { label: "plain", unit: "ms", samples: times.plain, median: plain },
      ratio: hostile / plain,
    });
    console.error(`bench: schemas: RSS ratio ${ratio.toFixed(2)}`);
  } finally {
    await relay.close();
    await Deno.remove(home, { recursive: true });
  }
}
