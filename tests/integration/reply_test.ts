import assert from "assert";
import { allowedMethods } from "../../src/codex/methods.ts";
import { ManualClock } from "../../testing/manual_clock.ts";
import { SpawnConnection } from "../../src/connect/spawn/spawn_connection.ts";
import { encodeCursor } from "../../src/reply/cursor.ts";
import { readReply } from "../../src/ops/read_reply.ts";
import type { FixtureItem, Scenario } from "../../fixtures/scenario.ts";
import { agentItem, FixtureHome, thread, turn, userItem } from "../../testing/fixture_home.ts";
import { closeAfter, PROTOCOLS, startRelay } from "../../testing/relay.ts";
import { callTool, type ToolName, type ToolOutput, withoutNext } from "../../testing/call_tool.ts";

type Client = Awaited<ReturnType<typeof startRelay>>["client"];
type Protocol = (typeof PROTOCOLS)[number];

const READ = ["--allow-reply-read"];
const READ_METHODS = ["thread/items/list", "thread/items/read", "thread/turns/list"];
const MISSING = "01a00000-0000-7000-8000-000000000000";

async function withRelay(
  scenario: Scenario,
  flags: string[],
  fn: (client: Client, f: FixtureHome) => Promise<void>,
  protocol: Protocol = "2026-07-28",
): Promise<void> {
  const f = await FixtureHome.create(scenario);
  const relay = await startRelay({ fixture: f, flags, protocol });
  const { code, stderr, left } = await closeAfter(relay, f, () => fn(relay.client, f));
  assert.equal(code, 0, `the relay exits 0 on stdin EOF: ${stderr}`);
  assert.deepEqual(left, [], "no helper is left in the process table");
}

async function call<N extends ToolName>(
  client: Client,
  name: N,
  args: Record<string, unknown>,
): Promise<{ out: ToolOutput<N>; text: string; raw: string }> {
  const result = await callTool(client, name, args);
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return {
    out: result.structuredContent,
    text: (result.content as { text: string }[])[0].text,
    raw: JSON.stringify(result),
  };
}

const readReply_ = (client: Client, args: Record<string, unknown>) =>
  call(client, "codex_read_reply", args);
const waitReply = (client: Client, args: Record<string, unknown>) =>
  call(client, "codex_wait_reply", args);

/** Requests received by the fixture process `pid`, in order. */
async function requestsOf(f: FixtureHome, pid: number) {
  return (await f.requests()).filter((r) => r.pid === pid);
}

/** How many requests the fixture has received: a mark for {@linkcode since}. */
async function mark(f: FixtureHome): Promise<number> {
  return (await f.requests()).length;
}

/** The requests since `from` (calls share the warm helper: a call's are those between marks), no `initialize`. */
async function since(f: FixtureHome, from: number) {
  return (await f.requests()).slice(from).filter((r) => r.method !== "initialize");
}

function reasoning(id: string, text: string): FixtureItem {
  return { type: "reasoning", id, summary: [text], content: [text] };
}

function command(id: string, output: string): FixtureItem {
  return {
    type: "commandExecution",
    id,
    command: "/bin/bash -lc 'cat notes.txt'",
    cwd: "/secret/workspace",
    status: "completed",
    commandActions: [],
    aggregatedOutput: output,
    exitCode: 0,
    durationMs: 1,
  };
}

/** An agentMessage without a `phase` field (the builder's default would set one). */
function absentPhase(id: string, text: string): FixtureItem {
  const { phase: _, ...item } = agentItem(id, text, null);
  return item as FixtureItem;
}

function searches(reqs: { method: string; params: unknown }[]) {
  return reqs.filter((r) =>
    r.method === "thread/items/list" &&
    (r.params as { sortDirection?: string }).sortDirection === "desc"
  );
}

function turnPages(reqs: { method: string; params: unknown }[]) {
  return reqs.filter((r) =>
    r.method === "thread/items/list" && typeof (r.params as { turnId?: string }).turnId === "string"
  );
}

const LEAKS = [
  "USER-SECRET",
  "REASONING-SECRET",
  "COMMENTARY-SECRET",
  "COMMAND-SECRET",
  "NULL-PHASE-SECRET",
  "ABSENT-PHASE-SECRET",
  "PARTIAL-SECRET",
  "OTHER-TURN-ANSWER",
  "LATER-TURN-ANSWER",
  "secret preview",
  "/secret/workspace",
];

