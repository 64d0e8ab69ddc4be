import assert from "assert";
import { processesMatching } from "../../testing/fixture_home.ts";

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

Deno.test("deno task demo walks list, queue, run with an approval round and read, and cleans up", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-P=demo",
      "--quiet",
      "--cached-only", // cached by `deno task test` (tests/integration/cold_cache_test.ts)
      "--config",
      `${root}/deno.json`,
      `${root}/scripts/demo.ts`,
    ],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
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
