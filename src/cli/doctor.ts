/**
 * `codex-relay doctor`: which `codex` the relay resolves and its version,
 * whether its app-server answers `initialize` with the experimental API and
 * one `thread/list`, whether CODEX_HOME has threads, which capability flags a
 * client entry needs, and the relay's effective Deno permissions. Every
 * problem comes with its fix; any problem makes the exit code 1.
 * @module
 */

import { gitFindings } from "./doctor_git.ts";
import { gitRunner } from "../connect/process/git_runner.ts";
import { grantedEnv } from "../core/granted_env.ts";
import { asRelayError, type ReasonCode } from "../core/errors.ts";
import { type AccountAnswer, LOGIN_FIX, loginState } from "../codex/account.ts";
import type { Method } from "../codex/methods.ts";
import type { ModelPage } from "../codex/models.ts";
import { LISTED_SOURCE_KINDS } from "../codex/types.ts";
import { silentLogger } from "../core/log.ts";
import { appServerLabel, appServerName, openConnection, unavailableFix } from "../connect/open.ts";
import type { Connection } from "../connect/connection.ts";
import { environmentFindings, type Finding, providerKeys } from "./doctor_env.ts";
import { type AppServerMode, startsAppServer } from "../connect/app_server_mode.ts";
import { RELAY_PERMISSIONS } from "../core/permissions.ts";
import { type ServeFlags, valuesOfFlags } from "../host/serve_flags.ts";
import { serveArgs } from "../core/serve_options.ts";
import { SUPPORTED_CODEX, supportOf } from "../codex/supported.ts";
import { GROUP_KILL } from "../connect/process/process_group.ts";
import { checkCodex, type CodexCheckIo } from "./doctor_codex.ts";
import { denoFsView } from "../connect/process/codex_binary_fs.ts";
import { readRegistration, type Registration, registrationKeyFindings } from "./doctor_client.ts";
import { grantedOnly, realFs } from "../install/io.ts";
import { entryPathFindings, type EntryPaths, entryPaths, pathsExist } from "./doctor_entry.ts";
import { commandLine } from "../install/launch.ts";
import { runningCli } from "../install/running.ts";
import { entryPermissionFindings, entryServe, optionFindings } from "./doctor_serve.ts";
import { parseCommand } from "./flags.ts";

/** What the doctor touches outside itself. */
export interface DoctorIo extends CodexCheckIo {
  /** Writes the report (stdout). */
  out(text: string): void;
  /** `Deno.build.os`. */
  os: typeof Deno.build.os;
  /** The command line that runs this relay's CLI (hints name it: a checkout has no `codex-relay`). */
  relay: string;
  /** Its words. */
  relayWords: string[];
  /** A file's text, or `null` when it does not exist (`doctor --client`). */
  read(path: string): Promise<string | null>;
  /** The current folder (`doctor --client --scope project`). */
  cwd(): string;
}

