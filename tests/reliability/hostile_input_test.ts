/**
 * Hostile input through one relay process (`mod.ts serve --allow-reply-read`):
 * property tests over every tool's arguments (types, sizes, Unicode, NUL, lone
 * surrogates, huge numbers, unknown fields) and over read cursors (real ones
 * of another scope, forged, mutated, random), plus malformed MCP frames on the
 * relay's stdin. The relay must never crash, never return text outside the
 * caller's scope, and always answer clearly: `isError` with a message for
 * invalid input (and nothing spawned), a status result otherwise. At the
 * turn-start level: `codex_run` and `codex_interrupt` arguments, and forged,
 * mutated, replayed or misapplied `requestState` retries of `codex_run` and
 * `codex_wait_reply`, none of which may reach Codex (the fixture's answers).
 * This file has the tool-argument and cursor properties; the turn-start level is in
 * `hostile_turn_start_test.ts`, the raw frames in `hostile_frames_test.ts`, their
 * shared setup in `_hostile.ts`.
 */

import assert from "assert";
import fc from "fast-check";
import { FixtureHome } from "../../testing/fixture_home.ts";
import { closeAfter } from "../../testing/relay.ts";
import { encodeCursor } from "../../src/reply/cursor.ts";
import { callTool } from "../../testing/call_tool.ts";
import {
  leakedSecrets,
  READ_CLIENT_ID,
  registeredTools,
  type RelayProcess,
  startRelayProcess,
} from "./_reliability.ts";
import {
  ALL_SECRETS,
  anyValue,
  argsOf,
  field,
  hostileCaller,
  hostileScenario,
  hostileString,
  MARK_A,
  MARK_B,
  RUNS,
  SCOPE_A,
  SCOPE_B,
  TURN_TOOLS,
  UNKNOWN_THREAD,
  UUID,
  VALID,
} from "./_hostile.ts";

let relay: RelayProcess;
let f: FixtureHome;
const hostileCall = hostileCaller(() => ({ relay, f }));

const h = hostileScenario();
const known = h.s;

