/**
 * A frame from the app-server over the frame bound, skipped unbuffered: what
 * the transports keep of it (its first and last bytes, its size) and what the
 * relay tells from that (which notification, which thread, which request it
 * answers). Pure.
 * @module
 */

import { concatBytes } from "../core/bytes.ts";

/** Bytes kept of each end of a cut frame. */
export const CUT_KEEP_BYTES = 2048;

/** A frame over the bound: its size and its ends, the rest never buffered. */
export interface CutFrame {
  /** Its length in bytes (the line's, without its newline). */
  bytes: number;
  /** Its first bytes (at most {@linkcode CUT_KEEP_BYTES}), as text. */
  head: string;
  /** Its last bytes (at most {@linkcode CUT_KEEP_BYTES}), as text. */
  tail: string;
}

/**
 * Keeps what a cut frame's {@linkcode CutFrame} says while the frame is
 * skipped: its size and its first and last {@linkcode CUT_KEEP_BYTES}, never
 * more, however long it is.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const keep = new CutKeeper();
 * keep.add(new TextEncoder().encode('{"method":"x"'));
 * keep.add(new Uint8Array(5_000_000).fill(0x20));
 * keep.add(new TextEncoder().encode("}"));
 * const cut = keep.frame();
 * assert.equal(cut.bytes, 5_000_014);
 * assert.ok(cut.head.startsWith('{"method"'));
 * assert.ok(cut.tail.endsWith("}"));
 * ```
 */
export class CutKeeper {
  #size = 0;
  #head: Uint8Array = new Uint8Array(0);
  #tail: Uint8Array[] = [];
  #tailSize = 0;

  /** Counts the next `piece` of the frame, keeping only its ends. */
  add(piece: Uint8Array): void {
    this.#size += piece.length;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a full head takes an empty piece (subarray(0, 0)): the same head
    if (this.#head.length < CUT_KEEP_BYTES) {
      const take = piece.subarray(0, CUT_KEEP_BYTES - this.#head.length);
      this.#head = concatBytes([this.#head, take], this.#head.length + take.length);
    }
    const last = piece.subarray(Math.max(0, piece.length - CUT_KEEP_BYTES)).slice();
    this.#tail.push(last);
    this.#tailSize += last.length;
    // One piece alone is kept: its size less its own is 0, below the bound.
    // Stryker disable next-line EqualityOperator: `>` keeps one piece more when the rest is exactly the bound: frame() cuts the tail to the bound either way
    while (this.#tailSize - this.#tail[0].length >= CUT_KEEP_BYTES) {
      this.#tailSize -= this.#tail.shift()!.length;
    }
  }

  /** The frame as skipped so far. */
  frame(): CutFrame {
    const tail = concatBytes(this.#tail, this.#tailSize);
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return {
      bytes: this.#size,
      head: decode(this.#head),
      tail: decode(tail.subarray(Math.max(0, tail.length - CUT_KEEP_BYTES))),
    };
  }
}

/**
 * The relay's own notification for a cut notification, routed to its thread
 * like Codex's own ({@linkcode CutNotice} its params).
 */
// Stryker disable next-line StringLiteral: the relay's own name, sent and read only by its own code (rpc_connection.ts, turn_events.ts): any name Codex does not send is the same
export const CUT_NOTIFICATION = "codex-relay/notificationCut";

/** What the relay tells of a cut notification (the params of {@linkcode CUT_NOTIFICATION}). */
export interface CutNotice {
  /** Codex's method (`item/completed`). */
  method: string;
  /** The frame's length in bytes. */
  bytes: number;
  /** Its thread, when its end names one. */
  threadId?: string;
  /** Its turn, when its end names one. */
  turnId?: string;
  /** The item's id and type, when its start names them. */
  itemId?: string;
  itemType?: string;
}

/** What a cut frame was: a notification, an answer to a request, or unknown. */
export type CutKind =
  | { kind: "notification"; notice: CutNotice }
  | { kind: "response"; id: number | string }
  | { kind: "unknown" };

const METHOD_FIRST = /^\s*\{\s*"method"\s*:\s*"([^"\\]{1,128})"/;
const REQUEST = /^\s*\{\s*"method"\s*:\s*"[^"\\]*"\s*,\s*"id"\s*:/;
const ID_FIRST = /^\s*\{\s*"id"\s*:\s*(\d{1,15}|"[^"\\]{1,128}")\s*,\s*"(?:result|error)"/;

/**
 * Tells what a cut frame was from its ends. Codex writes a notification
 * `{"method":…,"params":{"item":{…},"threadId":…,"turnId":…}}` (the method
 * first, the ids last) and an answer `{"id":…,"result":…}`; a server request
 * names both a method and an id and is `unknown` (it cannot be answered).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const head = '{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"call_1","aggregatedOutput":"xxxx';
 * const tail = 'xxxx"},"threadId":"t1","turnId":"u1"}}';
 * const cut = classifyCut({ bytes: 3_000_000, head, tail });
 * assert.ok(cut.kind === "notification", cut.kind);
 * assert.equal(cut.notice.threadId, "t1");
 * assert.equal(cut.notice.itemType, "commandExecution");
 * ```
 */
export function classifyCut(frame: CutFrame): CutKind {
  const id = ID_FIRST.exec(frame.head);
  if (id) {
    // Stryker disable next-line MethodExpression: an id is digits or a quoted string: it starts with a quote exactly when it ends with one
    return { kind: "response", id: id[1].startsWith('"') ? id[1].slice(1, -1) : Number(id[1]) };
  }
  const method = METHOD_FIRST.exec(frame.head);
  if (!method || REQUEST.test(frame.head)) return { kind: "unknown" };
  const notice: CutNotice = { method: method[1], bytes: frame.bytes };
  const threadId = lastString(frame.tail, "threadId");
  const turnId = lastString(frame.tail, "turnId");
  if (threadId) notice.threadId = threadId;
  if (turnId) notice.turnId = turnId;
  // Stryker disable next-line StringLiteral: no item: its ids are looked for in a text with no key, and any such text finds none
  const item = /"params"\s*:\s*\{\s*"item"\s*:\s*\{([^{}]*)/.exec(frame.head)?.[1] ?? "";
  const itemType = firstString(item, "type");
  const itemId = firstString(item, "id");
  if (itemType) notice.itemType = itemType;
  if (itemId) notice.itemId = itemId;
  return { kind: "notification", notice };
}

function firstString(text: string, key: string): string | undefined {
  return new RegExp(`"${key}"\\s*:\\s*"([^"\\\\]{1,200})"`).exec(text)?.[1];
}

function lastString(text: string, key: string): string | undefined {
  const all = [...text.matchAll(new RegExp(`"${key}"\\s*:\\s*"([^"\\\\]{1,200})"`, "g"))];
  return all.at(-1)?.[1];
}
