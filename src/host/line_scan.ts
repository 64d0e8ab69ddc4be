/**
 * What an MCP message too large to parse says about itself, read as it is
 * skipped: a small streaming scanner over its bytes (nothing of the line is
 * kept but a few small fields) that follows JSON's strings and nesting and
 * notes the keys of the top-level object only: its `id` (wherever it lies),
 * and whether it has a `method`, a `result` or an `error`. A key inside a
 * string or a nested object is never taken for a top-level one.
 * @module
 */

import type { RpcId } from "../codex/types.ts";

/** What the scanned line asks for: an answer (by its id, or `null` when none can be told) or none. */
export type LineVerdict =
  /** A notification (a method, no id) or a response: nothing to answer. */
  | { answer: false }
  /** A request (or something that is neither): answer it with this id. */
  | { answer: true; id: RpcId | null };

/** The longest key and id value kept, in bytes (longer ones are not the keys or ids looked for). */
const KEEP_BYTES = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

/** Where the scanner is in the top-level object. */
type At = "start" | "key" | "colon" | "value" | "comma" | "end";

/**
 * A streaming scan of one line. Feed it with {@linkcode LineScan.push}, then
 * ask {@linkcode LineScan.verdict}.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const scan = new LineScan();
 * scan.push(new TextEncoder().encode('{"method":"x","params":{"id":1},'));
 * scan.push(new TextEncoder().encode('"id":"r-7"}'));
 * assert.deepEqual(scan.verdict(), { answer: true, id: "r-7" });
 * ```
 */
export class LineScan {
  #at: At = "start";
  #depth = 0;
  #inString = false;
  #escape = false;
  #malformed = false;
  /** Inside a top-level scalar value. */
  #scalar = false;
  /** The bytes of the top-level key or value being read (undefined: past KEEP_BYTES or not kept). */
  #kept: number[] | undefined;
  // Stryker disable next-line StringLiteral: never read before the first key sets it
  #key = "";
  #keys = new Set<string>();
  /** The raw JSON text of the last top-level `id` value (null: too long to keep). */
  #id: string | null | undefined;

  /** Scans the next bytes of the line. */
  push(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.#malformed; i++) this.#byte(bytes[i]);
  }

  #byte(b: number): void {
    if (this.#inString) return this.#stringByte(b);
    if (this.#depth > 1) return this.#nestedByte(b);
    if (this.#scalar) {
      // Inside a top-level scalar (a number, true, false, null).
      if (b !== 0x2c && b !== 0x7d && !isSpace(b)) return this.#keep(b);
      this.#endValue();
    }
    if (isSpace(b)) return;
    this.#structural(b);
  }

  #structural(b: number): void {
    const at = this.#at;
    if (at === "start" && b === 0x7b) {
      this.#depth = 1;
      this.#at = "key";
    } else if (at === "key" && b === QUOTE) {
      // An empty object (`{}`) is malformed here: it has no id either way.
      this.#openString([QUOTE]);
    } else if (at === "colon" && b === 0x3a) {
      this.#at = "value";
    } else if (at === "value") {
      this.#startValue(b);
    } else if (at === "comma" && b === 0x2c) {
      this.#at = "key";
    } else if (at === "comma" && b === 0x7d) {
      this.#close();
    } else {
      this.#malformed = true;
    }
  }

  #startValue(b: number): void {
    // Only the id's value is kept.
    const kept = this.#key === "id" ? [b] : undefined;
    if (b === QUOTE) return this.#openString(kept);
    if (b === 0x7b || b === 0x5b) {
      if (this.#key === "id") this.#id = null; // An object or array: no id to echo.
      this.#depth = 2;
      this.#at = "comma";
      return;
    }
    if (b === 0x2c || b === 0x7d || b === 0x3a || b === 0x5d) {
      this.#malformed = true;
      return;
    }
    this.#scalar = true;
    this.#kept = kept;
  }

