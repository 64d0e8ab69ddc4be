/** Protects: #47's examples that check: every `@example` of src/ that runs asserts its result. */
import assert from "assert";
import { ROOT } from "../../testing/paths.ts";

/** The examples of `text` that run (`ts`, not `ts ignore`) and assert nothing, by line. */
export function uncheckedExamples(text: string): number[] {
  const lines: number[] = [];
  for (const m of text.matchAll(/\* @example[^\n]*\n((?:\s*\*[^\n]*\n)*?)\s*\*\//g)) {
    const fence = m[1].match(/```(\w+)([^\n]*)\n/);
    if (!fence || fence[2].includes("ignore")) continue;
    if (/\bassert\b|\/\/ Asserts nothing: /.test(m[1])) continue;
    lines.push(text.slice(0, m.index).split("\n").length);
  }
  return lines;
}

Deno.test("every @example that runs asserts its result, or says why it asserts nothing", async () => {
  const unchecked: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(`${ROOT}/${dir}`)) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(path);
      else if (path.endsWith(".ts")) {
        const text = await Deno.readTextFile(`${ROOT}/${path}`);
        unchecked.push(...uncheckedExamples(text).map((line) => `${path}:${line}`));
      }
    }
  };
  await walk("src");
  assert.deepEqual(unchecked, [], "examples whose result only a comment states");
});

Deno.test("an example that only states its result in a comment is found", () => {
  const text = "/**\n * @example\n * ```ts\n * double(2); // 4\n * ```\n */\n";
  assert.deepEqual(uncheckedExamples(text), [2]);
  assert.deepEqual(
    uncheckedExamples(text.replace("double(2); // 4", "assert.equal(double(2), 4);")),
    [],
  );
  assert.deepEqual(uncheckedExamples(text.replace("```ts", "```ts ignore")), []);
});
