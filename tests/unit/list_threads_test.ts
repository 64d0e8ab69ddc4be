import assert from "assert";
import { folderOf, listThreads } from "../../src/ops/list_threads.ts";
import { LISTED_SOURCE_KINDS } from "../../src/codex/types.ts";
import { scriptedSession } from "../../testing/scripted_session.ts";
import { listThreadsTool } from "../../src/host/tools/list_threads_tool.ts";
import { spawnSurface } from "../../src/host/surface.ts";
import { threadListWithRunsSchema } from "../../src/reply/schemas.ts";

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

Deno.test("codex_list_threads' text says how many requests a run waits on and that another relay started it", () => {
  const runs = [
    {
      threadId: "t1",
      clientMessageId: "m1",
      state: "waiting_for_approval" as const,
      pendingRequests: 2,
      startedAt: null,
    },
    {
      threadId: "t2",
      clientMessageId: "m2",
      state: "running" as const,
      startedAt: null,
      otherRelay: true as const,
    },
  ];
  const out = { status: "ok" as const, threads: [], nextCursor: null, sources: [], runs };
  const said = listThreadsTool.explain(out, spawnSurface({ replyRead: true, turnStart: true }))
    .said;
  assert.match(said, /m1 on t1: waiting_for_approval \(2 request\(s\) to answer\)/);
  assert.match(said, /m2 on t2: running \(another codex-relay's\)/);
  assert.deepEqual(threadListWithRunsSchema.parse(out).runs, runs, "the schema keeps both fields");
});