function observedScenario() {
  const matched = turn([
    userItem("c1", "USER-SECRET text of the message"),
    reasoning("rs_1", "REASONING-SECRET"),
    agentItem("msg_c", "COMMENTARY-SECRET", "commentary"),
    command("call_1", "COMMAND-SECRET output"),
    agentItem("msg_n", "NULL-PHASE-SECRET", null),
    absentPhase("msg_a", "ABSENT-PHASE-SECRET"),
    agentItem("msg_p", "PARTIAL-SECRET", "partial_answer"),
    agentItem("msg_f1", "Final answer one."),
    agentItem("msg_f2", "Final answer two,\nwith a second line é✓𝄞."),
  ]);
  const t = thread({
    turns: [
      turn([userItem("c0", "USER-SECRET earlier"), agentItem("msg_0", "OTHER-TURN-ANSWER")]),
      matched,
      turn([userItem("c2", "USER-SECRET later"), agentItem("msg_2", "LATER-TURN-ANSWER")]),
    ],
  });
  return { scenario: { threads: [t] } as Scenario, t, matched };
}

// ------------------------------------------------------------------ levels

for (const protocol of PROTOCOLS) {
  Deno.test(`[${protocol}] without --allow-reply-read the read tools are absent and no read method reaches codex`, async () => {
    const { scenario, t } = observedScenario();
    await withRelay(scenario, [], async (client, f) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x) => x.name), [
        "codex_list_threads",
        "codex_queue_message",
      ]);
      for (const name of ["codex_read_reply", "codex_wait_reply"]) {
        // tools/call of an unknown tool is a JSON-RPC error or an isError result.
        const r = await client.callTool({
          name,
          arguments: { threadId: t.id, clientMessageId: "c1" },
        }).catch((error: Error) => error);
        if (r instanceof Error) {
          assert.match(
            r.message,
            new RegExp(`${name}.*not found|not found.*${name}|Unknown tool`, "i"),
          );
        } else {
          assert.equal(r.isError, true, `${name} is refused at the default level`);
        }
        assert.ok(!JSON.stringify(r).includes("Final answer"), "no reply text leaks");
        assert.ok(!(r instanceof Error) || !r.message.includes("Final answer"));
      }
      await call(client, "codex_list_threads", {});
      const methods = new Set((await f.requests()).map((r) => r.method));
      assert.deepEqual([...methods].sort(), ["initialize", "thread/list"]);
      for (const m of READ_METHODS) assert.ok(!methods.has(m), `${m} never reaches codex`);
    }, protocol);
  });

  Deno.test(`[${protocol}] --allow-reply-read adds codex_read_reply and codex_wait_reply, read-only`, async () => {
    await withRelay({ threads: [] }, READ, async (client, f) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((x) => x.name), [
        "codex_list_threads",
        "codex_queue_message",
        "codex_read_reply",
        "codex_wait_reply",
      ]);
      for (const tool of tools.slice(2)) {
        // A read-only tool's write hints mean nothing in MCP, so they are not advertised (issue 42).
        assert.deepEqual(tool.annotations, { readOnlyHint: true, openWorldHint: false });
        assert.ok(tool.outputSchema);
        // Said in words, not by an internal name (issue 32).
        assert.match(tool.description ?? "", /every final answer of that turn/i);
        assert.doesNotMatch(tool.description ?? "", /same_turn_not_exclusive|codex_read_reply \(/);
      }
      assert.deepEqual(await f.spawned(), [], "tools/list spawns nothing");
    }, protocol);
  });

  Deno.test(`[${protocol}] codex_read_reply returns exactly the final answers of the matched turn`, async () => {
    const { scenario, t, matched } = observedScenario();
    await withRelay(scenario, READ, async (client, f) => {
      const { out, text, raw } = await readReply_(client, {
        threadId: t.id,
        clientMessageId: "c1",
      });
      assert.deepEqual(withoutNext(out), {
        status: "observed",
        threadId: t.id,
        clientMessageId: "c1",
        association: "same_turn_not_exclusive",
        turn: { id: matched.id, status: "completed" },
        replies: [
          { itemId: "msg_f1", text: "Final answer one.", truncated: false },
          {
            itemId: "msg_f2",
            text: "Final answer two,\nwith a second line é✓𝄞.",
            truncated: false,
          },
        ],
        nextCursor: null,
        searchCursor: null,
      });
      for (const leak of LEAKS) assert.ok(!raw.includes(leak), `${leak} is not in the result`);
      // The association is explained once, in the tool description; the text says what was found.
      assert.doesNotMatch(text, /same_turn_not_exclusive/);
      assert.ok(text.includes("Final answer one."));
      assert.ok(!text.includes("\n"), "one paragraph");
      const [pid, ...more] = await f.spawned();
      assert.deepEqual(more, [], "one helper per call");
      const reqs = await requestsOf(f, pid);
      assert.deepEqual(reqs.map((r) => [r.method, r.params]).slice(1), [
        ["thread/items/list", { threadId: t.id, sortDirection: "desc", limit: 100 }],
        ["thread/turns/list", {
          threadId: t.id,
          limit: 50,
          sortDirection: "desc",
          itemsView: "notLoaded",
        }],
        ["thread/items/list", {
          threadId: t.id,
          turnId: matched.id,
          sortDirection: "asc",
          limit: 100,
        }],
      ]);
      for (const r of reqs) {
        assert.ok(r.method === "initialize" || READ_METHODS.includes(r.method), r.method);
      }
    }, protocol);
  });
}

