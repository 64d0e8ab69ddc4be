/**
 * One spawned `codex app-server` process: spawn with its environment in
 * its own process group, write frames, keep the tail of stderr, and reap the
 * group within a bound, whatever the helper and its descendants do.
 * @module
 */

import { RelayError } from "../../core/errors.ts";
import { signalGroup } from "./process_group.ts";
import { spawnChild } from "./child_env.ts";

/** What to spawn. */
export interface HelperSpec {
  /** The executable, resolved by Deno from PATH (`codex`). */
  command: string;
  /** Its arguments (`["app-server"]`); never message text. */
  args: readonly string[];
  /**
   * The child's environment: exactly this, or with `inherit` the relay's own
   * environment with these set over it (see `child_env.ts`).
   */
  env: Record<string, string>;
  /** Whether the child inherits the relay's environment (default false). */
  inherit?: boolean;
}

/** Reaping grace periods. */
export interface ReapTimings {
  /** How long to wait for an exit after stdin is closed. */
  eofGraceMs: number;
  /** How long to wait for an exit after SIGTERM before SIGKILL. */
  termGraceMs: number;
  /**
   * How long to wait, once the helper has exited, for its stdout and stderr
   * to close before the relay stops reading them (a descendant may hold
   * them). Default {@linkcode PIPE_GRACE_MS}.
   */
  pipeGraceMs?: number;
}

/** Default grace periods: the app-server exits within ~10 ms of stdin EOF. */
export const DEFAULT_REAP: ReapTimings = { eofGraceMs: 500, termGraceMs: 1000 };

/** Default {@linkcode ReapTimings.pipeGraceMs}. */
export const PIPE_GRACE_MS = 150;
/** How long to wait for the exit after SIGKILL (it is immediate unless the kernel is stuck). */
const KILL_WAIT_MS = 250;

