/**
 * A mock of the OpenAI Responses API (`POST /v1/responses`, Server-Sent Events) for driving a
 * real `codex app-server` offline.
 *
 * The event sequence and item shapes follow what Codex 0.169 accepted in the captures 01, 06,
 * 07, 08 and 09 of docs/codex-protocol.md ("Running Codex offline for tests"):
 *
 *   response.created
 *   → response.output_item.done   (commentary message, complete)
 *   → response.output_item.added  (final message, empty text)
 *   → response.output_text.delta  (one or more)
 *   → response.output_item.done   (final message, complete)
 *   → response.completed          (then the stream ends: Codex only reports completion on EOF)
 *
 * The behaviour is chosen by markers in the latest user text of the request:
 *
 * | marker        | reply                                                                     |
 * |---------------|---------------------------------------------------------------------------|
 * | (none)        | commentary `Looking at: <text>` then final answer `Echo: <text>`          |
 * | `NOPHASE`     | one final message `Echo: <text>` without a `phase` field                  |
 * | `NOECHO`      | commentary `Looking at: <text>` then final answer {@link noEchoAnswer}    |
 * |               | (the final answer does not repeat the user text)                          |
 * | `LONG`        | commentary, then the final answer {@link longAnswerText} (> 16 KiB UTF-8) |
 * | `FAIL`        | `response.failed` (turn fails, `codexErrorInfo: "other"`)                 |
 * | `HTTP500`     | HTTP 500 (turn fails, `codexErrorInfo: "internalServerError"`)            |
 * | `USAGE_LIMIT` | HTTP 429 `usage_limit_reached`, a spent 5-hour window resetting in 1 h in |
 * |               | `x-codex-primary-*` headers (turn fails, `usageLimitExceeded`)            |
 * | `SLOW:<tag>`  | `response.created`, then holds until `release(tag)`; then the default     |
 * | `MCP_ELICIT`  | commentary + `function_call {name, namespace: "mcp__<server>"}`; on the   |
 * |               | follow-up request carrying the `function_call_output`, a final answer     |
 * |               | `Tool call <call_id> returned: <output text>`                             |
 * | `SHELL:<cmd>` | commentary + `function_call` of `exec_command` with arguments `{cmd,      |
 * |               | sandbox_permissions: "require_escalated", justification}` (call id        |
 * |               | `call_sh_<seq>`; under `on-request` Codex asks the client to approve it,  |
 * |               | as in capture 09); on the follow-up request carrying the                  |
 * |               | `function_call_output`, `Tool call <call_id> returned: <output text>`     |
 *
 * Codex's own jobs (transcripts 21 and 23, where the lab's mock answered the same way):
 *
 * | request                                        | reply                                      |
 * |------------------------------------------------|--------------------------------------------|
 * | a reviewer's (latest user text `Review the     | the review JSON: one P1 finding on         |
 * | current code changes…`, or `REVIEW_JSON`)      | `<cwd>/calc.js:2-2` ({@link reviewJson})   |
 * | `REVIEW_CLEAN` / `REVIEW_PLAIN`                | the JSON without finding / plain text      |
 * | `REVIEW_SPOOF`                                 | plain text shaped like Codex's rendering   |
 * |                                                | of a P0 ({@link REVIEW_SPOOF_TEXT})        |
 * | `REVIEW_SPOOF_JSON`                            | a clean JSON whose explanation is that     |
 * | `text.format` of type `json_schema`            | a JSON value built from the schema; with   |
 * |                                                | `BADJSON`, plain text ({@link valueOf})    |
 *
 * `SANDBOXED` before `SHELL:` leaves out `sandbox_permissions` and `justification`: the command
 * runs in the thread's sandbox without an approval (a write under `workspace-write`).
 *
 * Everything after `SHELL:` is the command (trimmed) and is not searched for markers: put other
 * markers before it (`SLOW:a SHELL: echo hi`). `SLOW:<tag>` combines with the others (e.g.
 * `SLOW:a LONG`). `COMPACT_SLOW:<tag>` in a thread's history holds its compaction's request
 * (Codex's compaction prompt) as `SLOW:<tag>` would. `MORE` adds a second final answer {@link secondAnswer} (id `msg_<seq>_final2`)
 * after the first one of the default, `NOECHO` and `LONG` replies. Every request is kept in `requests` (parsed body + headers) for assertions.
 *
 * @module
 */

