/**
 * What `doctor` reports about the serve options: the tools, arguments and
 * run permission of the options the doctor was given or, with `--client`, of
 * the client's entry (its words after `serve`, parsed by the CLI's own
 * parser, and its Deno permission flags), all read from the one table of
 * options (`core/serve_options.ts`).
 * @module
 */

import { capabilitiesOf } from "../core/capabilities.ts";
import { RELAY_PERMISSIONS } from "../core/permissions.ts";
import { runGrant, SERVE_OPTIONS, serveArgs } from "../core/serve_options.ts";
import { type ServeFlags, valuesOfFlags } from "../host/serve_flags.ts";
import { toolNames } from "../host/tools/all_tools.ts";
import type { Finding } from "./doctor_env.ts";

/** A client entry's serve options and run permission, or why they cannot be read. */
export type EntryServe =
  | { flags: ServeFlags; run: readonly string[] | "all" | "unknown" }
  | { problem: string };

/**
 * The serve options and run permission of a client entry (`{command, args}`),
 * parsed by `parse` (the CLI's parser of `serve`'s words).
 *
 * @example
 * ```ts
 * import assert from "assert";
 * import { serveFlags } from "../host/serve_flags.ts";
 * const parse = () => serveFlags({ allowTurnStart: true }, "flags");
 * const entry = { command: "deno", args: ["run", "--allow-run=codex,git", "mod.ts", "serve"] };
 * const served = entryServe(entry, parse);
 * assert.ok("run" in served);
 * assert.deepEqual(served.run, ["codex", "git"]);
 * ```
 */
export function entryServe(entry: unknown, parse: (words: string[]) => ServeFlags): EntryServe {
  const e = (typeof entry === "object" && entry !== null ? entry : {}) as {
    command?: unknown;
    args?: unknown;
  };
  const words = [e.command, ...(Array.isArray(e.args) ? e.args : [])].map(String);
  const at = words.indexOf("serve");
  if (at < 0) return { problem: "the entry's command line has no serve" };
  let flags: ServeFlags;
  try {
    flags = parse(words.slice(at + 1));
  } catch (error) {
    return { problem: `its serve options: ${error instanceof Error ? error.message : error}` };
  }
  const deno = /(^|[\\/])deno(\.exe)?$/i.test(words[0]) && words[1] === "run";
  if (!deno) return { flags, run: "unknown" };
  const before = words.slice(1, at);
  if (before.some((w) => w === "-A" || w === "--allow-all" || w === "--allow-run")) {
    return { flags, run: "all" };
  }
  const given = before.findLast((w) => w.startsWith("--allow-run="));
  if (given) return { flags, run: given.slice("--allow-run=".length).split(",") };
  return { flags, run: before.includes("-P") ? RELAY_PERMISSIONS.run as string[] : [] };
}

/**
 * The capabilities section: the tools and arguments of `flags`, the doctor's
 * own or (`entry`, e.g. "Claude Code's entry") a client entry's, and the
 * flags that add tools.
 */
export function optionFindings(flags: ServeFlags, relay: string, entry?: string): Finding[] {
  const caps = capabilitiesOf(flags);
  const serve = ["serve", ...serveArgs(valuesOfFlags(flags))];
  const findings: Finding[] = [
    {
      level: "info",
      text: `tools ${entry ? `${entry} serves` : "at these flags"}: ${toolNames(caps).join(", ")}`,
    },
    {
      level: "info",
      text: `${entry ?? "the client entry's"} arguments end with: ${serve.join(" ")}`,
    },
  ];
  if (!caps.replyRead) {
    findings.push({
      level: "info",
      text:
        `to read Codex's final answers (codex_read_reply, codex_wait_reply) add --allow-reply-read (${relay} install --client <client> --allow-reply-read)`,
    });
  }
  if (!caps.turnStart) {
    findings.push({
      level: "info",
      text:
        `to start turns and reviews, answer approvals and take back queued messages (codex_run, codex_review, codex_steer, codex_interrupt, codex_withdraw_message) add --allow-turn-start (${relay} install --client <client> --allow-turn-start)`,
    });
  }
  return findings;
}

/**
 * The permissions section for a client's entry: what it may run, and a
 * problem when its options need a program it may not run.
 *
 * @example
 * ```ts
 * import assert from "assert";
 * import { serveFlags } from "../host/serve_flags.ts";
 * const flags = serveFlags({ allowTurnStart: true, allowWorktrees: true }, "flags");
 * const [finding] = entryPermissionFindings({ flags, run: ["codex", "/bin/kill"] }, "the entry", "r");
 * assert.equal(finding.level, "problem");
 * ```
 */
export function entryPermissionFindings(
  entry: { flags: ServeFlags; run: readonly string[] | "all" | "unknown" },
  whose: string,
  relay: string,
): Finding[] {
  const fix = `register it again: ${relay} install --client <client> ${
    serveArgs(valuesOfFlags(entry.flags), SERVE_OPTIONS.filter((o) => o.install)).join(" ")
  } prints the command`;
  if (entry.run === "unknown") {
    return [{
      level: "info",
      text:
        `run: ${whose} is no deno run line (a compiled relay's permissions were fixed when it was compiled)`,
    }];
  }
  if (entry.run === "all") {
    return [{ level: "problem", text: `run: ${whose} may start any program`, fix }];
  }
  const needed = runGrant(valuesOfFlags(entry.flags), RELAY_PERMISSIONS.run as string[]);
  const missing = needed.filter((p) => !entry.run.includes(p));
  if (missing.length > 0) {
    return [{
      level: "problem",
      text: `run: ${whose} may run ${entry.run.join(", ") || "nothing"}, not ${
        missing.join(", ")
      }, which its options need`,
      fix,
    }];
  }
  return [{ level: "ok", text: `run: ${whose} may run ${entry.run.join(", ")} only` }];
}