// ------------------------------------------------------------------ search

Deno.test("codex_read_reply: no_match carries a searchCursor whose continuation finds an older match", async () => {
  const old = turn([userItem("c-old", "USER-SECRET"), agentItem("msg_old", "Old answer.")]);
  const busy = turn([
    userItem("c-new"),
    ...Array.from({ length: 120 }, (_, i) => command(`call_${i}`, "COMMAND-SECRET")),
  ]);
  const t = thread({ turns: [old, busy] });
  await withRelay({ threads: [t] }, READ, async (client, f) => {
    const first = (await readReply_(client, { threadId: t.id, clientMessageId: "c-old" })).out;
    assert.equal(first.status, "no_match");
    assert.deepEqual(first.replies, []);
    assert.equal(first.turn, null);
    assert.equal(first.nextCursor, null);
    assert.equal(typeof first.searchCursor, "string");

    const m0 = await mark(f);
    const other = (await readReply_(client, {
      threadId: t.id,
      clientMessageId: "c-new",
      cursor: first.searchCursor,
    })).out;
    assert.equal(other.status, "unavailable", "a search cursor of another message");
    assert.equal(other.reason, "invalid_cursor");
    assert.deepEqual(await since(f, m0), [], "the cursor of another message sent nothing");

    const m1 = await mark(f);
    const { out, raw } = await readReply_(client, {
      threadId: t.id,
      clientMessageId: "c-old",
      cursor: first.searchCursor,
    });
    assert.equal(out.status, "observed");
    assert.deepEqual(out.turn, { id: old.id, status: "completed" });
    assert.deepEqual(out.replies, [{ itemId: "msg_old", text: "Old answer.", truncated: false }]);
    assert.equal(out.searchCursor, null);
    assert.equal(out.nextCursor, null);
    assert.ok(!raw.includes("COMMAND-SECRET") && !raw.includes("USER-SECRET"));

    const [search] = searches(await since(f, m1));
    assert.equal(typeof (search.params as { cursor?: unknown }).cursor, "string");

    const none = (await readReply_(client, { threadId: t.id, clientMessageId: "c-nowhere" })).out;
    assert.equal(none.status, "no_match");
    assert.equal(typeof none.searchCursor, "string");
    const last = (await readReply_(client, {
      threadId: t.id,
      clientMessageId: "c-nowhere",
      cursor: none.searchCursor,
    })).out;
    assert.equal(last.status, "no_match");
    assert.equal(last.searchCursor, null, "no older items");
  });
});

/** A thread whose user item `c-edge` is the `position`-th newest item (1-based). */
function searchEdge(position: number) {
  // Newest first: `position - 2` newer items, the matched turn's final answer, then its user item.
  const matched = turn([userItem("c-edge", "USER-SECRET"), agentItem("msg_edge", "Edge answer.")]);
  const newer = turn([
    userItem("c-newer"),
    ...Array.from({ length: position - 3 }, (_, i) => command(`call_${i}`, "COMMAND-SECRET")),
  ]);
  return { t: thread({ turns: [matched, newer] }), matched };
}

Deno.test("search page bound: a user item that is the 100th newest item is found by the first read", async () => {
  const { t, matched } = searchEdge(100);
  await withRelay({ threads: [t] }, READ, async (client) => {
    const { out } = await readReply_(client, { threadId: t.id, clientMessageId: "c-edge" });
    assert.equal(out.status, "observed");
    assert.deepEqual(out.turn, { id: matched.id, status: "completed" });
    assert.deepEqual(out.replies, [{ itemId: "msg_edge", text: "Edge answer.", truncated: false }]);
  });
});

Deno.test("search page bound: the 101st newest item is past the first page; its searchCursor finds it", async () => {
  const { t, matched } = searchEdge(101);
  await withRelay({ threads: [t] }, READ, async (client, f) => {
    const first = (await readReply_(client, { threadId: t.id, clientMessageId: "c-edge" })).out;
    assert.equal(first.status, "no_match");
    assert.equal(typeof first.searchCursor, "string");
    const [search] = searches(await f.requests());
    assert.equal((search.params as { limit?: unknown }).limit, 100, "one page of 100 items");
    const { out } = await readReply_(client, {
      threadId: t.id,
      clientMessageId: "c-edge",
      cursor: first.searchCursor,
    });
    assert.equal(out.status, "observed");
    assert.deepEqual(out.turn, { id: matched.id, status: "completed" });
    assert.deepEqual(out.replies, [{ itemId: "msg_edge", text: "Edge answer.", truncated: false }]);
    assert.equal(out.searchCursor, null);
  });
});

