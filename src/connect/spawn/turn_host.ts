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

import { RelayError } from "../../core/errors.ts";
import { SharedLink } from "../shared_link.ts";
import type { HeldConnection } from "../connection.ts";
import type { Method } from "../../codex/methods.ts";
import { checkAllowed } from "../operation_frame.ts";
import { heldView } from "../held_view.ts";
import { ThreadRouting, type View } from "../thread_routing.ts";
import { TurnSeats } from "../turn_seats.ts";
import { type HelperRecipe, type OpenedHelper, openHelper } from "./open_helper.ts";

interface Host extends OpenedHelper {
  views: Set<View>;
}

/** The one app-server of the relay's turns in spawn mode. */
export class TurnHost {
  readonly #recipe: HelperRecipe;
  readonly #allow: ReadonlySet<Method>;
  readonly #routing: ThreadRouting;
  readonly #seats: TurnSeats;
  /** The current host, and one being reaped. */
  readonly #link: SharedLink<Host>;
  /** Cancels the opening under way (every hold waiting for it gave up). */
  #abandon: AbortController | undefined;
  #spawned = 0;

  /**
   * Hosts started from `recipe`; `allow` is the method allowlist of every
   * view; `shutdown` (the backend's) cancels an opening, which no one hold's
   * signal does: holds starting together share it.
   */
  constructor(recipe: HelperRecipe, allow: ReadonlySet<Method>, shutdown: AbortSignal) {
    this.#recipe = recipe;
    this.#allow = allow;
    this.#routing = new ThreadRouting(recipe.log);
    this.#seats = new TurnSeats(recipe.limits.turns, "in spawn mode");
    this.#link = new SharedLink<Host>({
      open: (track) => this.#open(shutdown, track),
      usable: (host) => !host.connection.failure,
      end: (host, why) => this.#end(host, why),
      stop: shutdown,
    });
  }

  /** Turn host processes alive now (0 or 1; 2 while one is reaped and the next starts). */
  get alive(): number {
    return this.#link.links.size;
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
      // No hold waits for an opening any more: it is cancelled, and its helper reaped before
      // this answers (a run cancelled while Codex starts leaves no app-server behind).
      if (this.#seats.inUse === 0) this.#abandon?.abort();
      await this.#link.opening?.catch(() => {});
      await this.#idle();
      throw error;
    }
    return heldView({
      rpc: host.connection,
      views: host.views,
      unuse: () => {
        release();
        // A host that is dying (lost, or reaped at shutdown) is waited for: nothing of it is left.
        return this.#link.closing(host) ?? this.#idle();
      },
      routing: this.#routing,
      checkAllowed: (method) => checkAllowed(this.#allow, method, this.#recipe.log),
      rpcTimeoutMs: this.#recipe.limits.rpcTimeoutMs,
    });
  }

  /** Reaps every host (their views end with `why`); no host starts after this. */
  shutdown(why: RelayError): Promise<void> {
    return this.#link.shutdown(why);
  }

  /** SIGKILLs every host's process group; resolves with how many there were. */
  kill(): Promise<number> {
    return this.#link.kill((host) => host.helper.kill());
  }

  /** Reaps the current host once nothing holds it or waits for it. */
  async #idle(): Promise<void> {
    const host = this.#link.current;
    if (host && this.#seats.inUse === 0 && !this.#link.opening) {
      await this.#link.close(
        host,
        new RelayError("cancelled", "The turn host was reaped", {
          written: true,
        }),
      );
    }
  }

  /** The current host, or a new one (one opening at a time, shared). */
  async #connected(signal: AbortSignal): Promise<Host> {
    try {
      return await this.#link.get(signal);
    } finally {
      // Every hold that waited gave up: nothing will hold the new host.
      const opening = this.#link.opening ?? Promise.resolve();
      void opening.then(() => this.#seats.inUse === 0 ? this.#idle() : undefined, () => {});
    }
  }

  async #open(shutdown: AbortSignal, track: (host: Host) => void): Promise<Host> {
    // A host being reaped still holds its threads' writer locks until it exits.
    await Promise.all([...this.#link.links].map((host) => this.#link.closing(host)));
    this.#link.throwIfStopped();
    let host: Host | undefined;
    const timeoutMs = this.#recipe.limits.rpcTimeoutMs;
    const abandon = new AbortController();
    this.#abandon = abandon;
    const signal = AbortSignal.any([shutdown, abandon.signal]);
    await openHelper(this.#recipe, signal, () => timeoutMs, (opened) => {
      this.#spawned++;
      host = { ...opened, views: new Set() };
      track(host);
      this.#recipe.log.debug("turn host spawned", { pid: opened.helper.pid });
      return () =>
        this.#link.close(host!, new RelayError("cancelled", "The turn host failed to start"));
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
    void rpc.ended.then((error) => void this.#link.close(ready, error));
    return ready;
  }

  async #end(host: Host, why: RelayError): Promise<void> {
    host.connection.close(why);
    await host.helper.reap();
    await host.connection.drained;
    this.#recipe.log.debug("turn host reaped", { pid: host.helper.pid });
  }
}