/** Runs the checks, writes the report, resolves with 0 (no problem) or 1. */
export async function doctor(
  flags: ServeFlags,
  version: string,
  io: DoctorIo = realDoctorIo(),
  registration?: Registration,
): Promise<number> {
  const sections: [string, Finding[]][] = [];
  const command = flags.codex ?? "codex";
  const codex = await checkCodex({ ...io, client: registration?.client }, flags.codex);
  sections.push(["codex", codex.findings]);
  const client = registration
    ? await readRegistration(registration, io, io.cwd())
    : { findings: [], entries: [] };
  const served = client.entry ? entryServe(client.entry.entry, serveWords) : undefined;
  const appServer = codex.runs
    ? await checkAppServer(io, version, flags.appServer, client.entries, command)
    : { findings: [], config: undefined, registered: [] };
  sections.push(["app-server", appServer.findings]);
  // The providers' key variables as the registered client starts the relay.
  const keys = providerKeys((appServer.config as { config?: unknown } | undefined)?.config);
  sections.push(["registration", [
    ...client.findings,
    ...appServer.registered,
    ...registrationKeyFindings(client.entry, keys, io.relay),
    ...(served && "problem" in served ? [{ level: "warn" as const, text: served.problem }] : []),
  ]]);
  // What Codex gets from the relay's environment: spawn mode only (a daemon has its own).
  if (startsAppServer(flags.appServer)) {
    sections.push([
      "environment",
      await environmentFindings(appServer.config, io.relay, command),
    ]);
  }
  const own = checkPermissions(io, codex.missing, command);
  // With --client: the entry's options, tools and run grant, not this process's.
  const entry = served && "flags" in served ? served : undefined;
  const whose = entry && `${client.entry!.target.label}'s entry`;
  sections.push([
    "permissions",
    entry
      ? [
        ...entryPermissionFindings(entry, whose!, io.relay),
        ...own.filter((f) => !f.text.startsWith("run:")),
      ]
      : own,
  ]);
  sections.push(["capabilities", optionFindings(entry?.flags ?? flags, io.relay, whose)]);
  sections.push(["git", await gitSection(entry?.flags ?? flags, io)]);
  const lines = [`codex-relay ${version} doctor`];
  for (const [title, findings] of sections) {
    if (findings.length === 0) continue;
    lines.push("", title);
    for (const f of findings) {
      lines.push(`  ${f.level.padEnd(8)}${f.text}`);
      if (f.fix) lines.push(`  ${"".padEnd(8)}fix: ${f.fix}`);
    }
  }
  const problems = sections.flatMap(([, f]) => f).filter((f) => f.level === "problem");
  lines.push(
    "",
    problems.length === 0
      ? "No problems found."
      : `${problems.length} problem(s) found; each has its fix above.`,
    "",
  );
  io.out(lines.join("\n"));
  return problems.length === 0 ? 0 : 1;
}

/** What the app-server's answer says: which one answered, and a daemon's version. */
function answeredFindings(connection: Connection, mode: AppServerMode): Finding[] {
  if (!connection.capabilities.shared) {
    return [{
      level: "ok",
      text: "codex app-server answered initialize (experimental API) and thread/list",
    }];
  }
  // A shared app-server runs whichever codex started it, not necessarily the one on PATH.
  const findings: Finding[] = [];
  const agent = (connection.initializeResult as { userAgent?: unknown } | undefined)?.userAgent;
  const found = typeof agent === "string" ? agent.match(/\/(\d+\.\d+\.\d+[^\s]*)/) : null;
  findings.push({
    level: "ok",
    text: `${
      appServerLabel(mode)
    } answered through codex app-server proxy: initialize (experimental API) and thread/list`,
  });
  findings.push(
    found
      ? { level: "ok", text: `daemon version: ${found[1]}` }
      : { level: "warn", text: "the daemon did not say its version (no userAgent)" },
  );
  const support = found ? supportOf(found[1]) : "supported";
  if (found && support !== "supported") {
    findings.push({
      level: "warn",
      text: `the daemon runs codex ${
        found[1]
      }, ${support} than the supported ${SUPPORTED_CODEX.oldest} to ${SUPPORTED_CODEX.newest}`,
      fix:
        "update Codex, then restart the daemon: codex app-server daemon stop; codex app-server daemon start",
    });
  }
  return findings;
}