Deno.test({
  name: "hostile input: tool arguments and cursors never crash the relay or leak out of scope",
  async fn(t) {
    f = await FixtureHome.create(h.scenario);
    relay = await startRelayProcess({ env: f.env, flags: ["--allow-reply-read"] });
    const { code, stderr, left } = await closeAfter(relay, f, async () => {
      const tools = await registeredTools(relay.client);
      assert.deepEqual(
        tools.sort(),
        Object.keys(VALID).filter((t) => !TURN_TOOLS.includes(t)).sort(),
        "every registered tool is covered",
      );

      await t.step(`codex_queue_message: ${RUNS.queue} hostile argument sets`, async () => {
        const refs = [
          known.main.id,
          known.named.id,
          "reliability named",
          UNKNOWN_THREAD,
          "no such name",
        ];
        const arb = argsOf({
          threadId: field(fc.constantFrom(...refs)),
          text: field(fc.string({ unit: "grapheme", minLength: 1, maxLength: 64 })),
        });
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_queue_message", args, ALL_SECRETS);
            if (!out) return;
            assert.ok(["queued", "not_sent", "unknown"].includes(String(out.status)));
            if (out.status !== "queued") assert.equal(typeof out.reason, "string");
            const resolvable = [known.main.id, known.named.id, "reliability named"];
            if (!resolvable.includes(args.threadId as string)) {
              assert.equal(out.status, "not_sent", "an unknown thread stores nothing");
            }
          }),
          { numRuns: RUNS.queue },
        );
      });

      await t.step(`codex_list_threads: ${RUNS.list} hostile argument sets`, async () => {
        const arb = argsOf({
          limit: field(fc.integer({ min: 1, max: 50 })),
          cursor: field(fc.string({ minLength: 1, maxLength: 40 })),
        });
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_list_threads", args, ALL_SECRETS);
            if (!out) return;
            if (args.cursor === undefined) assert.equal(out.status, "ok");
            else assert.deepEqual([out.status, out.reason], ["unavailable", "invalid_cursor"]);
          }),
          { numRuns: RUNS.list },
        );
      });

      await t.step(`codex_read_reply: ${RUNS.read} hostile argument sets`, async () => {
        const arb = argsOf({
          threadId: field(fc.constantFrom(known.main.id, h.big.id, UNKNOWN_THREAD)),
          clientMessageId: field(fc.constantFrom(READ_CLIENT_ID, SCOPE_A, "not-a-message")),
          cursor: field(fc.string({ minLength: 1, maxLength: 40 })),
          refresh: field(fc.boolean()),
        });
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_read_reply", args, [...ALL_SECRETS, MARK_B]);
            if (!out) return;
            const status = String(out.status);
            assert.ok(
              ["observed", "queued", "no_match", "not_found", "ambiguous", "unavailable"]
                .includes(status),
              status,
            );
            if (args.clientMessageId === "not-a-message") {
              // Never queued anywhere: never answered as found.
              assert.ok(["no_match", "not_found", "unavailable"].includes(status), status);
            }
            if (args.cursor !== undefined) {
              // A name is looked up first (no thread has these hostile names); an id is not.
              const reason = UUID.test(String(args.threadId))
                ? "invalid_cursor"
                : "thread_not_found";
              assert.deepEqual([out.status, out.reason], ["unavailable", reason]);
            }
          }),
          { numRuns: RUNS.read },
        );
      });

      await t.step(`codex_wait_reply: ${RUNS.wait} hostile argument sets`, async () => {
        // Valid combinations all settle at once (observed, or unavailable), so no call waits.
        const invalidId = anyValue.filter((v) => !VALID.codex_wait_reply.clientMessageId.ok(v));
        const invalidSeconds = anyValue.filter((v) => !VALID.codex_wait_reply.timeoutSeconds.ok(v));
        const arb = argsOf({
          threadId: field(fc.constantFrom(known.main.id, UNKNOWN_THREAD)),
          clientMessageId: field(fc.constant(READ_CLIENT_ID), invalidId),
          cursor: field(fc.string({ minLength: 1, maxLength: 40 })),
          timeoutSeconds: field(fc.constant(1), invalidSeconds),
        });
        await fc.assert(
          fc.asyncProperty(arb, async (args) => {
            const out = await hostileCall("codex_wait_reply", args, ALL_SECRETS);
            if (!out) return;
            assert.equal(out.timedOut, false, "a settled wait did not time out");
          }),
          { numRuns: RUNS.wait },
        );
      });

      await t.step(
        `read cursors: ${RUNS.cursor} cursors of other scopes, forged, mutated or random`,
        async () => {
          const read = (scope: string, cursor?: string) =>
            callTool(relay.client, "codex_read_reply", {
              threadId: h.big.id,
              clientMessageId: scope,
              ...(cursor === undefined ? {} : { cursor }),
            }).then((r) => r.structuredContent);
          const cursors: Record<string, { search: string; reply: string }> = {};
          for (const [scope, mark] of [[SCOPE_A, MARK_A], [SCOPE_B, MARK_B]]) {
            const first = await read(scope);
            assert.equal(first.status, "no_match", "the message is older than one search page");
            const found = await read(scope, first.searchCursor as string);
            assert.equal(found.status, "observed");
            const texts = found.replies as { text: string; truncated: boolean }[];
            assert.ok(texts.length > 0 && texts.every((r) => r.text.startsWith(mark)));
            assert.equal(typeof found.nextCursor, "string", "more replies than one page holds");
            cursors[scope] = {
              search: first.searchCursor as string,
              reply: found.nextCursor as string,
            };
          }
          const forge = (data: Record<string, unknown>) =>
            encodeCursor(
              { v: 1, threadId: h.big.id, ...data } as Parameters<typeof encodeCursor>[0],
            );
          const appCursor = (offset: number) =>
            JSON.stringify({
              requestedThreadId: h.big.id,
              rolloutOrdinal: offset,
              scope: { kind: "itemsDesc" },
            });
          const forged = [SCOPE_A, SCOPE_B].flatMap((scope) => {
            const [other, otherUser, ownUser, ownTurn] = scope === SCOPE_A
              ? [h.ids.turnB, h.ids.userB, h.ids.userA, h.ids.turnA]
              : [h.ids.turnA, h.ids.userA, h.ids.userB, h.ids.turnB];
            const reply = { kind: "reply", clientMessageId: scope };
            return [
              forge({ ...reply, userItemId: otherUser, turnId: other, lastItemId: null }),
              forge({ ...reply, userItemId: ownUser, turnId: other, lastItemId: null }),
              forge({ ...reply, userItemId: otherUser, turnId: ownTurn, lastItemId: null }),
              forge({
                ...reply,
                userItemId: ownUser,
                turnId: ownTurn,
                lastItemId: `msg_${scope === SCOPE_A ? MARK_B : MARK_A}_1`,
              }),
              forge({ kind: "search", clientMessageId: scope, appCursor: appCursor(103) }),
              forge({ kind: "search", clientMessageId: scope, appCursor: "garbage" }),
            ];
          });
          const real = [
            cursors[SCOPE_A].search,
            cursors[SCOPE_A].reply,
            cursors[SCOPE_B].search,
            cursors[SCOPE_B].reply,
          ];
          const pool = [...real, ...forged];
          const mutated = fc.tuple(
            fc.constantFrom(...pool),
            fc.nat(),
            fc.string({ maxLength: 3 }),
            fc.nat(3),
          ).map(
            ([c, at, s, how]) => {
              const i = at % (c.length + 1);
              if (how === 0) return c.slice(0, i) + s + c.slice(i + 1);
              if (how === 1) return c.slice(0, i) || c.slice(1);
              if (how === 2) return c + s;
              return s + c;
            },
          );
          const cursorArb = fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...pool) },
            { weight: 3, arbitrary: mutated },
            { weight: 1, arbitrary: hostileString },
            { weight: 1, arbitrary: fc.base64String({ maxLength: 200 }) },
          );
          await fc.assert(
            fc.asyncProperty(
              fc.constantFrom(SCOPE_A, SCOPE_B),
              cursorArb,
              fc.option(fc.boolean(), { nil: undefined }),
              async (scope, cursor, refresh) => {
                const args: Record<string, unknown> = {
                  threadId: h.big.id,
                  clientMessageId: scope,
                  cursor,
                };
                if (refresh !== undefined) args.refresh = refresh;
                const otherMark = scope === SCOPE_A ? MARK_B : MARK_A;
                const out = await hostileCall("codex_read_reply", args, [
                  ...ALL_SECRETS,
                  otherMark,
                ]);
                if (!out) return;
                const otherScope = scope === SCOPE_A ? SCOPE_B : SCOPE_A;
                if (cursor === cursors[otherScope].search || cursor === cursors[otherScope].reply) {
                  assert.deepEqual([out.status, out.reason], ["unavailable", "invalid_cursor"]);
                }
                if (forged.includes(cursor) && out.status === "observed") {
                  const mark = scope === SCOPE_A ? MARK_A : MARK_B;
                  for (const r of out.replies as { text: string }[]) {
                    assert.ok(r.text.startsWith(mark));
                  }
                }
              },
            ),
            { numRuns: RUNS.cursor },
          );
        },
      );
    });
    assert.equal(code, 0, `the relay exits 0 after all of it:\n${stderr.slice(-2000)}`);
    assert.deepEqual(left, [], "no helper is left");
    assert.deepEqual(
      leakedSecrets(stderr, [...ALL_SECRETS, MARK_A, MARK_B]),
      [],
      "nothing stored reaches the log",
    );
  },
});
