/**
 * The in-process turn machinery for tests: an owner spawning the fixture of
 * `f`, an elicitation router and a turn registry, on one manual clock.
 * @module
 */

import { ElicitationRouter } from "../src/elicit/router.ts";
import { allowedMethods, type Capabilities } from "../src/core/capabilities.ts";
import { silentLogger } from "../src/core/log.ts";
import { ManualClock } from "../src/core/clock.ts";
import { SpawnConnection as Owner } from "../src/connect/spawn/spawn_connection.ts";
import { readReply } from "../src/ops/read_reply.ts";
import { TurnRegistry } from "../src/turn/turn_registry.ts";
import { DEFAULT_TURN_LIMITS } from "../src/turn/turn_runtime.ts";
import type { FixtureHome } from "./_fixture.ts";

/** Options of {@linkcode turnRig}. */
export interface TurnRigOptions {
  /** Capabilities (default: turn start only). */
  caps?: Capabilities;
  /** Whether the owner's RPC budgets also run on the manual clock (default: real time). */
  ownerOnManualClock?: boolean;
  /** `--disable-codex-mcp-server` names. */
  disabledMcpServers?: string[];
}

/** An owner, router and registry wired as `serve` wires them. */
export interface TurnRig {
  clock: ManualClock;
  owner: Owner;
  router: ElicitationRouter;
  turns: TurnRegistry;
}

/** Wires the turn machinery against the fixture of `f`. */
export function turnRig(f: FixtureHome, options: TurnRigOptions = {}): TurnRig {
  const caps = options.caps ?? { replyRead: false, turnStart: true };
  const clock = new ManualClock();
  const owner = new Owner({
    allowlist: allowedMethods(caps),
    version: "0.0.0-test",
    env: f.env,
    reap: { eofGraceMs: 300, termGraceMs: 300 },
    ...(options.ownerOnManualClock ? { clock } : {}),
  });
  const router = new ElicitationRouter({ clock, log: silentLogger });
  const turns = new TurnRegistry({
    owner,
    router,
    clock,
    log: silentLogger,
    limits: DEFAULT_TURN_LIMITS,
    disabledMcpServers: options.disabledMcpServers ?? [],
    readReplies: caps.replyRead
      ? (session, threadId, clientMessageId) => readReply(session, { threadId, clientMessageId })
      : undefined,
  });
  return { clock, owner, router, turns };
}
