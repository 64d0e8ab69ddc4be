import assert from "assert";
import { HelperProcess } from "../../src/connect/process/helper_process.ts";
import { DEFAULT_LIMITS } from "../../src/connect/connection.ts";

const CAP = DEFAULT_LIMITS.stderrBytes;

/** A helper whose stderr is exactly `text` (`cat` copies its stdin to stderr). */
async function tailOf(text: string, cap = CAP): Promise<string> {
  const helper = HelperProcess.spawn(
    { command: "sh", args: ["-c", "cat >&2"], env: {} },
    cap,
    { eofGraceMs: 5000, termGraceMs: 1000 },
  );
  await helper.write(new TextEncoder().encode(text));
  await helper.reap(); // stdin EOF: cat exits, stderr is drained
  assert.equal((await helper.status).code, 0);
  return helper.stderrTail();
}

/** `n` bytes of ASCII whose every position is recognisable: HEAD, numbered lines, TAIL. */
function numbered(n: number): string {
  let s = "HEAD\n";
  for (let i = 0; s.length < n; i++) s += `line ${i}\n`;
  s = s.slice(0, n - 5) + "TAIL\n";
  assert.equal(s.length, n);
  return s;
}

Deno.test("helper stderr kept: the design's 16 KiB", () => {
  assert.equal(CAP, 16 * 1024);
});

Deno.test("helper stderr of exactly 16 KiB is kept whole", async () => {
  const text = numbered(CAP);
  assert.equal(await tailOf(text), text);
});

Deno.test("helper stderr of 16 KiB + 1 byte keeps the last 16 KiB: the first byte is dropped", async () => {
  const text = numbered(CAP + 1);
  const tail = await tailOf(text);
  assert.equal(tail.length, CAP);
  assert.equal(tail, text.slice(1));
  assert.ok(tail.startsWith("EAD\n") && tail.endsWith("TAIL\n"));
});

Deno.test("a 1 MiB stderr flood keeps exactly its last 16 KiB", async () => {
  const text = numbered(1024 * 1024);
  const tail = await tailOf(text);
  assert.equal(tail, text.slice(-CAP));
  assert.ok(!tail.includes("HEAD"));
});
