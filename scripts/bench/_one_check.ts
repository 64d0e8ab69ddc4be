// deno-lint-ignore-file no-console
/**
 * The child of the one-check figure (scripts/bench/one_check.ts), run with the relay's V8 flags:
 * `rounds` rounds, each timing every costly check of testing/hostile_checks.ts and a plain check
 * once (CPU ms), printed as JSON: the costliest check of each round, and the plain one.
 * @module
 */

import { cpuMs, hostileChecks, plainCheck } from "../../testing/hostile_checks.ts";
import { structuredAnswer } from "../../src/reply/structured.ts";
import { LINEAR_REGEXP } from "../../src/reply/linear_regexp.ts";

const rounds = Number(Deno.args[0] ?? 9);
const hostile = Object.entries(hostileChecks());
const plain = plainCheck();
const time = ({ schema, answer }: { schema: unknown; answer: string }) => {
  const t0 = cpuMs();
  structuredAnswer(schema, answer);
  return cpuMs() - t0;
};
const out = { linear: LINEAR_REGEXP, costliest: [] as number[], plain: [] as number[], which: "" };
for (let i = 0; i < rounds + 2; i++) {
  const times = hostile.map(([name, check]) => [name, time(check)] as const);
  const [which, worst] = times.reduce((a, b) => (b[1] > a[1] ? b : a));
  const p = time(plain);
  if (i < 2) continue;
  out.costliest.push(worst);
  out.plain.push(p);
  out.which = which;
}
console.log(JSON.stringify(out));
