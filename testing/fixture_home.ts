/**
 * Test side of the fixture app-server: a temp CODEX_HOME holding the
 * scenario, PATH with the fixture first as `codex`, barriers (FIFOs), the
 * request log, and a process-table check for leftover fixture processes.
 * @module
 */

import assert from "assert";
import { delimiter } from "node:path";
import { fileURLToPath } from "node:url";
import { RelayError } from "../src/core/errors.ts";
import type {
  FixtureItem,
  FixtureThread,
  FixtureTurn,
  Scenario,
  TurnStep,
} from "../fixtures/scenario.ts";
import { WAIT_DEADLINE_MS, within } from "./deadline.ts";
import { denoCacheDir, denoChildEnv } from "./child_env.ts";
import { groupsMatching, processTableSync } from "./process_table.ts";

/**
 * The file in a fixture home naming the module cache the fixture's own
 * `deno run` uses when its environment has no DENO_DIR (the relay passes
 * `codex` only its own variables): fixtures/bin/codex reads it.
 */
export const FIXTURE_DENO_DIR_FILE = "fixture-deno-dir";

/**
 * The folder holding the fixture launcher named `codex` (`codex` for POSIX
 * shells, `codex.cmd` for Windows, as npm installs Codex there).
 */
export const FIXTURE_BIN: string = fileURLToPath(new URL("../fixtures/bin", import.meta.url));

/** One line of the fixture's log. */
export interface LogEntry {
  pid: number;
  event?: string;
  dir?: "in" | "out";
  msg?: {
    id?: number | string;
    method?: string;
    params?: unknown;
    result?: unknown;
    error?: unknown;
  };
  name?: string;
  /** The command line of a `spawn`, `proxy` or `doctor` event. */
  args?: string[];
}

/** A barrier in a fixture scenario, held by the test. */
export interface Barrier {
  /**
   * Resolves once the fixture is waiting at the barrier; rejects with a
   * message when it is not reached within `timeoutMs` (default 30 s).
   */
  reached(timeoutMs?: number): Promise<void>;
  /** Lets the fixture go on; call after `reached()`. */
  release(): Promise<void>;
}

/** A temp CODEX_HOME seeded with a scenario. */
export class FixtureHome {
  readonly home: string;
  #barriers = new Map<string, Deno.FsFile | undefined>();

  private constructor(home: string) {
    this.home = home;
  }

  /** Makes a temp CODEX_HOME holding `scenario` (in `dir`, default the system's temp folder). */
  static async create(scenario: Scenario, dir?: string): Promise<FixtureHome> {
    const home = await Deno.makeTempDir({ prefix: "codex-relay-fixture-", dir });
    const f = new FixtureHome(home);
    await f.write(scenario);
    await Deno.writeTextFile(`${home}/${FIXTURE_DENO_DIR_FILE}`, denoCacheDir());
    await Deno.mkdir(`${home}/barriers`);
    return f;
  }

  /** Replaces the scenario (threads and faults: at the next request; the rest: at the next start). */
  async write(scenario: Scenario): Promise<void> {
    // Whole or not at all: a helper that reads its faults live never sees half a file.
    await Deno.writeTextFile(`${this.home}/fixture.json.tmp`, JSON.stringify(scenario));
    await Deno.rename(`${this.home}/fixture.json.tmp`, `${this.home}/fixture.json`);
  }

  /** PATH with the fixture first. */
  get path(): string {
    return `${FIXTURE_BIN}${delimiter}${Deno.env.get("PATH") ?? ""}`;
  }

  /**
   * The environment for a relay or a connection that should find the fixture as
   * `codex` (with the module cache and the variables of testing/child_env.ts).
   */
  get env(): Record<string, string> {
    return denoChildEnv({
      PATH: this.path,
      HOME: Deno.env.get("HOME") ?? "/root",
      CODEX_HOME: this.home,
    });
  }

  /** Makes a barrier the scenario names; create it before the fixture reaches it. */
  async barrier(name: string): Promise<Barrier> {
    const path = `${this.home}/barriers/${name}`;
    const mk = await new Deno.Command("mkfifo", { args: [path] }).output();
    if (!mk.success) throw new Error(`mkfifo failed for ${path}`);
    this.#barriers.set(name, undefined);
    return {
      reached: async (timeoutMs = WAIT_DEADLINE_MS) => {
        // Opening a FIFO's write end blocks until the fixture opens its read end.
        const opening = Deno.open(path, { write: true });
        const file = await within(
          opening,
          `The fixture reaching barrier ${name}`,
          timeoutMs,
          async () => {
            // Unblock the pending open by opening the read end ourselves; close both.
            const reader = await Deno.open(path, { read: true });
            (await opening).close();
            reader.close();
          },
        );
        this.#barriers.set(name, file);
      },
      release: async () => {
        const file = this.#barriers.get(name);
        if (!file) throw new Error(`barrier ${name} released before it was reached`);
        this.#barriers.set(name, undefined);
        try {
          await file.write(new TextEncoder().encode("go\n"));
        } finally {
          file.close(); // Also when the fixture is gone and the write fails.
        }
      },
    };
  }

