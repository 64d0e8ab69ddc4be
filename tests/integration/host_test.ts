import assert from "assert";
import { agentItem, FixtureHome, thread, turn, userItem } from "../../testing/fixture_home.ts";
import { closeAfter, PROTOCOLS, startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { callTool } from "../../testing/call_tool.ts";

const SECRET = "TOP-SECRET-USER-TEXT";

function seeded(): Scenario {
  return {
    threads: [
      thread({
        name: "alpha",
        updatedAt: 1796006990,
        turns: [turn([userItem("c1", SECRET), agentItem("m1", SECRET)])],
      }),
      thread({ name: "twin", updatedAt: 1796006980 }),
      thread({ name: "twin", updatedAt: 1796006970 }),
    ],
  };
}

async function withRelay(
  protocol: (typeof PROTOCOLS)[number],
  scenario: Scenario,
  flags: string[],
  fn: (client: Awaited<ReturnType<typeof startRelay>>["client"], f: FixtureHome) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create(scenario);
  const relay = await startRelay({ fixture: f, flags, protocol });
  const { code, left } = await closeAfter(relay, f, () => fn(relay.client, f));
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no helper is left in the process table");
}

for (const protocol of PROTOCOLS) {
  Deno.test(`[${protocol}] the default level lists exactly two tools and spawns nothing`, async () => {
    await withRelay(protocol, seeded(), [], async (client, f) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), [
        "codex_list_threads",
        "codex_queue_message",
      ]);
      for (const tool of tools) {
        assert.ok(tool.description && tool.description.length > 40);
        assert.ok(tool.outputSchema);
        assert.equal(typeof tool.annotations?.readOnlyHint, "boolean");
      }
      assert.deepEqual(await f.spawned(), [], "initialize and tools/list spawn no helper");
    });
  });

  Deno.test(`[${protocol}] codex_list_threads returns ids, names and statuses, no content`, async () => {
    const s = seeded();
    await withRelay(protocol, s, [], async (client, f) => {
      const result = await callTool(client, "codex_list_threads", { limit: 2 });
      const out = result.structuredContent;
      assert.equal(out.status, "ok");
      const threads = out.threads;
      assert.deepEqual(threads.map((t) => t.id), [s.threads[0].id, s.threads[1].id]);
      assert.deepEqual(Object.keys(threads[0]).sort(), ["id", "name", "status", "updatedAt"]);
      assert.equal(threads[0].updatedAt, new Date(1796006990 * 1000).toISOString());
      assert.equal(typeof out.nextCursor, "string");
      const text = JSON.stringify(result);
      assert.ok(
        !text.includes("secret preview") && !text.includes("/secret/workspace") &&
          !text.includes(SECRET),
      );
      const next = await callTool(client, "codex_list_threads", {
        limit: 2,
        cursor: out.nextCursor as string,
      });
      assert.deepEqual(
        next.structuredContent.threads.map((t) => t.id),
        [s.threads[2].id],
      );
      const methods = new Set((await f.requests()).map((r) => r.method));
      assert.deepEqual([...methods].sort(), ["initialize", "thread/list"]);
    });
  });

  Deno.test(`[${protocol}] codex_queue_message queues with a fresh clientMessageId`, async () => {
    const s = seeded();
    await withRelay(protocol, s, [], async (client, f) => {
      const text = "please refactor the parser";
      const result = await callTool(client, "codex_queue_message", {
        threadId: s.threads[0].id,
        text,
      });
      const r = result.structuredContent;
      assert.equal(r.status, "queued");
      assert.equal(r.threadId, s.threads[0].id);
      assert.match(String(r.clientMessageId), /^[0-9a-f-]{36}$/);
      assert.equal(typeof r.queuedSubmissionId, "string");
      assert.equal(r.confirmedBy, "acknowledgement");
      const reqs = await f.requests();
      const adds = reqs.filter((q) => q.method === "thread/queue/add");
      assert.equal(adds.length, 1);
      assert.deepEqual(adds[0].params, {
        threadId: s.threads[0].id,
        clientUserMessageId: r.clientMessageId,
        input: [{ type: "text", text, text_elements: [] }],
      });
      for (const q of reqs.filter((q) => q.method !== "thread/queue/add")) {
        assert.ok(
          !JSON.stringify(q.params ?? {}).includes(text),
          "the text travels only in queue/add",
        );
      }
      const shown = (result.content as { text: string }[])[0].text;
      assert.match(shown, /stored, not processed/);
    });
  });
}

