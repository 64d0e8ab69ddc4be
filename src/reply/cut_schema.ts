/**
 * The result field that says what the relay skipped of a run: Codex's
 * notifications over the frame bound (`cutNotifications`, in `codex_run` and
 * `codex_wait_reply` results). Kept beside `schemas.ts`, which spreads it in.
 * @module
 */

import { z } from "zod";

/**
 * One notification of the run's turn that Codex sent over the relay's frame
 * bound (an `item/completed` whose command printed more than 1 MiB): skipped
 * unread, the connection kept. `itemType` and `itemId` when the frame's start
 * names them; the item as Codex stored it is read by `codex_read_reply`.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * const cut = { method: "item/completed", bytes: 3_000_000, itemType: "commandExecution" };
 * assert.deepEqual(cutNotificationSchema.parse(cut), cut);
 * ```
 */
export const cutNotificationSchema = z.object({
  method: z.string(),
  bytes: z.number().int(),
  itemType: z.string().optional(),
  itemId: z.string().optional(),
});

/** One skipped notification. */
export type CutNotification = z.output<typeof cutNotificationSchema>;

/** The field of a run's result: the first 20 skipped notifications of its turn. */
export const cutFields = {
  cutNotifications: z.array(cutNotificationSchema).optional(),
};
