import assert from "assert";
import { processesMatching } from "../../testing/fixture_home.ts";
import denoJson from "../../deno.json" with { type: "json" };

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** `deno task demo`'s own command line, run from the module cache. */
function demoTask(): string[] {
  const [deno, run, ...rest] = denoJson.tasks.demo.split(" ");
  assert.deepEqual([deno, run], ["deno", "run"], denoJson.tasks.demo);
  // Cached by `deno task test` (tests/integration/cold_cache_test.ts).
  return [run, "--cached-only", "--config", `${root}/deno.json`, ...rest];
}

Deno.test("deno task demo walks list, queue, run with an approval round and read, and cleans up", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: demoTask(),
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.doesNotMatch(stderr, /experimental feature/, "Deno's permission-set warning is quiet");
  for (
    const step of [
      "== tools/list",
      "== codex_list_threads",
      "== codex_queue_message",
      "== codex_run",
      "== codex_read_reply",
    ]
  ) {
    assert.ok(text.includes(step), `the demo prints ${step}`);
  }
  assert.match(text, /Codex asks \(an input round of the tool call\): Codex asks to run a command/);
  assert.match(text, /"status": "queued"/);
  assert.match(text, /"status": "observed"/);
  assert.ok(!text.includes("Checking the tests first."), "commentary is never shown");
  assert.match(text, /exited with code 0/);
  assert.deepEqual(processesMatching("codex-relay-demo-"), [], "no fixture process is left");
});

Deno.test("deno task demo run TEXT makes only the codex_run call against the fake Codex (issue 47)", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...demoTask(), "run", "Try the relay."],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  assert.match(text, /== codex_run/);
  assert.match(text, /"text":"Try the relay\."/);
  assert.match(text, /All 42 tests pass/);
  assert.doesNotMatch(text, /== codex_list_threads|== codex_read_reply/);
  assert.deepEqual(processesMatching("codex-relay-demo-"), [], "no fixture process is left");
});