  #openString(kept: number[] | undefined): void {
    this.#inString = true;
    this.#kept = kept;
  }

  #stringByte(b: number): void {
    this.#keep(b);
    if (this.#escape) {
      this.#escape = false;
    } else if (b === BACKSLASH) {
      this.#escape = true;
    } else if (b === QUOTE) {
      this.#inString = false;
      // Stryker disable next-line ConditionalExpression: a nested string ends in the "comma" state with nothing kept, where #endValue changes nothing
      if (this.#depth > 1) return;
      if (this.#at === "key") {
        // Stryker disable next-line StringLiteral: a key that cannot be read is none of id, method, result, error, whatever it is called
        this.#key = parsed(this.#kept) ?? "";
        this.#keys.add(this.#key);
        this.#kept = undefined;
        this.#at = "colon";
      } else {
        this.#endValue();
      }
    }
  }

  #nestedByte(b: number): void {
    if (b === QUOTE) this.#inString = true;
    else if (b === 0x7b || b === 0x5b) this.#depth++;
    else if (b === 0x7d || b === 0x5d) this.#depth--;
  }

  #keep(b: number): void {
    if (this.#kept === undefined) return;
    if (this.#kept.length >= KEEP_BYTES) {
      this.#kept = undefined;
      if (this.#at === "value") this.#id = null; // Only the id's value is kept.
      return;
    }
    this.#kept.push(b);
  }

  #endValue(): void {
    if (this.#kept !== undefined) {
      this.#id = new TextDecoder().decode(new Uint8Array(this.#kept));
    }
    this.#kept = undefined;
    this.#scalar = false;
    this.#at = "comma";
  }

  #close(): void {
    this.#depth = 0;
    this.#at = "end";
  }

  /**
   * What to do with the whole line: a request with a top-level id is
   * answered by it; a notification or a response is not answered; anything
   * else (not an object, malformed, an id that cannot be echoed exactly) is
   * answered with `id: null`, as JSON-RPC 2.0 says for an id that cannot be
   * told.
   */
  verdict(): LineVerdict {
    const whole = !this.#malformed && this.#at === "end" && !this.#inString;
    if (!whole) return { answer: true, id: null };
    const keys = this.#keys;
    if (!keys.has("id") && (keys.has("method") || keys.has("result") || keys.has("error"))) {
      return { answer: false };
    }
    if (keys.has("id") && !keys.has("method") && (keys.has("result") || keys.has("error"))) {
      return { answer: false };
    }
    return { answer: true, id: echoable(this.#id) };
  }
}

/** The string a kept JSON string's bytes hold, or undefined when they are not one. */
function parsed(kept: number[] | undefined): string | undefined {
  // Stryker disable next-line ConditionalExpression: JSON.parse("") throws: undefined either way
  if (kept === undefined) return undefined;
  try {
    const value = JSON.parse(new TextDecoder().decode(new Uint8Array(kept)));
    // Stryker disable BlockStatement: the catch block below: a function that returns nothing returns undefined
    // Stryker disable next-line ConditionalExpression: kept bytes of a key open and close with a quote: a string, or JSON.parse throws
    return typeof value === "string" ? value : undefined;
  } catch {
    // Stryker restore BlockStatement
    return undefined;
  }
}

/** An id's JSON text as an id the answer can carry exactly (a number must read back as written). */
function echoable(raw: string | null | undefined): RpcId | null {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: JSON.parse(null) is null and JSON.parse(undefined) throws: null either way
  if (raw === null || raw === undefined) return null;
  let value: unknown;
  try {
    // Stryker disable BlockStatement: the catch block below: a value left undefined is no id either
    value = JSON.parse(raw);
  } catch {
    // Stryker restore BlockStatement
    return null;
  }
  if (typeof value === "string") return value;
  // A number too large for a double (1e999) reads as Infinity, which String() never writes as its text.
  if (typeof value === "number" && String(value) === raw) return value;
  return null;
}
