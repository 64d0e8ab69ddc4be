/**
 * The spawn backend's warm helper: one private `codex app-server` that the
 * operations (list, queue, read, withdraw) share, so a call pays a Codex start
 * only when none is up. The first operation spawns it (operations starting
 * together share that spawn); later ones reuse its open connection, several
 * at once; it is reaped after {@linkcode WARM_IDLE_MS} with no operation on
 * it, at shutdown, or killed.
 *
 * It may not load a thread: the methods that do (`thread/start`,
 * `thread/resume`, `thread/queue/start`) are refused on it, so a message
 * queued to a stored thread stays stored, as from a fresh process. Turns run
 * on the turn host (`turn_host.ts`), never here. It answers every server
 * request `-32601` (no turn of it could ask one).
 *
 * A helper that dies or breaks the protocol fails what is in flight on it
 * (as that error); one that leaves an RPC unanswered for a whole per-RPC
 * timeout is taken for hung and reaped, failing what else is in flight on
 * it with `connection_lost` (`written: true`: its frames were written). The
 * next operation spawns a new one.
 * @module
 */

import { abortReason, RelayError } from "../../core/errors.ts";
import { untilAborted } from "../_shared.ts";
import type { Timer } from "../../core/clock.ts";
import type { Method } from "../../codex/methods.ts";
import type { OperationLink } from "../operation_frame.ts";
import { type HelperRecipe, type OpenedHelper, openHelper } from "./open_helper.ts";

/** How long a warm helper stays up with no operation on it. */
export const WARM_IDLE_MS = 30_000;

/** Methods that load a thread into the app-server that runs them: never sent to a warm helper. */
export const LOADING_METHODS: ReadonlySet<Method> = new Set<Method>([
  "thread/start",
  "thread/resume",
  "thread/queue/start",
]);

/** One warm helper: its process, its connection, the operations on it. */
export interface Warm extends OpenedHelper, OperationLink {
  users: number;
  /** Its end was logged ("reaped"): once, whether reaped or killed. */
  ended?: boolean;
  idle?: Timer;
  closing?: Promise<void>;
}

/** The operations' shared helper in spawn mode. */
export class WarmHelper {
  readonly #recipe: HelperRecipe;
  readonly #idleMs: number;
  readonly #shutdown: AbortSignal;
  /** Every helper not yet reaped (the current one, and ones being reaped). */
  readonly #helpers = new Set<Warm>();
  #current: Warm | undefined;
  #opening: Promise<Warm> | undefined;
  #spawned = 0;

  /** Helpers from `recipe`, reaped after `idleMs` unused; `shutdown` ends an opening. */
  constructor(recipe: HelperRecipe, idleMs: number, shutdown: AbortSignal) {
    this.#recipe = recipe;
    this.#idleMs = idleMs;
    this.#shutdown = shutdown;
  }

  /** Helper processes alive now (0 or 1; more while one is reaped). */
  get alive(): number {
    return this.#helpers.size;
  }

  /** Helpers spawned in all. */
  get spawned(): number {
    return this.#spawned;
  }

  /**
   * The warm helper, spawning one when none is up (one spawn at a time,
   * shared). `signal` ends this caller's wait, not the spawn; the spawn and
   * its `initialize` take at most one RPC timeout.
   */
  async usable(signal: AbortSignal): Promise<Warm> {
    if (signal.aborted) throw abortReason(signal, false);
    const current = this.#current;
    if (current && !current.closing && !current.rpc.failure) return current;
    this.#opening ??= this.#open().finally(() => (this.#opening = undefined));
    return await untilAborted(this.#opening, signal);
  }

  /** One operation uses `warm` until the returned release (idempotent); the idle clock stops meanwhile. */
  use(warm: Warm): () => void {
    warm.users++;
    warm.idle?.cancel();
    warm.idle = undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--warm.users === 0) this.#arm(warm);
    };
  }

  /** An RPC on `warm` went a whole RPC timeout unanswered: it is taken for hung and reaped. */
  stalled(warm: Warm, error: RelayError): Promise<void> {
    this.#recipe.log.info("warm helper hung; reaping it", { pid: warm.pid });
    return this.#close(
      warm,
      new RelayError("connection_lost", `The app-server helper was replaced: ${error.message}`, {
        written: true,
      }),
    );
  }

  /**
   * Reaps every helper (what is in flight fails with `why`); no helper starts
   * after this. One with no operation on it is signalled at once, without
   * the stdin grace: the shutdown bound is shared with everything else.
   */
  async shutdown(why: RelayError): Promise<void> {
    const idle = new Set([...this.#helpers].filter((warm) => warm.users === 0));
    await this.#opening?.catch(() => undefined);
    await Promise.all([...this.#helpers].map((warm) => this.#close(warm, why, idle.has(warm))));
  }

  /** SIGKILLs every helper's process group; resolves with how many there were. */
  async kill(): Promise<number> {
    const helpers = [...this.#helpers];
    await Promise.all(helpers.map(async (warm) => {
      await warm.helper.kill();
      this.#ended(warm);
    }));
    return helpers.length;
  }

  #arm(warm: Warm): void {
    warm.idle?.cancel();
    if (warm.closing) return;
    warm.idle = this.#recipe.clock.after(this.#idleMs, () => {
      warm.idle = undefined;
      if (warm.users === 0) {
        this.#recipe.log.debug("warm helper idle; reaping it", { pid: warm.pid });
        void this.#close(warm, new RelayError("cancelled", "The helper was reaped (idle)"));
      }
    });
  }

  async #open(): Promise<Warm> {
    if (this.#shutdown.aborted) throw abortReason(this.#shutdown, false);
    let warm: Warm | undefined;
    const timeoutMs = this.#recipe.limits.rpcTimeoutMs;
    await openHelper(this.#recipe, this.#shutdown, () => timeoutMs, (opened) => {
      this.#spawned++;
      warm = { ...opened, rpc: opened.connection, pid: opened.helper.pid, users: 0 };
      this.#helpers.add(warm);
      this.#recipe.log.debug("spawn", { pid: opened.helper.pid });
      return () => this.#close(warm!, new RelayError("cancelled", "The helper failed to start"));
    });
    const ready = warm!;
    void ready.rpc.ended.then((error) => void this.#close(ready, error));
    if (this.#shutdown.aborted) {
      await this.#close(ready, abortReason(this.#shutdown, false));
      throw abortReason(this.#shutdown, false);
    }
    this.#current = ready;
    // Nobody may come for it (every waiter gave up): it idles out like any other.
    this.#arm(ready);
    return ready;
  }

  #close(warm: Warm, why: RelayError, idle = false): Promise<void> {
    warm.closing ??= (async () => {
      if (this.#current === warm) this.#current = undefined;
      warm.idle?.cancel();
      warm.rpc.close(why);
      await warm.helper.reap(idle);
      await warm.rpc.drained;
      this.#helpers.delete(warm);
      this.#ended(warm);
    })();
    return warm.closing;
  }

  #ended(warm: Warm): void {
    if (warm.ended) return;
    warm.ended = true;
    this.#recipe.log.debug("reaped", { pid: warm.pid });
  }
}
