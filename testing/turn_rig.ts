/**
 * The in-process turn machinery for tests: a connection spawning the fixture of
 * `f`, and the turn machinery as `serve` wires it, on one manual clock.
 * @module
 */

import type { Capabilities } from "../src/core/capabilities.ts";
import { allowedMethods } from "../src/codex/methods.ts";
import { silentLogger } from "../src/core/log.ts";
import { ManualClock } from "./manual_clock.ts";
import { SpawnConnection } from "../src/connect/spawn/spawn_connection.ts";
import type { ElicitationRouter } from "../src/elicit/router.ts";
import { turnMachinery } from "../src/turn/turn_machinery.ts";
import type { TurnRegistry } from "../src/turn/turn_registry.ts";
import type { TurnStarts } from "../src/turn/turn_start.ts";
import type { FixtureHome } from "./fixture_home.ts";
import type { Clock } from "../src/core/clock.ts";
import type { CallContext } from "../src/host/tool.ts";
import type { ClientModes } from "../src/host/input_rounds.ts";

/** Options of {@linkcode turnRig}. */
export interface TurnRigOptions {
  /** Capabilities (default: turn start only). */
  caps?: Capabilities;
  /** Whether the connection's RPC budgets also run on the manual clock (default: real time). */
  connectionOnManualClock?: boolean;
  /** `--disable-codex-mcp-server` names. */
  disabledMcpServers?: string[];
}

/** An connection, router and registry wired as `serve` wires them. */
export interface TurnRig {
  clock: ManualClock;
  connection: SpawnConnection;
  router: ElicitationRouter;
  turns: TurnRegistry;
  starts: TurnStarts;
}

/** Wires the turn machinery against the fixture of `f`. */
export function turnRig(f: FixtureHome, options: TurnRigOptions = {}): TurnRig {
  const caps = options.caps ?? { replyRead: false, turnStart: true };
  const clock = new ManualClock();
  const connection = new SpawnConnection({
    allowlist: allowedMethods(caps),
    version: "0.0.0-test",
    env: f.env,
    reap: { eofGraceMs: 300, termGraceMs: 300 },
    ...(options.connectionOnManualClock ? { clock } : {}),
  });
  const machinery = turnMachinery({
    connection,
    clock,
    log: silentLogger,
    readsReplies: caps.replyRead,
    disabledMcpServers: options.disabledMcpServers,
  });
  return { clock, connection, ...machinery };
}

/**
 * A tool call's context on `rig`, as the server builds it at `caps` (no progress, no input
 * rounds of its own: `mintRound` answers "state"); `clock` replaces the rig's when given.
 */
export function rigCallContext(
  rig: TurnRig,
  caps: Capabilities,
  options: { clock?: Clock; clientModes?: ClientModes } = {},
): CallContext {
  const signal = new AbortController().signal;
  return {
    connection: rig.connection,
    caps,
    signal,
    progress: async () => {},
    log: silentLogger,
    mcp: { mcpReq: { requestState: () => undefined, inputResponses: undefined, signal } },
    clock: options.clock ?? rig.clock,
    turns: rig.turns,
    starts: rig.starts,
    queuedHere: rig.starts.queuedHere,
    router: rig.router,
    clientModes: () => options.clientModes ?? { form: false, url: false },
    mintRound: () => Promise.resolve("state"),
  } as unknown as CallContext;
}
