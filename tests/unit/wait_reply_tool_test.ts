/** Protects: codex_wait_reply's input: the single form or a list of messages (never both), its bounds, repeats, until. */
import assert from "assert";
import { waitReplyInput } from "../../src/host/tools/wait_reply_tool.ts";

const T = "01a22a5c-6698-7df3-813e-7166a248c477";
const refs = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ threadId: T, clientMessageId: `m${i}` }));

/** The messages of a refused parse. */
function refused(args: unknown): string[] {
  const r = waitReplyInput.safeParse(args);
  assert.equal(r.success, false, `refused: ${JSON.stringify(args)}`);
  return r.error!.issues.map((i) => i.message);
}

Deno.test("messages: 1 and 16 are taken, 0 and 17 refused", () => {
  for (const n of [1, 16]) {
    const r = waitReplyInput.safeParse({ messages: refs(n) });
    assert.ok(r.success, `${n}: ${JSON.stringify(r.error?.issues)}`);
    assert.equal(r.data.messages!.length, n);
    assert.equal(r.data.until, undefined, "until is not filled in: the tool defaults it to any");
  }
  for (const n of [0, 17]) refused({ messages: refs(n) });
});

Deno.test("either form, never both, never neither; until goes with messages", () => {
  const one = { threadId: T, clientMessageId: "m0" };
  assert.ok(waitReplyInput.safeParse(one).success, "the single form is unchanged");
  assert.ok(waitReplyInput.safeParse({ ...one, cursor: "abc", timeoutSeconds: 5 }).success);
  assert.ok(waitReplyInput.safeParse({ messages: refs(2), until: "all" }).success);
  assert.match(refused({ ...one, messages: refs(1) }).join(" "), /not both/);
  assert.match(refused({ messages: refs(1), cursor: "abc" }).join(" "), /not both/);
  assert.match(refused({ messages: refs(1), threadId: T }).join(" "), /not both/);
  assert.match(refused({ threadId: T }).join(" "), /threadId and clientMessageId, or messages/);
  assert.match(refused({}).join(" "), /threadId and clientMessageId, or messages/);
  assert.match(refused({ ...one, until: "any" }).join(" "), /until goes with messages/);
  refused({ messages: refs(1), until: "some" });
});

Deno.test("messages: a repeated message is refused, naming it", () => {
  assert.match(refused({ messages: [...refs(3), refs(3)[1]] }).join(" "), /messages\[3\] repeats/);
});

Deno.test("messages: each item is checked as threadId and clientMessageId are", () => {
  assert.match(
    refused({ messages: [{ threadId: T, clientMessageId: "bad\u0007" }] }).join(" "),
    /control or invalid characters/,
  );
  refused({ messages: [{ threadId: "", clientMessageId: "m" }] });
  refused({ messages: [{ threadId: T, clientMessageId: "x".repeat(201) }] });
  refused({ messages: [{ threadId: T }] });
  refused({ messages: [{ threadId: T, clientMessageId: "m", extra: 1 }] });
});