Deno.test("codex_queue_message resolves an exact name matching one thread", async () => {
  const s = seeded();
  await withRelay("2026-07-28", s, [], async (client, f) => {
    const r = (await callTool(client, "codex_queue_message", { threadId: "alpha", text: "hi" }))
      .structuredContent;
    assert.equal(r.status, "queued");
    assert.equal(r.threadId, s.threads[0].id);
    assert.equal((await f.spawned()).length, 1, "lookup and queue share one helper");
  });
});

Deno.test("codex_queue_message refuses a name matching zero or two threads, sending nothing", async () => {
  await withRelay("2026-07-28", seeded(), [], async (client, f) => {
    const none = (await callTool(client, "codex_queue_message", { threadId: "alph", text: "hi" }))
      .structuredContent;
    assert.equal(none.status, "not_sent");
    assert.equal(none.reason, "thread_not_found");
    const two = (await callTool(client, "codex_queue_message", { threadId: "twin", text: "hi" }))
      .structuredContent;
    assert.equal(two.status, "not_sent");
    assert.equal(two.reason, "ambiguous_name");
    assert.equal((await f.requests()).filter((q) => q.method === "thread/queue/add").length, 0);
  });
});

Deno.test("codex_queue_message accepts 16 KiB of text and refuses 16 KiB + 1 byte, sending nothing", async () => {
  const s = seeded();
  await withRelay("2026-07-28", s, [], async (client, f) => {
    const atLimit = "é".repeat(8191) + "ab"; // 16382 + 2 = 16384 bytes
    const ok =
      (await callTool(client, "codex_queue_message", { threadId: s.threads[0].id, text: atLimit }))
        .structuredContent;
    assert.equal(ok.status, "queued");
    const over = await callTool(client, "codex_queue_message", {
      threadId: s.threads[0].id,
      text: atLimit + "c",
    });
    assert.equal(over.isError, true);
    assert.match((over.content as { text: string }[])[0].text, /16385 bytes.*limit is 16384/);
    assert.equal((await f.requests()).filter((q) => q.method === "thread/queue/add").length, 1);
  });
});

Deno.test("codex_queue_message rejects NUL, empty text, unknown fields and bad ids before sending", async () => {
  const s = seeded();
  await withRelay("2026-07-28", s, [], async (client, f) => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ threadId: s.threads[0].id, text: "a\0b" }, /NUL/],
      [{ threadId: s.threads[0].id, text: "" }, /empty/],
      [{ threadId: s.threads[0].id, text: "x", extra: 1 }, /extra|Unrecognized/i],
      [{ threadId: "", text: "x" }, /threadId/],
      [{ threadId: s.threads[0].id, text: "\ud800" }, /surrogate/],
      [{ threadId: s.threads[0].id }, /text/],
    ];
    for (const [args, message] of cases) {
      const r = await callTool(client, "codex_queue_message", args);
      assert.equal(r.isError, true, JSON.stringify(args));
      assert.match((r.content as { text: string }[])[0].text, message);
    }
    assert.deepEqual(await f.spawned(), [], "invalid input spawns nothing");
  });
});

Deno.test("codex_queue_message: an explicit rejection is not_sent", async () => {
  await withRelay("2026-07-28", seeded(), [], async (client) => {
    const r = (await callTool(client, "codex_queue_message", {
      threadId: "01a00000-0000-7000-8000-000000000000",
      text: "hi",
    })).structuredContent;
    assert.equal(r.status, "not_sent");
    assert.equal(r.reason, "thread_not_found");
  });
});

Deno.test("codex_queue_message: a lost acknowledgement is upgraded to queued when the queue lists it", async () => {
  const s = seeded();
  s.faults = [{ method: "thread/queue/add", action: { loseAnswer: 0 } }];
  await withRelay("2026-07-28", s, [], async (client, f) => {
    const r =
      (await callTool(client, "codex_queue_message", { threadId: s.threads[0].id, text: "hi" }))
        .structuredContent;
    assert.equal(r.status, "queued");
    assert.equal(r.confirmedBy, "queue_list");
    const reqs = await f.requests();
    assert.equal(reqs.filter((q) => q.method === "thread/queue/add").length, 1, "never replayed");
    assert.equal(reqs.filter((q) => q.method === "thread/queue/list").length, 1);
    assert.equal((await f.spawned()).length, 2);
  });
});

