/**
 * `serve --compat codex-mcp-server` on the fixture app-server: the old
 * server's two tools exactly, a client calling them as the old plugins did.
 */
import assert from "assert";
import type { ElicitParams } from "../../testing/mcp_client.ts";
import { agentItem, commandApproval, FixtureHome, thread } from "../../testing/fixture_home.ts";
import { closeAfter, PROTOCOLS, startRelay } from "../../testing/relay.ts";
import type { Scenario } from "../../fixtures/scenario.ts";
import { callTool } from "../../testing/call_tool.ts";
import { within } from "../../testing/deadline.ts";
import { OLD_TOOLS as OLD } from "../../testing/compat_old_tools.ts";

const COMPAT = ["--allow-turn-start", "--compat", "codex-mcp-server"];

type Client = Awaited<ReturnType<typeof startRelay>>["client"];

async function withCompat(
  s: Scenario,
  options: { protocol?: (typeof PROTOCOLS)[number]; onElicit?: (p: ElicitParams) => unknown },
  fn: (client: Client, f: FixtureHome) => Promise<void>,
): Promise<void> {
  const f = await FixtureHome.create(s);
  const relay = await startRelay({
    fixture: f,
    flags: COMPAT,
    protocol: options.protocol ?? "2025-11-25",
    // deno-lint-ignore no-explicit-any
    onElicit: options.onElicit as any,
  });
  const { code, left } = await closeAfter(relay, f, () => fn(relay.client, f));
  assert.equal(code, 0, "the relay exits 0 on stdin EOF");
  assert.deepEqual(left, [], "no helper is left in the process table");
}

const turn = (id: string, text: string) => [{ item: agentItem(id, text) }, {
  end: "completed" as const,
}];

for (const protocol of PROTOCOLS) {
  Deno.test(`[${protocol}] --compat codex-mcp-server lists exactly the old server's two tools`, async () => {
    await withCompat({ threads: [] }, { protocol }, async (client) => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ["codex", "codex-reply"]);
      for (const tool of tools) {
        const old = OLD[tool.name as keyof typeof OLD];
        const { description, ...rest } = tool as unknown as Record<string, unknown>;
        const { description: oldDescription, ...oldRest } = old;
        assert.deepEqual(
          rest,
          oldRest,
          `${tool.name}: name, title and schemas as the old server's`,
        );
        assert.ok(
          String(description).startsWith(oldDescription),
          `${tool.name}: the old description first`,
        );
      }
      const { prompts } = await client.listPrompts().catch(() => ({ prompts: [] }));
      assert.deepEqual(prompts, []);
    });
  });

  Deno.test(`[${protocol}] compat: codex then codex-reply on its threadId, as the old plugins call them`, async () => {
    // A fixture process plays a thread's scripts from the first: the reply goes to a thread of its own.
    const t = thread({ scripts: [turn("msg_2", "Second answer.")] });
    const s: Scenario = { threads: [t], newThreadScripts: [turn("msg_1", "First answer.")] };
    await withCompat(s, { protocol }, async (client, f) => {
      const first = await callTool(client, "codex", {
        prompt: "write a haiku",
        cwd: "/tmp/scratch",
        sandbox: "read-only",
        "approval-policy": "untrusted",
      }, { timeout: 60_000 });
      assert.equal(first.isError, undefined, JSON.stringify(first.content));
      const threadId = String(first.structuredContent?.threadId);
      assert.deepEqual(first.structuredContent, { threadId, content: "First answer." });
      const again = await callTool(client, "codex-reply", { threadId, prompt: "another" }, {
        timeout: 60_000,
      });
      assert.deepEqual(again.structuredContent, { threadId, content: "First answer." });
      const second = await callTool(client, "codex-reply", { threadId: t.id, prompt: "more" }, {
        timeout: 60_000,
      });
      assert.deepEqual(second.structuredContent, { threadId: t.id, content: "Second answer." });
      assert.deepEqual(second.content, [{ type: "text", text: "Second answer." }]);
      const start = (await f.requests()).find((r) => r.method === "thread/start");
      assert.equal(start?.params.cwd, "/tmp/scratch");
      assert.equal(start?.params.sandbox, "read-only");
    });
  });

  Deno.test(`[${protocol}] compat: Codex's approval reaches the client and its answer reaches Codex`, async () => {
    const s: Scenario = {
      threads: [],
      newThreadScripts: [[
        { request: commandApproval().request },
        { item: agentItem("msg_f", "Done.") },
        { end: "completed" },
      ]],
    };
    const asked: ElicitParams[] = [];
    await withCompat(s, {
      protocol,
      onElicit: (p) => {
        asked.push(p);
        return { action: "accept", content: { decision: "accept" } };
      },
    }, async (client, f) => {
      const progress: string[] = [];
      const out = await callTool(client, "codex", { prompt: "go", cwd: "/tmp/scratch" }, {
        timeout: 60_000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => void progress.push(String(p.message)),
      });
      assert.equal(out.structuredContent?.content, "Done.");
      assert.ok(progress.length > 0, "progress notifications keep the call alive");
      assert.equal(asked.length, 1);
      assert.deepEqual((await f.answers()).map((a) => a.result), [{ decision: "accept" }]);
    });
  });
}

