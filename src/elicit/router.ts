/**
 * The elicitation router: every server→client request of every turn runtime
 * gets an opaque token bound to that runtime and JSON-RPC id, kept in a flow
 * table until it is answered exactly once — by the MCP client, or by the
 * router itself (decline when the client cannot answer, cancel at the
 * deadline). Codex is never left waiting.
 * @module
 */

import type { RpcId } from "../codex/types.ts";
import type { Logger } from "../core/log.ts";
import type { Clock, Timer } from "../core/clock.ts";
import { answerProblem } from "./validate_answer.ts";
import {
  type ClientAnswer,
  type Forward,
  forwardOf,
  refusalAnswer,
  ROUTED_METHODS,
  urlAnswer,
} from "./mappings.ts";
import type { Cancelled } from "./refusals.ts";

/** What the router needs of a runtime. */
export interface RuntimeHandle {
  /** Unique per runtime (a replaced runtime has another id). */
  readonly id: string;
  /** Whether the runtime's helper is still alive. */
  readonly alive: boolean;
  /** Writes a result for the server request `rpcId`. */
  respond(rpcId: RpcId, result: unknown): void;
  /** Writes a JSON-RPC error for the server request `rpcId`. */
  respondError(rpcId: RpcId, code: number, message: string): void;
  /** Wakes the tool calls following this runtime. */
  changed(): void;
  /** Whether a pending human answer should pause the runtime's stall watchdog. */
  waitingOnHuman(waiting: boolean): void;
  /** The router declined a request at once that it cannot forward; tell the caller. */
  declinedUnforwardable?(declined: DeclinedRequest): void;
  /** An accepted answer broke the requested schema and was sent as `decline`: why. */
  answerRefused?(summary: string, problem: string): void;
  /** A request was answered `cancel` (Codex stops the turn): which, and who cancelled it. */
  requestCancelled(cancelled: Cancelled): void;
}

/** A request the router declined at once because it cannot be forwarded to the client. */
export interface DeclinedRequest {
  /** The Codex method. */
  method: string;
  /** A one-line summary (no answer content). */
  summary: string;
}

/** A request waiting for an answer. */
export interface Pending {
  /** The opaque token the client sees. */
  token: string;
  /** The Codex method. */
  method: string;
  /** How it is shown to the client. */
  forward: Forward;
  /** A one-line summary for `pendingRequests` and `declinedRequests`. */
  summary: string;
}

interface Entry extends Pending {
  runtime: RuntimeHandle;
  rpcId: RpcId;
  timer: Timer;
}

/** How an answer attempt ended. */
export type AnswerOutcome =
  | "answered"
  /** The answer broke the requested schema: Codex got `decline`. */
  | "invalid"
  /** No such pending token (answered already, expired, or made up). */
  | "unknown_token"
  /** The token belongs to another runtime than the caller claimed. */
  | "wrong_runtime"
  /** The runtime is gone: the answer is dropped. */
  | "gone"
  /** No answer came for it: Codex got `decline`. */
  | "declined";

/** Router options. */
export interface RouterOptions {
  clock: Clock;
  log: Logger;
  /** How long a request may wait for the client before the router answers `cancel`. */
  deadlineMs?: number;
  /** Accept MCP tool-call approvals without asking (explicit opt-in). */
  autoApproveMcpTools?: boolean;
}

/** The default pending-request deadline: 10 minutes. */
export const PENDING_DEADLINE_MS = 10 * 60 * 1000;

/** The flow table and its routing rules. */
export class ElicitationRouter {
  readonly #entries = new Map<string, Entry>();
  readonly #clock: Clock;
  readonly #log: Logger;
  readonly #deadlineMs: number;
  readonly #autoApprove: boolean;

  constructor(options: RouterOptions) {
    this.#clock = options.clock;
    this.#log = options.log;
    this.#deadlineMs = Math.min(options.deadlineMs ?? PENDING_DEADLINE_MS, PENDING_DEADLINE_MS);
    this.#autoApprove = options.autoApproveMcpTools ?? false;
  }

