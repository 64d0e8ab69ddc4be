/**
 * `serve --compat codex-mcp-server` and images against the real `codex app-server` (the
 * Responses mock, offline): a client calling `codex` and `codex-reply` as the old plugins did,
 * an approval, a cancel, refusals; images reaching the model's request.
 *
 * Run: `deno test -P tests/e2e/compat_e2e_test.ts` with codex in `.codex-npm/` or `CODEX_BIN`.
 */
import assert from "node:assert/strict";
import { PROTOCOLS } from "../../testing/relay.ts";
import type { ElicitParams } from "../../testing/mcp_client.ts";
import type { MockRequest } from "../../testing/mock_responses.ts";
import { callTool } from "../../testing/call_tool.ts";
import { e2eCodex, type Rec, withWorld } from "./_relay_e2e.ts";
import { within } from "../../testing/deadline.ts";

const BIN = e2eCodex("tests/e2e/compat_e2e_test.ts");
const ignore = BIN === null;

const COMPAT = ["--allow-turn-start", "--compat", "codex-mcp-server"];
const LONG_CALL = { timeout: 60_000, resetTimeoutOnProgress: true };
/** A 1×1 PNG. */
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

type Content = { type: string; text?: string; image_url?: string };

/** The content of the latest user message of a model request. */
function userContent(r: MockRequest): Content[] {
  const input = (r.body as { input?: { role?: string; content?: Content[] }[] }).input ?? [];
  return input.filter((i) => i.role === "user").at(-1)?.content ?? [];
}

function text(result: { content?: unknown }): string {
  return JSON.stringify(result.content);
}

for (const protocol of PROTOCOLS) {
  Deno.test({
    name:
      `e2e compat [${protocol}]: codex then codex-reply on its threadId, as the old plugins call them`,
    ignore,
    fn: () =>
      withWorld({ approval: "on-request" }, async (w) => {
        const relay = await w.relay(COMPAT, { protocol });
        const { tools } = await relay.client.listTools();
        assert.deepEqual(tools.map((t) => t.name), ["codex", "codex-reply"]);
        const first = await callTool(relay.client, "codex", {
          prompt: "first question",
          cwd: w.home.workspace,
          sandbox: "read-only",
          "approval-policy": "on-request",
        }, LONG_CALL);
        assert.notEqual(first.isError, true, text(first));
        const threadId = String(first.structuredContent?.threadId);
        assert.deepEqual(first.structuredContent, { threadId, content: "Echo: first question" });
        const second = await callTool(relay.client, "codex-reply", {
          threadId,
          prompt: "second question",
        }, LONG_CALL);
        assert.deepEqual(second.structuredContent, {
          threadId,
          content: "Echo: second question",
        });
        // The deprecated spelling still reaches the same thread.
        const third = await callTool(relay.client, "codex-reply", {
          conversationId: threadId,
          prompt: "third question",
        }, LONG_CALL);
        assert.deepEqual(third.structuredContent, { threadId, content: "Echo: third question" });
      }),
  });
}

Deno.test({
  name: "e2e compat: Codex's command approval reaches the client; its answer reaches Codex",
  ignore,
  fn: () =>
    withWorld({ approval: "on-request" }, async (w) => {
      const asked: ElicitParams[] = [];
      const relay = await w.relay(COMPAT, {
        protocol: "2025-11-25",
        onElicit: (p) => {
          asked.push(p);
          return { action: "accept", content: { decision: "accept" } };
        },
      });
      const scratch = await Deno.makeTempDir({ dir: w.home.root, prefix: "scratch-" });
      const out = await callTool(relay.client, "codex", {
        prompt: "SHELL: echo compat-approved",
        cwd: scratch,
      }, LONG_CALL);
      assert.notEqual(out.isError, true, text(out));
      assert.equal(asked.length, 1, "one approval reached the client");
      assert.match(String(asked[0].message), /echo compat-approved/);
      assert.match(String(out.structuredContent?.content), /Output:\ncompat-approved\n/);
    }),
});

