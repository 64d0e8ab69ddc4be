/**
 * The doctor's `codex` section: which `codex` Deno's `--allow-run=codex`
 * resolved, and whether `codex --version` runs (Codex's own error, quoted,
 * when it does not).
 * @module
 */

import { INHERITED, spawnChild } from "../connect/process/child_env.ts";
import { SUPPORTED_CODEX, supportOf } from "../codex/supported.ts";
import type { Finding } from "./doctor_env.ts";
import { type CodexLookIo, whichCodexFindings } from "./doctor_which.ts";
import { reinstall } from "./doctor_entry.ts";

/** What the `codex` checks read: the relay's environment and permissions. */
export interface CodexCheckIo extends CodexLookIo {
  /** `Deno.build.os`. */
  os: typeof Deno.build.os;
  /** The command line that runs this relay's CLI (hints name it). */
  relay: string;
}

/**
 * Checks Codex (`chosen`, the `--codex` binary, else `codex` on PATH): which
 * runs and why, whether `--version` runs, whether the version is supported.
 */
export async function checkCodex(
  io: CodexCheckIo,
  chosen?: string,
): Promise<{ findings: Finding[]; runs: boolean; missing: boolean }> {
  const findings = whichCodexFindings(io, chosen, io.relay);
  let output: Deno.CommandOutput;
  try {
    output = await spawnChild(chosen ?? "codex", {
      args: ["--version"],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(10_000),
    }, INHERITED).child.output();
  } catch (error) {
    const missing = error instanceof Deno.errors.NotFound;
    const refused = error instanceof Deno.errors.NotCapable;
    findings.push({
      level: "problem",
      text: missing
        ? chosen
          ? `${chosen} (--codex) does not exist`
          : `codex is not on the PATH the relay sees (PATH=${io.env("PATH") ?? ""})`
        : refused
        ? `the relay may not run ${chosen ?? "codex"} (no --allow-run=${chosen ?? "codex"})`
        : `codex --version could not run: ${error instanceof Error ? error.message : error}`,
      fix: chosen && (missing || refused)
        ? `register the relay again: ${
          reinstall(io.relay, io.client)
        } resolves Codex anew and writes --codex with an --allow-run naming it`
        : missing
        ? 'install Codex (npm install -g @openai/codex) and make sure the PATH your MCP client starts codex-relay with contains it (GUI clients often get a short PATH: add "env": {"PATH": "..."} to the entry)'
        : refused
        ? "start the relay with its permission set: deno run -P (from a checkout), or a start line of docs/install.md"
        : "run codex --version in a terminal to see why",
    });
    return { findings, runs: false, missing };
  }
  const text = new TextDecoder().decode(output.stdout).trim();
  if (!output.success) {
    findings.push(versionFailed(output));
    return { findings, runs: false, missing: false };
  }
  const found = text.match(/(\d+)\.(\d+)\.(\d+)/);
  findings.push({ level: "ok", text: `codex --version: ${text.split("\n")[0].slice(0, 120)}` });
  const support = found ? supportOf(found[0]) : "supported";
  if (found && support !== "supported") {
    const { oldest, newest } = SUPPORTED_CODEX;
    findings.push({
      level: "warn",
      text: `codex ${found[0]} is ${
        support === "older" ? "older" : "newer"
      } than the Codex releases codex-relay supports (${oldest} to ${newest})`,
      fix: support === "older"
        ? `npm install -g @openai/codex@${newest}`
        : `npm install -g @openai/codex@${newest}, or update codex-relay to a release that supports ${
          found[0]
        }`,
    });
  }
  return { findings, runs: true, missing: false };
}

/** Most characters of Codex's own error a finding quotes. */
const QUOTED_ERROR_CHARS = 300;

/**
 * `codex --version` failed: Codex's own error, quoted (its last lines), and
 * the fix. npm's `codex` is a Node script: without `node` on the PATH the
 * relay gets, `env` says so and exits 127.
 */
export function versionFailed(output: { code: number; stderr: Uint8Array }): Finding {
  const said = new TextDecoder().decode(output.stderr).trim().replace(/\s*\n\s*/g, " | ");
  const quoted = said.length > QUOTED_ERROR_CHARS ? `…${said.slice(-QUOTED_ERROR_CHARS)}` : said;
  const node = /\bnode\b/.test(said) && /No such file|not found/i.test(said);
  return {
    level: "problem",
    text: `codex --version exited ${output.code}${quoted ? `: ${quoted}` : " and said nothing"}`,
    fix: node
      ? 'npm\'s codex runs on Node: put the folder of node (and codex) in the PATH the MCP client starts codex-relay with ("env": {"PATH": "..."}; install writes the PATH of your shell for GUI clients), then restart the client'
      : "run codex --version in a terminal to see why",
  };
}
