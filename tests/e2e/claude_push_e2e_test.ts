/**
 * Protects: the hook route of the push (docs/design.md, "Push"), against the real Claude Code
 * 2.1.332 offline (a mock Messages API) and real Codex (the mock Responses API): a session
 * driven as `claude -p --input-format stream-json` with stdin kept open delegates a slow run,
 * ends its turn, and is woken by `hook-wait` with the run's final answer (the mock's next
 * request holds it); a plain `claude -p` session gets the same text as a bounded synchronous
 * wait, in the request that carries the tool's result.
 */
import assert from "assert";
import { codexForTests } from "../../testing/codex_bin.ts";
import { claudeForTests } from "../../testing/claude_bin.ts";
import { withMockHome } from "../../testing/mock_home.ts";
import { startDaemon, stopDaemon } from "./daemon_home.ts";
import type { MockResponses } from "../../testing/mock_responses.ts";
import {
  type MessagesReply,
  type MessagesRequest,
  startMockMessages,
} from "../../testing/mock_messages.ts";
import { relayArgs } from "../../testing/relay.ts";
import { hookCommand } from "../../src/install/push_hooks.ts";
import { processTable } from "../../testing/process_table.ts";
import { within } from "../../testing/deadline.ts";

const BIN = codexForTests(import.meta.url);
const CLAUDE = claudeForTests(import.meta.url);
const TOOL = "mcp__codex-relay__codex_run";
const PUSHED = "Codex run ended: completed";
const DAEMON = ["--app-server", "daemon"];

/** Claude Code's files: the relay as its MCP server, the hook as install writes it. */
async function claudeFiles(
  root: string,
  env: Record<string, string>,
  home: string,
  mode: string[],
) {
  const project = `${root}/project`;
  await Deno.mkdir(project, { recursive: true });
  const mcp = `${root}/mcp.json`;
  await Deno.writeTextFile(
    mcp,
    JSON.stringify({
      mcpServers: {
        "codex-relay": {
          type: "stdio",
          command: Deno.execPath(),
          args: relayArgs(["--allow-turn-start", ...mode]),
          env,
        },
      },
    }),
  );
  // The hook command exactly as install writes it, from this test's relay command line.
  const launcher = { command: Deno.execPath(), args: relayArgs(["--allow-turn-start", ...mode]) };
  const command = hookCommand(launcher, `${home}/.claude/projects`).replace(
    "--timeout-minutes 30",
    "--timeout-minutes 2",
  );
  const settings = `${root}/settings.json`;
  await Deno.writeTextFile(
    settings,
    JSON.stringify({
      hooks: {
        PostToolUse: [{
          matcher: TOOL,
          hooks: [{ type: "command", command, asyncRewake: true, timeout: 180 }],
        }],
      },
    }),
  );
  return { project, mcp, settings };
}

/** The mock's script: delegate a slow run, end the turn, then act on what is pushed. */
function script(project: string, follow: boolean) {
  return (r: MessagesRequest): MessagesReply => {
    if (!r.tools.includes(TOOL)) return { text: "ok" };
    if (r.text.includes(PUSHED)) return { text: "Acting on Codex's answer." };
    const messages = JSON.stringify(r.body?.messages ?? []);
    if (follow && messages.includes("Anything else?")) return { text: "No." };
    if (follow && messages.includes("Echo: SLOW:a")) return { text: "Saw it myself." };
    if (messages.includes('"tool_result"')) {
      const ids = /clientMessageId\\":\\"([^\\]+)\\",\\"threadId\\":\\"([^\\]+)/.exec(messages);
      if (!follow || !ids) return { text: "Delegated; ending my turn." };
      const args = { threadId: ids[2], clientMessageId: ids[1], timeoutSeconds: 50 };
      return { tool: "mcp__codex-relay__codex_wait_reply", input: args };
    }
    return {
      tool: TOOL,
      input: { cwd: project, text: "SLOW:a fix the tests", waitSeconds: 1 },
    };
  };
}

/** Until a `hook-wait` of this test is running (its command line names the test's HOME). */
async function hookRunning(home: string): Promise<void> {
  while (
    !(await processTable()).some((p) => p.args.includes("hook-wait") && p.args.includes(home))
  ) {
    await new Promise((r) => setTimeout(r, 100)); // polling the process table, not a sync sleep
  }
}

/** Until a `hook-wait` of this test reads the thread (it started a child: its app-server link). */
async function hookReading(home: string): Promise<void> {
  while (true) {
    const rows = await processTable();
    const hooks = rows.filter((p) => p.args.includes("hook-wait") && p.args.includes(home));
    if (hooks.some((h) => rows.some((p) => p.ppid === h.pid))) return;
    await new Promise((r) => setTimeout(r, 100)); // polling the process table, not a sync sleep
  }
}

