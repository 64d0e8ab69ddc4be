/**
 * Faults at the app-server method each of issue 42's tools sends (`account/rateLimits/read` of
 * codex_usage, `thread/fork` of codex_fork, `thread/compact/start` of codex_compact): an error
 * answer, an exit before acting and an answer lost after acting each give a clear status and
 * reason, leave no process, and the server serves on.
 */

import assert from "assert";
import { callTool } from "../../testing/call_tool.ts";
import { FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, startRelay } from "../../testing/relay.ts";
import type { FaultAction } from "../../fixtures/scenario.ts";

const FLAGS = ["--allow-turn-start", "--allow-reply-read"];

const FAULTS: { id: string; action: FaultAction; reason: string }[] = [
  {
    id: "rpc_32603",
    action: { error: { code: -32603, message: "Internal error" } },
    reason: "rpc_error",
  },
  {
    id: "rpc_32001",
    action: { error: { code: -32001, message: "Server overloaded" } },
    reason: "busy",
  },
  { id: "exit_before_acting", action: { exit: 1 }, reason: "protocol_error" },
  { id: "lost_answer", action: { loseAnswer: 0 }, reason: "protocol_error" },
];

type Seen = { status: string; reason?: string };

const TOOLS: { tool: "codex_usage" | "codex_fork" | "codex_compact"; method: string }[] = [
  { tool: "codex_usage", method: "account/rateLimits/read" },
  { tool: "codex_fork", method: "thread/fork" },
  { tool: "codex_compact", method: "thread/compact/start" },
];

for (const { tool, method } of TOOLS) {
  Deno.test(`${tool}: every fault at ${method} gives a clear status and reason, leaves no process, and the server serves on`, async () => {
    const t = thread();
    const f = await FixtureHome.create({ threads: [t] });
    const relay = await startRelay({ fixture: f, flags: FLAGS, protocol: "2026-07-28" });
    const seen: Record<string, Seen> = {};
    const { code, left } = await closeAfter(relay, f, async () => {
      for (const fault of FAULTS) {
        await f.write({ threads: [t], faults: [{ method, once: fault.id, action: fault.action }] });
        const r = await callTool(relay.client, tool, { threadId: t.id }, { timeout: 60_000 });
        assert.notEqual(r.isError, true, `${fault.id}: a result, not an error`);
        const out = r.structuredContent as Record<string, unknown>;
        const status = tool === "codex_compact"
          ? String((out.receipt as { status: string }).status)
          : String(out.status);
        seen[fault.id] = { status, reason: out.reason as string | undefined };
        if (tool === "codex_fork" && fault.reason === "protocol_error") {
          assert.match(String(out.message), /may have been made/, "a fork Codex may have made");
        }
        const listed = (await callTool(relay.client, "codex_list_threads", {})).structuredContent;
        assert.equal(listed.status, "ok", `${fault.id}: the server serves on`);
      }
    });
    assert.equal(code, 0, "the relay exits 0 on stdin EOF");
    assert.deepEqual(left, [], "no process is left");
    const failed = tool === "codex_usage"
      ? "unavailable"
      : tool === "codex_fork"
      ? "not_forked"
      : "";
    for (const fault of FAULTS) {
      const expected = tool === "codex_compact"
        // Written and never answered: whether Codex started the compaction is unknown.
        ? {
          status: fault.reason === "protocol_error" ? "unknown" : "not_sent",
          reason: fault.reason,
        }
        : { status: failed, reason: fault.reason };
      assert.deepEqual(seen[fault.id], expected, `${tool} ${fault.id}`);
    }
  });
}