Deno.test("codex_read_reply: two user items with the same clientId are ambiguous and carry no text", async () => {
  const t = thread({
    turns: [
      turn([userItem("dup"), agentItem("msg_a", "ANSWER-A")]),
      turn([userItem("dup"), agentItem("msg_b", "ANSWER-B")]),
    ],
  });
  await withRelay({ threads: [t] }, READ, async (client, f) => {
    const { out, text, raw } = await readReply_(client, { threadId: t.id, clientMessageId: "dup" });
    assert.deepEqual(withoutNext(out), {
      status: "ambiguous",
      threadId: t.id,
      clientMessageId: "dup",
      turn: null,
      replies: [],
      nextCursor: null,
      searchCursor: null,
    });
    assert.ok(!raw.includes("ANSWER-A") && !raw.includes("ANSWER-B"));
    assert.match(text, /Ambiguous/);
    const reqs = await f.requests();
    assert.deepEqual(turnPages(reqs), [], "no turn was read");
    assert.equal(reqs.filter((r) => r.method === "thread/turns/list").length, 0);
  });
});

// ------------------------------------------------------------------ cursors

function pagedScenario() {
  const user = userItem("c1", "USER-SECRET");
  const other = userItem("c-other", "USER-SECRET other");
  const matched = turn([
    user,
    agentItem("msg_f1", "a".repeat(8000)),
    agentItem("msg_f2", "b".repeat(8000)),
    agentItem("msg_f3", "c".repeat(8000)),
    agentItem("msg_f4", "LAST"),
  ]);
  const otherTurn = turn([other, agentItem("msg_o", "OTHER-TURN-ANSWER")]);
  const t = thread({ turns: [otherTurn, matched] });
  return { scenario: { threads: [t] } as Scenario, t, matched, user, other, otherTurn };
}

Deno.test("codex_read_reply: a reply cursor re-reads the user item, then continues after the last item", async () => {
  const { scenario, t, matched, user } = pagedScenario();
  await withRelay(scenario, READ, async (client, f) => {
    const first = (await readReply_(client, { threadId: t.id, clientMessageId: "c1" })).out;
    assert.equal(first.status, "observed");
    const replies = first.replies as { itemId: string; text: string; truncated: boolean }[];
    assert.deepEqual(replies.map((r) => [r.itemId, r.text.length, r.truncated]), [
      ["msg_f1", 8000, false],
      ["msg_f2", 8000, false],
      ["msg_f3", 384, true],
    ], "16 KiB of reply text per result");
    assert.equal(typeof first.nextCursor, "string", "more replies although the turn completed");

    const m = await mark(f);
    const { out } = await readReply_(client, {
      threadId: t.id,
      clientMessageId: "c1",
      cursor: first.nextCursor,
    });
    assert.deepEqual(out.replies, [{ itemId: "msg_f4", text: "LAST", truncated: false }]);
    assert.deepEqual(out.turn, { id: matched.id, status: "completed" });
    assert.equal(out.nextCursor, null);

    const reqs = await since(f, m);
    assert.deepEqual(reqs.map((r) => r.method), [
      "thread/items/read",
      "thread/items/list",
      "thread/turns/list",
      "thread/items/list",
    ], "the continuation reads the user item first, then the search page for duplicates");
    assert.deepEqual(reqs[0].params, {
      threadId: t.id,
      turnId: matched.id,
      itemIds: [user.id],
    });
    assert.deepEqual(reqs[1].params, { threadId: t.id, sortDirection: "desc", limit: 100 });
    assert.deepEqual(reqs[3].params, {
      threadId: t.id,
      turnId: matched.id,
      sortDirection: "asc",
      limit: 100,
      cursor: { type: "item", itemId: "msg_f3" },
    });
  });
});

Deno.test("codex_read_reply: a tampered cursor or one of another scope is invalid_cursor, with no text", async () => {
  const { scenario, t, matched, user, other, otherTurn } = pagedScenario();
  const t2 = thread();
  scenario.threads.push(t2);
  await withRelay(scenario, READ, async (client, f) => {
    const first = (await readReply_(client, { threadId: t.id, clientMessageId: "c1" })).out;
    const cursor = first.nextCursor as string;
    const mid = Math.floor(cursor.length / 2);
    const flipped = cursor.slice(0, mid) + (cursor[mid] === "A" ? "B" : "A") +
      cursor.slice(mid + 1);
    const offline: Record<string, unknown>[] = [
      { threadId: t.id, clientMessageId: "c1", cursor: flipped },
      { threadId: t.id, clientMessageId: "c1", cursor: cursor + "A" },
      { threadId: t.id, clientMessageId: "c1", cursor: "not a cursor" },
      { threadId: t.id, clientMessageId: "c-other", cursor },
      { threadId: t2.id, clientMessageId: "c1", cursor },
    ];
    const sent = await mark(f);
    for (const args of offline) {
      const { out, raw } = await readReply_(client, args);
      assert.equal(out.status, "unavailable", JSON.stringify(args));
      assert.equal(out.reason, "invalid_cursor");
      assert.deepEqual(out.replies, []);
      assert.ok(!raw.includes("LAST") && !raw.includes("aaaa"));
    }
    assert.deepEqual(await since(f, sent), [], "a cursor that does not decode sends nothing");

    // Well-formed cursors of the right scope that do not name the caller's user message.
    const forge = (userItemId: string, turnId: string) =>
      encodeCursor({
        v: 1,
        kind: "reply",
        threadId: t.id,
        clientMessageId: "c1",
        userItemId,
        turnId,
        lastItemId: null,
      });
    const forged = [
      forge(other.id, matched.id), // an item of another turn
      forge(other.id, otherTurn.id), // another message's user item
      forge("msg_f1", matched.id), // not a user message
      forge(user.id, otherTurn.id), // the right item, the wrong turn
    ];
    const before = await mark(f);
    for (const c of forged) {
      const { out, raw } = await readReply_(client, {
        threadId: t.id,
        clientMessageId: "c1",
        cursor: c,
      });
      assert.equal(out.status, "unavailable");
      assert.equal(out.reason, "invalid_cursor");
      assert.ok(!raw.includes("OTHER-TURN-ANSWER") && !raw.includes("aaaa"));
    }
    assert.deepEqual(
      (await since(f, before)).map((r) => r.method),
      forged.map(() => "thread/items/read"),
      "each forged cursor: one item read, nothing more",
    );
  });
});