/** A spawned helper. */
export class HelperProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stderrCap: number;
  readonly #reapTimings: ReapTimings;
  #stderr: Uint8Array[] = [];
  #stderrSize = 0;
  #stderrDone: Promise<void>;
  #stderrReader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  readonly #cut = new AbortController();
  #reaping: Promise<void> | undefined;
  #exited = false;
  /** Resolves with the exit status once the process has exited. */
  readonly status: Promise<Deno.CommandStatus>;
  /** Loader variables this spawn found in the relay's environment (passed empty). */
  readonly loaderVars: readonly string[];

  private constructor(
    child: Deno.ChildProcess,
    stderrCap: number,
    reap: ReapTimings,
    loaderVars: readonly string[],
  ) {
    this.#child = child;
    this.loaderVars = loaderVars;
    this.#writer = child.stdin.getWriter();
    this.#stderrCap = stderrCap;
    this.#reapTimings = reap;
    this.status = child.status.then((s) => {
      this.#exited = true;
      return s;
    });
    this.#stderrDone = this.#drainStderr();
  }

  /**
   * Spawns `spec`. A missing executable fails `codex_missing`; any other
   * refusal (permissions, resources) fails `spawn_failed`.
   */
  static spawn(
    spec: HelperSpec,
    stderrCap: number,
    reap: ReapTimings = DEFAULT_REAP,
  ): HelperProcess {
    let spawned: { child: Deno.ChildProcess; found: string[] };
    try {
      spawned = spawnChild(spec.command, {
        args: [...spec.args],
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        // Its own process group (setsid): the whole group is signalled when reaping.
        detached: true,
      }, { inherit: spec.inherit ?? false, env: spec.env });
    } catch (error) {
      // Both say which PATH the relay saw and what to do: a client that starts servers with a
      // short PATH (GUI apps) needs the folder of codex in the entry's own PATH.
      const seen = `PATH=${(spec.inherit ? ownPath() : undefined) ?? spec.env.PATH ?? "(unset)"}`;
      const fix =
        `install Codex (npm install -g @openai/codex), or put the folder of codex (and node) in the PATH of codex-relay's entry in the MCP client ("env": {"PATH": "..."}; codex-relay install writes it), then restart the client`;
      if (error instanceof Deno.errors.NotFound && /[\\/]/.test(spec.command)) {
        // A binary named by --codex (install resolved it): moved or removed since.
        throw new RelayError(
          "codex_missing",
          `${spec.command} (--codex) does not exist: Codex was moved, updated or removed since codex-relay was installed; run codex-relay install again (it finds Codex anew), then restart the client`,
          { cause: error },
        );
      }
      if (error instanceof Deno.errors.NotFound) {
        throw new RelayError(
          "codex_missing",
          `Could not find '${spec.command}' on the PATH codex-relay was started with (${seen}): ${fix}`,
          { cause: error },
        );
      }
      if (error instanceof Deno.errors.NotCapable) {
        // The permission set grants the `codex` found on PATH when the relay started.
        throw new RelayError(
          "codex_missing",
          `'${spec.command}' was not on the PATH codex-relay was started with (${seen}), or has moved since: ${fix}`,
          { cause: error },
        );
      }
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new RelayError("spawn_failed", `Could not start '${spec.command}': ${detail}`, {
        cause: error,
      });
    }
    return new HelperProcess(spawned.child, stderrCap, reap, spawned.found);
  }

  /** The process id. */
  get pid(): number {
    return this.#child.pid;
  }

  /** Whether the process has exited. */
  get exited(): boolean {
    return this.#exited;
  }

  /** The child's stdout; read by exactly one connection. */
  get stdout(): ReadableStream<Uint8Array> {
    return this.#child.stdout;
  }

  /**
   * Aborted when the relay stops reading the helper's pipes (the helper has
   * exited and something else still holds them): the reader of
   * {@linkcode stdout} must cancel its read.
   */
  get pipesCut(): AbortSignal {
    return this.#cut.signal;
  }

  /** Writes bytes to the child's stdin. */
  async write(bytes: Uint8Array): Promise<void> {
    await this.#writer.write(bytes);
  }

  /** The last bytes of stderr (at most the cap), as text; for diagnostics only. */
  stderrTail(): string {
    const out = new Uint8Array(this.#stderrSize);
    let offset = 0;
    for (const part of this.#stderr) {
      out.set(part, offset);
      offset += part.length;
    }
    return new TextDecoder().decode(out);
  }

  async #drainStderr(): Promise<void> {
    const reader = this.#child.stderr.getReader();
    this.#stderrReader = reader;
    try {
      while (true) {
        const { value: chunk, done } = await reader.read();
        if (done) return;
        this.#stderr.push(chunk);
        this.#stderrSize += chunk.length;
        while (this.#stderrSize > this.#stderrCap && this.#stderr.length > 0) {
          const first = this.#stderr[0];
          const excess = this.#stderrSize - this.#stderrCap;
          if (first.length <= excess) {
            this.#stderr.shift();
            this.#stderrSize -= first.length;
          } else {
            this.#stderr[0] = first.subarray(excess);
            this.#stderrSize -= excess;
          }
        }
      }
    } catch {
      // The pipe broke because the process is gone; nothing to keep.
    } finally {
      reader.releaseLock();
    }
  }

  /**
   * Ends the process group: close stdin, wait a short grace, SIGTERM the
   * group, wait, SIGKILL the group. Once the helper has exited, a group that
   * did not end on its own (a signal was needed, or its pipes stay open) is
   * SIGKILLed whole, and pipes still open after {@linkcode PIPE_GRACE_MS} are
   * no longer read. Resolves within about eofGrace + termGrace + 1 s,
   * whatever the helper and its descendants do. `idle` (nothing was left
   * in flight on it) skips the stdin grace: SIGTERM follows the close at
   * once. Idempotent.
   */
  reap(idle = false): Promise<void> {
    this.#reaping ??= this.#reap(idle);
    return this.#reaping;
  }

  async #reap(idle: boolean): Promise<void> {
    // Not awaited: a write pending on a full pipe would hold close() forever.
    const stdinClosed = this.#writer.close().catch(() => {});
    let signalled = false;
    if (!(await this.#exitWithin(idle ? 0 : this.#reapTimings.eofGraceMs))) {
      signalled = true;
      await this.#signal("SIGTERM");
      if (!(await this.#exitWithin(this.#reapTimings.termGraceMs))) {
        await this.#signal("SIGKILL");
        await this.#exitWithin(KILL_WAIT_MS);
      }
    }
    const pipes = Promise.all([this.#stderrDone, this.#stdoutDone()]);
    const pipeGrace = this.#reapTimings.pipeGraceMs ?? PIPE_GRACE_MS;
    if (signalled || !(await settlesWithin(pipes, pipeGrace))) {
      // Descendants may outlive it, holding its pipes: end the whole group.
      await signalGroup(this.pid, "SIGKILL");
      await settlesWithin(pipes, pipeGrace);
    }
    this.#cutPipes();
    await settlesWithin(stdinClosed, 0);
    await this.#writer.abort().catch(() => {});
    await settlesWithin(pipes, KILL_WAIT_MS);
  }

  /**
   * SIGKILLs the process group now, without any grace, and stops reading its
   * pipes (a shutdown that ran out of time). Never rejects.
   */
  async kill(): Promise<void> {
    this.#killLeader("SIGKILL");
    await signalGroup(this.pid, "SIGKILL");
    this.#cutPipes();
    await this.#writer.abort().catch(() => {});
    // Reaped before the caller goes on: a library `serve()` that resolves leaves no child behind.
    await settlesWithin(this.status, KILL_WAIT_MS);
  }

  #cutPipes(): void {
    this.#cut.abort();
    this.#stderrReader?.cancel().catch(() => {});
    // Release stdout if no connection is reading it, so no resource is left open.
    if (!this.#child.stdout.locked) this.#child.stdout.cancel().catch(() => {});
  }

  #stdoutDone(): Promise<unknown> {
    // A connection reading stdout cancels its read on pipesCut; with none, cancelling is ours.
    return this.#child.stdout.locked ? this.#stdoutEnd : Promise.resolve();
  }

  #stdoutEnd: Promise<void> = Promise.resolve();

  /** Called by the reader of stdout with the promise that settles when it stops reading. */
  readingStdout(done: Promise<unknown>): void {
    this.#stdoutEnd = done.then(() => {}, () => {});
  }

  async #signal(signal: "SIGTERM" | "SIGKILL"): Promise<void> {
    // The group, and the helper itself in case the group cannot be signalled.
    this.#killLeader(signal);
    await signalGroup(this.pid, signal);
  }

  #killLeader(signal: Deno.Signal): void {
    try {
      this.#child.kill(signal);
    } catch {
      // Already exited.
    }
  }

  async #exitWithin(ms: number): Promise<boolean> {
    // Stryker disable next-line ConditionalExpression: an exited helper's status is resolved: it wins the race at once
    if (this.#exited) return true;
    let id: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      id = setTimeout(() => resolve(false), ms);
    });
    try {
      // Stryker disable next-line ArrowFunction: an exited helper then counts as signalled: the signals that follow reach no process
      return await Promise.race([this.status.then(() => true as const), timeout]);
    } finally {
      clearTimeout(id);
    }
  }
}

/** Whether `promise` settles within `ms` (it is never rejected through this). */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let id: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => {
    id = setTimeout(() => resolve(false), ms);
  });
  try {
    // Stryker disable next-line ArrowFunction: pipes that closed then count as held: the group SIGKILL that follows reaches no process
    return await Promise.race([promise.then(() => true as const, () => true as const), timeout]);
  } finally {
    clearTimeout(id);
  }
}

/** The relay's own PATH (one of the variables it may read), for messages. */
function ownPath(): string | undefined {
  try {
    return Deno.env.get("PATH");
  } catch {
    return undefined;
  }
}
