/**
 * What `codex_list_threads` reads to find the running turns an earlier
 * codex-relay process started in the daemon: the `activeFlags` of each
 * thread of a `thread/list` page, and of a `thread/turns/list` summary page
 * the turns with their `startedAt` and the `clientId`s of their user
 * messages (never their text). Validated as `validate.ts` does: the turn
 * fields the relay relies on fail closed; unknown flags and items are kept
 * or skipped.
 * @module
 */

import { parseTurn, parseTurnsPage } from "./validate.ts";
import type { Turn } from "./types.ts";

type Obj = Record<string, unknown>;

/** A turn of a summary page, with what the run listing needs. */
export interface TurnWithClients extends Turn {
  /** Unix seconds, null when Codex gives none. */
  startedAt: number | null;
  /** The `clientId` of each user message of the turn (null entries skipped). */
  clientIds: string[];
}

/** The `activeFlags` of each thread of a `thread/list` result, in order (empty when absent). */
export function parseActiveFlags(value: unknown): string[][] {
  const data = (value as Obj | null)?.data;
  if (!Array.isArray(data)) return [];
  return data.map((t) => {
    const flags = ((t as Obj | null)?.status as Obj | null | undefined)?.activeFlags;
    return Array.isArray(flags) ? flags.filter((f): f is string => typeof f === "string") : [];
  });
}

/** Validates a `thread/turns/list` page (`itemsView: "summary"`) and reads its user messages' ids. */
export function parseTurnsWithClients(value: unknown): TurnWithClients[] {
  parseTurnsPage(value);
  const data = (value as { data: unknown[] }).data;
  return data.map((raw) => {
    const t = raw as Obj;
    const items = Array.isArray(t.items) ? t.items : [];
    const clientIds = items
      .map((i) => i as Obj | null)
      .filter((i) => i?.type === "userMessage" && typeof i.clientId === "string")
      .map((i) => i!.clientId as string);
    return {
      ...parseTurn(raw),
      startedAt: typeof t.startedAt === "number" && Number.isFinite(t.startedAt)
        ? t.startedAt
        : null,
      clientIds,
    };
  });
}