Deno.test("codex_read_reply: a cursor whose stored user item changed is invalid_cursor", async () => {
  const user = userItem("c1", "USER-SECRET");
  const running = turn([user, agentItem("msg_c", "COMMENTARY-SECRET", "commentary")], {
    status: "inProgress",
  });
  const t = thread({ turns: [running] });
  await withRelay({ threads: [t] }, READ, async (client, f) => {
    const first = (await readReply_(client, { threadId: t.id, clientMessageId: "c1" })).out;
    assert.equal(first.status, "observed");
    assert.deepEqual(first.turn, { id: running.id, status: "unverified" }, "running elsewhere");
    assert.deepEqual(first.replies, []);
    assert.equal(typeof first.nextCursor, "string", "the turn has not ended");

    user.clientId = "c-someone-else";
    running.items.push(agentItem("msg_f", "FINAL-NOT-YOURS"));
    await f.write({ threads: [t] });
    const m = await mark(f);
    const { out, raw } = await readReply_(client, {
      threadId: t.id,
      clientMessageId: "c1",
      cursor: first.nextCursor,
    });
    assert.equal(out.status, "unavailable");
    assert.equal(out.reason, "invalid_cursor");
    assert.ok(!raw.includes("FINAL-NOT-YOURS"));
    assert.deepEqual(turnPages(await since(f, m)), [], "no item of the turn was read");
  });
});

Deno.test("codex_read_reply: refresh rescans the matched turn and picks up an item finalized later", async () => {
  const draft = agentItem("msg_d", "draft", null);
  const running = turn([userItem("c1"), draft], { status: "inProgress" });
  const t = thread({ turns: [running] });
  await withRelay({ threads: [t] }, READ, async (client, f) => {
    const first = (await readReply_(client, { threadId: t.id, clientMessageId: "c1" })).out;
    assert.deepEqual(first.replies, []);
    const cursor = first.nextCursor as string;

    // The agent message is finalized in place and the turn completes.
    draft.phase = "final_answer";
    draft.text = "Done: the parser is fixed.";
    running.status = "completed";
    await f.write({ threads: [t] });

    const plain = (await readReply_(client, { threadId: t.id, clientMessageId: "c1", cursor })).out;
    assert.deepEqual(plain.replies, [], "a plain continuation starts after the consumed item");
    assert.deepEqual(plain.turn, { id: running.id, status: "completed" });

    const m = await mark(f);
    const refreshed = (await readReply_(client, {
      threadId: t.id,
      clientMessageId: "c1",
      cursor,
      refresh: true,
    })).out;
    assert.deepEqual(refreshed.replies, [
      { itemId: "msg_d", text: "Done: the parser is fixed.", truncated: false },
    ]);
    assert.equal(refreshed.nextCursor, null);

    const reqs = await since(f, m);
    assert.deepEqual(reqs.map((r) => r.method), [
      "thread/items/read",
      "thread/items/list",
      "thread/turns/list",
      "thread/items/list",
    ], "refresh still verifies the cursor first");
    assert.equal("cursor" in (reqs[3].params as object), false, "from the turn's start");
  });
});