Deno.test("codex_queue_message: a lost acknowledgement stays unknown when the check fails", async () => {
  const s = seeded();
  s.faults = [
    { method: "thread/queue/add", action: { loseAnswer: 0 } },
    { method: "thread/queue/list", action: { error: { code: -32603, message: "boom" } } },
  ];
  await withRelay("2026-07-28", s, [], async (client, f) => {
    const r =
      (await callTool(client, "codex_queue_message", { threadId: s.threads[0].id, text: "hi" }))
        .structuredContent;
    assert.equal(r.status, "unknown");
    assert.equal(r.reason, "protocol_error");
    assert.equal((await f.requests()).filter((q) => q.method === "thread/queue/add").length, 1);
  });
});

Deno.test("codex_queue_message: a frame read but never acted on stays unknown (not found in the queue)", async () => {
  const s = seeded();
  s.faults = [{ method: "thread/queue/add", action: { exit: 0 } }];
  await withRelay("2026-07-28", s, [], async (client, f) => {
    const r =
      (await callTool(client, "codex_queue_message", { threadId: s.threads[0].id, text: "hi" }))
        .structuredContent;
    assert.equal(r.status, "unknown");
    assert.equal((await f.requests()).filter((q) => q.method === "thread/queue/list").length, 1);
  });
});

Deno.test("codex_queue_message: a malformed acknowledgement is unknown, then confirmed", async () => {
  const s = seeded();
  s.faults = [{
    method: "thread/queue/add",
    action: { result: { queuedSubmission: { nope: true } } },
  }];
  await withRelay("2026-07-28", s, [], async (client) => {
    const r =
      (await callTool(client, "codex_queue_message", { threadId: s.threads[0].id, text: "hi" }))
        .structuredContent;
    // The fixture did store it before answering badly: the queue check finds it.
    assert.equal(r.status, "queued");
    assert.equal(r.confirmedBy, "queue_list");
  });
});

Deno.test("the relay exits 0 with no child left when stdin closes during an operation", async () => {
  const s = seeded();
  s.faults = [{ method: "thread/list", barrier: "hold" }];
  const f = await FixtureHome.create(s);
  try {
    const hold = await f.barrier("hold");
    const relay = await startRelay({ fixture: f, protocol: "2026-07-28" });
    const pending = callTool(relay.client, "codex_list_threads", {}).catch((
      e,
    ) => e);
    await hold.reached();
    assert.equal(f.alive().length, 1, "one helper is alive mid-operation");
    const { code } = await relay.close();
    assert.equal(code, 0);
    await pending;
    assert.deepEqual(f.alive(), []);
  } finally {
    await f.dispose();
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`the relay exits 0 with no child left on ${signal} during an operation`, async () => {
    const s = seeded();
    s.faults = [{ method: "thread/list", barrier: "hold" }];
    const f = await FixtureHome.create(s);
    const relay = await startRelay({ fixture: f, protocol: "2026-07-28" });
    try {
      const hold = await f.barrier("hold");
      const pending = callTool(relay.client, "codex_list_threads", {}).catch((
        e,
      ) => e);
      await hold.reached();
      Deno.kill(relay.transport.pid!, signal);
      const status = await relay.transport.exited;
      assert.equal(status.code, 0);
      assert.equal(status.signal, null);
      await pending;
      assert.deepEqual(f.alive(), []);
    } finally {
      await relay.close();
      await f.dispose();
    }
  });
}

Deno.test("the relay logs to stderr without message text, even at debug level", async () => {
  const s = seeded();
  const f = await FixtureHome.create(s);
  const relay = await startRelay({
    fixture: f,
    protocol: "2026-07-28",
    flags: ["--log-level", "debug"],
  });
  const marker = "UNIQUE-MARKER-7f3a9c";
  const { code, stderr } = await closeAfter(relay, f, async () => {
    const r = await callTool(relay.client, "codex_queue_message", {
      threadId: s.threads[0].id,
      text: `do the thing ${marker}`,
    });
    assert.equal(r.structuredContent.status, "queued");
  });
  assert.equal(code, 0);
  assert.match(stderr, /codex-relay debug spawn pid=\d+/);
  assert.match(stderr, /codex-relay debug rpc method="thread\/queue\/add"/);
  assert.ok(!stderr.includes(marker), "message text never reaches the log");
});

Deno.test("codex_list_threads reports a thread in systemError instead of failing the page", async () => {
  const s = seeded();
  s.threads[1].status = "systemError";
  await withRelay("2026-07-28", s, [], async (client) => {
    const out = (await callTool(client, "codex_list_threads", {}))
      .structuredContent;
    assert.equal(out.status, "ok");
    assert.deepEqual(out.threads.map((t) => t.status), [
      "notLoaded",
      "systemError",
      "notLoaded",
    ]);
  });
});
