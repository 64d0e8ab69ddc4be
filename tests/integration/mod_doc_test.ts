/**
 * Protects: a library user reading the JSR page sees an example for every export of `mod.ts`.
 *
 * The JSR page of `mod.ts` is what `deno doc mod.ts` reads: every export must show an example
 * there (an `@example` on a re-export's own JSDoc is not read; it belongs on the declaration).
 */
import assert from "assert";

interface DocSymbol {
  name: string;
  declarations: { jsDoc?: { tags?: { kind: string; doc?: string }[] } }[];
}

Deno.test("deno doc mod.ts shows an @example for every export (main, serve, ServeOptions, VERSION)", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["doc", "--json", "mod.ts"],
    cwd: new URL("../../", import.meta.url),
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const doc = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    nodes: Record<string, { symbols: DocSymbol[] }>;
  };
  const symbols = Object.values(doc.nodes).flatMap((node) => node.symbols);
  const examples = Object.fromEntries(symbols.map((s) => [
    s.name,
    s.declarations.flatMap((d) => d.jsDoc?.tags ?? []).filter((t) => t.kind === "example")
      .map((t) => t.doc ?? ""),
  ]));
  assert.deepEqual(Object.keys(examples).sort(), ["ServeOptions", "VERSION", "main", "serve"]);
  for (const [name, docs] of Object.entries(examples)) {
    assert.equal(docs.length, 1, `${name} shows one example`);
    assert.match(
      docs[0],
      new RegExp(
        `import \\{ (?:[\\w ]+, )?(?:type )?${name}(?:, [\\w ]+)? \\} from "@codex-relay/cli"`,
      ),
    );
  }
});
