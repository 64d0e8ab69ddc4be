/**
 * A turn runtime as the elicitation router sees it, recording every answer
 * it is given, for tests of the router and the input rounds.
 * @module
 */

import type { RuntimeHandle } from "../src/elicit/router.ts";
import type { Cancelled } from "../src/elicit/refusals.ts";

/** A runtime that records answers, changes and whether a human is being asked. */
export class FakeRuntime implements RuntimeHandle {
  readonly id: string = crypto.randomUUID();
  alive = true;
  answers: {
    rpcId: number | string;
    result?: unknown;
    error?: { code: number; message: string };
  }[] = [];
  changes = 0;
  human = false;
  /** The requests answered `cancel`, as the router reported them. */
  cancelled: Cancelled[] = [];
  requestCancelled(cancelled: Cancelled): void {
    this.cancelled.push(cancelled);
  }
  respond(rpcId: number | string, result: unknown): void {
    this.answers.push({ rpcId, result });
  }
  respondError(rpcId: number | string, code: number, message: string): void {
    this.answers.push({ rpcId, error: { code, message } });
  }
  changed(): void {
    this.changes++;
  }
  waitingOnHuman(waiting: boolean): void {
    this.human = waiting;
  }
}
