import assert from "assert";
import { folderOf, listThreads } from "../../src/ops/list_threads.ts";
import { LISTED_SOURCE_KINDS } from "../../src/codex/types.ts";
import { scriptedSession } from "../../testing/scripted_session.ts";

Deno.test("folderOf: the last segment of a cwd, POSIX or Windows, trailing separators ignored", () => {
  assert.equal(folderOf("/home/me/parser"), "parser");
  assert.equal(folderOf("/home/me/parser/"), "parser");
  assert.equal(folderOf("C:\\work\\api"), "api");
  assert.equal(folderOf("C:\\work\\api\\"), "api");
  assert.equal(folderOf("/"), "/");
  assert.equal(folderOf("C:\\"), "C:\\");
  assert.equal(folderOf(null), null);
  assert.equal(folderOf(""), null);
});

Deno.test("listThreads asks for the listed sources and passes search as Codex's searchTerm", async () => {
  const { session, calls } = scriptedSession({
    "thread/list": () => ({ data: [], nextCursor: null }),
  });
  const out = await listThreads(session, { limit: 5, search: "parser" });
  assert.deepEqual(calls, [["thread/list", {
    limit: 5,
    sourceKinds: LISTED_SOURCE_KINDS,
    searchTerm: "parser",
  }]]);
  assert.deepEqual(out.sources, ["cli", "vscode", "exec", "appServer", "unknown"]);
  await listThreads(session, { limit: 5, cursor: "c2" });
  assert.deepEqual(calls[1], ["thread/list", {
    limit: 5,
    cursor: "c2",
    sourceKinds: LISTED_SOURCE_KINDS,
  }]);
});