Deno.test("compat: loosening fields and unappliable config keys are refused, nothing sent", async () => {
  const s: Scenario = { threads: [], config: { sandbox_mode: "read-only" } };
  await withCompat(s, {}, async (client, f) => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ sandbox: "danger-full-access" }, /sandbox danger-full-access is looser/],
      [{ config: { sandbox_mode: "workspace-write" } }, /sandbox workspace-write is looser/],
      [
        { config: { "sandbox_workspace_write.network_access": true } },
        /config key 'sandbox_workspace_write.network_access' is refused/,
      ],
      [{ profile: "fast" }, /profile is refused/],
      [{ cwd: "relative/dir" }, /cwd must be an absolute path/],
    ];
    for (const [args, why] of cases) {
      const out = await callTool(client, "codex", { prompt: "go", cwd: "/tmp/scratch", ...args });
      assert.equal(out.isError, true, JSON.stringify(args));
      const text = (out.content as { text: string }[])[0].text;
      assert.match(text, why);
    }
    const methods = (await f.requests()).map((r) => r.method);
    assert.ok(!methods.includes("thread/start"), "no thread was started");
  });
});

Deno.test("compat: on-failure runs as on-request, with a note", async () => {
  const s: Scenario = {
    threads: [],
    newThreadScripts: [turn("msg_1", "Ok.")],
    config: { approval_policy: "on-request" },
  };
  await withCompat(s, {}, async (client, f) => {
    const out = await callTool(client, "codex", {
      prompt: "go",
      cwd: "/tmp/scratch",
      "approval-policy": "on-failure",
      config: { model_reasoning_effort: "low" },
      "developer-instructions": "Be brief.",
    });
    assert.equal(out.structuredContent?.content, "Ok.");
    assert.match(JSON.stringify(out.content), /on-failure ran as on-request/);
    const start = (await f.requests()).find((r) => r.method === "thread/start");
    assert.equal(start?.params.approvalPolicy, "on-request");
    assert.equal(start?.params.developerInstructions, "Be brief.");
    assert.equal((start?.params.config as Record<string, unknown>).model_reasoning_effort, "low");
  });
});

Deno.test("compat: codex-reply without a thread says what to give", async () => {
  await withCompat({ threads: [] }, {}, async (client) => {
    const out = await callTool(client, "codex-reply", { prompt: "go" });
    assert.equal(out.isError, true);
    assert.match(JSON.stringify(out.content), /either threadId or conversationId must be provided/);
  });
});

/** Resolves once the fixture logged a request `method` (watching its files, no polling). */
async function untilSent(f: FixtureHome, method: string): Promise<void> {
  const seen = async () => (await f.requests()).some((r) => r.method === method);
  const watcher = Deno.watchFs(f.home);
  try {
    await within(
      (async () => {
        if (await seen()) return;
        for await (const _ of watcher) if (await seen()) return;
      })(),
      `${method} reaching the fixture`,
    );
  } finally {
    watcher.close();
  }
}

Deno.test("compat: the client cancelling codex interrupts the turn", async () => {
  const s: Scenario = {
    threads: [],
    newThreadScripts: [[{ barrier: "hold" }, { item: agentItem("m", "late") }, {
      end: "completed",
    }]],
  };
  await withCompat(s, { protocol: "2026-07-28" }, async (client, f) => {
    const hold = await f.barrier("hold");
    const cancel = new AbortController();
    const call = callTool(client, "codex", { prompt: "go", cwd: "/tmp/scratch" }, {
      signal: cancel.signal,
      timeout: 60_000,
    });
    await hold.reached();
    cancel.abort();
    await assert.rejects(call);
    await untilSent(f, "turn/interrupt");
    await hold.release();
  });
});

const PNG = "data:image/png;base64,iVBORw0KGgo=";

Deno.test("images: codex_run and the compat codex send them with the text in turn/start", async () => {
  const s: Scenario = {
    threads: [],
    newThreadScripts: [turn("msg_1", "A cat.")],
  };
  for (
    const [flags, tool, args] of [
      [["--allow-turn-start"], "codex_run", { cwd: "/tmp/scratch", text: "describe" }],
      [COMPAT, "codex", { cwd: "/tmp/scratch", prompt: "describe" }],
    ] as const
  ) {
    const f = await FixtureHome.create(s);
    const relay = await startRelay({ fixture: f, flags: [...flags], protocol: "2026-07-28" });
    const { code, left } = await closeAfter(relay, f, async () => {
      const images = [{ path: "/tmp/scratch/shot.png" }, { dataUrl: PNG }];
      const out = await callTool(relay.client, tool, { ...args, images }, { timeout: 60_000 });
      assert.equal(out.isError, undefined, JSON.stringify(out.content));
      const start = (await f.requests()).find((r) => r.method === "turn/start");
      assert.deepEqual(start?.params.input, [
        { type: "text", text: "describe", text_elements: [] },
        { type: "localImage", path: "/tmp/scratch/shot.png" },
        { type: "image", url: PNG },
      ]);
      const refused = await callTool(relay.client, tool, {
        ...args,
        images: [{ dataUrl: "https://example.com/cat.png" }],
      });
      assert.equal(refused.isError, true);
      assert.match(JSON.stringify(refused.content), /remote URL: Codex 0\.169-0\.171 refuse them/);
      const starts = (await f.requests()).filter((r) => r.method === "thread/start");
      assert.equal(starts.length, 1, "the refused call started nothing");
    });
    assert.equal(code, 0);
    assert.deepEqual(left, []);
  }
});
