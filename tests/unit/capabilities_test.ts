import assert from "assert";
import { type Capabilities, capabilitiesOf, capabilityArgs } from "../../src/core/capabilities.ts";
import { allowedMethods, type Method } from "../../src/codex/methods.ts";
import { toolNames } from "../../src/host/tools/all_tools.ts";
import { servedTools } from "../../src/host/tools/served_tools.ts";
import { SpawnConnection } from "../../src/connect/spawn/spawn_connection.ts";
import { RelayError } from "../../src/core/errors.ts";

// docs/design.md, "Capability levels": the app-server methods each level allows,
// exactly as its table lists them. The default level can only add to a queue:
// `thread/queue/delete` (codex_withdraw_message) is turn-start, with
// `account/read` (codex_run refuses at once without a login or key). The turn
// level also holds `config/read` (the recursion guard and the tightening check
// read the thread's configuration before a turn starts), `thread/name/set`
// (codex_run's `name`) and `fs/getMetadata` (codex_run refuses a cwd that does
// not exist; the relay has no read permission).
const QUEUE: Method[] = ["thread/list", "thread/queue/add", "thread/queue/list"];
const READ: Method[] = ["thread/items/list", "thread/items/read", "thread/turns/list"];
const TURN: Method[] = [
  "thread/start",
  "thread/resume",
  "thread/queue/start",
  "turn/interrupt",
  "thread/unsubscribe",
  "config/read",
  "thread/read",
  "thread/name/set",
  "fs/getMetadata",
  "thread/queue/delete",
  "account/read",
  // codex_run with outputSchema (turn/start on an idle thread), codex_steer, codex_review, and
  // the model and effort check (issue 30).
  "turn/start",
  "turn/steer",
  "review/start",
  "model/list",
  // codex_usage (issue 42).
  "account/rateLimits/read",
  "account/usage/read",
  // codex_fork and codex_compact (issue 42).
  "thread/fork",
  "thread/compact/start",
];

const LEVELS: { name: string; caps: Capabilities; methods: string[]; tools: string[] }[] = [
  {
    name: "queue (default)",
    caps: { replyRead: false, turnStart: false },
    methods: QUEUE,
    tools: ["codex_list_threads", "codex_queue_message"],
  },
  {
    name: "--allow-reply-read",
    caps: { replyRead: true, turnStart: false },
    methods: [...QUEUE, ...READ],
    tools: [
      "codex_list_threads",
      "codex_queue_message",
      "codex_read_reply",
      "codex_wait_reply",
    ],
  },
  {
    // The levels stack: an agent that starts turns reads their answers (issue 38, item 6).
    name: "--allow-turn-start",
    caps: capabilitiesOf({ allowReplyRead: false, allowTurnStart: true }),
    methods: [...QUEUE, ...READ, ...TURN],
    tools: [
      "codex_list_threads",
      "codex_queue_message",
      "codex_read_reply",
      "codex_wait_reply",
      "codex_run",
      "codex_review",
      "codex_steer",
      "codex_interrupt",
      "codex_withdraw_message",
      "codex_usage",
      "codex_fork",
      "codex_compact",
    ],
  },
  {
    name: "--allow-reply-read --allow-turn-start",
    caps: capabilitiesOf({ allowReplyRead: true, allowTurnStart: true }),
    methods: [...QUEUE, ...READ, ...TURN],
    tools: [
      "codex_list_threads",
      "codex_queue_message",
      "codex_read_reply",
      "codex_wait_reply",
      "codex_run",
      "codex_review",
      "codex_steer",
      "codex_interrupt",
      "codex_withdraw_message",
      "codex_usage",
      "codex_fork",
      "codex_compact",
    ],
  },
];

for (const level of LEVELS) {
  Deno.test(`capabilities at ${level.name}: exactly the design's methods and tools`, async () => {
    assert.deepEqual([...allowedMethods(level.caps)].sort(), [...level.methods].sort());
    assert.deepEqual(toolNames(level.caps), level.tools);
    // What a relay serves (the default level's two tools come without the others' modules).
    const served = (await servedTools(level.caps)).filter((t) => t.enabled(level.caps));
    assert.deepEqual(served.map((t) => t.name), level.tools);
  });
}

Deno.test("capabilities: methods no level names (thread/archive, initialize, ...) are never allowed", () => {
  for (const level of LEVELS) {
    const allowed: ReadonlySet<string> = allowedMethods(level.caps);
    for (const m of ["thread/archive", "thread/rollback", "thread/goal/set", "initialize", ""]) {
      assert.equal(allowed.has(m), false, `${m} at ${level.name}`);
    }
  }
});

Deno.test("a queue-level connection refuses every read and turn method before any helper starts", async () => {
  const connection = new SpawnConnection({
    allowlist: allowedMethods({ replyRead: false, turnStart: false }),
    version: "0.0.0-test",
    // Nothing may be spawned: a command that cannot exist proves it.
    command: "/nonexistent/codex-relay-test/codex",
    env: {},
  });
  for (const method of [...READ, ...TURN]) {
    const error = await connection.operation((s) => s.call(method, {})).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(error instanceof RelayError, `${method} is refused`);
    assert.equal(error.reason, "not_allowed", method);
    assert.equal(error.written, false, method);
    assert.equal(error.message, `${method} is not allowed at this capability level`);
  }
  assert.equal(connection.stats.spawned, 0, "no helper was spawned");
  // Every method the queue level does allow gets past the allowlist (and then fails to spawn).
  for (const method of QUEUE) {
    const error = await connection.operation((s) => s.call(method, {})).catch((e: RelayError) => e);
    assert.ok(error instanceof RelayError, method);
    assert.equal(error.reason, "codex_missing", method);
  }
});

Deno.test("capabilityArgs() gives the serve flags of each level, and nothing at the default level", () => {
  assert.deepEqual(capabilityArgs({ replyRead: false, turnStart: false }), []);
  assert.deepEqual(capabilityArgs({ replyRead: true, turnStart: false }), ["--allow-reply-read"]);
  assert.deepEqual(capabilityArgs({ replyRead: false, turnStart: true }), ["--allow-turn-start"]);
  assert.deepEqual(capabilityArgs({ replyRead: true, turnStart: true }), [
    "--allow-reply-read",
    "--allow-turn-start",
  ]);
});
