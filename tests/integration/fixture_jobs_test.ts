/**
 * The fixture app-server plays Codex's own jobs as transcripts 21-24 captured them (0.169 and
 * 0.171): `review/start` (items, the inner turn R' stored `interrupted`, errors, a running turn
 * interrupted, the release's interrupt rule), `turn/steer` (its errors, the steered item),
 * `turn/start` (new turn when idle, an unannounced steer when busy, `outputSchema`) and
 * `model/list`. Driven over stdio as the relay drives it.
 * @module
 */

import assert from "assert";
import { agentItem, FixtureHome } from "../../testing/fixture_home.ts";
import type { Scenario } from "../../fixtures/scenario.ts";

type Obj = Record<string, unknown>;
type Frame = { id?: number; method?: string; params?: Obj; result?: Obj; error?: Obj };

/** A JSON-RPC client of one fixture `codex app-server`. */
class Rpc {
  readonly frames: Frame[] = [];
  #next = 1;
  #closed = false;
  #waiters: (() => void)[] = [];
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reading: Promise<void>;

  constructor(env: Record<string, string>) {
    this.#child = new Deno.Command("codex", {
      args: ["app-server"],
      env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reading = this.#read();
  }

  async #read(): Promise<void> {
    let buffer = "";
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf("\n")) !== -1) {
        this.frames.push(JSON.parse(buffer.slice(0, nl)));
        buffer = buffer.slice(nl + 1);
      }
      for (const wake of this.#waiters.splice(0)) wake();
    }
    this.#closed = true;
    for (const wake of this.#waiters.splice(0)) wake();
  }

  async #write(message: Obj): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  /** Waits until a frame satisfies `match` (from the `from`th frame on); returns it. */
  async until(match: (f: Frame) => boolean, from = 0): Promise<Frame> {
    while (true) {
      const found = this.frames.slice(from).find(match);
      if (found) return found;
      if (this.#closed) throw new Error("the fixture app-server closed its stdout");
      await new Promise<void>((wake) => this.#waiters.push(wake));
    }
  }

  /** Sends a request; resolves with its answer frame. */
  async call(method: string, params?: Obj): Promise<Frame> {
    const id = this.#next++;
    await this.#write({ id, method, params });
    return await this.until((f) => f.id === id && f.method === undefined);
  }

  async start(): Promise<void> {
    await this.call("initialize", {
      clientInfo: { name: "t", version: "0" },
      capabilities: { experimentalApi: true },
    });
    await this.#write({ method: "initialized" });
  }

  async close(): Promise<void> {
    await this.#writer.close();
    await this.#reading;
    await this.#child.status;
  }
}

const input = (text: string) => [{ type: "text", text, text_elements: [] }];
const completed = (turnId: string) => (f: Frame) =>
  f.method === "turn/completed" && (f.params?.turn as Obj).id === turnId;
const errorOf = (f: Frame) => f.error?.message;

/** Runs `fn` with a fixture playing `scenario` and one client on it, with a new loaded thread. */
async function withRpc(
  scenario: Partial<Scenario>,
  fn: (rpc: Rpc, threadId: string, f: FixtureHome) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create({ threads: [], ...scenario });
  const rpc = new Rpc(f.env);
  try {
    await rpc.start();
    const started = await rpc.call("thread/start", { cwd: "/workspace" });
    await fn(rpc, ((started.result!.thread) as Obj).id as string, f);
  } finally {
    await rpc.close();
    await f.dispose();
  }
}

Deno.test("fixture review/start: R's items, R' inside it, R' stored interrupted (transcript 21)", async () => {
  await withRpc({}, async (rpc, threadId) => {
    const answer = await rpc.call("review/start", {
      threadId,
      target: { type: "uncommittedChanges" },
    });
    const turn = answer.result!.turn as Obj;
    const r = turn.id as string;
    assert.equal(answer.result!.reviewThreadId, threadId);
    assert.equal(turn.rootTurnId, null);
    assert.equal(turn.status, "inProgress");
    assert.deepEqual(turn.items, [{
      type: "userMessage",
      id: r,
      clientId: null,
      content: input("current changes"),
    }]);
    const end = await rpc.until(completed(r));
    assert.equal((end.params!.turn as Obj).status, "completed");
    const inner = await rpc.until((f) => f.method === "turn/started");
    const innerTurn = inner.params!.turn as Obj;
    assert.equal(innerTurn.rootTurnId, r);
    // Every item is told under R, the reviewer's prompt included.
    const told = rpc.frames.filter((f) => f.method === "item/completed").map((f) => [
      (f.params!.item as Obj).type,
      f.params!.turnId,
    ]);
    assert.deepEqual(told, [
      ["enteredReviewMode", r],
      ["userMessage", r],
      ["exitedReviewMode", r],
      ["agentMessage", r],
    ]);
    const listed = await rpc.call("thread/turns/list", { threadId, itemsView: "full" });
    const turns = (listed.result!.data as Obj[]).map((t) => ({
      id: t.id,
      rootTurnId: t.rootTurnId,
      status: t.status,
      completedAt: t.completedAt === null ? null : "set",
      items: (t.items as Obj[]).map((i) => [i.type, i.phase ?? null]),
    }));
    assert.deepEqual(turns, [
      {
        id: r,
        rootTurnId: r,
        status: "completed",
        completedAt: "set",
        items: [["enteredReviewMode", null], ["exitedReviewMode", null], ["agentMessage", null]],
      },
      {
        id: innerTurn.id,
        rootTurnId: r,
        status: "interrupted",
        completedAt: null,
        items: [["userMessage", null]],
      },
    ]);
    const items = await rpc.call("thread/items/list", { threadId, turnId: r });
    const texts = (items.result!.data as Obj[]).map((e) => e.item as Obj);
    assert.match(String(texts[1].review), /^Mock review: one blocking issue\.\n\nReview comment:/);
    assert.equal(texts[2].text, texts[1].review);
  });
});

Deno.test("fixture review/start: the captured errors", async () => {
  await withRpc({}, async (rpc, threadId) => {
    const cases: [Obj, string][] = [
      [
        { target: { type: "uncommittedChanges" }, delivery: "detached" },
        "Invalid request: unknown variant `detached`, expected `inline`",
      ],
      [
        { target: { type: "bogus" } },
        "Invalid request: unknown variant `bogus`, expected one of `uncommittedChanges`, `baseBranch`, `commit`, `custom`",
      ],
      [{ target: { type: "commit" } }, "Invalid request: missing field `sha`"],
      [{ target: { type: "custom", instructions: "  " } }, "instructions must not be empty"],
      [{ target: { type: "baseBranch", branch: "" } }, "branch must not be empty"],
    ];
    for (const [params, message] of cases) {
      assert.equal(errorOf(await rpc.call("review/start", { threadId, ...params })), message);
    }
    const unknown = "019a0000-0000-7000-8000-000000000000";
    assert.equal(
      errorOf(
        await rpc.call("review/start", {
          threadId: unknown,
          target: { type: "uncommittedChanges" },
        }),
      ),
      `thread not found: ${unknown}`,
    );
  });
});

Deno.test("fixture review/start on a busy thread interrupts its turn; a review cannot be steered", async () => {
  const f = await FixtureHome.create({ threads: [], newThreadScripts: [[{ barrier: "busy" }]] });
  await f.barrier("busy"); // Never released: the review's start interrupts that turn.
  const review = await f.barrier("review");
  await f.write({
    threads: [],
    newThreadScripts: [[{ barrier: "busy" }]],
    newThreadReviewScripts: [{ steps: [{ barrier: "review" }] }],
  });
  const rpc = new Rpc(f.env);
  try {
    await rpc.start();
    const threadId = ((await rpc.call("thread/start", { cwd: "/w" })).result!.thread as Obj)
      .id as string;
    const busy = await rpc.call("turn/start", {
      threadId,
      clientUserMessageId: "cum-rev-overlap",
      input: input("busy turn"),
    });
    const busyId = (busy.result!.turn as Obj).id as string;
    const started = await rpc.call("review/start", {
      threadId,
      target: { type: "uncommittedChanges" },
    });
    const r = (started.result!.turn as Obj).id as string;
    const ended = await rpc.until(completed(busyId));
    assert.equal((ended.params!.turn as Obj).status, "interrupted");
    await review.reached();
    const wrong = await rpc.call("turn/steer", {
      threadId,
      expectedTurnId: busyId,
      input: input("s"),
    });
    assert.equal(errorOf(wrong), `expected active turn id \`${busyId}\` but found \`${r}\``);
    const steer = await rpc.call("turn/steer", { threadId, expectedTurnId: r, input: input("s") });
    assert.deepEqual(steer.error, {
      code: -32600,
      data: {
        message: "cannot steer a review turn",
        codexErrorInfo: { activeTurnNotSteerable: { turnKind: "review" } },
        additionalDetails: null,
        misalignment: null,
      },
      message: "cannot steer a review turn",
    });
    await review.release();
    assert.equal(((await rpc.until(completed(r))).params!.turn as Obj).status, "completed");
  } finally {
    await rpc.close();
    await f.dispose();
  }
});

for (const version of ["0.169.0", "0.171.0"]) {
  Deno.test(`fixture ${version}: interrupting a review takes ${version === "0.169.0" ? "R'" : "R"} only`, async () => {
    const f = await FixtureHome.create({ threads: [] });
    const review = await f.barrier("review");
    await f.write({
      threads: [],
      startup: { version },
      newThreadReviewScripts: [{ steps: [{ barrier: "review" }] }],
    });
    const rpc = new Rpc(f.env);
    try {
      await rpc.start();
      const threadId = ((await rpc.call("thread/start", { cwd: "/w" })).result!.thread as Obj)
        .id as string;
      const started = await rpc.call("review/start", {
        threadId,
        target: { type: "custom", instructions: "slow review" },
      });
      const r = (started.result!.turn as Obj).id as string;
      await review.reached();
      const inner = ((await rpc.until((x) => x.method === "turn/started")).params!.turn as Obj)
        .id as string;
      const [refused, taken] = version === "0.169.0" ? [r, inner] : [inner, r];
      const no = await rpc.call("turn/interrupt", { threadId, turnId: refused });
      assert.equal(
        errorOf(no),
        version === "0.169.0"
          ? `expected active turn id ${r} but found ${inner}`
          : "no active turn to interrupt",
      );
      assert.deepEqual((await rpc.call("turn/interrupt", { threadId, turnId: taken })).result, {});
      const end = await rpc.until(completed(r));
      assert.equal((end.params!.turn as Obj).status, "interrupted");
      const items = await rpc.call("thread/items/list", { threadId, turnId: r });
      assert.deepEqual(
        (items.result!.data as Obj[]).map((e) => {
          const item = e.item as Obj;
          return item.review ?? item.text;
        }).slice(1),
        [
          "Reviewer failed to output a response.",
          "Review was interrupted. Please re-run /review and wait for it to complete.",
        ],
      );
    } finally {
      await rpc.close();
      await f.dispose();
    }
  });
}

Deno.test("fixture turn/steer: the steered input joins the running turn; the captured errors", async () => {
  const f = await FixtureHome.create({ threads: [] });
  const slow = await f.barrier("slow");
  await f.write({
    threads: [],
    newThreadScripts: [[{ barrier: "slow" }, { item: agentItem("msg_1_final", "Echo") }]],
  });
  const rpc = new Rpc(f.env);
  try {
    await rpc.start();
    const threadId = ((await rpc.call("thread/start", { cwd: "/w" })).result!.thread as Obj)
      .id as string;
    const noTurn = await rpc.call("turn/steer", {
      threadId,
      expectedTurnId: "x",
      input: input("x"),
    });
    assert.equal(errorOf(noTurn), "no active turn to steer");
    const base = await rpc.call("turn/start", {
      threadId,
      clientUserMessageId: "cum-steer-base",
      input: input("long task"),
    });
    const turnId = (base.result!.turn as Obj).id as string;
    await slow.reached();
    const steered = await rpc.call("turn/steer", {
      threadId,
      expectedTurnId: turnId,
      clientUserMessageId: "cum-steer-1",
      input: input("steer: also mention bananas"),
    });
    assert.deepEqual(steered.result, { turnId });
    const other = "019a0000-0000-7000-8000-000000000000";
    const errors: [Obj, string][] = [
      [
        { threadId, expectedTurnId: other, input: input("x") },
        `expected active turn id \`${other}\` but found \`${turnId}\``,
      ],
      [{ threadId, input: input("x") }, "Invalid request: missing field `expectedTurnId`"],
      [{ threadId, expectedTurnId: turnId, input: [] }, "input must not be empty"],
      [
        { threadId: other, expectedTurnId: turnId, input: input("x") },
        `thread not found: ${other}`,
      ],
    ];
    for (const [params, message] of errors) {
      assert.equal(errorOf(await rpc.call("turn/steer", params)), message);
    }
    // turn/start on the busy thread: the same turn answers, the input joins it.
    const again = await rpc.call("turn/start", {
      threadId,
      clientUserMessageId: "cum-steer-via-start",
      input: input("turn/start during active turn"),
    });
    assert.equal((again.result!.turn as Obj).id, turnId);
    await slow.release();
    await rpc.until(completed(turnId));
    const items = await rpc.call("thread/items/list", { threadId });
    assert.deepEqual(
      (items.result!.data as Obj[]).map((e) => [e.turnId, (e.item as Obj).clientId ?? null]),
      [
        [turnId, "cum-steer-base"],
        [turnId, "cum-steer-1"],
        [turnId, "cum-steer-via-start"],
        [turnId, null],
      ],
    );
  } finally {
    await rpc.close();
    await f.dispose();
  }
});

Deno.test("fixture turn/start: outputSchema arrives as sent; an idle thread gets a new turn", async () => {
  await withRpc({}, async (rpc, threadId, f) => {
    const schema = { type: "object", properties: {}, required: [], additionalProperties: false };
    const first = await rpc.call("turn/start", {
      threadId,
      clientUserMessageId: "cum-os-1",
      input: input("give me a verdict"),
      outputSchema: schema,
    });
    const turn = first.result!.turn as Obj;
    assert.equal(turn.status, "inProgress");
    assert.equal(turn.rootTurnId, turn.id);
    await rpc.until(completed(turn.id as string));
    const sent = (await f.requests()).find((r) => r.method === "turn/start");
    assert.deepEqual((sent?.params as Obj).outputSchema, schema);
  });
});

for (
  const [version, count, first] of [["0.169.0", 9, "gpt-6.1-sol"], [
    "0.171.0",
    11,
    "gpt-6.2-sol",
  ]] as const
) {
  Deno.test(`fixture ${version} model/list: the captured catalogue, paged`, async () => {
    await withRpc({ startup: { version } }, async (rpc) => {
      const all = await rpc.call("model/list", {});
      const data = all.result!.data as Obj[];
      assert.equal(data.length, count);
      assert.equal(data[0].model, first);
      assert.equal(all.result!.nextCursor, null);
      const page = await rpc.call("model/list", { includeHidden: true, limit: 5 });
      assert.equal((page.result!.data as Obj[]).length, 5);
      assert.equal(page.result!.nextCursor, "5");
      const rest = await rpc.call("model/list", { cursor: "5" });
      assert.equal((rest.result!.data as Obj[]).length, count - 5);
    });
  });
}