  /**
   * Stores an item in a stored turn, as a Codex process running the turn would
   * (an `item.add` event in `fixture-state.jsonl`, seen by running fixture
   * processes on their next request); an item with the same id is replaced.
   */
  async addItem(threadId: string, turnId: string, item: FixtureItem): Promise<void> {
    await this.#appendState({ e: "item.add", threadId, turnId, item });
  }

  /**
   * Queues a message into the thread's queue as the user's own Codex would
   * (not through the relay): a `queue.add` event; returns its submission id.
   */
  async queueAsUser(threadId: string, clientUserMessageId: string, text = "mine"): Promise<string> {
    const id = fakeId("01b00000");
    await this.#appendState({
      e: "queue.add",
      threadId,
      submission: {
        id,
        input: [{ type: "text", text, text_elements: [] }],
        clientUserMessageId,
        responsesapiClientMetadata: null,
      },
    });
    return id;
  }

  /** Updates a stored turn's fields (status, completedAt, ...) as its runner would. */
  async updateTurn(threadId: string, turn: Omit<FixtureTurn, "items">): Promise<void> {
    await this.#appendState({ e: "turn.upsert", threadId, turn });
  }

  /** Ends `pid`'s hold on a thread, as Codex's writer lock ends with its (killed) process. */
  async release(threadId: string, pid: number): Promise<void> {
    await this.#appendState({ e: "release", threadId, pid });
  }

  async #appendState(event: Record<string, unknown>): Promise<void> {
    await Deno.writeTextFile(`${this.home}/fixture-state.jsonl`, JSON.stringify(event) + "\n", {
      append: true,
    });
  }

  /** Every entry of the fixture log. */
  async log(): Promise<LogEntry[]> {
    let text = "";
    try {
      text = await Deno.readTextFile(`${this.home}/fixture-log.jsonl`);
    } catch {
      return [];
    }
    return text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  }

  /** Every request (with a method and an id) the fixture received, in order (params `{}` when absent). */
  async requests(): Promise<{ pid: number; method: string; params: Record<string, unknown> }[]> {
    return (await this.log())
      .filter((e) => e.dir === "in" && typeof e.msg?.method === "string" && e.msg.id !== undefined)
      .map((e) => ({
        pid: e.pid,
        method: e.msg!.method!,
        params: (e.msg!.params ?? {}) as Record<string, unknown>,
      }));
  }

  /** Every answer the fixture received to its own server→client requests, in order. */
  async answers(): Promise<
    { pid: number; id: number | string; result?: unknown; error?: unknown }[]
  > {
    return (await this.log())
      .filter((e) => e.dir === "in" && e.msg?.method === undefined && e.msg?.id !== undefined)
      .map((e) => ({ pid: e.pid, id: e.msg!.id!, result: e.msg!.result, error: e.msg!.error }));
  }

  /** The pids of fixture processes started for this home. */
  async spawned(): Promise<number[]> {
    return (await this.log()).filter((e) => e.event === "spawn").map((e) => e.pid);
  }

  /**
   * The helpers still alive for this home: the process groups (their ids: the
   * pids the relay spawned) holding a live process whose command line names
   * this home. One per helper however it was launched (testing/process_table.ts).
   */
  alive(): number[] {
    return processesMatching(this.home);
  }

  /**
   * The helper (process group) a live fixture process belongs to, by its
   * logged pid; `undefined` when that process is gone.
   */
  helperOf(pid: number): number | undefined {
    return processTableSync().find((row) => row.pid === pid)?.pgid;
  }

  /** Removes the temp home. Closes barrier ends the test still holds. */
  async dispose(): Promise<void> {
    for (const file of this.#barriers.values()) file?.close();
    await Deno.remove(this.home, { recursive: true });
  }
}

/**
 * The process groups holding a live, non-zombie process whose command line
 * contains `needle` (`ps`): one per helper (testing/process_table.ts).
 */
export function processesMatching(needle: string): number[] {
  return groupsMatching(processTableSync(), needle);
}

// ---------------------------------------------------------------- builders

let counter = 0;

/** A UUIDv7-shaped id, unique in this process. */
export function fakeId(prefix = "01a22a5b"): string {
  const n = (++counter).toString(16).padStart(12, "0");
  const r = crypto.randomUUID().slice(9, 23);
  return `${prefix}-${r.slice(0, 4)}-7${r.slice(6, 9)}-8${r.slice(11, 14)}-${n}`;
}

