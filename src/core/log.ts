/**
 * Logging to stderr only (stdout is the MCP channel). Log lines carry event
 * names, ids, counts and reason codes, never message or reply text.
 * @module
 */

/** The log levels, most to least verbose. */
export const LOG_LEVELS = ["debug", "info", "warn", "error", "silent"] as const;

/** A log level. */
export type LogLevel = typeof LOG_LEVELS[number];

/** Fields of a log line: ids, counts, codes. Never message text. */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

/** A logger. */
export interface Logger {
  /** Detailed events (spawns, reaps, RPC methods). */
  debug(event: string, fields?: LogFields): void;
  /** Lifecycle events. */
  info(event: string, fields?: LogFields): void;
  /** Something went wrong but the server goes on. */
  warn(event: string, fields?: LogFields): void;
  /** Something failed. */
  error(event: string, fields?: LogFields): void;
}

const encoder = new TextEncoder();

/** A logger writing one line per event to stderr at or above `level`. */
export function stderrLogger(level: LogLevel = "warn"): Logger {
  const min = LOG_LEVELS.indexOf(level);
  const write = (at: LogLevel) => (event: string, fields: LogFields = {}) => {
    if (LOG_LEVELS.indexOf(at) < min) return;
    const parts = Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(v) : v}`);
    const line = `codex-relay ${at} ${event}${parts.length ? " " + parts.join(" ") : ""}\n`;
    try {
      Deno.stderr.writeSync(encoder.encode(line));
    } catch {
      // stderr closed: nothing to do.
    }
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/** A logger that drops everything. */
export const silentLogger: Logger = stderrLogger("silent");
