// deno-lint-ignore-file no-console
/**
 * `deno task bench`: The reply projector on a 1 MiB items page vs `JSON.parse` of that frame.
 * @module
 */

import { agentItem, userItem } from "../../testing/fixture_home.ts";
import { matchUserItem, projectReplies } from "../../src/reply/mod.ts";
import type { ItemEntry } from "../../src/codex/types.ts";
import type { Options } from "./_options.ts";
import { interleave, pairFigure } from "./_stats.ts";

/** One `thread/items/list` page of 100 entries, shaped like the captures, of about 1 MiB. */
export function itemsPage(): { frame: string; turnId: string; clientId: string } {
  const turnId = "01a22a5b-0000-7000-8000-00000000beef";
  const clientId = "bench-projector-0001";
  const build = (reps: number) => {
    const text = (i: number) => `${"é€😀a".repeat(reps)} ${i}`; // 10 bytes of UTF-8 per rep
    const entry = (item: Record<string, unknown>, i: number) => ({
      turnId,
      item,
      startedAtMs: 1796006982000 + i,
      completedAtMs: 1796006982000 + i,
    });
    const data = [entry(userItem(clientId, "please do the thing"), 0)];
    for (let i = 1; i < 100; i++) {
      const kind = i % 4;
      const item = kind === 0
        ? { type: "reasoning", id: `rs_${i}`, summary: [text(i)], content: [] }
        : kind === 1
        ? agentItem(`msg_${i}_c`, text(i), "commentary")
        : kind === 2
        ? agentItem(`msg_${i}_final`, text(i), "final_answer")
        : { type: "commandExecution", id: `call_${i}`, command: "ls", aggregatedOutput: text(i) };
      data.push(entry(item, i));
    }
    return JSON.stringify({ id: 7, result: { data, nextCursor: null, backwardsCursor: null } });
  };
  // The largest page whose frame fits the 1 MiB frame bound.
  const bytes = (frame: string) => new TextEncoder().encode(frame).length;
  let lo = 1;
  let hi = 2000;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (bytes(build(mid)) <= 1024 * 1024) lo = mid;
    else hi = mid - 1;
  }
  return { frame: build(lo), turnId, clientId };
}

export async function benchProjector(options: Options): Promise<void> {
  const { frame, turnId, clientId } = itemsPage();
  const entries = JSON.parse(frame).result.data as ItemEntry[];
  const reps = 10;
  const project = () => {
    for (let r = 0; r < reps; r++) {
      const found = matchUserItem(entries, clientId);
      if (found.kind !== "observed") throw new Error("projector bench: no match");
      projectReplies(entries, turnId);
    }
    return Promise.resolve();
  };
  const parse = () => {
    for (let r = 0; r < reps; r++) JSON.parse(frame);
    return Promise.resolve();
  };
  const pair = await interleave(options.samples, project, parse);
  const per = (xs: number[]) => xs.map((x) => x / reps);
  const f = pairFigure(
    "projector_1mib",
    "-",
    `projector (matchUserItem + projectReplies) vs JSON.parse: one items page of 100 items, ${
      new TextEncoder().encode(frame).length
    } bytes`,
    ["matchUserItem + projectReplies", "JSON.parse of the frame"],
    { a: per(pair.a), b: per(pair.b) },
  );
  void f;
}

// ------------------------------------------------------------------ concurrency