/** A user message item (shape of the captures). */
export function userItem(clientId: string | null, text = "hello", id = fakeId()): FixtureItem {
  return {
    type: "userMessage",
    id,
    clientId,
    content: [{ type: "text", text, text_elements: [] }],
  };
}

const STREAM_DISCONNECTED = { responseStreamDisconnected: { httpStatusCode: null } };
const HIGH_DEMAND =
  "We\u2019re currently experiencing high demand, which may cause temporary errors.";

/**
 * A turn's model requests failing, as Codex 0.169 and 0.171 told it (captured for issue 38,
 * docs/codex-protocol.md; `stream_max_retries = 2`): with nothing listening at the
 * provider's address Codex retries every few seconds to minutes (`noNetwork`); a provider
 * answering HTTP 500 is retried (`highDemandRetry`, `Reconnecting... n/2`), then fails the turn
 * (`highDemandFailed`, then `turn/completed` failed with that error).
 */
export const STREAM_ERRORS = {
  noNetwork: {
    streamError: {
      message: "Reconnecting... waiting for network",
      codexErrorInfo: STREAM_DISCONNECTED,
      additionalDetails: "Connection failed: error sending request",
    },
    willRetry: true,
  },
  highDemandRetry: {
    streamError: {
      message: "Reconnecting... 1/2",
      codexErrorInfo: STREAM_DISCONNECTED,
      additionalDetails: HIGH_DEMAND,
    },
    willRetry: true,
  },
  highDemandFailed: {
    streamError: {
      message: HIGH_DEMAND,
      codexErrorInfo: "internalServerError",
      additionalDetails: null,
    },
    willRetry: false,
  },
} as const satisfies Record<string, TurnStep>;

/** The error a turn failed with after {@linkcode STREAM_ERRORS}`.highDemandFailed`. */
export const HIGH_DEMAND_ERROR = { message: HIGH_DEMAND, codexErrorInfo: "internalServerError" };

/** An agent message item (shape of the captures). */
export function agentItem(
  id: string,
  text: string,
  phase: string | null | undefined = "final_answer",
): FixtureItem {
  const item: FixtureItem = {
    type: "agentMessage",
    moderation: null,
    id,
    text,
    memoryCitation: null,
    delivery: null,
    questions: null,
  };
  if (phase !== undefined) item.phase = phase;
  return item;
}

/**
 * A turn step asking a command approval (`item/commandExecution/requestApproval`,
 * shape of the captures), with `over` replacing its params.
 */
export function commandApproval(
  over: Record<string, unknown> = {},
): Extract<TurnStep, { request: unknown }> {
  return {
    request: {
      method: "item/commandExecution/requestApproval",
      params: {
        kind: "command",
        itemId: "call_sh_1",
        reason: "mock wants to run it",
        command: "/bin/bash -lc 'touch x'",
        cwd: "/workspace",
        commandActions: [],
        availableDecisions: ["accept", "cancel"],
        ...over,
      },
    },
  };
}

/** A completed turn with these items. */
export function turn(items: FixtureItem[], over: Partial<FixtureTurn> = {}): FixtureTurn {
  return { id: fakeId(), status: "completed", error: null, items, ...over };
}

/** A stored thread. */
export function thread(over: Partial<FixtureThread> = {}): FixtureThread {
  return {
    id: fakeId(),
    name: null,
    preview: "secret preview",
    cwd: "/secret/workspace",
    updatedAt: 1796006982,
    status: "notLoaded",
    turns: [],
    ...over,
  };
}

/**
 * Runs `fn` with a fresh fixture home for `scenario`, then checks that no
 * fixture process is left (`what` names them in the failure) and removes it.
 */
export async function withFixture(
  scenario: Scenario,
  fn: (f: FixtureHome) => Promise<void>,
  what = "fixture process",
): Promise<void> {
  const f = await FixtureHome.create(scenario);
  try {
    await fn(f);
    assert.deepEqual(f.alive(), [], `no ${what} is left in the process table`);
  } finally {
    await f.dispose();
  }
}

/** The RelayError `p` rejects with (anything else, or no rejection, fails). */
export async function rejection(p: Promise<unknown>): Promise<RelayError> {
  try {
    await p;
  } catch (error) {
    if (error instanceof RelayError) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

/**
 * The value at `keys` inside a JSON value the fixture logged (a request's params, an answer's
 * result), or undefined where the path leaves the objects: read without a cast.
 *
 * @example
 * ```ts
 * assert.equal(jsonAt(resume.params, "config", "model_reasoning_effort"), "high");
 * ```
 */
export function jsonAt(value: unknown, ...keys: string[]): unknown {
  let at = value;
  for (const key of keys) {
    if (typeof at !== "object" || at === null || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}