Deno.test("codex_read_reply: a reply cursor gives no text once a second message with the same clientMessageId is in the thread (also with refresh)", async () => {
  const { scenario, t } = pagedScenario();
  await withRelay(scenario, READ, async (client, f) => {
    const first = (await readReply_(client, { threadId: t.id, clientMessageId: "c1" })).out;
    assert.equal(first.status, "observed");
    assert.equal(typeof first.nextCursor, "string");

    const again = turn([]);
    const { items: _, ...summary } = again;
    await f.updateTurn(t.id, summary);
    await f.addItem(t.id, again.id, userItem("c1", "USER-SECRET again"));
    await f.addItem(t.id, again.id, agentItem("msg_again", "SECOND-ANSWER"));

    const fresh = (await readReply_(client, { threadId: t.id, clientMessageId: "c1" })).out;
    assert.equal(fresh.status, "ambiguous");
    for (const refresh of [false, true]) {
      const { out, text } = await readReply_(client, {
        threadId: t.id,
        clientMessageId: "c1",
        cursor: first.nextCursor,
        refresh,
      });
      assert.equal(out.status, "ambiguous", `refresh ${refresh}: as a fresh read`);
      assert.deepEqual(out.replies, [], `refresh ${refresh}: no text`);
      assert.equal(out.nextCursor, null, `refresh ${refresh}: nothing to continue`);
      assert.ok(!text.includes("LAST") && !text.includes("SECOND-ANSWER"), text);
    }
  });
});

// ------------------------------------------------------------------ bounds

Deno.test("readReply(): the 20 s budget spans all RPCs of one call; the helper stays warm until shutdown", async () => {
  const { scenario, t } = observedScenario();
  scenario.faults = [
    { method: "thread/items/list", nth: 1, barrier: "first" },
    { method: "thread/turns/list", barrier: "second", action: { never: true } },
  ];
  const f = await FixtureHome.create(scenario);
  try {
    const clock = new ManualClock();
    const connection = new SpawnConnection({
      allowlist: allowedMethods({ replyRead: true, turnStart: false }),
      version: "0.0.0-test",
      env: f.env,
      clock,
      reap: { eofGraceMs: 300, termGraceMs: 300 },
    });
    const first = await f.barrier("first");
    const second = await f.barrier("second");
    const pending = connection.operation((s) =>
      readReply(s, { threadId: t.id, clientMessageId: "c1" })
    );
    await first.reached();
    clock.advance(11_000); // under the 12 s RPC timeout
    await first.release();
    await second.reached();
    await second.release(); // it never answers
    clock.advance(8_999);
    assert.equal(f.alive().length, 1, "the helper lives at 19.999 s");
    clock.advance(1);
    const out = await pending;
    assert.equal(out.status, "unavailable");
    assert.equal(out.reason, "timeout");
    assert.deepEqual(out.replies, []);
    assert.equal(f.alive().length, 1, "a spent budget is no hung helper: it stays warm");
    await connection.shutdown();
    assert.deepEqual(f.alive(), [], "shutdown reaped it");
    assert.equal((await f.spawned()).length, 1);
  } finally {
    await f.dispose();
  }
});

Deno.test("codex_read_reply reads a 1 MiB frame and reports a 1 MiB + 1 frame as output_limit", async () => {
  const { scenario, t } = observedScenario();
  scenario.faults = [
    { method: "thread/items/list", once: "at", action: { frameBytes: 1024 * 1024 } },
  ];
  await withRelay(scenario, READ, async (client, f) => {
    const ok = (await readReply_(client, { threadId: t.id, clientMessageId: "c1" })).out;
    assert.equal(ok.status, "observed");
    assert.equal((ok.replies as unknown[]).length, 2);

    scenario.faults = [{
      method: "thread/items/list",
      once: "past",
      action: { frameBytes: 1024 * 1024 + 1 },
    }];
    await f.write(scenario);
    const { out, raw } = await readReply_(client, { threadId: t.id, clientMessageId: "c1" });
    assert.equal(out.status, "unavailable");
    assert.equal(out.reason, "output_limit");
    assert.ok(!raw.includes("Final answer"));
  });
});

Deno.test("codex_read_reply tells a legacy-history thread from an unknown thread", async () => {
  const legacy = thread({
    historyMode: "legacy",
    turns: [turn([userItem("c1"), agentItem("msg_1", "LEGACY-ANSWER")])],
  });
  await withRelay({ threads: [legacy] }, READ, async (client, f) => {
    const a = (await readReply_(client, { threadId: legacy.id, clientMessageId: "c1" })).out;
    assert.equal(a.status, "unavailable");
    assert.equal(a.reason, "legacy_history");
    const b = await readReply_(client, { threadId: MISSING, clientMessageId: "c1" });
    assert.equal(b.out.status, "unavailable");
    assert.equal(b.out.reason, "thread_not_found");
    assert.match(b.text, /No Codex thread has this id/);
    assert.deepEqual((await since(f, 0)).map((r) => r.method), [
      "thread/items/list",
      "thread/turns/list",
      "thread/items/list",
      "thread/turns/list",
    ], "each read: one search page and the turn statuses");
  });
});