/** Until no `hook-wait` of this test runs. */
async function hookGone(home: string): Promise<void> {
  while (
    (await processTable()).some((p) => p.args.includes("hook-wait") && p.args.includes(home))
  ) {
    await new Promise((r) => setTimeout(r, 100)); // polling the process table, not a sync sleep
  }
}

/** A child's stdout lines as JSON values, read as they come; `result(n)`: the n-th `result`. */
function jsonLines(stream: ReadableStream<Uint8Array>) {
  const results: Record<string, unknown>[] = [];
  let changed = Promise.withResolvers<void>();
  const done = (async () => {
    let buffer = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let at: number;
      while ((at = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, at).trim();
        buffer = buffer.slice(at + 1);
        const value = line.startsWith("{") ? JSON.parse(line) : undefined;
        if (value?.type === "result") results.push(value);
        changed.resolve();
        changed = Promise.withResolvers<void>();
      }
    }
    changed.resolve();
  })();
  return {
    done,
    async result(n: number): Promise<Record<string, unknown>> {
      while (results.length < n) {
        const ended = await Promise.race([
          changed.promise.then(() => false),
          done.then(() => true),
        ]);
        if (ended && results.length < n) throw new Error("Claude Code's output ended early");
      }
      return results[n - 1];
    },
  };
}

type World = {
  mock: MockResponses;
  root: string;
  home: string;
  env: Record<string, string>;
};

async function withClaude(
  follow: boolean | "daemon",
  fn: (
    w: World & {
      url: string;
      requests: MessagesRequest[];
      next: (m: (r: MessagesRequest) => boolean) => Promise<MessagesRequest>;
      files: Awaited<ReturnType<typeof claudeFiles>>;
    },
  ) => Promise<void>,
) {
  await withMockHome({ bin: BIN!.path }, async ({ mock, home, env }) => {
    const daemon = follow === "daemon";
    const files = await claudeFiles(home.root, env, home.home, daemon ? DAEMON : []);
    const messages = startMockMessages(script(files.project, follow === true));
    if (daemon) await startDaemon(BIN!.path, home);
    try {
      await fn({
        mock,
        root: home.root,
        home: home.home,
        env,
        url: messages.url,
        requests: messages.requests,
        next: messages.next,
        files,
      });
    } finally {
      await messages.close();
      if (daemon) await stopDaemon(BIN!.path, home);
    }
  });
}

function claudeCommand(
  w: World & { url: string; files: Awaited<ReturnType<typeof claudeFiles>> },
  mode: string[],
) {
  return new Deno.Command(CLAUDE!, {
    args: [
      "-p",
      ...mode,
      "--mcp-config",
      w.files.mcp,
      "--strict-mcp-config",
      "--settings",
      w.files.settings,
      "--allowedTools",
      `${TOOL},mcp__codex-relay__codex_wait_reply`,
    ],
    cwd: w.files.project,
    env: {
      ...w.env,
      ANTHROPIC_BASE_URL: w.url,
      ANTHROPIC_API_KEY: "sk-ant-test",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // The relay's tools in every request, not behind ToolSearch: the mock calls one directly.
      ENABLE_TOOL_SEARCH: "false",
    },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  });
}

for (const daemon of [false, true]) {
  Deno.test({
    name: `push${
      daemon ? " (daemon)" : ""
    }: a stream-json session ends its turn, and the hook wakes it with the run's answer`,
    ignore: !BIN || !CLAUDE,
    fn: async () => {
      await withClaude(daemon ? "daemon" : false, async (w) => {
        const child = claudeCommand(w, [
          "--input-format",
          "stream-json",
          "--output-format",
          "stream-json",
          "--verbose",
        ]).spawn();
        const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
        const writer = child.stdin.getWriter();
        const lines = jsonLines(child.stdout);
        try {
          await writer.write(new TextEncoder().encode(`${
            JSON.stringify({
              type: "user",
              message: { role: "user", content: "Delegate the fix to Codex." },
            })
          }\n`));
          await within(w.mock.held("a"), "Codex's slow request");
          const first = await within(lines.result(1), "the delegating turn's result", 60_000);
          assert.equal(first.result, "Delegated; ending my turn.");
          const pushed = w.next((r) => r.text.includes(PUSHED));
          w.mock.release("a");
          const woken = await within(pushed, "the woken request", 90_000);
          assert.match(woken.text, /Echo: SLOW:a fix the tests/);
          assert.match(woken.text, /Next: codex_read_reply/);
          const second = await within(lines.result(2), "the woken turn's result", 60_000);
          assert.equal(second.result, "Acting on Codex's answer.");
          // Pushed once: no other request carries the text.
          assert.equal(w.requests.filter((r) => r.text.includes(PUSHED)).length, 1);
        } finally {
          await writer.close().catch(() => {});
          await within(child.status, "Claude Code's exit", 30_000, () => child.kill("SIGKILL"));
          await stderr.cancel();
        }
      });
    },
  });
}

