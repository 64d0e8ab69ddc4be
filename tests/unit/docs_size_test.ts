/** Protects: the documents a reader is handed (README, CHANGELOG, CONTRIBUTING, docs/) stay short. */
import assert from "assert";

const ROOT = new URL("../../", import.meta.url);
/** The shipped documents in all, in bytes (150 KB: issue 40 brought them back from 209.5 KB). */
const DOCS_MAX_BYTES = 150_000;

/** Every markdown file at the top of the repository and under docs/, with its size in bytes. */
async function shippedDocs(): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  const walk = async (folder: string, deep: boolean) => {
    for await (const entry of Deno.readDir(new URL(folder, ROOT))) {
      const path = `${folder}${entry.name}`;
      if (entry.isDirectory && deep) await walk(`${path}/`, deep);
      if (entry.isFile && entry.name.endsWith(".md")) {
        sizes.set(path, (await Deno.stat(new URL(path, ROOT))).size);
      }
    }
  };
  await walk("", false);
  await walk("docs/", true);
  return sizes;
}

Deno.test("the shipped documents are under 150 KB in all", async () => {
  const sizes = await shippedDocs();
  for (const doc of ["README.md", "CHANGELOG.md", "CONTRIBUTING.md", "docs/design.md"]) {
    assert.ok(sizes.has(doc), `${doc} is counted`);
  }
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  const each = [...sizes].sort((a, b) => b[1] - a[1]).map(([doc, n]) => `${doc} ${n}`).join(", ");
  assert.ok(
    total <= DOCS_MAX_BYTES,
    `the documents take ${total} bytes, over ${DOCS_MAX_BYTES}: cut before adding (${each})`,
  );
});
