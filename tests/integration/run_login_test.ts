import assert from "assert";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { startRelay } from "../../testing/relay.ts";
import { callTool } from "../../testing/call_tool.ts";

// What Codex 0.169 and 0.171 answer to account/read with no auth.json and the OpenAI provider.
const NO_ACCOUNT = {
  account: null,
  userId: null,
  requiresOpenaiAuth: true,
  workspaceRouting: null,
};
const FLAGS = ["--allow-turn-start"];

type Structured = Record<string, unknown>;

async function runOnce(env: (f: FixtureHome) => Record<string, string>, account: Structured) {
  const t = thread({ scripts: [[{ end: "completed" }]] });
  const f = await FixtureHome.create({ threads: [t], account });
  const relay = await startRelay({ env: env(f), flags: FLAGS, protocol: "2026-07-28" });
  try {
    const started = performance.now();
    const result = await callTool(relay.client, "codex_run", {
      threadId: t.id,
      text: "hello",
      waitSeconds: 20,
    }, { timeout: 60_000 });
    const ms = performance.now() - started;
    const text = (result.content as { text: string }[])[0].text;
    const methods = (await f.requests()).map((r) => r.method);
    return { out: result.structuredContent, text, ms, methods };
  } finally {
    const { code } = await relay.close();
    assert.equal(code, 0);
    assert.deepEqual(f.alive(), [], "no helper is left");
    await f.dispose();
  }
}

Deno.test("codex_run without a login or key answers not_logged_in at once with the fix, and queues nothing", async () => {
  const { out, text, ms, methods } = await runOnce((f) => f.env, NO_ACCOUNT);
  assert.equal(out.reason, "not_logged_in", JSON.stringify(out));
  assert.equal(out.turn, null);
  const receipt = out.receipt;
  assert.equal(receipt.status, "not_sent");
  assert.equal(receipt.reason, "not_logged_in");
  assert.match(text, /^The turn did not start \(not_logged_in\): Codex is not logged in/);
  assert.match(text, /`codex login`/);
  assert.match(text, /OPENAI_API_KEY/);
  assert.match(text, /Nothing was stored/);
  // "At once": not after the 20 s wait the call allowed.
  assert.ok(ms < 10_000, `answered after ${Math.round(ms)} ms`);
  assert.ok(methods.includes("account/read"), methods.join(","));
  for (const m of ["thread/queue/add", "thread/resume", "thread/start", "thread/queue/start"]) {
    assert.ok(!methods.includes(m), `${m} was never sent`);
  }
});

Deno.test("codex_run with a key variable set (no login) or a provider that needs none runs the turn", async () => {
  const keyed = await runOnce((f) => ({ ...f.env, OPENAI_API_KEY: "sk-test" }), NO_ACCOUNT);
  assert.equal(keyed.out.turn?.status, "completed", keyed.text);
  const provider = await runOnce((f) => f.env, { ...NO_ACCOUNT, requiresOpenaiAuth: false });
  assert.equal(provider.out.turn?.status, "completed", provider.text);
});
