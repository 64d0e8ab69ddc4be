// deno-lint-ignore-file no-console
/**
 * `deno task bench`: Interleaved A/B timing, medians, and the figures the bench reports.
 * @module
 */

export const GOAL_RSS_MIB = 60;

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export interface Pair {
  a: number[];
  b: number[];
}

/** Two warm-up pairs, then `n` pairs A B A B ... */
export async function interleave(
  n: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<Pair> {
  for (let i = 0; i < 2; i++) {
    await a();
    await b();
  }
  const out: Pair = { a: [], b: [] };
  for (let i = 0; i < n; i++) {
    out.a.push(await timed(a));
    out.b.push(await timed(b));
  }
  return out;
}

/**
 * Several ways of doing one thing, timed in one run: two warm-up rounds, then
 * `n` rounds each running every way once, the order rotated by one each round
 * (so no way always follows the same other). Sample `i` of each way comes
 * from round `i`, so per-round differences cancel the load's drift.
 */
export async function roundRobin(
  n: number,
  ways: Record<string, () => Promise<unknown>>,
): Promise<Record<string, number[]>> {
  const names = Object.keys(ways);
  const out: Record<string, number[]> = Object.fromEntries(names.map((k) => [k, []]));
  for (let i = 0; i < n + 2; i++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + i) % names.length];
      const ms = await timed(ways[name]);
      if (i >= 2) out[name].push(ms);
    }
  }
  return out;
}

/** One row of the results. */
export interface Figure {
  id: string;
  target: string;
  what: string;
  a: { label: string; unit: string; samples: number[]; median: number };
  b?: { label: string; unit: string; samples: number[]; median: number };
  /** median(A) / median(B). */
  ratio?: number;
  goal?: string;
  met?: boolean;
  note?: string;
}

export const figures: Figure[] = [];

export function pairFigure(
  id: string,
  target: string,
  what: string,
  labels: [string, string],
  pair: Pair,
  goal?: number,
): Figure {
  const ratio = median(pair.a) / median(pair.b);
  const f: Figure = {
    id,
    target,
    what,
    a: { label: labels[0], unit: "ms", samples: round(pair.a), median: median(pair.a) },
    b: { label: labels[1], unit: "ms", samples: round(pair.b), median: median(pair.b) },
    ratio,
    ...(goal === undefined ? {} : { goal: `≤ ${goal}`, met: ratio <= goal }),
  };
  figures.push(f);
  console.error(`bench: ${target} ${what}: ${fmt(f.a.median)} vs ${fmt(f.b!.median)} ms`);
  return f;
}

export const round = (xs: number[]): number[] => xs.map((x) => Math.round(x * 100) / 100);

export const fmt = (
  x: number,
): string => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

// ------------------------------------------------------------------ processes

/** A figure of one series against a goal in ms (`≤ goal`). */
export function singleFigure(
  id: string,
  target: string,
  what: string,
  xs: number[],
  goal: number,
): void {
  const m = median(xs);
  figures.push({
    id,
    target,
    what,
    a: { label: "median", unit: "ms", samples: round(xs), median: m },
    goal: `≤ ${goal} ms`,
    met: m <= goal,
  });
  console.error(`bench: ${target} ${what}: ${fmt(m)} ms`);
}
