/**
 * What a relay loads before its first answer: the code of the default surface, not the code a
 * flag or a call brings (issue 47: a relay that starts like a bare MCP server). Read from
 * `deno info --json mod.ts`: the static imports from `mod.ts` are what every start loads; a
 * dynamic `import()` loads only when reached.
 * @module
 */

import assert from "assert";
import { ROOT } from "../../testing/relay.ts";

interface Dependency {
  code?: { specifier: string };
  isDynamic?: boolean;
}

interface InfoModule {
  specifier: string;
  dependencies?: Dependency[];
}

/** The specifiers reachable from `mod.ts`: by static imports only, and with dynamic ones too. */
async function graph(): Promise<{ statics: Set<string>; all: Set<string> }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", `${ROOT}/deno.json`, `${ROOT}/mod.ts`],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout));
  const modules = new Map<string, InfoModule>(
    (info.modules as InfoModule[]).map((m) => [m.specifier, m]),
  );
  const closure = (withDynamic: boolean) => {
    const seen = new Set<string>();
    const stack = [`file://${ROOT}/mod.ts`];
    while (stack.length > 0) {
      const at = stack.pop()!;
      if (seen.has(at)) continue;
      seen.add(at);
      for (const d of modules.get(at)?.dependencies ?? []) {
        if (d.code && (withDynamic || !d.isDynamic)) stack.push(d.code.specifier);
      }
    }
    return seen;
  };
  return { statics: closure(false), all: closure(true) };
}

/** What only a flag, another command or a call needs. */
const LOADED_WHEN_ASKED = [
  "src/turn/turn_machinery.ts", // runs and replies: the levels above the default
  "src/host/tools/all_tools.ts", // every tool beyond the default two
  "src/reply/structured.ts", // the answer checker (Ajv): the first outputSchema
  "src/connect/spawn/spawn_connection.ts", // the first call (the backend's code)
  "src/connect/daemon/daemon_connection.ts", // --app-server daemon, at its first call
  "src/ops/queue_message.ts", // the first codex_queue_message
  "src/ops/list_threads.ts", // the first codex_list_threads
  "src/reply/schemas.ts", // the results of the tools beyond the default two
  "src/host/channels.ts", // --channels
  "src/connect/process/git_runner.ts", // --allow-worktrees
  "src/cli/install.ts",
  "src/cli/doctor.ts",
  "src/cli/hook_wait.ts",
  "src/cli/help.ts",
];

Deno.test("a relay's start loads the default surface only; flags, commands and calls load theirs when asked", async () => {
  const { statics, all } = await graph();
  const local = (s: Set<string>) =>
    [...s].filter((x) => x.startsWith(`file://${ROOT}/`)).map((x) => x.slice(ROOT.length + 8));
  const loaded = local(statics);
  for (const path of LOADED_WHEN_ASKED) {
    assert.ok(
      local(all).includes(path),
      `${path} is reached by an import() (else this proves nothing)`,
    );
    assert.ok(!loaded.includes(path), `${path} is loaded at every start`);
  }
  assert.ok(
    ![...statics].some((x) => x.includes("/ajv@")),
    "Ajv (CommonJS, a third of the start) is loaded by the first outputSchema only",
  );
  assert.ok(loaded.includes("src/host/tools/queue_message_tool.ts"), "the default surface is");
});
