/**
 * A permission probe: tries what the relay must never be able to do (spawn
 * `sh`, open or accept a socket, write or read a file, read an environment
 * variable outside its list) and the one thing it must (spawn `codex`), and
 * prints one JSON line `{attempt: outcome}` where an outcome is `allowed`,
 * `NotCapable` (refused by Deno's permissions) or another error's name.
 * Run it with exactly the flags under test. Argument: a file path to try to write.
 * @module
 */

const results: Record<string, string> = {};

async function attempt(name: string, fn: () => Promise<unknown> | unknown): Promise<void> {
  try {
    await fn();
    results[name] = "allowed";
  } catch (error) {
    results[name] = error instanceof Deno.errors.NotCapable
      ? "NotCapable"
      : error instanceof Error
      ? error.name
      : String(error);
  }
}

const file = Deno.args[0] ?? "/tmp/codex-relay-probe-file";

await attempt("spawn sh", () => new Deno.Command("sh", { args: ["-c", "true"] }).output());
await attempt(
  "spawn /bin/sh",
  () => new Deno.Command("/bin/sh", { args: ["-c", "true"] }).output(),
);
await attempt("spawn codex", async () => {
  const out = await new Deno.Command("codex", { args: ["--version"], stdout: "null" }).output();
  if (!out.success) throw new Error(`codex --version exited ${out.code}`);
});
await attempt("connect", () => Deno.connect({ hostname: "127.0.0.1", port: 9 }));
await attempt("listen", () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
});
await attempt("write file", () => Deno.writeTextFile(file, "probe"));
await attempt("read file", () => Deno.readTextFile(new URL(import.meta.url).pathname));
await attempt("env outside the list", () => Deno.env.get("CODEX_RELAY_PROBE_SECRET"));
await attempt("env HOME", () => Deno.env.get("HOME"));

console.log(JSON.stringify(results));
