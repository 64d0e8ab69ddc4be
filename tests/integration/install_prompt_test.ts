/**
 * Protects: in a terminal, the README's install line, the command it prints
 * and `doctor` never stop at a Deno permission prompt (issue 38: one per PATH
 * folder). Run under a pseudo-terminal (`script` of util-linux), where Deno
 * prompts; with stdin not a terminal, as in every other test, it denies
 * silently and no test would see it.
 */
import assert from "assert";
import { thread, withFixture } from "../../testing/fixture_home.ts";
import { ROOT } from "../../testing/relay.ts";
import { denoChildEnv } from "../../testing/child_env.ts";

const hasScript = Deno.build.os === "linux" &&
  ["/usr/bin/script", "/bin/script"].some((p) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  });

const readme = await Deno.readTextFile(`${ROOT}/README.md`);

/** A README line's command: the one inside `sh -c "$(...)"`, or between backquotes. */
function readmeCommand(pattern: RegExp): string {
  const found = readme.match(pattern);
  assert.ok(found, `README has ${pattern}`);
  return found[1];
}

/**
 * Runs `line` in a pseudo-terminal; a permission prompt ends it (killed) and
 * is returned in the output, which is otherwise the command's whole output.
 */
async function inTerminal(line: string, env: Record<string, string>): Promise<string> {
  const child = new Deno.Command("script", {
    args: ["-qec", line, "/dev/null"],
    cwd: ROOT,
    env: denoChildEnv(env),
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of child.stdout) {
    text += decoder.decode(chunk, { stream: true });
    // The prompt waits for an answer: nothing more comes until it is killed.
    if (/Deno requests/.test(text) && /Allow\?/.test(text)) {
      child.kill("SIGKILL");
      break;
    }
  }
  await child.status;
  await child.stdin.close().catch(() => {});
  return text;
}

Deno.test({
  name: "in a terminal, the README's install line, the command it prints and doctor never prompt",
  ignore: !hasScript,
  fn: async () => {
    await withFixture({ threads: [thread()] }, async (f) => {
      const home = await Deno.makeTempDir({ prefix: "codex-relay-pty-" });
      const env = { ...f.env, HOME: home };
      try {
        const print = readmeCommand(
          /sh -c "\$\((deno run [^)]* --client cursor --print-command)\)"/,
        );
        const printed = await inTerminal(print, env);
        assert.doesNotMatch(printed, /Deno requests/, printed);
        const apply = printed.trim().split("\n").find((l) => l.startsWith("deno run"));
        assert.ok(apply, printed);
        const applied = await inTerminal(`${apply.trim()} --dry-run`, env);
        assert.doesNotMatch(applied, /Deno requests/, applied);
        assert.match(applied, /Dry run: nothing was written/, applied);
        const doctor = readmeCommand(/`(deno run [^`]* mod\.ts doctor)`/);
        const checked = await inTerminal(doctor, env);
        assert.doesNotMatch(checked, /Deno requests/, checked);
        assert.match(checked, /No problems found\./, checked);
      } finally {
        await Deno.remove(home, { recursive: true });
      }
    });
  },
});

Deno.test({
  name:
    "in a terminal, install's print step and doctor ask nothing even started without --no-prompt",
  ignore: !hasScript,
  fn: async () => {
    await withFixture({ threads: [thread()] }, async (f) => {
      const home = await Deno.makeTempDir({ prefix: "codex-relay-pty-" });
      const env = { ...f.env, HOME: home };
      const relay = `deno run -P --quiet ${ROOT}/mod.ts`;
      try {
        const printed = await inTerminal(`${relay} install --client cursor --print-command`, env);
        assert.doesNotMatch(printed, /Deno requests/, printed);
        assert.match(printed, /^deno run --no-prompt /m, printed);
        const checked = await inTerminal(`${relay} doctor`, env);
        assert.doesNotMatch(checked, /Deno requests/, checked);
        assert.match(checked, /No problems found\./, checked);
      } finally {
        await Deno.remove(home, { recursive: true });
      }
    });
  },
});