async function checkAppServer(
  io: DoctorIo,
  version: string,
  mode: AppServerMode,
  clientEntries: readonly EntryPaths[],
  command: string,
): Promise<{ findings: Finding[]; config: unknown; registered: Finding[] }> {
  const findings: Finding[] = [];
  let config: unknown;
  let models: ModelPage | null = null;
  let entries: EntryPaths[] = [];
  let exists = new Map<string, boolean>();
  const options = {
    allowlist: new Set<Method>([
      "thread/list",
      "account/read",
      "config/read",
      "fs/getMetadata",
      "model/list",
    ]),
    version,
    log: silentLogger,
    command,
  };
  const connection = await openConnection(mode, options);
  const home = io.env("CODEX_HOME") ??
    (io.env("HOME") ?? io.env("USERPROFILE") ?? "~") +
      (io.os === "windows" ? "\\.codex" : "/.codex");
  try {
    const [page, account] = await connection.operation(
      async (s) => {
        const read = [
          await s.call("thread/list", { limit: 1, sourceKinds: LISTED_SOURCE_KINDS }),
          await s.call("account/read", {}),
        ] as const;
        // The providers' key variables (environment section); a failed read checks none.
        config = await s.call("config/read", {}).catch(() => null);
        // What codex_run's and codex_review's model and effort are checked against.
        models = await s.call("model/list", {}).catch(() => null);
        // The paths Codex's own entries for the relay name, asked of Codex (no read permission).
        entries = [
          ...entryPaths((config as { config?: unknown } | null)?.config),
          ...clientEntries,
        ];
        exists = await pathsExist(s, entries);
        return read;
      },
      { label: "doctor" },
    );
    findings.push(...answeredFindings(connection, mode));
    findings.push(
      page.data.length > 0 ? { level: "ok", text: `CODEX_HOME (${home}) has threads` } : {
        level: "info",
        text:
          `CODEX_HOME (${home}) has no threads yet: codex_queue_message needs an existing thread (start one in Codex, or serve with --allow-turn-start so codex_run can start one)`,
      },
    );
    findings.push(loginFinding(account, io));
    if (models) findings.push(modelsFinding(models));
  } catch (error) {
    const e = asRelayError(error);
    const fix = (e.reason === "daemon_unavailable" ? unavailableFix(mode) : undefined) ??
      FIXES[e.reason] ?? "run `codex app-server` in a terminal to see why it fails";
    findings.push({
      level: "problem",
      text: `${appServerName(mode)} failed (${e.reason}): ${e.message}`,
      fix,
    });
  } finally {
    await connection.shutdown();
  }
  return { findings, config, registered: entryPathFindings(entries, exists, io.relay) };
}

/** The models Codex offers (`model/list`): each with its efforts, the default marked. */
export function modelsFinding(page: ModelPage): Finding {
  const each = page.data.map((m) =>
    `\n          ${m.model}${m.isDefault ? " (default)" : ""}: ${m.efforts.join(", ") || "-"}`
  );
  const what = "model(s) for codex_run's and codex_review's model and effort";
  return { level: "info", text: `Codex offers ${page.data.length} ${what}:${each.join("")}` };
}

/** What `account/read` says about the login (`src/codex/account.ts`). */
function loginFinding(answer: AccountAnswer, io: DoctorIo): Finding {
  const state = loginState(answer, io.env);
  if (state.kind === "logged_in") return { level: "ok", text: `Codex is logged in (${state.how})` };
  if (state.kind === "not_needed") {
    return { level: "ok", text: "Codex's model provider needs no OpenAI login" };
  }
  const key = state.kind === "key_variable" ? state.name : undefined;
  return {
    level: key ? "warn" : "problem",
    text: `Codex is not logged in (account/read has no account)${
      key ? `; ${key} is set, which Codex may use instead` : ""
    }: turns would fail`,
    fix: `${LOGIN_FIX}, then check again`,
  };
}

const FIXES: Partial<Record<ReasonCode, string>> = {
  codex_missing: "install Codex (npm install -g @openai/codex) and put it on the PATH",
  spawn_failed: "check that codex is executable: run `codex app-server` in a terminal",
  experimental_unavailable:
    "this codex lacks the experimental app-server API the relay uses: npm install -g @openai/codex@latest",
  timeout:
    "codex app-server did not answer in time: run `codex app-server` in a terminal (a login or config problem shows there)",
  protocol_error:
    "the app-server's answer is not what the relay expects: update Codex (npm install -g @openai/codex@latest) or codex-relay",
  output_limit: "the app-server sent an oversized frame: update Codex or codex-relay",
  rpc_error: "run `codex app-server` in a terminal to see why it fails",
};

