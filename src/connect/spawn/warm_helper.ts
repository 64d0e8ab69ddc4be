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

import { RelayError } from "../../core/errors.ts";
import { SharedLink } from "../shared_link.ts";
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
}

/** The operations' shared helper in spawn mode. */
export class WarmHelper {
  readonly #recipe: HelperRecipe;
  readonly #idleMs: number;
  /** The current helper, and ones being reaped. */
  readonly #link: SharedLink<Warm>;
  #spawned = 0;

  /** Helpers from `recipe`, reaped after `idleMs` unused; `shutdown` ends an opening. */
  constructor(recipe: HelperRecipe, idleMs: number, shutdown: AbortSignal) {
    this.#recipe = recipe;
    this.#idleMs = idleMs;
    this.#link = new SharedLink<Warm>({
      open: (track) => this.#open(shutdown, track),
      usable: (warm) => !warm.rpc.failure,
      end: (warm, why) => this.#end(warm, why),
      stop: shutdown,
    });
  }

  /** Helper processes alive now (0 or 1; more while one is reaped). */
  get alive(): number {
    return this.#link.links.size;
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
  usable(signal: AbortSignal): Promise<Warm> {
    return this.#link.get(signal);
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
    return this.#link.close(
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
  shutdown(why: RelayError): Promise<void> {
    return this.#link.shutdown(why);
  }

  /** SIGKILLs every helper's process group; resolves with how many there were. */
  kill(): Promise<number> {
    return this.#link.kill(async (warm) => {
      await warm.helper.kill();
      this.#ended(warm);
    });
  }

  #arm(warm: Warm): void {
    warm.idle?.cancel();
    if (this.#link.closing(warm)) return;
    warm.idle = this.#recipe.clock.after(this.#idleMs, () => {
      warm.idle = undefined;
      if (warm.users === 0) {
        this.#recipe.log.debug("warm helper idle; reaping it", { pid: warm.pid });
        void this.#link.close(warm, new RelayError("cancelled", "The helper was reaped (idle)"));
      }
    });
  }

  async #open(shutdown: AbortSignal, track: (warm: Warm) => void): Promise<Warm> {
    let warm: Warm | undefined;
    const timeoutMs = this.#recipe.limits.rpcTimeoutMs;
    await openHelper(this.#recipe, shutdown, () => timeoutMs, (opened) => {
      this.#spawned++;
      warm = { ...opened, rpc: opened.connection, pid: opened.helper.pid, users: 0 };
      track(warm);
      this.#recipe.log.debug("spawn", { pid: opened.helper.pid });
      return () =>
        this.#link.close(warm!, new RelayError("cancelled", "The helper failed to start"));
    });
    const ready = warm!;
    void ready.rpc.ended.then((error) => void this.#link.close(ready, error));
    // Nobody may come for it (every waiter gave up): it idles out like any other.
    this.#arm(ready);
    return ready;
  }

  async #end(warm: Warm, why: RelayError): Promise<void> {
    warm.idle?.cancel();
    warm.rpc.close(why);
    // At shutdown, one no operation uses is signalled at once.
    await warm.helper.reap(this.#link.stopped && warm.users === 0);
    await warm.rpc.drained;
    this.#ended(warm);
  }

  #ended(warm: Warm): void {
    if (warm.ended) return;
    warm.ended = true;
    this.#recipe.log.debug("reaped", { pid: warm.pid });
  }
}
