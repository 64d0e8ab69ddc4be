/**
 * Protects: `--compat codex-mcp-server`'s `codex` and `codex-reply` as a client of the old server
 * sees them (issue 50): their entries exactly the old ones, a call a run followed to its end with
 * the old result `{threadId, content}`, every refusal an `isError` result with nothing sent.
 */
import assert from "assert";
import { codexReplyTool, codexTool, compatResult } from "../../src/host/tools/compat_tools.ts";
import type { CallContext } from "../../src/host/tool.ts";
import { explainRun } from "../../src/host/tools/run_tool.ts";
import type { RunResult } from "../../src/reply/schemas.ts";
import type { StartResult } from "../../src/turn/turn_start.ts";
import { silentLogger } from "../../src/core/log.ts";
import { OLD_TOOLS } from "../../testing/compat_old_tools.ts";
import { agentItem, commandApproval, FixtureHome } from "../../testing/fixture_home.ts";
import type { TurnStep } from "../../fixtures/scenario.ts";
import { rigCallContext, turnRig } from "../../testing/turn_rig.ts";

const THREAD = "01a22a5b-0000-7000-8000-0000000000c1";
const PNG = "data:image/png;base64,iVBORw0KGgo=";

type Out = Record<string, unknown>;

/** What the client receives for `out` (the tool's exact result). */
function seen(tool: typeof codexTool | typeof codexReplyTool, out: unknown): Out {
  return tool.exact!.result(out as never);
}

Deno.test("compat: tools/list shows the old server's two entries, each description the old one first", () => {
  for (const tool of [codexTool, codexReplyTool]) {
    const old = OLD_TOOLS[tool.name as keyof typeof OLD_TOOLS];
    const { description, ...rest } = old;
    assert.deepEqual({
      name: tool.name,
      title: tool.title,
      inputSchema: tool.exact!.inputSchema,
      outputSchema: tool.exact!.outputSchema,
    }, rest);
    assert.ok(String(tool.description).startsWith(`${description} (codex-relay: `), tool.name);
  }
  assert.equal(
    String(codexTool.description).slice(OLD_TOOLS.codex.description.length),
    " (codex-relay: sandbox and approval-policy only tighten the user's config; on-failure runs as on-request; config takes only model, model_reasoning_effort, sandbox_mode, approval_policy, compact_prompt; profile is refused; cwd must be absolute; optional images: [{path} | {dataUrl}].)",
  );
  assert.equal(
    String(codexReplyTool.description).slice(OLD_TOOLS["codex-reply"].description.length),
    " (codex-relay: the threadId codex returned; optional images: [{path} | {dataUrl}].)",
  );
});

Deno.test("compat: the two tools exist only with turn start and --compat codex-mcp-server", () => {
  for (const tool of [codexTool, codexReplyTool]) {
    assert.equal(
      tool.enabled({ replyRead: true, turnStart: true, compat: "codex-mcp-server" }),
      true,
    );
    assert.equal(
      tool.enabled({ replyRead: true, turnStart: false, compat: "codex-mcp-server" }),
      false,
    );
    assert.equal(tool.enabled({ replyRead: true, turnStart: true }), false);
  }
});

Deno.test("compat: the inputs take the old fields only, within their bounds", () => {
  const ok = (tool: typeof codexTool | typeof codexReplyTool, args: unknown) =>
    tool.inputSchema.safeParse(args).success;
  for (const policy of ["untrusted", "on-failure", "on-request", "never"]) {
    assert.ok(ok(codexTool, { prompt: "go", "approval-policy": policy }), policy);
  }
  assert.ok(!ok(codexTool, { prompt: "go", "approval-policy": "always" }));
  assert.ok(!ok(codexTool, { prompt: "go", approvalPolicy: "never" }), "unknown fields refused");
  assert.ok(!ok(codexReplyTool, { prompt: "go", cwd: "/w" }), "unknown fields refused");
  for (const ref of [{ threadId: THREAD }, { conversationId: THREAD }]) {
    assert.ok(ok(codexReplyTool, { prompt: "go", ...ref, images: [{ path: "/a.png" }] }));
  }
  for (const field of ["base-instructions", "developer-instructions", "compact-prompt"]) {
    assert.ok(ok(codexTool, { prompt: "go", [field]: "x".repeat(64 * 1024) }), field);
    const over = codexTool.inputSchema.safeParse({ prompt: "go", [field]: "x".repeat(65537) });
    assert.equal(
      over.error?.issues[0].message,
      `${field} is 65537 bytes of UTF-8; the limit is 65536`,
    );
  }
  assert.ok(ok(codexTool, { prompt: "go", cwd: "/" + "d".repeat(4095) }));
  assert.ok(!ok(codexTool, { prompt: "go", cwd: "/" + "d".repeat(4096) }));
  assert.ok(!ok(codexTool, { prompt: "go", images: [{ dataUrl: "https://e.com/a.png" }] }));
  assert.ok(!ok(codexReplyTool, { prompt: "go", images: [{ path: "a.png" }] }));
  for (const tool of [codexTool, codexReplyTool]) {
    // The server checks a result against it before the client sees it.
    assert.ok(tool.outputSchema.safeParse({ threadId: "t", content: "" }).success);
    assert.ok(!tool.outputSchema.safeParse({ threadId: "t" }).success, "content is required");
    assert.ok(!tool.outputSchema.safeParse({ content: "" }).success, "threadId is required");
  }
});

