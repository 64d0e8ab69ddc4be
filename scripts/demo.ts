/**
 * `deno task demo`: codex-relay end to end without Codex or an account. It
 * seeds a temporary CODEX_HOME for the fixture app-server (a fake `codex`
 * from `fixtures/`), starts the relay exactly as a client would
 * (`deno run -P mod.ts serve` with every capability flag), and drives it with
 * the MCP SDK client: list threads, queue a message, run a turn that asks for
 * an approval (answered here), and read the final answer. Each step prints
 * the call, the structured result and what it means.
 *
 * `deno task demo run [TEXT]` makes only the `codex_run` call (with TEXT),
 * to try the tool against the fake Codex.
 * @module
 */

import { connectClient, type ElicitParams } from "../testing/mcp_client.ts";
import type { Scenario } from "../fixtures/scenario.ts";
import { CACHED_ONLY, denoCacheDir, denoChildEnv } from "../testing/child_env.ts";
import { FIXTURE_DENO_DIR_FILE } from "../testing/fixture_home.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const encoder = new TextEncoder();

function say(text = ""): void {
  Deno.stdout.writeSync(encoder.encode(text + "\n"));
}

function show(title: string, call: unknown, result: unknown, meaning: string): void {
  say(`\n== ${title}`);
  say(`call:    ${JSON.stringify(call)}`);
  say(`result:  ${JSON.stringify(result, null, 2).replaceAll("\n", "\n         ")}`);
  say(`meaning: ${meaning}`);
}

const ids = {
  docs: "01a22a5b-b405-7103-8c06-aadc414fed88",
  api: "01a22a5c-6698-7df3-813e-7166a248c477",
  scratch: "01a22a5d-2695-74c0-b0ec-3e8006375f86",
};

const scenario: Scenario = {
  threads: [
    { id: ids.docs, name: "docs", preview: "(private)", updatedAt: 1796006990, turns: [] },
    { id: ids.api, name: "api-refactor", preview: "(private)", updatedAt: 1796006980, turns: [] },
    {
      id: ids.scratch,
      name: "scratch",
      preview: "(private)",
      updatedAt: 1796006970,
      turns: [],
      scripts: [[
        {
          item: {
            type: "agentMessage",
            id: "msg_c",
            text: "Checking the tests first.",
            phase: "commentary",
          },
        },
        {
          request: {
            method: "item/commandExecution/requestApproval",
            params: {
              itemId: "call_1",
              reason: "run the test suite",
              command: "deno task test",
              cwd: "/home/you/project",
              availableDecisions: ["accept", "acceptForSession", "decline", "cancel"],
            },
          },
        },
        {
          item: {
            type: "agentMessage",
            id: "msg_f",
            text: "All 42 tests pass. I renamed `parseArgs` to `parseCommand` as asked.",
            phase: "final_answer",
          },
        },
        { end: "completed" },
      ]],
    },
  ],
};

const args = Deno.args[0] === "--" ? Deno.args.slice(1) : Deno.args;
if (args.length > 0 && args[0] !== "run" || args.length > 2) {
  Deno.stderr.writeSync(encoder.encode('Usage: deno task demo [run ["TEXT"]]\n'));
  Deno.exit(64);
}
/** `run`: only the codex_run call, with this text. */
const runOnly = args[0] === "run";
const runText = args[1] ?? "Rename parseArgs to parseCommand and run the tests.";

const home = await Deno.makeTempDir({ prefix: "codex-relay-demo-" });
await Deno.writeTextFile(`${home}/fixture.json`, JSON.stringify(scenario));
await Deno.mkdir(`${home}/barriers`);
await Deno.writeTextFile(`${home}/${FIXTURE_DENO_DIR_FILE}`, denoCacheDir());

say("codex-relay demo: a fake Codex app-server (fixtures/) stands in for `codex`.");
say(
  `Starting: deno run -P mod.ts serve --allow-reply-read --allow-turn-start (CODEX_HOME=${home})`,
);

const relay = await connectClient({
  command: "deno",
  args: [
    "run",
    "-P",
    CACHED_ONLY,
    "--quiet",
    "--config",
    `${root}/deno.json`,
    `${root}/mod.ts`,
    "serve",
    "--allow-reply-read",
    "--allow-turn-start",
  ],
  env: denoChildEnv({
    PATH: `${root}/fixtures/bin:${Deno.env.get("PATH") ?? ""}`,
    HOME: Deno.env.get("HOME") ?? home,
    CODEX_HOME: home,
  }),
  clearEnv: true,
  cwd: root,
  protocol: "2026-07-28",
  onElicit: (params: ElicitParams) => {
    say(`\n   >> Codex asks (an input round of the tool call): ${params.message}`);
    say(`   >> The demo answers: accept`);
    return { action: "accept", content: { decision: "accept" } };
  },
});

try {
  if (!runOnly) await overview();
  const run = await runTurn();
  if (!runOnly) await readReply(run);
} finally {
  const { code } = await relay.close();
  await Deno.remove(home, { recursive: true });
  say(`\nThe relay exited with code ${code} on stdin EOF; the temporary CODEX_HOME is removed.`);
}

/** tools/list, codex_list_threads and codex_queue_message. */
async function overview(): Promise<void> {
  const { tools } = await relay.client.listTools();
  show(
    "tools/list",
    {},
    tools.map((t) => t.name),
    "The tools this capability level registers. Starting the server and listing tools spawned no codex process.",
  );

  const listArgs = { limit: 5 };
  const list = await relay.client.callTool({ name: "codex_list_threads", arguments: listArgs });
  show(
    "codex_list_threads",
    listArgs,
    list.structuredContent,
    "Ids, names, statuses, folders (the last segment of each thread's directory) and update times; at this level (turn start) the full cwd too. No previews or message text.",
  );

  const queueArgs = { threadId: "docs", text: "Please proofread the README." };
  const queued = await relay.client.callTool({ name: "codex_queue_message", arguments: queueArgs });
  show(
    "codex_queue_message (by exact thread name)",
    queueArgs,
    queued.structuredContent,
    "`queued` means Codex acknowledged storing the message, not that it ran. It runs when a Codex process next resumes the thread. Keep clientMessageId to read the reply later.",
  );
}

/** codex_run on the scripted thread: an approval round, then the final answer. */
async function runTurn(): Promise<unknown> {
  const runArgs = { threadId: ids.scratch, text: runText };
  const run = await relay.client.callTool({ name: "codex_run", arguments: runArgs }, {
    timeout: 60_000,
  });
  show(
    "codex_run (turn start, with an approval round)",
    runArgs,
    run.structuredContent,
    "The relay queued the message, loaded the thread, started it, forwarded Codex's approval request to the client, and returned when the turn ended, with its final answer. The thread is released again.",
  );

  return run.structuredContent;
}

/** codex_read_reply of the run's message. */
async function readReply(run: unknown): Promise<void> {
  const receipt = (run as { receipt: { clientMessageId: string } }).receipt;
  const readArgs = { threadId: ids.scratch, clientMessageId: receipt.clientMessageId };
  const read = await relay.client.callTool({ name: "codex_read_reply", arguments: readArgs });
  show(
    "codex_read_reply",
    readArgs,
    read.structuredContent,
    "Only final_answer text of the turn that took the message: the commentary and the user's text are never returned.",
  );
}