  /** Requests waiting now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Takes a server→client request from `runtime`. */
  receive(runtime: RuntimeHandle, rpcId: RpcId, method: string, params: unknown): void {
    if (!ROUTED_METHODS.has(method)) {
      runtime.respondError(rpcId, -32601, `codex-relay does not handle ${method}`);
      this.#log.warn("unrouted server request", { method });
      return;
    }
    // Stryker disable next-line ConditionalExpression: a primitive passing as params reads as {} does: every property undefined
    const p = typeof params === "object" && params !== null
      ? params as Record<string, unknown>
      : {};
    const meta = p._meta as Record<string, unknown> | undefined;
    if (
      this.#autoApprove && method === "mcpServer/elicitation/request" &&
      meta?.codex_approval_kind === "mcp_tool_call"
    ) {
      runtime.respond(rpcId, { action: "accept", content: null, _meta: null });
      this.#log.info("auto-approved mcp tool call");
      return;
    }
    const forward = forwardOf(method, p);
    if (forward.kind === "unsupported") {
      runtime.respond(rpcId, refusalAnswer(method, "decline"));
      this.#log.info("declined unsupported request", { method });
      runtime.declinedUnforwardable?.({ method, summary: forward.summary.slice(0, 200) });
      return;
    }
    const token = newToken();
    const timer = this.#clock.after(this.#deadlineMs, () => this.#expire(token));
    this.#entries.set(token, {
      token,
      method,
      forward,
      summary: forward.message.split("\n")[0].slice(0, 200),
      runtime,
      rpcId,
      timer,
    });
    this.#log.debug("pending", { method, token: token.slice(0, 6) });
    this.#touch(runtime);
  }

  /** The requests `runtime` is waiting on, oldest first. */
  pendingFor(runtime: RuntimeHandle): Pending[] {
    return [...this.#entries.values()]
      .filter((e) => e.runtime.id === runtime.id)
      .map(({ token, method, forward, summary }) => ({ token, method, forward, summary }));
  }

  /**
   * Writes the client's answer for `token` to the exact pending request, once.
   * `runtimeId` is the runtime the caller's sealed state names.
   */
  answer(token: string, runtimeId: string, answer: ClientAnswer): AnswerOutcome {
    const entry = this.#entries.get(token);
    if (!entry) return "unknown_token";
    if (entry.runtime.id !== runtimeId) return "wrong_runtime";
    this.#retire(entry);
    if (!entry.runtime.alive) return "gone";
    const { forward, method } = entry;
    if (answer.action !== "accept") {
      entry.runtime.respond(
        entry.rpcId,
        // Stryker disable next-line ConditionalExpression,StringLiteral: only mcpServer/elicitation/request is url-kind, and its refusal is urlAnswer's shape
        forward.kind === "url" ? urlAnswer(answer.action) : refusalAnswer(method, answer.action),
      );
      if (answer.action === "cancel") {
        entry.runtime.requestCancelled({ method, summary: asked(entry), by: "client" });
      }
      return "answered";
    }
    if (forward.kind === "url") {
      entry.runtime.respond(entry.rpcId, urlAnswer("accept"));
      return "answered";
    }
    // Stryker disable next-line ConditionalExpression: a pending entry is url or form (unsupported ones are declined at once): past url, form
    if (forward.kind === "form") {
      const problem = answerProblem(forward.requestedSchema, answer.content ?? {});
      if (problem) {
        entry.runtime.respond(entry.rpcId, refusalAnswer(method, "decline"));
        entry.runtime.answerRefused?.(entry.summary, problem);
        this.#log.info("answer refused", { method, problem });
        return "invalid";
      }
      entry.runtime.respond(entry.rpcId, forward.accept(answer.content ?? {}));
      return "answered";
    }
    // Stryker disable next-line StringLiteral: unreachable: no pending entry is of another kind than url or form
    return "unknown_token";
  }

  /** Answers `token` with `decline` itself (client cannot or did not answer); false if not pending. */
  decline(token: string, why: string): boolean {
    const entry = this.#entries.get(token);
    if (!entry) return false;
    this.#retire(entry);
    if (entry.runtime.alive) {
      entry.runtime.respond(entry.rpcId, refusalAnswer(entry.method, "decline"));
    }
    this.#log.info("declined", { method: entry.method, why });
    return true;
  }

  /** Declines everything `runtime` waits on (or everything, at shutdown). */
  declineAll(runtime: RuntimeHandle | undefined, why: string): void {
    for (const entry of [...this.#entries.values()]) {
      if (!runtime || entry.runtime.id === runtime.id) this.decline(entry.token, why);
    }
  }

  /** `serverRequest/resolved`: Codex no longer waits on this request. */
  resolved(runtime: RuntimeHandle, rpcId: unknown): void {
    for (const entry of this.#entries.values()) {
      if (entry.runtime.id === runtime.id && entry.rpcId === rpcId) {
        this.#retire(entry);
        this.#log.debug("resolved by codex", { method: entry.method });
        return;
      }
    }
  }

  /** The runtime is gone: its requests can no longer be answered; forget them. */
  forget(runtime: RuntimeHandle): void {
    for (const entry of [...this.#entries.values()]) {
      if (entry.runtime.id === runtime.id) this.#retire(entry);
    }
  }

  #expire(token: string): void {
    const entry = this.#entries.get(token);
    // Stryker disable next-line ConditionalExpression: the deadline timer is cancelled whenever its entry is retired: it never finds none
    if (!entry) return;
    this.#retire(entry);
    if (entry.runtime.alive) {
      entry.runtime.respond(entry.rpcId, refusalAnswer(entry.method, "cancel"));
      entry.runtime.requestCancelled({
        method: entry.method,
        summary: asked(entry),
        by: "deadline",
      });
    }
    this.#log.info("cancelled at deadline", { method: entry.method });
  }

  #retire(entry: Entry): void {
    if (!this.#entries.delete(entry.token)) return;
    entry.timer.cancel();
    this.#touch(entry.runtime);
  }

  #touch(runtime: RuntimeHandle): void {
    runtime.waitingOnHuman([...this.#entries.values()].some((e) => e.runtime.id === runtime.id));
    runtime.changed();
  }
}

/** What a request asked, on one line (a command approval's command and folder included). */
function asked(entry: Pending): string {
  const message = "message" in entry.forward ? entry.forward.message : entry.summary;
  return message.replaceAll("\n", " ").slice(0, 300);
}

function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_");
}