Deno.test("codex_read_reply and codex_wait_reply check their input at the bounds, spawning nothing for bad input", async () => {
  const t = thread({ turns: [turn([userItem("c1"), agentItem("msg_1", "Answer.")])] });
  await withRelay({ threads: [t] }, READ, async (client, f) => {
    const id200 = "x".repeat(200);
    assert.equal(
      (await readReply_(client, { threadId: t.id, clientMessageId: id200 })).out.status,
      "not_found",
    );
    const wait55 = (await waitReply(client, {
      threadId: t.id,
      clientMessageId: "c1",
      timeoutSeconds: 55,
    })).out;
    assert.equal(wait55.status, "observed");
    assert.equal(wait55.timedOut, false);
    const spawned = (await f.spawned()).length;
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ["codex_read_reply", { threadId: t.id, clientMessageId: id200 + "x" }, /200/],
      ["codex_read_reply", { threadId: t.id, clientMessageId: "" }, /clientMessageId/],
      ["codex_read_reply", { threadId: t.id, clientMessageId: "a\u0007b" }, /control/],
      ["codex_read_reply", { threadId: t.id, clientMessageId: "a\ud800" }, /control|invalid/],
      // A thread name is taken (issue 14); one with control characters is not.
      ["codex_read_reply", { threadId: "al\u0007pha", clientMessageId: "c1" }, /control/],
      ["codex_read_reply", { threadId: "x".repeat(257), clientMessageId: "c1" }, /256/],
      [
        "codex_read_reply",
        { threadId: t.id, clientMessageId: "c1", extra: 1 },
        /extra|Unrecognized/i,
      ],
      ["codex_read_reply", { threadId: t.id, clientMessageId: "c1", cursor: "" }, /cursor/],
      ["codex_wait_reply", { threadId: t.id, clientMessageId: "c1", timeoutSeconds: 0 }, /timeout/],
      [
        "codex_wait_reply",
        { threadId: t.id, clientMessageId: "c1", timeoutSeconds: 56 },
        /timeout/,
      ],
      [
        "codex_wait_reply",
        { threadId: t.id, clientMessageId: "c1", refresh: true },
        /refresh|Unrecognized/i,
      ],
    ];
    for (const [name, args, message] of bad) {
      const r = await client.callTool({ name, arguments: args });
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match((r.content as { text: string }[])[0].text, message);
    }
    assert.equal((await f.spawned()).length, spawned, "invalid input spawns nothing");
  });
});

// ------------------------------------------------------------------ wait

function runningScenario(faults: Scenario["faults"] = []) {
  const running = turn([
    userItem("c1", "USER-SECRET"),
    agentItem("msg_c", "COMMENTARY-SECRET", "commentary"),
  ], { status: "inProgress" });
  const t = thread({ turns: [running] });
  return { scenario: { threads: [t], faults } as Scenario, t, running };
}

for (const protocol of PROTOCOLS) {
  Deno.test(`[${protocol}] codex_wait_reply returns on the first read after the final answer is stored, with progress`, async () => {
    // Each read is: search page, turn statuses, turn page. Hold the search of read 2.
    const { scenario, t, running } = runningScenario([
      { method: "thread/items/list", nth: 3, barrier: "read2" },
    ]);
    await withRelay(scenario, READ, async (client, f) => {
      const read2 = await f.barrier("read2");
      const progress: { progress: number; message?: string }[] = [];
      const pending = callTool(client, "codex_wait_reply", {
        threadId: t.id,
        clientMessageId: "c1",
      }, { onprogress: (p) => void progress.push(p), timeout: 60_000 });
      await read2.reached();
      await f.addItem(t.id, running.id, agentItem("msg_final", "The answer is 42."));
      await read2.release();
      const result = await pending;
      const out = result.structuredContent;
      assert.equal(out.status, "observed");
      assert.deepEqual(out.replies, [
        { itemId: "msg_final", text: "The answer is 42.", truncated: false },
      ]);
      assert.equal(out.timedOut, false);
      assert.deepEqual(out.turn, { id: running.id, status: "unverified" });
      assert.equal(typeof out.nextCursor, "string", "the turn has not ended");
      assert.ok(!JSON.stringify(result).includes("SECRET"));

      const [pid, ...others] = await f.spawned();
      assert.deepEqual(others, [], "one helper for the whole wait");
      const reqs = await requestsOf(f, pid);
      assert.equal(searches(reqs).length, 2, "two reads: the one before and the one after");
      assert.equal(turnPages(reqs).length, 2);

      const ours = progress.filter((p) => p.message?.startsWith("Waiting"));
      assert.equal(ours.length, 1, "one progress notification between the two reads");
      assert.equal(ours[0].progress, 1);
      assert.match(ours[0].message!, /read 1, matched, turn unverified/);
    }, protocol);
  });

  Deno.test(`[${protocol}] cancelling codex_wait_reply gives back its slot at once; the server serves the next call`, async () => {
    // Three reads hold the other three operation slots, so the next call needs the cancelled one's.
    const { scenario, t } = runningScenario([
      { method: "thread/items/list", once: "w", barrier: "w" },
      { method: "thread/items/list", once: "h1", barrier: "h1" },
      { method: "thread/items/list", once: "h2", barrier: "h2" },
      { method: "thread/items/list", once: "h3", barrier: "h3" },
    ]);
    await withRelay(scenario, READ, async (client, f) => {
      const w = await f.barrier("w");
      const holds = await Promise.all(["h1", "h2", "h3"].map((n) => f.barrier(n)));
      const controller = new AbortController();
      const waiting = callTool(client, "codex_wait_reply", {
        threadId: t.id,
        clientMessageId: "c1",
      }, { signal: controller.signal, timeout: 60_000 }).then(() => "resolved", () => "rejected");
      await w.reached();
      const reads = [0, 1, 2].map(() =>
        readReply_(client, { threadId: t.id, clientMessageId: "c1" })
      );
      for (const h of holds) await h.reached();
      assert.equal(f.alive().length, 1, "four calls in flight on one warm helper");

      controller.abort(new Error("user cancel"));
      assert.equal(await waiting, "rejected");
      const next = (await readReply_(client, { threadId: t.id, clientMessageId: "c1" })).out;
      assert.equal(next.status, "observed", "the next call got the cancelled call's slot");

      for (const h of holds) await h.release();
      for (const r of await Promise.all(reads)) assert.equal(r.out.status, "observed");
      // The wait's one search (held at w), three reads and the next call: no read after the cancel.
      assert.equal(searches(await f.requests()).length, 5, "no read after the cancellation");
    }, protocol);
  });
}