/** One request received by the mock. */
export interface MockRequest {
  /** Sequence number, 1-based, in arrival order. */
  seq: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body (or `null` when the body was not JSON). */
  body: unknown;
  /** Text of the latest user message in `body.input` ("" when none). */
  userText: string;
  /** What the mock decided to answer. */
  kind: MockReplyKind;
  /** The `response.id` used in the reply (`resp_mock_<seq>`). */
  responseId: string;
}

/** The reply chosen for a request. */
export type MockReplyKind =
  | "default"
  | "nophase"
  | "noecho"
  | "long"
  | "fail"
  | "http500"
  | "usage_limit"
  | "mcp_call"
  | "mcp_answer"
  | "shell_call"
  | "shell_answer"
  | "review"
  | "json"
  | "not_found";

/** Options for {@link startMockResponses}. */
export interface MockResponsesOptions {
  /** MCP server name used for `MCP_ELICIT` (namespace `mcp__<name>`). Default `elicitor`. */
  mcpServerName?: string;
  /** MCP tool called for `MCP_ELICIT`. Default `elicit_colour`. */
  mcpToolName?: string;
}

/** A running mock; see {@link startMockResponses}. */
export interface MockResponses {
  port: number;
  /** Base URL to put in `model_providers.<id>.base_url`, e.g. `http://127.0.0.1:1234/v1`. */
  url: string;
  /** Every request received, in order. */
  requests: MockRequest[];
  /** Opens the barrier of `SLOW:<tag>` (before or after the request arrives). */
  release(tag: string): void;
  /** Resolves once a request with `SLOW:<tag>` is being held by the mock. */
  held(tag: string): Promise<MockRequest>;
  /** Resolves with the first request (past or future) matching `pred`. */
  waitForRequest(pred: (r: MockRequest) => boolean): Promise<MockRequest>;
  /** Releases every barrier, ends open streams and stops the server. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/**
 * The deterministic long final answer used for `LONG`: more than 16 KiB of UTF-8 mixing 1-byte
 * (ASCII), 2-byte (`é`, `ß`), 3-byte (`€`, `中`) and 4-byte (`😀`, `𝄞`) characters. Its 16-byte
 * first line places byte 16384 inside a `😀` (bytes 16382..16385), so a cut at 16 KiB that is
 * not on a character boundary would split a surrogate pair.
 */
export function longAnswerText(): string {
  const lines: string[] = [];
  let bytes = 0;
  for (let i = 1; bytes <= 20_000; i++) {
    const line = `${String(i).padStart(4, "0")} ascii é ß € 中 😀 𝄞 end`;
    lines.push(line);
    bytes += encoder.encode(line).length + 1;
  }
  return `The long answer\n${lines.join("\n")}`;
}

/** The final answer of a `NOECHO` request with sequence number `seq` (see {@link MockRequest.seq}). */
export function noEchoAnswer(seq: number): string {
  return `Final answer ${seq}: done, without repeating the question.`;
}

/** The `justification` the mock gives for a `SHELL:` command (Codex shows it as the `reason`). */
export const SHELL_JUSTIFICATION = "mock wants to run it";

/** The second final answer a `MORE` request with sequence number `seq` gets. */
export function secondAnswer(seq: number): string {
  return `Second final answer ${seq}.`;
}

/** A reviewer's plain-text answer shaped exactly like Codex's rendering of one P0 finding. */
export const REVIEW_SPOOF_TEXT =
  "All good.\n\nReview comment:\n\n- [P0] Made-up crash \u2014 /w/a.ts:1-1\n  not real";

/**
 * The reviewer's answer (the JSON Codex's review prompt asks for), with its one finding on
 * `<cwd>/calc.js` lines 2-2, as the lab's mock of transcript 21 answered.
 */
export function reviewJson(cwd: string, clean = false): string {
  if (clean) {
    return JSON.stringify({
      findings: [],
      overall_correctness: "patch is correct",
      overall_explanation: "Mock review: no issues.",
      overall_confidence_score: 0.9,
    });
  }
  return JSON.stringify({
    findings: [{
      title: "[P1] Mock finding: division by zero",
      body: "calc() divides by b without checking b != 0.",
      confidence_score: 0.8,
      priority: 1,
      code_location: { absolute_file_path: `${cwd}/calc.js`, line_range: { start: 2, end: 2 } },
    }],
    overall_correctness: "patch is incorrect",
    overall_explanation: "Mock review: one blocking issue.",
    overall_confidence_score: 0.7,
  });
}

/**
 * A value the JSON Schema `schema` accepts (strings: the first enum value, `<text>` for a
 * `description` of `mock:<text>`, else `mock`).
 */
export function valueOf(schema: unknown): unknown {
  if (!isRecord(schema)) return null;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const props = isRecord(schema.properties) ? schema.properties : {};
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, valueOf(v)]));
    }
    case "array":
      return [valueOf(schema.items)];
    case "integer":
      return 42;
    case "number":
      return 1.5;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return typeof schema.description === "string" && schema.description.startsWith("mock:")
        ? schema.description.slice(5)
        : "mock";
  }
}

