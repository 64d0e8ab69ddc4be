/**
 * A mock of the Anthropic Messages API (`POST /v1/messages`, streamed as
 * Server-Sent Events or as one JSON message) for driving a real Claude Code
 * offline (`ANTHROPIC_BASE_URL`, as ../shared/claude-code/README.md describes).
 * Each request is kept (`requests`) and answered by the test's `reply`: a
 * text (`end_turn`) or one tool call (`tool_use`). Other paths get an empty
 * JSON object.
 * @module
 */

/** One request the mock received. */
export interface MessagesRequest {
  seq: number;
  path: string;
  /** The parsed body (`null` when not JSON). */
  body: Record<string, unknown> | null;
  /** Every text of the request's messages, joined (tool results' too). */
  text: string;
  /** The names of the tools it offers. */
  tools: string[];
}

/** What the mock answers. */
export type MessagesReply = { text: string } | { tool: string; input: Record<string, unknown> };

/** A running mock. */
export interface MockMessages {
  url: string;
  requests: MessagesRequest[];
  /** Resolves at the first request (from now on) that `match` accepts. */
  next(match: (r: MessagesRequest) => boolean): Promise<MessagesRequest>;
  close(): Promise<void>;
}

/**
 * Starts the mock on a loopback port; `reply` chooses each answer.
 *
 * @example
 * ```ts ignore
 * const mock = startMockMessages(() => ({ text: "ok" }));
 * // ANTHROPIC_BASE_URL=mock.url claude -p ...
 * await mock.close();
 * ```
 */
export function startMockMessages(reply: (r: MessagesRequest) => MessagesReply): MockMessages {
  const requests: MessagesRequest[] = [];
  const waiters: { match: (r: MessagesRequest) => boolean; resolve(r: MessagesRequest): void }[] =
    [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const raw = await req.text();
    if (!path.endsWith("/messages")) return Response.json({});
    const body = parseBody(raw);
    const r: MessagesRequest = {
      seq: requests.length + 1,
      path,
      body,
      text: textsOf(body?.messages).join("\n"),
      tools: Array.isArray(body?.tools)
        ? body.tools.map((t) => String((t as { name?: unknown }).name))
        : [],
    };
    requests.push(r);
    for (const w of [...waiters]) {
      if (w.match(r)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(r);
      }
    }
    const answer = reply(r);
    return body?.stream === true ? streamed(r.seq, answer) : Response.json(message(r.seq, answer));
  });
  const addr = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${addr.port}`,
    requests,
    next: (match) => new Promise((resolve) => waiters.push({ match, resolve })),
    close: () => server.shutdown(),
  };
}

function parseBody(raw: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(raw);
    return typeof v === "object" && v !== null ? v : null;
  } catch {
    return null;
  }
}

/** Every string in the messages (text blocks, tool results, system notes), in order. */
function textsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(textsOf);
  if (typeof value !== "object" || value === null) return [];
  const o = value as Record<string, unknown>;
  return [...textsOf(o.text), ...textsOf(o.content)];
}

function blockOf(seq: number, answer: MessagesReply) {
  return "text" in answer
    ? { type: "text", text: answer.text }
    : { type: "tool_use", id: `toolu_mock_${seq}`, name: answer.tool, input: answer.input };
}

function message(seq: number, answer: MessagesReply) {
  return {
    id: `msg_mock_${seq}`,
    type: "message",
    role: "assistant",
    model: "claude-mock",
    content: [blockOf(seq, answer)],
    stop_reason: "text" in answer ? "end_turn" : "tool_use",
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}

function streamed(seq: number, answer: MessagesReply): Response {
  const m = message(seq, answer);
  const block = blockOf(seq, answer);
  const events: [string, unknown][] = [
    ["message_start", { type: "message_start", message: { ...m, content: [], stop_reason: null } }],
    [
      "content_block_start",
      {
        type: "content_block_start",
        index: 0,
        content_block: block.type === "text" ? { type: "text", text: "" } : { ...block, input: {} },
      },
    ],
    [
      "content_block_delta",
      {
        type: "content_block_delta",
        index: 0,
        delta: block.type === "text"
          ? { type: "text_delta", text: block.text }
          : { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      },
    ],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      {
        type: "message_delta",
        delta: { stop_reason: m.stop_reason, stop_sequence: null },
        usage: { output_tokens: 5 },
      },
    ],
    ["message_stop", { type: "message_stop" }],
  ];
  const text = events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join("");
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}
