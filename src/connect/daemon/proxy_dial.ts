/**
 * Reaching the daemon: spawns `codex app-server proxy [--sock PATH]` (the
 * relay may run only `codex`) and upgrades its stdio to a WebSocket. A proxy
 * that exits before the upgrade means no daemon answers there.
 * @module
 */

import { RelayError } from "../../core/errors.ts";
import { formatBound } from "../../core/duration.ts";
import { HelperProcess, type ReapTimings } from "../process/helper_process.ts";
import type { FrameTransport } from "../frame_transport.ts";
import { type DaemonTarget, startAdvice } from "../app_server_mode.ts";

/** An open channel to the daemon and how to release it. */
export interface Dialed {
  /** The frames. */
  transport: FrameTransport;
  /** The proxy's pid, for logs. */
  pid?: number;
  /** Ends the channel and reaps what carries it. Idempotent. */
  close(): Promise<void>;
  /** Kills what carries the channel at once (its whole process group). */
  kill(): Promise<void>;
}

/** What {@linkcode dialProxy} needs. */
export interface ProxySpec {
  /** The executable (`codex`). */
  command: string;
  /** The complete environment of the proxy (the curated set). */
  env: Record<string, string>;
  /** Which daemon. */
  target: DaemonTarget;
  /** The frame bound, in bytes. */
  frameBytes: number;
  /** Proxy stderr kept, in bytes. */
  stderrBytes: number;
  /** Reap grace periods. */
  reap?: ReapTimings;
  /** How long the upgrade may take. */
  timeoutMs: number;
}

/** The proxy's arguments: never anything but the mode and the socket path. */
export function proxyArgs(target: DaemonTarget): string[] {
  return target.kind === "unix"
    ? ["app-server", "proxy", "--sock", target.path]
    : ["app-server", "proxy"];
}

/**
 * Spawns the proxy and completes the WebSocket upgrade. Fails (never
 * `written`) with `daemon_unavailable` when the proxy exits first,
 * `timeout` when the upgrade takes too long, and `codex_missing` /
 * `spawn_failed` when the proxy cannot start.
 */
export async function dialProxy(spec: ProxySpec): Promise<Dialed> {
  // The WebSocket framing (websocket-driver) loads on the first dial: a spawn-mode relay never
  // pays for it at start-up (docs/reliability.md, "Start-up").
  const { WebSocketTransport } = await import("./ws_transport.ts");
  const helper = HelperProcess.spawn(
    { command: spec.command, args: proxyArgs(spec.target), env: spec.env },
    spec.stderrBytes,
    spec.reap,
  );
  const transport = new WebSocketTransport(helper, spec.frameBytes);
  let closing: Promise<void> | undefined;
  const close = () =>
    closing ??= (async () => {
      transport.close();
      await helper.reap();
      await transport.drained;
    })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), spec.timeoutMs);
  });
  try {
    const outcome = await Promise.race([transport.opened.then(() => "open" as const), timedOut]);
    if (outcome === "timeout") {
      await close();
      throw new RelayError(
        "timeout",
        `The app-server daemon did not answer within ${formatBound(spec.timeoutMs)}`,
      );
    }
  } catch (error) {
    await close();
    if (error instanceof RelayError && error.reason === "timeout") throw error;
    const status = await helper.status;
    const detail = firstErrorLine(helper.stderrTail());
    const who = spec.target.kind === "unix" ? "at that socket" : "for this CODEX_HOME";
    if (status.code !== 0 || status.signal) {
      throw new RelayError(
        "daemon_unavailable",
        `No Codex app-server daemon answers ${who}: ${
          startAdvice(spec.target)
        } (codex app-server proxy exited with code ${status.code}${detail ? `: ${detail}` : ""})`,
        { cause: error },
      );
    }
    const why = error instanceof RelayError ? error.message : String(error);
    throw new RelayError("protocol_error", `The app-server daemon refused the connection: ${why}`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
  return { transport, pid: helper.pid, close, kill: () => helper.kill() };
}

/** The first line of the proxy's stderr that says what failed (`Error: ...`), shortened. */
function firstErrorLine(stderr: string): string {
  const line = stderr.split("\n").map((l) => l.trim()).find((l) => l.startsWith("Error:"));
  return line ? line.slice(0, 200) : "";
}