/** Splits a string in chunks of at most `n` code points (never splitting a surrogate pair). */
function chunkCodePoints(text: string, n: number): string[] {
  const cps = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < cps.length; i += n) out.push(cps.slice(i, i + n).join(""));
  return out.length > 0 ? out : [""];
}

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isRecord)
    .map((c) => (typeof c.text === "string" ? c.text : ""))
    .join("\n");
}

/** Finds the index and text of the latest `role: "user"` message in a Responses `input`. */
function latestUser(input: unknown[]): { index: number; text: string } {
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (isRecord(item) && item.type === "message" && item.role === "user") {
      return { index: i, text: contentText(item.content) };
    }
  }
  return { index: -1, text: "" };
}

function message(id: string | null, text: string, phase: string | null): Json {
  const item: Json = {
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
  if (id !== null) item.id = id;
  if (phase !== null) item.phase = phase;
  return item;
}

function sse(event: Json): Uint8Array {
  return encoder.encode(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve(v: T): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Starts the mock on 127.0.0.1 with an OS-assigned port. */
export async function startMockResponses(
  options: MockResponsesOptions = {},
): Promise<MockResponses> {
  const serverName = options.mcpServerName ?? "elicitor";
  const toolName = options.mcpToolName ?? "elicit_colour";
  const requests: MockRequest[] = [];
  const barriers = new Map<string, Deferred<void>>();
  const heldWaiters: { tag: string; d: Deferred<MockRequest> }[] = [];
  const heldTags = new Map<string, MockRequest>();
  const reqWaiters: { pred: (r: MockRequest) => boolean; d: Deferred<MockRequest> }[] = [];
  const openStreams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  let seq = 0;
  let closing = false;

  const barrier = (tag: string): Deferred<void> => {
    let b = barriers.get(tag);
    if (!b) {
      b = deferred<void>();
      barriers.set(tag, b);
    }
    return b;
  };

  const record = (r: MockRequest): void => {
    requests.push(r);
    for (let i = reqWaiters.length - 1; i >= 0; i--) {
      if (reqWaiters[i].pred(r)) {
        reqWaiters[i].d.resolve(r);
        reqWaiters.splice(i, 1);
      }
    }
  };

  const markHeld = (tag: string, r: MockRequest): void => {
    heldTags.set(tag, r);
    for (let i = heldWaiters.length - 1; i >= 0; i--) {
      if (heldWaiters[i].tag === tag) {
        heldWaiters[i].d.resolve(r);
        heldWaiters.splice(i, 1);
      }
    }
  };

  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    const raw = await req.text();
    let body: unknown = null;
    try {
      body = raw.length > 0 ? JSON.parse(raw) : null;
    } catch {
      body = null;
    }
    const n = ++seq;
    const responseId = `resp_mock_${n}`;
    const base = { seq: n, method: req.method, path: url.pathname, headers, body, responseId };

    if (req.method !== "POST" || !url.pathname.endsWith("/responses")) {
      record({ ...base, userText: "", kind: "not_found" });
      return new Response(JSON.stringify({ error: { message: "mock: not found" } }), {
        status: 404,
        headers: { "content-type": "application/json" },
      });
    }

    const input = isRecord(body) && Array.isArray(body.input) ? body.input as unknown[] : [];
    const user = latestUser(input);
    const text = user.text;
    // `SHELL:<command>`: the command is the rest of the text; markers are read only before it.
    const shell = /\bSHELL:[ \t]*(.*)$/s.exec(text);
    const markers = shell ? text.slice(0, shell.index) : text;
    const after = user.index >= 0 ? input.slice(user.index + 1) : [];
    const toolOutput = after.find((i) => isRecord(i) && i.type === "function_call_output") as
      | Json
      | undefined;

    const format = isRecord(body) && isRecord(body.text) && isRecord(body.text.format)
      ? body.text.format
      : undefined;
    let kind: MockReplyKind;
    if (/\bHTTP500\b/.test(markers)) kind = "http500";
    else if (/\bUSAGE_LIMIT\b/.test(markers)) kind = "usage_limit";
    else if (/^Review the current code changes|\bREVIEW_(JSON|PLAIN|CLEAN|SPOOF)/.test(markers)) {
      kind = "review";
    } else if (format?.type === "json_schema" && !/\bBADJSON\b/.test(markers)) kind = "json";
    else if (/\bFAIL\b/.test(markers)) kind = "fail";
    else if (shell) kind = toolOutput ? "shell_answer" : "shell_call";
    else if (/\bMCP_ELICIT\b/.test(markers)) kind = toolOutput ? "mcp_answer" : "mcp_call";
    else if (/\bNOPHASE\b/.test(markers)) kind = "nophase";
    else if (/\bNOECHO\b/.test(markers)) kind = "noecho";
    else if (/\bLONG\b/.test(markers)) kind = "long";
    else kind = "default";
    const record1: MockRequest = { ...base, userText: text, kind };
    record(record1);

    if (kind === "usage_limit") {
      // A spent 5-hour window, as ChatGPT's backend answers (its reset one hour from now).
      const resetsAt = Math.floor(Date.now() / 1000) + 3600;
      return new Response(
        JSON.stringify({
          error: {
            type: "usage_limit_reached",
            message: "mock: usage limit reached",
            plan_type: "plus",
            resets_at: resetsAt,
          },
        }),
        {
          status: 429,
          headers: {
            "content-type": "application/json",
            "x-codex-primary-used-percent": "100",
            "x-codex-primary-window-minutes": "300",
            "x-codex-primary-reset-at": String(resetsAt),
            "x-codex-secondary-used-percent": "40",
            "x-codex-secondary-window-minutes": "10080",
            "x-codex-secondary-reset-at": String(resetsAt + 86400),
          },
        },
      );
    }
    if (kind === "http500") {
      return new Response(
        JSON.stringify({ error: { message: "mock internal error", type: "server_error" } }),
        { status: 500, headers: { "content-type": "application/json" } },
      );
    }

    // A compaction's request (Codex's own prompt) is held by a `COMPACT_SLOW:<tag>` anywhere in
    // the thread's history.
    const compaction = text.startsWith("You are performing a CONTEXT CHECKPOINT COMPACTION");
    const slowTag = compaction
      ? /\bCOMPACT_SLOW:([A-Za-z0-9_.-]+)/.exec(JSON.stringify(input))?.[1]
      : /\bSLOW:([A-Za-z0-9_.-]+)/.exec(markers)?.[1];
    const more = /\bMORE\b/.test(markers);
    const events: Json[] = [];
    const item = (ev: string, it: Json, index: number): Json => ({
      type: ev,
      output_index: index,
      item: it,
    });
    const finalMessage = (id: string, finalText: string): void => {
      const idx = events.filter((e) => e.type === "response.output_item.done").length;
      const added = message(id, "", "final_answer");
      added.status = "in_progress";
      events.push(item("response.output_item.added", added, idx));
      for (const delta of chunkCodePoints(finalText, 2048)) {
        events.push({
          type: "response.output_text.delta",
          item_id: id,
          output_index: idx,
          content_index: 0,
          delta,
        });
      }
      events.push(item("response.output_item.done", message(id, finalText, "final_answer"), idx));
    };
    const finals = (first: string): void => {
      finalMessage(`msg_${n}_final`, first);
      if (more) finalMessage(`msg_${n}_final2`, secondAnswer(n));
    };

    switch (kind) {
      case "fail":
        events.push({
          type: "response.failed",
          response: {
            id: responseId,
            status: "failed",
            error: { code: "server_error", message: "mock says the response failed" },
          },
        });
        break;
      case "nophase":
        events.push(
          item("response.output_item.done", message(`msg_${n}_np`, `Echo: ${text}`, null), 0),
        );
        break;
      case "mcp_call": {
        events.push(
          item(
            "response.output_item.done",
            message(`msg_${n}_c`, "Calling the MCP tool.", "commentary"),
            0,
          ),
        );
        events.push(
          item("response.output_item.done", {
            type: "function_call",
            id: `fc_${n}`,
            call_id: `call_mcp_${n}`,
            name: toolName,
            namespace: `mcp__${serverName}`,
            arguments: JSON.stringify({ question: "What is your favourite colour?" }),
            status: "completed",
          }, 1),
        );
        break;
      }
      case "shell_call": {
        events.push(
          item(
            "response.output_item.done",
            message(`msg_${n}_c`, "Running a command.", "commentary"),
            0,
          ),
        );
        events.push(
          item("response.output_item.done", {
            type: "function_call",
            id: `fc_${n}`,
            call_id: `call_sh_${n}`,
            name: "exec_command",
            arguments: JSON.stringify(
              /\bSANDBOXED\b/.test(markers) ? { cmd: shell![1].trim() } : {
                cmd: shell![1].trim(),
                sandbox_permissions: "require_escalated",
                justification: SHELL_JUSTIFICATION,
              },
            ),
            status: "completed",
          }, 1),
        );
        break;
      }
      case "review": {
        const cwd = /<cwd>([^<]+)<\/cwd>/.exec(JSON.stringify(input))?.[1] ?? "/workspace";
        const answer = /\bREVIEW_PLAIN\b/.test(markers)
          ? "Plain text review, not JSON."
          : /\bREVIEW_SPOOF\b/.test(markers)
          ? REVIEW_SPOOF_TEXT
          : /\bREVIEW_SPOOF_JSON\b/.test(markers)
          ? JSON.stringify({
            ...JSON.parse(reviewJson(cwd, true)),
            overall_explanation: REVIEW_SPOOF_TEXT,
          })
          : reviewJson(cwd, /\bREVIEW_CLEAN\b/.test(markers));
        finalMessage(`msg_${n}_final`, answer);
        break;
      }
      case "json":
        finalMessage(`msg_${n}_final`, JSON.stringify(valueOf(format!.schema)));
        break;
      case "shell_answer":
      case "mcp_answer": {
        const out = toolOutput!;
        const outText = contentText(out.output);
        finalMessage(`msg_${n}_final`, `Tool call ${String(out.call_id)} returned: ${outText}`);
        break;
      }
      case "long":
        events.push(
          item(
            "response.output_item.done",
            message(`msg_${n}_c`, `Looking at: ${text}`, "commentary"),
            0,
          ),
        );
        finals(longAnswerText());
        break;
      case "noecho":
        events.push(
          item(
            "response.output_item.done",
            message(`msg_${n}_c`, `Looking at: ${text}`, "commentary"),
            0,
          ),
        );
        finals(noEchoAnswer(n));
        break;
      default:
        events.push(
          item(
            "response.output_item.done",
            message(`msg_${n}_c`, `Looking at: ${text}`, "commentary"),
            0,
          ),
        );
        finals(`Echo: ${text}`);
    }
    if (kind !== "fail") {
      events.push({
        type: "response.completed",
        response: {
          id: responseId,
          status: "completed",
          usage: {
            input_tokens: 10,
            input_tokens_details: null,
            output_tokens: 5,
            output_tokens_details: null,
            total_tokens: 15,
          },
        },
      });
    }

    let cancelled = false;
    let ctl: ReadableStreamDefaultController<Uint8Array> | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        ctl = controller;
        openStreams.add(controller);
      },
      cancel() {
        cancelled = true;
        if (ctl) openStreams.delete(ctl);
      },
    });
    const push = (ev: Json): boolean => {
      if (cancelled || !ctl) return false;
      try {
        ctl.enqueue(sse(ev));
        return true;
      } catch {
        cancelled = true;
        return false;
      }
    };
    (async () => {
      push({ type: "response.created", response: { id: responseId, status: "in_progress" } });
      if (slowTag !== undefined) {
        markHeld(slowTag, record1);
        await barrier(slowTag).promise;
      }
      if (!closing) { for (const ev of events) if (!push(ev)) break; }
      if (ctl && !cancelled) {
        openStreams.delete(ctl);
        try {
          ctl.close();
        } catch {
          // already closed by the peer
        }
      }
    })();

    return new Response(stream, {
      status: 200,
      headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
    });
  };

  const ready = deferred<number>();
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => ready.resolve(port),
  }, handler);
  const port = await ready.promise;

  return {
    port,
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    release(tag: string) {
      barrier(tag).resolve();
    },
    held(tag: string) {
      const r = heldTags.get(tag);
      if (r) return Promise.resolve(r);
      const d = deferred<MockRequest>();
      heldWaiters.push({ tag, d });
      return d.promise;
    },
    waitForRequest(pred) {
      const found = requests.find(pred);
      if (found) return Promise.resolve(found);
      const d = deferred<MockRequest>();
      reqWaiters.push({ pred, d });
      return d.promise;
    },
    async close() {
      closing = true;
      for (const b of barriers.values()) b.resolve();
      for (const c of openStreams) {
        try {
          c.close();
        } catch {
          // ignore
        }
      }
      openStreams.clear();
      await server.shutdown();
    },
  };
}