/** A call context whose starts record their arguments and start no turn (`start`'s result). */
function fakeCtx(start: Partial<StartResult> = {}) {
  const calls: unknown[][] = [];
  const signal = new AbortController().signal;
  const result: StartResult = {
    receipt: { status: "not_sent", clientMessageId: "m1", threadId: "" },
    reason: "thread_not_found",
    message: "No such thread",
    ...start,
  };
  const record = (kind: string) => (...args: unknown[]) => {
    calls.push([kind, ...args]);
    return Promise.resolve(result);
  };
  const ctx = {
    signal,
    log: silentLogger,
    mcp: { mcpReq: { requestState: () => undefined, inputResponses: undefined, signal } },
    starts: { inCwd: record("inCwd"), inThread: record("inThread") },
  } as unknown as CallContext;
  return { ctx, calls, signal };
}

Deno.test("compat: codex refuses a missing, relative or NUL cwd, saying what it got; nothing is started", async () => {
  const cases: [string | undefined, string][] = [
    [undefined, "(got none)"],
    ["work/repo", '(got "work/repo")'],
    ["C:work", '(got "C:work")'],
    ["x/C:/work", '(got "x/C:/work")'],
    ["1:/work", '(got "1:/work")'],
    ["/work\0/repo", '(got "/work\\u0000/repo")'],
    ["r".repeat(300), `(got "${"r".repeat(200)}")`],
  ];
  for (const [cwd, got] of cases) {
    const { ctx, calls } = fakeCtx();
    const out = seen(codexTool, await codexTool.run({ prompt: "go", cwd }, ctx));
    const text = (out.content as { text: string }[])[0].text;
    assert.equal(out.isError, true, String(cwd));
    assert.ok(text.startsWith(`cwd must be an absolute path ${got}: `), text);
    assert.match(text, /give the project's absolute path\. Nothing was sent to Codex\.$/);
    assert.deepEqual(out.structuredContent, { threadId: "", content: text });
    assert.deepEqual(calls, []);
  }
});

Deno.test("compat: codex refuses what compat_args refuses, as an isError result; nothing is started", async () => {
  const { ctx, calls } = fakeCtx();
  const out = seen(codexTool, await codexTool.run({ prompt: "go", cwd: "/w", profile: "x" }, ctx));
  assert.equal(out.isError, true);
  assert.match((out.content as { text: string }[])[0].text, /^profile is refused/);
  assert.deepEqual((out.structuredContent as Out).threadId, "");
  assert.deepEqual(calls, []);
});

Deno.test("compat: codex starts a run in its absolute cwd with the mapped options and the images", async () => {
  for (const cwd of ["/work/repo", "C:\\work", "c:/work"]) {
    const { ctx, calls, signal } = fakeCtx();
    const out = await codexTool.run({
      prompt: "describe",
      cwd,
      model: "gpt-5.2",
      sandbox: "read-only",
      "approval-policy": "on-failure",
      "base-instructions": "Base.",
      images: [{ path: "/work/shot.png" }, { dataUrl: PNG }],
    }, ctx);
    assert.deepEqual(calls, [["inCwd", cwd, "describe", signal, {
      model: "gpt-5.2",
      sandbox: "read-only",
      approvalPolicy: "on-request",
      baseInstructions: "Base.",
      images: [{ type: "localImage", path: "/work/shot.png" }, { type: "image", url: PNG }],
    }]]);
    assert.deepEqual(seen(codexTool, out), {
      content: [{
        type: "text",
        text:
          "The turn did not start (thread_not_found): No such thread. Nothing was sent to Codex.",
      }],
      structuredContent: {
        threadId: "",
        content:
          "The turn did not start (thread_not_found): No such thread. Nothing was sent to Codex.",
      },
      isError: true,
    });
  }
});

Deno.test("compat: codex-reply needs a thread, one thread, and runs the prompt in it", async () => {
  const none = fakeCtx();
  const out = seen(codexReplyTool, await codexReplyTool.run({ prompt: "go" }, none.ctx));
  assert.deepEqual(out.structuredContent, {
    threadId: "",
    content: "either threadId or conversationId must be provided",
  });
  assert.equal(out.isError, true);
  const two = fakeCtx();
  const both = seen(
    codexReplyTool,
    await codexReplyTool.run({ prompt: "go", threadId: THREAD, conversationId: "other" }, two.ctx),
  );
  assert.deepEqual(both.structuredContent, {
    threadId: THREAD,
    content:
      "threadId and conversationId name different threads: give threadId only. Nothing was sent to Codex.",
  });
  assert.equal(both.isError, true);
  assert.deepEqual([...none.calls, ...two.calls], []);
  const missing = fakeCtx();
  const gone = seen(
    codexReplyTool,
    await codexReplyTool.run({ prompt: "go", conversationId: "no-such-thread" }, missing.ctx),
  );
  assert.deepEqual(gone.structuredContent, {
    threadId: "no-such-thread",
    content:
      "The turn did not start (thread_not_found): No such thread. Nothing was sent to Codex.",
  });
  for (
    const args of [
      { threadId: THREAD },
      { conversationId: THREAD },
      { threadId: THREAD, conversationId: THREAD },
    ]
  ) {
    const { ctx, calls, signal } = fakeCtx({
      receipt: { status: "queued", clientMessageId: "m1", threadId: THREAD },
      reason: "turn_running",
    });
    const out = seen(
      codexReplyTool,
      await codexReplyTool.run({ prompt: "more", ...args, images: [{ path: "/a.png" }] }, ctx),
    );
    assert.deepEqual(calls, [["inThread", THREAD, "more", signal, {
      images: [{ type: "localImage", path: "/a.png" }],
    }]]);
    assert.deepEqual(out.structuredContent, {
      threadId: THREAD,
      content:
        "The turn did not start (turn_running): codex-relay still runs an earlier call's turn on this thread: call codex-reply again once that call returned. The prompt may be stored in the thread: check before sending it again.",
    });
  }
});

/** A run's result with `over`. */
function run(over: Partial<RunResult>): RunResult {
  return {
    receipt: { status: "queued", clientMessageId: "m1", threadId: THREAD },
    threadId: THREAD,
    turn: { id: "t1", status: "completed" },
    ...over,
  } as RunResult;
}

Deno.test("compat: a completed turn's result is its final answers, the notes in a text block of their own", () => {
  const out = compatResult(
    run({
      replies: [
        { itemId: "a", text: "First.", truncated: false },
        { itemId: "b", text: "Cut", truncated: true },
        { itemId: "c", moderated: true, blockReason: "cyber" },
      ],
      notes: ["the run's note"],
    }),
    ["a mapped field's note"],
  );
  const content =
    "First.\n\nCut […truncated]\n\n(withheld: Codex moderated this answer, blocked (cyber); its text is not returned)";
  assert.deepEqual(seen(codexTool, out), {
    content: [
      { type: "text", text: content },
      { type: "text", text: "codex-relay: a mapped field's note" },
      { type: "text", text: "codex-relay: the run's note" },
    ],
    structuredContent: { threadId: THREAD, content },
  });
  assert.deepEqual(compatResult(run({}), []), { threadId: THREAD, content: "" });
  assert.deepEqual(compatResult(run({ replies: [] }), []), { threadId: THREAD, content: "" });
});

Deno.test("compat: a turn that did not complete is isError with its reason and how to go on", () => {
  const failed = compatResult(
    run({ turn: { id: "t1", status: "failed" }, error: "The model broke." }),
    ["a note"],
  );
  assert.equal(failed.isError, true);
  assert.equal(failed.notes, undefined, "notes go only with a final answer");
  const failedRun = run({ turn: { id: "t1", status: "failed" }, error: "The model broke." });
  assert.equal(
    failed.content,
    `${explainRun(failedRun).said} To go on, call codex-reply with threadId ${THREAD}.`,
  );
  assert.match(failed.content, /The model broke/);
  assert.ok(failed.content.endsWith(` To go on, call codex-reply with threadId ${THREAD}.`));
  const broken = compatResult(
    run({ failureClass: "capacity", error: "Limit.", replies: [] }),
    [],
  );
  assert.equal(broken.isError, true, "a completed turn with a failure is an error");
  assert.match(broken.content, /Failure class capacity/);
  const returned = compatResult(
    run({ turn: { id: "t1", status: "running" }, reason: "cancelled", message: "Stopped." }),
    [],
  );
  assert.ok(
    returned.content.endsWith(
      ` The call returned before the turn ended (cancelled). To go on, call codex-reply with threadId ${THREAD}.`,
    ),
    returned.content,
  );
  const shutting = compatResult(run({ turn: { id: "t1", status: "running" }, threadId: "" }), []);
  assert.ok(
    shutting.content.endsWith(
      " The call returned before the turn ended (cancelled, or codex-relay is shutting down).",
    ),
    shutting.content,
  );
  assert.equal(shutting.isError, true);
  const silent = compatResult(
    run({
      turn: null,
      reason: "thread_not_found",
      receipt: { status: "not_sent", clientMessageId: "m", threadId: "" },
    }),
    [],
  );
  assert.deepEqual(silent, {
    threadId: THREAD,
    content: "The turn did not start (thread_not_found): . Nothing was sent to Codex.",
    isError: true,
  });
});

/** A call context on the fixture's turn machinery (as `serve` wires it), new threads playing `script`. */
async function withFixtureCtx(
  script: TurnStep[],
  fn: (ctx: CallContext) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create({
    threads: [],
    newThreadScripts: [script, script],
    config: { approval_policy: "on-request" },
  });
  const rig = turnRig(f, { caps: { replyRead: true, turnStart: true } });
  const caps = { replyRead: true, turnStart: true, compat: "codex-mcp-server" } as const;
  const ctx = rigCallContext(rig, caps, { clientModes: { form: true, url: false } });
  let left: number[] = [];
  try {
    await fn(ctx);
  } finally {
    await rig.turns.shutdown();
    await rig.connection.shutdown();
    left = f.alive();
    await f.dispose();
  }
  assert.deepEqual(left, [], "no helper is left");
}

Deno.test("compat: codex runs to the answer with its mapped fields' notes; codex-reply adds none", async () => {
  const script = [{ item: agentItem("m", "Ok.") }, { end: "completed" as const }];
  await withFixtureCtx(script, async (ctx) => {
    const first = seen(
      codexTool,
      await codexTool.run(
        { prompt: "go", cwd: "/tmp/scratch", "approval-policy": "on-failure" },
        ctx,
      ),
    );
    const threadId = (first.structuredContent as Out).threadId as string;
    assert.deepEqual(first.structuredContent, { threadId, content: "Ok." });
    assert.deepEqual((first.content as { text: string }[]).map((c) => c.text), [
      "Ok.",
      "codex-relay: approval-policy on-failure ran as on-request: today's Codex no longer has on-failure, and on-request asks at least as often",
    ]);
    assert.equal(first.isError, undefined);
    const again = seen(codexReplyTool, await codexReplyTool.run({ prompt: "more", threadId }, ctx));
    assert.deepEqual(again, {
      content: [{ type: "text", text: "Ok." }],
      structuredContent: { threadId, content: "Ok." },
    });
  });
});

Deno.test("compat: Codex's approval request goes to the client as an input round naming the command", async () => {
  const script = [commandApproval(), { item: agentItem("m", "Done.") }, {
    end: "completed" as const,
  }];
  await withFixtureCtx(script, async (ctx) => {
    const out = await codexTool.run({ prompt: "go", cwd: "/tmp/scratch" }, ctx);
    assert.ok("inputRequired" in out, JSON.stringify(out));
    const round = out.inputRequired as { inputRequests: Record<string, unknown> };
    assert.equal(Object.keys(round.inputRequests).length, 1);
    assert.equal(JSON.stringify(round.inputRequests).includes("touch x"), true);
  });
});
