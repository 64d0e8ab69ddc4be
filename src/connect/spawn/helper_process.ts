/**
 * One spawned `codex app-server` process: spawn with a curated environment,
 * write frames, keep the tail of stderr, and reap.
 * @module
 */

import { RelayError } from "../../core/errors.ts";

/** What to spawn. */
export interface HelperSpec {
  /** The executable, resolved by Deno from PATH (`codex`). */
  command: string;
  /** Its arguments (`["app-server"]`); never message text. */
  args: readonly string[];
  /** The complete environment of the child. */
  env: Record<string, string>;
}

/** Reaping grace periods. */
export interface ReapTimings {
  /** How long to wait for an exit after stdin is closed. */
  eofGraceMs: number;
  /** How long to wait for an exit after SIGTERM before SIGKILL. */
  termGraceMs: number;
}

/** Default grace periods: the app-server exits within ~10 ms of stdin EOF. */
export const DEFAULT_REAP: ReapTimings = { eofGraceMs: 500, termGraceMs: 1000 };

/** A spawned helper. */
export class HelperProcess {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stderrCap: number;
  readonly #reapTimings: ReapTimings;
  #stderr: Uint8Array[] = [];
  #stderrSize = 0;
  #stderrDone: Promise<void>;
  #reaping: Promise<void> | undefined;
  #exited = false;
  /** Resolves with the exit status once the process has exited. */
  readonly status: Promise<Deno.CommandStatus>;

  private constructor(child: Deno.ChildProcess, stderrCap: number, reap: ReapTimings) {
    this.#child = child;
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
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(spec.command, {
        args: [...spec.args],
        env: spec.env,
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      // Both say which PATH the relay saw and what to do: a client that starts servers with a
      // short PATH (GUI apps) needs the folder of codex in the entry's own PATH.
      const seen = `PATH=${spec.env.PATH ?? "(unset)"}`;
      const fix =
        `install Codex (npm install -g @openai/codex), or put the folder of codex (and node) in the PATH of codex-relay's entry in the MCP client ("env": {"PATH": "..."}; codex-relay install writes it), then restart the client`;
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
    return new HelperProcess(child, stderrCap, reap);
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
    try {
      for await (const chunk of this.#child.stderr) {
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
    }
  }

  /**
   * Ends the process: close stdin, wait a short grace, SIGTERM, wait, SIGKILL.
   * Resolves once the process has exited and its pipes are drained. Idempotent.
   */
  reap(): Promise<void> {
    this.#reaping ??= this.#reap();
    return this.#reaping;
  }

  async #reap(): Promise<void> {
    await this.#writer.close().catch(() => {});
    if (!(await this.#exitWithin(this.#reapTimings.eofGraceMs))) {
      this.#signal("SIGTERM");
      if (!(await this.#exitWithin(this.#reapTimings.termGraceMs))) {
        this.#signal("SIGKILL");
      }
    }
    await this.status;
    await this.#stdoutClosed();
    await this.#stderrDone;
  }

  async #stdoutClosed(): Promise<void> {
    // Release stdout if no connection is reading it, so no resource is left open.
    if (!this.#child.stdout.locked) await this.#child.stdout.cancel().catch(() => {});
  }

  #signal(signal: Deno.Signal): void {
    try {
      this.#child.kill(signal);
    } catch {
      // Already exited.
    }
  }

  async #exitWithin(ms: number): Promise<boolean> {
    if (this.#exited) return true;
    let id: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<false>((resolve) => {
      id = setTimeout(() => resolve(false), ms);
    });
    try {
      return await Promise.race([this.status.then(() => true as const), timeout]);
    } finally {
      clearTimeout(id);
    }
  }
}
