/**
 * Runs `tests/dist/probe.ts` as a child with given Deno flags and returns its
 * outcomes.
 * @module
 */

import { cachedOnly, denoChildEnv } from "../../testing/child_env.ts";

/** The probe module. */
export const PROBE: string = new URL("./probe.ts", import.meta.url).pathname;

/** Runs `deno run <flags> <probe> <file>` with `env` only; resolves with the outcomes. */
export async function runProbe(
  flags: string[],
  env: Record<string, string>,
  file: string,
  options: { cwd?: string; probe?: string } = {},
): Promise<Record<string, string>> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: cachedOnly(["run", "--quiet", "--no-prompt", ...flags, options.probe ?? PROBE, file]),
    env: denoChildEnv(env),
    clearEnv: true,
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout).trim();
  if (!out.success || !stdout) {
    throw new Error(
      `probe failed (exit ${out.code}): ${stdout} ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  return JSON.parse(stdout.split("\n").pop()!);
}

/** What the relay's permission set must refuse and allow, as the probe reports it. */
export const EXPECTED_OUTCOMES: Record<string, string> = {
  "spawn sh": "NotCapable",
  "spawn /bin/sh": "NotCapable",
  "spawn codex": "allowed",
  "connect": "NotCapable",
  "listen": "NotCapable",
  "write file": "NotCapable",
  "read file": "NotCapable",
  "env outside the list": "NotCapable",
  "env HOME": "allowed",
};
