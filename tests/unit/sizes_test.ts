/** Protects: the size rule of CONTRIBUTING (src/ files of 400 lines at most, functions of 80). */
import assert from "assert";
import {
  functionSpans,
  lineCount,
  MAX_FILE_LINES,
  MAX_FUNCTION_LINES,
  sizeViolations,
  tsFiles,
} from "../../testing/sizes.ts";

const body = (n: number, indent = "  ") =>
  Array.from({ length: n }, (_, i) => `${indent}const v${i} = ${i};`).join("\n");
const spans = (text: string) => functionSpans(text).map((s) => `${s.name}@${s.line}:${s.lines}`);

Deno.test("sizes: src/ has no file over 400 lines and no function over 80", async () => {
  const src = new URL("../../src/", import.meta.url);
  const found: string[] = [];
  for (const path of await tsFiles(src)) {
    found.push(...sizeViolations(`src/${path}`, await Deno.readTextFile(new URL(path, src))));
  }
  assert.deepEqual(found, [], `split these (scripts/sizes.ts lists them):\n${found.join("\n")}`);
});

Deno.test("sizes: a function is measured from its header to its closing brace", () => {
  const text = [
    "export async function one(a: string): Promise<void> {",
    body(2),
    "}",
    "const two = async (x: number) => {",
    "  return x;",
    "};",
    "function* three() {",
    "  yield 1;",
    "}",
  ].join("\n");
  assert.deepEqual(spans(text), ["one@1:4", "two@5:3", "three@8:3"]);
});

Deno.test("sizes: methods, getters, private and generic methods and constructors count", () => {
  const text = [
    "export class A {",
    "  constructor(private readonly x: number) {",
    "    this.y = x;",
    "  }",
    "  get size(): number {",
    "    return 1;",
    "  }",
    "  async #open<T>(a: T): Promise<T> {",
    body(3, "    "),
    "  }",
    "  static of(): A {",
    "    return new A(1);",
    "  }",
    "}",
  ].join("\n");
  assert.deepEqual(spans(text), [
    "constructor@2:3",
    "size@5:3",
    "#open@8:5",
    "of@13:3",
  ]);
});

Deno.test("sizes: a header broken over lines starts at its first line", () => {
  const text = [
    "export function wide(",
    "  a: string,",
    "  b: string,",
    "): string {",
    "  return a + b;",
    "}",
    "export function destructured({",
    "  a,",
    "}: { a: string }): string {",
    "  return a;",
    "}",
    "const tool = {",
    "  run: async (",
    "    args: unknown,",
    "  ): Promise<void> => {",
    "    await args;",
    "  },",
    "};",
  ].join("\n");
  assert.deepEqual(spans(text), ["wide@1:6", "destructured@7:5", "run@13:5"]);
});

Deno.test("sizes: control blocks, calls, classes and object literals are not functions", () => {
  const text = [
    "class B {",
    "}",
    "const o = {",
    "  a: 1,",
    "};",
    "if (o.a) {",
    "  call(o, {",
    "    b: 2,",
    "  });",
    "} else if (o) {",
    "  for (const x of []) {",
    "  }",
    "}",
    "if (",
    "  o.a &&",
    "  o",
    ") {",
    "}",
    "switch (o.a) {",
    "}",
    "try {",
    "} catch (e) {",
    "}",
    "while (o) {",
    "}",
  ].join("\n");
  assert.deepEqual(spans(text), []);
});

Deno.test("sizes: callbacks and nested functions are measured on their own", () => {
  const text = [
    "function outer() {",
    "  items.map((x) => {",
    "    return x;",
    "  });",
    "  function inner() {",
    "  }",
    "}",
  ].join("\n");
  assert.deepEqual(spans(text), ["outer@1:7", "(arrow)@2:3", "inner@5:2"]);
});

Deno.test("sizes: a function of 80 lines passes, one of 81 is reported", () => {
  const fn = (n: number) => ["function f() {", body(n - 2), "}", ""].join("\n");
  assert.deepEqual(sizeViolations("a.ts", fn(MAX_FUNCTION_LINES)), []);
  assert.deepEqual(sizeViolations("a.ts", fn(MAX_FUNCTION_LINES + 1)), [
    "a.ts:1 f (81 lines, most 80)",
  ]);
});

Deno.test("sizes: a file of 400 lines passes, one of 401 is reported", () => {
  const file = (n: number) =>
    Array.from({ length: n }, (_, i) => `export const c${i} = ${i};\n`).join("");
  assert.equal(lineCount(file(MAX_FILE_LINES)), MAX_FILE_LINES);
  assert.equal(lineCount("a\nb"), 2);
  assert.deepEqual(sizeViolations("b.ts", file(MAX_FILE_LINES)), []);
  assert.deepEqual(sizeViolations("b.ts", file(MAX_FILE_LINES + 1)), [
    "b.ts (401 lines, most 400)",
  ]);
});

Deno.test("sizes: a Stryker directive line is not counted", () => {
  const fn = ["function f() {", "  // Stryker disable next-line all: why", body(78), "}", ""].join(
    "\n",
  );
  assert.deepEqual(sizeViolations("a.ts", fn), []);
  assert.deepEqual(sizeViolations("a.ts", fn.replace("// Stryker", "// stryker")), [
    "a.ts:1 f (81 lines, most 80)",
  ]);
});