function checkPermissions(io: DoctorIo, codexMissing: boolean, command: string): Finding[] {
  const findings: Finding[] = [];
  const exact = "start the relay with exactly its permission set: deno run -P from a checkout, " +
    "or a start line of docs/install.md (never -A)";
  if (io.granted({ name: "run" })) {
    findings.push({ level: "problem", text: "run: any program may be started", fix: exact });
  } else if (io.granted({ name: "run", command })) {
    const kill = io.granted({ name: "run", command: GROUP_KILL });
    findings.push({
      level: "ok",
      text: kill
        ? `run: ${command} only (and ${GROUP_KILL}, to end a helper's process group)`
        : `run: ${command} only`,
    });
  } else if (codexMissing) {
    findings.push({ level: "ok", text: "run: nothing (codex was not found on PATH at start-up)" });
  }
  const wanted = Array.isArray(RELAY_PERMISSIONS.env) ? RELAY_PERMISSIONS.env : [];
  if (io.granted({ name: "env" })) {
    findings.push({
      level: "problem",
      text: "env: every environment variable is readable",
      fix: exact,
    });
  } else {
    const missing = wanted.filter((v) => !io.granted({ name: "env", variable: v }));
    findings.push(
      missing.length === 0
        ? { level: "ok", text: `env: only the ${wanted.length} names the relay reads` }
        : {
          level: "problem",
          text: `env: not readable: ${missing.join(", ")} (codex may miss its home or key)`,
          fix: exact,
        },
    );
  }
  const home = io.env("HOME") ?? io.env("USERPROFILE");
  const extra: string[] = [];
  for (const name of ["read", "write", "net", "ffi", "sys"] as const) {
    const broad = io.granted({ name } as Deno.PermissionDescriptor) ||
      ((name === "read" || name === "write") && home !== undefined &&
        io.granted({ name, path: home }));
    if (broad) extra.push(name);
  }
  findings.push(
    extra.length === 0
      ? { level: "ok", text: "read, write, net, ffi, sys: none" }
      : { level: "problem", text: `${extra.join(", ")}: granted but not needed`, fix: exact },
  );
  return findings;
}

/** The serve words of a client entry, by the CLI's own parser. */
function serveWords(words: string[]): ServeFlags {
  const command = parseCommand(["serve", ...words]);
  if (command.kind !== "serve") throw new Error(`'${words.join(" ")}' does not serve`);
  return command.flags;
}

/** Which git `flags` run and whether it can: checked only where this doctor may run it. */
async function gitSection(flags: ServeFlags, io: DoctorIo): Promise<Finding[]> {
  const git = flags.worktrees?.git;
  if (!git) return [];
  if (!io.granted({ name: "run", command: git })) {
    return [{
      level: "info",
      text: `the relay runs ${git}, which this doctor may not run: ${io.relay} doctor ${
        serveArgs(valuesOfFlags(flags)).join(" ")
      } checks it`,
    }];
  }
  return await gitFindings(gitRunner(git), git, io.relay);
}

/** The real doctor environment: stdout, permission queries that never prompt. */
export function realDoctorIo(): DoctorIo {
  const granted = (d: Deno.PermissionDescriptor) =>
    Deno.permissions.querySync(d).state === "granted";
  const encoder = new TextEncoder();
  const relayWords = runningCli();
  return {
    out: (text) => {
      const bytes = encoder.encode(text);
      let offset = 0;
      while (offset < bytes.length) offset += Deno.stdout.writeSync(bytes.subarray(offset));
    },
    env: grantedEnv,
    granted,
    os: Deno.build.os,
    arch: Deno.build.arch,
    fs: grantedOnly(denoFsView()),
    relay: commandLine(relayWords),
    relayWords,
    read: (path) => realFs.read(path),
    cwd: () => {
      try {
        return Deno.cwd();
      } catch {
        return "."; // Without read permission on it: paths stay relative to it.
      }
    },
  };
}