Deno.test("codex_wait_reply stops when the matched turn ends without a final answer", async () => {
  const { scenario, t, running } = runningScenario([
    { method: "thread/items/list", nth: 3, barrier: "read2" },
  ]);
  await withRelay(scenario, READ, async (client, f) => {
    const read2 = await f.barrier("read2");
    const pending = waitReply(client, { threadId: t.id, clientMessageId: "c1" });
    await read2.reached();
    await f.updateTurn(t.id, {
      id: running.id,
      status: "failed",
      error: { message: "stream disconnected", codexErrorInfo: "other" },
      completedAt: 1796007000,
      durationMs: 5,
    });
    await read2.release();
    const { out } = await pending;
    assert.equal(out.status, "observed");
    assert.deepEqual(out.turn, { id: running.id, status: "failed" });
    assert.deepEqual(out.replies, []);
    assert.equal(out.timedOut, false);
    assert.equal(out.nextCursor, null);
    assert.equal(searches(await f.requests()).length, 2);
  });
});

Deno.test("codex_wait_reply times out with timedOut true and the last status", async () => {
  const { scenario, t, running } = runningScenario();
  await withRelay(scenario, READ, async (client, f) => {
    const started = performance.now();
    const { out, text } = await waitReply(client, {
      threadId: t.id,
      clientMessageId: "c1",
      timeoutSeconds: 1,
    });
    assert.ok(performance.now() - started >= 1000, "it waited the full second");
    assert.equal(out.status, "observed");
    assert.deepEqual(out.turn, { id: running.id, status: "unverified" });
    assert.deepEqual(out.replies, []);
    assert.equal(out.timedOut, true);
    assert.equal(typeof out.nextCursor, "string");
    assert.match(text, /timed out/);
    const [pid, ...others] = await f.spawned();
    assert.deepEqual(others, []);
    // The pacing of the reads (250 ms doubling, a last read at the deadline) is
    // clock-driven in tests/unit/reply_wait_test.ts; here: every read used that one helper.
    assert.ok(searches(await requestsOf(f, pid)).length >= 1);

    const none = (await waitReply(client, {
      threadId: t.id,
      clientMessageId: "c-nowhere",
      timeoutSeconds: 1,
    })).out;
    // Neither queued nor in the thread: nothing to wait for (issue 32).
    assert.equal(none.status, "not_found");
    assert.equal(none.timedOut, false);
  });
});

Deno.test("codex_wait_reply returns at once on ambiguous, unavailable and invalid cursors", async () => {
  const t = thread({
    turns: [turn([userItem("dup")], { status: "inProgress" }), turn([userItem("dup")])],
  });
  await withRelay({ threads: [t] }, READ, async (client, f) => {
    const amb = (await waitReply(client, { threadId: t.id, clientMessageId: "dup" })).out;
    assert.equal(amb.status, "ambiguous");
    assert.equal(amb.timedOut, false);
    const gone = (await waitReply(client, { threadId: MISSING, clientMessageId: "c1" })).out;
    assert.equal(gone.status, "unavailable");
    assert.equal(gone.reason, "thread_not_found");
    assert.equal(gone.timedOut, false);
    const bad = (await waitReply(client, {
      threadId: t.id,
      clientMessageId: "dup",
      cursor: "nope",
    })).out;
    assert.equal(bad.reason, "invalid_cursor");
    assert.equal(searches(await f.requests()).length, 2, "one read each");
  });
});