Deno.test({
  name:
    "push: a plain claude -p session gets the text as a bounded synchronous wait, with the tool's result",
  ignore: !BIN || !CLAUDE,
  fn: async () => {
    await withClaude(false, async (w) => {
      const child = claudeCommand(w, ["Delegate the fix to Codex."]).spawn();
      await child.stdin.close();
      const out = child.stdout.pipeThrough(new TextDecoderStream());
      const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      try {
        await within(w.mock.held("a"), "Codex's slow request");
        // The tool's result came back not final: the hook now holds the session.
        await within(hookRunning(w.home), "hook-wait's start", 60_000);
        assert.equal(w.requests.filter((r) => r.text.includes("Delegated")).length, 0);
        w.mock.release("a");
        const status = await within(child.status, "claude -p's exit", 90_000);
        assert.equal(status.code, 0);
        let text = "";
        for await (const chunk of out) text += chunk;
        assert.match(text, /Acting on Codex's answer\./);
        const withResult = w.requests.filter((r) => r.text.includes(PUSHED));
        assert.equal(withResult.length, 1);
        assert.ok(JSON.stringify(withResult[0].body).includes('"tool_result"'));
      } finally {
        await within(child.status, "Claude Code's exit", 30_000, () => child.kill("SIGKILL"));
        await stderr.cancel();
      }
    });
  },
});

Deno.test({
  name: "push: an agent that followed the run itself (codex_wait_reply) is not woken again",
  ignore: !BIN || !CLAUDE,
  fn: async () => {
    await withClaude(true, async (w) => {
      const child = claudeCommand(w, [
        "--input-format",
        "stream-json",
        "--output-format",
        "stream-json",
        "--verbose",
      ]).spawn();
      const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      const writer = child.stdin.getWriter();
      const lines = jsonLines(child.stdout);
      try {
        await writer.write(new TextEncoder().encode(`${
          JSON.stringify({
            type: "user",
            message: { role: "user", content: "Delegate the fix to Codex and wait for it." },
          })
        }\n`));
        await within(w.mock.held("a"), "Codex's slow request");
        await within(hookRunning(w.home), "hook-wait's start", 60_000);
        w.mock.release("a");
        const first = await within(lines.result(1), "the turn's result", 90_000);
        assert.equal(first.result, "Saw it myself.");
        await within(hookGone(w.home), "hook-wait's exit", 60_000);
        // One more turn: a wake the hook caused would come before (or with) its request.
        await writer.write(new TextEncoder().encode(`${
          JSON.stringify({
            type: "user",
            message: { role: "user", content: "Anything else?" },
          })
        }\n`));
        await within(w.next((r) => r.text.includes("Anything else?")), "the next turn", 60_000);
        assert.equal(w.requests.filter((r) => r.text.includes(PUSHED)).length, 0);
      } finally {
        await writer.close().catch(() => {});
        await within(child.status, "Claude Code's exit", 30_000, () => child.kill("SIGKILL"));
        await stderr.cancel();
      }
    });
  },
});

Deno.test({
  // The daemon: its turn runs on after the relay's end, so only the session's end ends the hook.
  name: "push (daemon): a session that ends while the hook waits ends the hook within seconds",
  ignore: !BIN || !CLAUDE,
  fn: async () => {
    await withClaude("daemon", async (w) => {
      const child = claudeCommand(w, ["Delegate the fix to Codex."]).spawn();
      await child.stdin.close();
      const out = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
      const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
      try {
        await within(w.mock.held("a"), "Codex's slow request");
        await within(hookReading(w.home), "hook-wait's first read", 60_000);
        child.kill("SIGKILL");
        await child.status;
        // Checked each second: gone long before its 55 s wait would end.
        await within(hookGone(w.home), "hook-wait's exit after the session's end", 10_000);
        w.mock.release("a");
      } finally {
        await within(child.status, "Claude Code's exit", 30_000, () => child.kill("SIGKILL"));
        await out.cancel();
        await stderr.cancel();
      }
    });
  },
});
