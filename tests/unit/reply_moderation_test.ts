import assert from "assert";
import type { ItemEntry, RawItem } from "../../src/codex/types.ts";
import {
  buildReadResult,
  moderationVerdict,
  projectReplies,
  REPLY_BUDGET_BYTES,
} from "../../src/reply/mod.ts";
import { readReplySchema, runOutput } from "../../src/reply/schemas.ts";
import { MODERATION_SHAPES } from "../../fixtures/moderation.ts";

const TURN = "01a22a5b-b41a-7e51-8a8b-b71346ecbe4b";
const SECRET = "the moderated answer text";

function final(id: string, text: string, moderation: unknown): ItemEntry {
  return {
    turnId: TURN,
    item: {
      type: "agentMessage",
      id,
      text,
      phase: "final_answer",
      moderation,
      memoryCitation: null,
      delivery: null,
      questions: null,
    } as unknown as RawItem,
  };
}

for (const [name, shape] of Object.entries(MODERATION_SHAPES)) {
  Deno.test(`projector, moderation ${name}: ${shape.disclose ? "the text" : "no text"}`, () => {
    const page = projectReplies([final("msg_m", SECRET, shape.moderation)], TURN);
    assert.equal(page.replies.length, 1, "the answer is still reported");
    if (shape.disclose) {
      assert.deepEqual(page.replies, [{ itemId: "msg_m", text: SECRET, truncated: false }]);
      return;
    }
    assert.deepEqual(page.replies, [{ itemId: "msg_m", moderated: true, ...shape.withheld }]);
    assert.equal(page.budgetLeft, REPLY_BUDGET_BYTES, "a withheld answer spends no budget");
    const result = buildReadResult({
      threadId: "t",
      clientMessageId: "c",
      match: { kind: "observed", turnId: TURN, itemId: "u" },
      turnStatus: "completed",
      replies: page.replies,
    });
    assert.ok(!JSON.stringify(result).includes(SECRET), "the result carries no text of it");
    assert.ok(readReplySchema.safeParse(result).success, "the read result schema accepts it");
  });
}

Deno.test("projector: a withheld answer between two shown ones keeps their order and text", () => {
  const hide = MODERATION_SHAPES["0.171 hide"].moderation;
  const page = projectReplies([
    final("msg_1", "first", null),
    final("msg_2", SECRET, hide),
    final("msg_3", "third", null),
  ], TURN);
  assert.deepEqual(page.replies, [
    { itemId: "msg_1", text: "first", truncated: false },
    { itemId: "msg_2", moderated: true, replacement: "wellbeingPromptHelpline" },
    { itemId: "msg_3", text: "third", truncated: false },
  ]);
  assert.equal(page.lastConsumedItemId, "msg_3");
});

Deno.test("moderationVerdict: every shape's verdict, with what Codex shows instead of a withheld text", () => {
  for (const [name, shape] of Object.entries(MODERATION_SHAPES)) {
    assert.deepEqual(
      moderationVerdict(shape.moderation),
      shape.disclose ? { disclose: true } : { disclose: false, ...shape.withheld },
      name,
    );
  }
});

/** Moderation values off the schema, and what the projector makes of each answer. */
const UNUSUAL: [string, unknown, { disclose: true } | { disclose: false }][] = [
  ["not moderated, no display", { moderated: false }, { disclose: true }],
  ["hide without a replacement", {
    moderated: true,
    display: { mode: "hide", version: 1 },
  }, { disclose: false }],
  ["hide with a null replacement", {
    moderated: true,
    display: { mode: "hide", version: 1, replacement: null },
  }, { disclose: false }],
  ["block without a reason", {
    moderated: true,
    display: { mode: "block", version: 1 },
  }, { disclose: false }],
  ["block with a null reason", {
    moderated: true,
    display: { mode: "block", version: 1, reason: null },
  }, { disclose: false }],
  ["an array", [{ moderated: false }], { disclose: false }],
  ["a string", "show", { disclose: false }],
  ["false", false, { disclose: false }],
  ["an array display", { moderated: true, display: [{ mode: "show", version: 1 }] }, {
    disclose: false,
  }],
  ["a string display", { moderated: false, display: "show" }, { disclose: false }],
  ["a mode in an array", { moderated: true, display: { mode: ["show"], version: 1 } }, {
    disclose: false,
  }],
  ["no mode", { moderated: false, display: { version: 1 } }, { disclose: false }],
  ["an Object.prototype name as mode", {
    moderated: true,
    display: { mode: "constructor", version: 1, replacement: { kind: "x" } },
  }, { disclose: false }],
  ["a string version", { moderated: true, display: { mode: "show", version: "1" } }, {
    disclose: false,
  }],
  ["no version", { moderated: true, display: { mode: "show" } }, { disclose: false }],
];

for (const [name, moderation, verdict] of UNUSUAL) {
  Deno.test(`moderationVerdict, ${name}: ${verdict.disclose ? "the text" : "no text"}`, () => {
    assert.deepEqual(moderationVerdict(moderation), verdict);
    const page = projectReplies([final("msg_m", SECRET, moderation)], TURN);
    assert.deepEqual(
      page.replies,
      [
        verdict.disclose
          ? { itemId: "msg_m", text: SECRET, truncated: false }
          : { itemId: "msg_m", moderated: true },
      ],
    );
  });
}

Deno.test("moderationVerdict: a replacement or reason kind that is not a short identifier is dropped", () => {
  for (
    // true and ["cyber"] would pass the pattern as strings ("true", "cyber"): not strings, dropped.
    const kind of ["", "has spaces and text a model wrote", "x".repeat(65), 7, null, true, [
      "cyber",
    ]]
  ) {
    assert.deepEqual(
      moderationVerdict({
        moderated: true,
        display: { mode: "hide", version: 1, replacement: { kind } },
      }),
      { disclose: false },
    );
    assert.deepEqual(
      moderationVerdict({
        moderated: true,
        display: { mode: "block", version: 1, reason: { kind } },
      }),
      { disclose: false },
    );
  }
  assert.deepEqual(
    moderationVerdict({
      moderated: true,
      display: { mode: "hide", version: 1, replacement: { kind: "x".repeat(64) } },
    }),
    { disclose: false, replacement: "x".repeat(64) },
    "64 characters is the longest kind kept",
  );
});

Deno.test("result schemas: a moderated reply cannot carry text", () => {
  const observed = {
    status: "observed",
    threadId: "t",
    clientMessageId: "c",
    association: "same_turn_not_exclusive",
    turn: { id: "u", status: "completed" },
    nextCursor: null,
    searchCursor: null,
  };
  const withText = { itemId: "m", moderated: true, text: SECRET, truncated: false };
  assert.equal(readReplySchema.safeParse({ ...observed, replies: [withText] }).success, false);
  assert.equal(
    readReplySchema.safeParse({ ...observed, replies: [{ itemId: "m", moderated: true }] })
      .success,
    true,
  );
  const run = {
    receipt: {
      status: "queued",
      clientMessageId: "c",
      threadId: "t",
      queuedSubmissionId: "q",
    },
    threadId: "t",
    turn: { id: "u", status: "completed" },
  };
  assert.equal(runOutput.safeParse({ ...run, replies: [withText] }).success, false);
  assert.equal(
    runOutput.safeParse({
      ...run,
      replies: [{ itemId: "m", moderated: true, blockReason: "cyber" }],
    })
      .success,
    true,
  );
});
