// deno-lint-ignore-file no-console
/**
 * `deno task bench`: What the bench measures against: the fixture app-server, and real Codex when installed.
 * @module
 */

import { ROOT } from "../../testing/relay.ts";
import { agentItem, FIXTURE_BIN, thread, turn, userItem } from "../../testing/fixture_home.ts";
import { AppServer } from "../../testing/app_server_client.ts";
import { nativeCodexFor } from "../../testing/codex_bin.ts";
import { type CodexHome, createCodexHome } from "../../testing/codex_home.ts";
import { type MockResponses, startMockResponses } from "../../testing/mock_responses.ts";
import type { RawRequest } from "../raw_client.ts";
import { callTool, startRelay, type Structured, SUCCESS, TMP } from "./_relay.ts";

/** Something that answers as `codex app-server`. */
export interface Target {
  name: string;
  /** Executable of the raw client and the spawn connection. */
  command: string;
  /** Environment the relay passes to helpers (and the raw client gets). */
  env: Record<string, string>;
  /** A folder whose `codex` is `command`, for the relay's PATH. */
  binDir: string;
  threadId: string;
  clientMessageId: string;
  /** The fixture's home (its store), when the target is the fixture. */
  fixtureHome?: string;
  cleanup(): Promise<void>;
}

export const PATH = Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin";

export const HOME = Deno.env.get("HOME") ?? "/root";

export async function fixtureTarget(): Promise<Target> {
  const home = await Deno.makeTempDir({ dir: TMP, prefix: "fixture-" });
  const clientMessageId = "bench-read-0001";
  const main = thread({
    name: "bench",
    turns: [
      turn([userItem(clientMessageId, "hello"), agentItem("msg_bench_final", "Echo: hello")]),
    ],
  });
  const others = Array.from({ length: 9 }, (_, i) => thread({ updatedAt: 1796006900 - i }));
  await Deno.writeTextFile(`${home}/fixture.json`, JSON.stringify({ threads: [main, ...others] }));
  return {
    name: "fixture",
    command: `${FIXTURE_BIN}/codex`,
    env: { PATH: `${FIXTURE_BIN}:${PATH}`, HOME, CODEX_HOME: home },
    binDir: FIXTURE_BIN,
    threadId: main.id,
    clientMessageId,
    fixtureHome: home,
    cleanup: () => Deno.remove(home, { recursive: true }),
  };
}

export const NATIVE: Record<string, string> = {
  "linux-x86_64": "codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex",
  "linux-aarch64": "codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex",
  "darwin-x86_64": "codex-darwin-x64/vendor/x86_64-apple-darwin/bin/codex",
  "darwin-aarch64": "codex-darwin-arm64/vendor/aarch64-apple-darwin/bin/codex",
};

/** The real codex binary the bench may run, or why not. */
export async function findCodex(): Promise<{ path: string } | { skip: string }> {
  const candidates: string[] = [];
  const given = Deno.env.get("CODEX_BIN");
  if (given) {
    try {
      candidates.push(nativeCodexFor(given) ?? given);
    } catch {
      candidates.push(given);
    }
  }
  const rel = NATIVE[`${Deno.build.os}-${Deno.build.arch}`];
  if (rel) candidates.push(`${ROOT}/.codex-npm/node_modules/@openai/${rel}`);
  for (const path of candidates) {
    const allowed = await Deno.permissions.query({ name: "run", command: path });
    if (allowed.state !== "granted") {
      console.error(`bench: ${path} is outside the bench permission set (deno.json); skipped`);
      continue;
    }
    try {
      if ((await Deno.stat(path)).isFile) return { path };
    } catch {
      // Not installed there.
    }
  }
  return { skip: "not installed in .codex-npm/ (npm install --prefix .codex-npm @openai/codex)" };
}

export async function codexTarget(path: string): Promise<Target> {
  const mock = await startMockResponses();
  const home = await createCodexHome({ mockUrl: mock.url, parentDir: TMP });
  try {
    return await codexTargetIn(home, mock, path);
  } catch (error) {
    await mock.close().catch(() => {});
    await home.cleanup();
    throw error;
  }
}

export async function codexTargetIn(
  home: CodexHome,
  mock: MockResponses,
  path: string,
): Promise<Target> {
  // The relay finds the binary itself on PATH; a wrapper would add a shell to its spawns.
  let binDir = path.slice(0, path.lastIndexOf("/"));
  if (!path.endsWith("/codex")) {
    binDir = `${home.root}/bin`;
    await Deno.mkdir(binDir);
    await Deno.writeTextFile(`${binDir}/codex`, `#!/bin/sh\nexec '${path}' "$@"\n`, {
      mode: 0o755,
    });
  }
  const clientMessageId = crypto.randomUUID();
  let threadId: string;
  const app = await AppServer.start(home, { bin: path });
  try {
    threadId = (await app.startThread({ cwd: home.workspace })).id;
    const done = await app.runTurn(threadId, "hello from the bench", {
      clientUserMessageId: clientMessageId,
    });
    if (done.turn.status !== "completed") throw new Error(`setup turn ${done.turn.status}`);
  } finally {
    await app.close();
    await mock.close();
  }
  return {
    name: "real Codex",
    command: path,
    env: { PATH, HOME: home.home, CODEX_HOME: home.codexHome, LANG: "C.UTF-8" },
    binDir,
    threadId,
    clientMessageId,
    cleanup: () => home.cleanup(),
  };
}

export function toolArgs(tool: string, t: Target): Structured {
  switch (tool) {
    case "codex_list_threads":
      return { limit: 20 };
    case "codex_queue_message":
      return { threadId: t.threadId, text: "a message from the bench" };
    case "codex_read_reply":
      return { threadId: t.threadId, clientMessageId: t.clientMessageId };
    default:
      return { threadId: t.threadId, clientMessageId: t.clientMessageId, timeoutSeconds: 1 };
  }
}

/** The app-server requests (after initialize) the relay sends for one call of each tool. */
export async function recordSequences(
  t: Target,
  tools: string[],
): Promise<Map<string, RawRequest[]>> {
  const dir = await Deno.makeTempDir({ dir: TMP, prefix: "record-" });
  const rec = `${dir}/frames.jsonl`;
  await Deno.writeTextFile(
    `${dir}/codex`,
    `#!/bin/sh\ntee -a '${rec}' | '${t.command}' "$@"\n`,
    { mode: 0o755 },
  );
  const relay = await startRelay({ ...t.env, PATH: `${dir}:${PATH}` }, ["--allow-reply-read"]);
  const out = new Map<string, RawRequest[]>();
  try {
    for (const tool of tools) {
      await Deno.writeTextFile(rec, "");
      const result = await callTool(relay.client, tool, toolArgs(tool, t));
      if (result.status !== SUCCESS[tool]) {
        throw new Error(`${t.name}: ${tool} answered ${JSON.stringify(result).slice(0, 300)}`);
      }
      const frames = (await Deno.readTextFile(rec)).split("\n").filter(Boolean).map((l) =>
        JSON.parse(l)
      );
      out.set(
        tool,
        frames.filter((m) => typeof m.method === "string" && m.id !== undefined)
          .filter((m) => m.method !== "initialize")
          .map((m) => ({ method: m.method, params: m.params })),
      );
    }
  } finally {
    await relay.close();
    await Deno.remove(dir, { recursive: true });
  }
  return out;
}