Deno.test({
  name: "e2e compat: the client cancelling codex interrupts the turn",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const relay = await w.relay(COMPAT);
      const cancel = new AbortController();
      const call = callTool(relay.client, "codex", {
        prompt: "SLOW:c hold on",
        cwd: w.home.workspace,
      }, { ...LONG_CALL, signal: cancel.signal });
      await w.mock.held("c");
      cancel.abort();
      await assert.rejects(call);
      // Codex records the interrupt in the thread's rollout (`turn_aborted`); without the relay's
      // interrupt the held request would keep the turn running until the release below.
      await untilRollout(w.home.root, '"turn_aborted"');
      w.mock.release("c");
    }),
});

/** Resolves once a rollout file under `root` contains `needle` (watching the files, no polling). */
async function untilRollout(root: string, needle: string): Promise<void> {
  const found = async () => {
    for await (const path of walk(root)) {
      if (/rollout-.*\.jsonl$/.test(path) && (await Deno.readTextFile(path)).includes(needle)) {
        return true;
      }
    }
    return false;
  };
  const watcher = Deno.watchFs(root);
  try {
    await within(
      (async () => {
        if (await found()) return;
        for await (const _ of watcher) if (await found()) return;
      })(),
      `${needle} in the thread's rollout`,
    );
  } finally {
    watcher.close();
  }
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) yield* walk(path);
    else yield path;
  }
}

Deno.test({
  name: "e2e compat: a loosening sandbox or config key is refused and nothing reaches Codex",
  ignore,
  fn: () =>
    withWorld({ approval: "on-request" }, async (w) => {
      const relay = await w.relay(COMPAT);
      const cases: [Rec, RegExp][] = [
        [{ sandbox: "workspace-write" }, /sandbox workspace-write is looser than the thread's/],
        [
          { config: { sandbox_mode: "danger-full-access" } },
          /sandbox danger-full-access is looser/,
        ],
        [{ config: { "sandbox_workspace_write.network_access": true } }, /is refused/],
        [{ "approval-policy": "never" }, /approvalPolicy never is looser/],
      ];
      for (const [args, why] of cases) {
        const out = await callTool(relay.client, "codex", {
          prompt: "go",
          cwd: w.home.workspace,
          ...args,
        }, LONG_CALL);
        assert.equal(out.isError, true, JSON.stringify(args));
        assert.match(text(out), why);
      }
      assert.equal(w.mock.requests.length, 0, "no model request was made");
    }),
});

Deno.test({
  name:
    "e2e images: a localImage and a data URL from codex_run, and one from codex_steer, reach the model",
  ignore,
  fn: () =>
    withWorld({}, async (w) => {
      const relay = await w.relay(["--allow-turn-start"]);
      const path = `${w.home.workspace}/shot.png`;
      await Deno.writeFile(path, Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0)));
      const dataUrl = `data:image/png;base64,${PNG_BASE64}`;
      const run = await callTool(relay.client, "codex_run", {
        cwd: w.home.workspace,
        text: "describe these",
        images: [{ path }, { dataUrl }],
      }, LONG_CALL);
      assert.equal(run.structuredContent?.turn?.status, "completed", text(run));
      const request = w.mock.requests.find((r) => r.userText.includes("describe these"))!;
      const images = userContent(request).filter((c) => c.type === "input_image");
      assert.deepEqual(images.map((c) => c.image_url), [dataUrl, dataUrl]);
      assert.ok(
        userContent(request).some((c) => c.text?.includes(`path="${path}"`)),
        "Codex names the local file",
      );

      // codex_steer: an image added to a running turn reaches its next model request.
      const held = await callTool(relay.client, "codex_run", {
        threadId: run.structuredContent?.threadId,
        text: "SLOW:s look",
        waitSeconds: 1,
      }, LONG_CALL);
      await w.mock.held("s");
      const steer = await callTool(relay.client, "codex_steer", {
        threadId: held.structuredContent?.threadId,
        text: "and this one",
        images: [{ dataUrl }],
      });
      assert.equal(steer.structuredContent?.status, "steered", text(steer));
      w.mock.release("s");
      const next = await w.mock.waitForRequest((r) => r.userText.includes("and this one"));
      assert.deepEqual(
        userContent(next).filter((c) => c.type === "input_image").map((c) => c.image_url),
        [dataUrl],
      );
      const refused = await callTool(relay.client, "codex_run", {
        cwd: w.home.workspace,
        text: "remote",
        images: [{ dataUrl: "https://example.com/a.png" }],
      });
      assert.equal(refused.isError, true);
      assert.ok(!w.mock.requests.some((r) => r.userText.includes("remote")));
    }),
});
