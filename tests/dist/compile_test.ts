/**
 * Protects: `deno task compile` (what the release workflow runs) gets past the
 * type check to the runtime download, with the relay's heap cap baked into the
 * binary only, and says in one line when it cannot download.
 */
import assert from "assert";
import { ROOT } from "../../testing/relay.ts";
import { checkArgs, compileArgs } from "../../scripts/compile.ts";
import { RELAY_V8_FLAGS } from "../../src/install/launch.ts";

Deno.test("deno task compile: the type check runs without the relay's heap cap, deno compile bakes it in", () => {
  assert.ok(!checkArgs().some((a) => a.startsWith("--v8-flags")), checkArgs().join(" "));
  const compile = compileArgs("x86_64-unknown-linux-gnu");
  assert.ok(compile.includes(RELAY_V8_FLAGS), "the binary keeps the relay's V8 flags");
  assert.ok(compile.includes("--no-check"), "checked once before, outside the heap cap");
});

Deno.test("deno task compile reaches the runtime download and, when it cannot download, says so in one line", async () => {
  const env = { ...Deno.env.toObject() };
  for (const name of ["DENORT_BIN", "NO_PROXY", "no_proxy"]) delete env[name];
  // A proxy that refuses every connection: the download fails here and on a machine online.
  Object.assign(env, { HTTPS_PROXY: "http://127.0.0.1:9", https_proxy: "http://127.0.0.1:9" });
  const out = await new Deno.Command("deno", {
    args: ["task", "--quiet", "compile", "--target", "x86_64-unknown-linux-gnu"],
    cwd: ROOT,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 1, stderr);
  assert.doesNotMatch(stderr, /out of memory|Stack backtrace|\n\s+at /i);
  const last = stderr.trim().split("\n").at(-1)!;
  assert.match(last, /^compile: could not download the Deno runtime for x86_64-unknown-linux-gnu /);
});
