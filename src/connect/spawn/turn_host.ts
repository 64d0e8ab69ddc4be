/**
 * The spawn backend's turn host: one private, long-lived `codex app-server`
 * that runs every turn of this relay (one process holds many threads, as the
 * daemon does), apart from the helpers of operations, so running turns take
 * none of their slots. It is spawned at the first hold (concurrent first
 * holds share one spawn), each hold is a view of it that follows one thread
 * (`held_view.ts`, `thread_routing.ts`), and it is reaped when its last view
 * closes, at shutdown, or killed. Its loss ends every view with the error;
 * the next hold spawns a new one. At most `turns` views at once: past that a
 * hold is `busy` at once.
 * @module
 */

import { abortReason, RelayError } from "../../core/errors.ts";
import { untilAborted } from "../_shared.ts";
import type { HeldConnection } from "../connection.ts";
import type { Method } from "../../codex/methods.ts";
import { checkAllowed } from "../operation_frame.ts";
import { heldView } from "../held_view.ts";
import { ThreadRouting, type View } from "../thread_routing.ts";
import { TurnSeats } from "../turn_seats.ts";
import { type HelperRecipe, type OpenedHelper, openHelper } from "./open_helper.ts";

interface Host extends OpenedHelper {
  views: Set<View>;
  closing?: Promise<void>;
}

/** The one app-server of the relay's turns in spawn mode. */
export class TurnHost {
  readonly #recipe: HelperRecipe;
  readonly #allow: ReadonlySet<Method>;
  readonly #routing: ThreadRouting;
  readonly #seats: TurnSeats;
  readonly #shutdown: AbortSignal;
  /** Every host not yet reaped (the current one, and one being reaped). */
  readonly #hosts = new Set<Host>();
  #current: Host | undefined;
  #opening: Promise<Host> | undefined;
  #spawned = 0;
  #stopped = false;

  /**
   * Hosts started from `recipe`; `allow` is the method allowlist of every
   * view; `shutdown` (the backend's) cancels an opening, which no one hold's
   * signal does: holds starting together share it.
   */
  constructor(recipe: HelperRecipe, allow: ReadonlySet<Method>, shutdown: AbortSignal) {
    this.#recipe = recipe;
    this.#allow = allow;
    this.#shutdown = shutdown;
    this.#routing = new ThreadRouting(recipe.log);
    this.#seats = new TurnSeats(recipe.limits.turns, "in spawn mode");
  }

  /** Turn host processes alive now (0 or 1; 2 while one is reaped and the next starts). */
  get alive(): number {
    return this.#hosts.size;
  }

  /** Turn hosts spawned in all. */
  get spawned(): number {
    return this.#spawned;
  }

  /** Views held now (turns running, or starting). */
  get held(): number {
    return this.#seats.inUse;
  }

  /**
   * A view of the turn host, spawning it when none is up. `busy` at once when
   * `turns` views are held; `signal` ends this hold's wait for an opening
   * (one RPC timeout at most), not the opening.
   */
  async hold(signal: AbortSignal): Promise<HeldConnection> {
    const release = this.#seats.take();
    let host: Host;
    try {
      host = await this.#connected(signal);
    } catch (error) {
      release();
      await this.#idle();
      throw error;
    }
    return heldView({
      rpc: host.connection,
      views: host.views,
      unuse: () => {
        release();
        // A host that is dying (lost, or reaped at shutdown) is waited for: nothing of it is left.
        return host.closing ?? this.#idle();
      },
      routing: this.#routing,
      checkAllowed: (method) => checkAllowed(this.#allow, method, this.#recipe.log),
      rpcTimeoutMs: this.#recipe.limits.rpcTimeoutMs,
    });
  }

  /** Reaps every host (their views end with `why`); no host starts after this. */
  async shutdown(why: RelayError): Promise<void> {
    this.#stopped = true;
    const opening = this.#opening?.catch(() => undefined);
    await opening;
    await Promise.all([...this.#hosts].map((host) => this.#close(host, why)));
  }

  /** SIGKILLs every host's process group; resolves with how many there were. */
  async kill(): Promise<number> {
    this.#stopped = true;
    const hosts = [...this.#hosts];
    await Promise.all(hosts.map((host) => host.helper.kill()));
    return hosts.length;
  }

  /** Reaps the current host once nothing holds it or waits for it. */
  async #idle(): Promise<void> {
    const host = this.#current;
    if (host && this.#seats.inUse === 0 && !this.#opening) {
      await this.#close(
        host,
        new RelayError("cancelled", "The turn host was reaped", {
          written: true,
        }),
      );
    }
  }

  /** The current host, or a new one (one opening at a time, shared). */
  async #connected(signal: AbortSignal): Promise<Host> {
    if (signal.aborted) throw abortReason(signal, false);
    const current = this.#current;
    if (current && !current.closing && !current.connection.failure) return current;
    this.#opening ??= this.#open().finally(() => (this.#opening = undefined));
    const opening = this.#opening;
    try {
      return await untilAborted(opening, signal);
    } finally {
      // Every hold that waited gave up: nothing will hold the new host.
      void opening.then(() => this.#seats.inUse === 0 ? this.#idle() : undefined, () => {});
    }
  }

  async #open(): Promise<Host> {
    // A host being reaped still holds its threads' writer locks until it exits.
    await Promise.all([...this.#hosts].map((host) => host.closing));
    if (this.#stopped || this.#shutdown.aborted) {
      throw new RelayError("cancelled", "codex-relay is shutting down", { written: false });
    }
    let host: Host | undefined;
    const timeoutMs = this.#recipe.limits.rpcTimeoutMs;
    await openHelper(this.#recipe, this.#shutdown, () => timeoutMs, (opened) => {
      this.#spawned++;
      host = { ...opened, views: new Set() };
      this.#hosts.add(host);
      this.#recipe.log.debug("turn host spawned", { pid: opened.helper.pid });
      return () => this.#close(host!, new RelayError("cancelled", "The turn host failed to start"));
    });
    const ready = host!;
    const rpc = ready.connection;
    rpc.listen({
      onNotification: (method, params) =>
        this.#routing.notification(ready.views, method, params, true),
      onServerRequest: (request) => {
        // A private host asks only about the relay's own turns: nobody else would answer.
        if (!this.#routing.serverRequest(ready.views, request, true)) {
          rpc.respondError(request.id, -32601, "No turn of codex-relay follows this thread");
        }
      },
    });
    void rpc.ended.then((error) => void this.#close(ready, error));
    this.#current = ready;
    return ready;
  }

  #close(host: Host, why: RelayError): Promise<void> {
    host.closing ??= (async () => {
      if (this.#current === host) this.#current = undefined;
      host.connection.close(why);
      await host.helper.reap();
      await host.connection.drained;
      this.#hosts.delete(host);
      this.#recipe.log.debug("turn host reaped", { pid: host.helper.pid });
    })();
    return host.closing;
  }
}
