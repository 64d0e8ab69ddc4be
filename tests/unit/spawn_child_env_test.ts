import assert from "assert";
import { refusedLoaderVars } from "../../src/connect/process/child_env.ts";
import { keyPresence, providerKeys } from "../../src/cli/doctor_env.ts";

Deno.test("refusedLoaderVars() reads the names of Deno 2.9's refusal, and nothing else", () => {
  const refusal = (names: string, plural: boolean) =>
    new Deno.errors.NotCapable(
      `Requires --allow-run permissions to spawn subprocess with ${names} environment variable${
        plural ? "s" : ""
      }. Alternatively, spawn with ${plural ? "these" : "the"} environment variable${
        plural ? "s" : ""
      } unset.`,
    );
  assert.deepEqual(refusedLoaderVars(refusal("DYLD_X, LD_FOO", true)), ["DYLD_X", "LD_FOO"]);
  assert.deepEqual(refusedLoaderVars(refusal("LD_PRELOAD", false)), ["LD_PRELOAD"]);
  // Another refusal (the command itself), another error type, a name that is no loader variable.
  assert.deepEqual(
    refusedLoaderVars(new Deno.errors.NotCapable('Requires run access to "sh"')),
    [],
  );
  assert.deepEqual(refusedLoaderVars(new Error(refusal("LD_FOO", false).message)), []);
  assert.deepEqual(refusedLoaderVars(refusal("LD_FOO, PATH", true)), []);
});

Deno.test("providerKeys() lists providers with a safe env_key, the active one first", () => {
  const config = {
    model_provider: "b",
    model_providers: {
      a: { env_key: "A_KEY" },
      b: { env_key: "B_KEY" },
      c: { env_key: null },
      "bad name": { env_key: "X" },
      d: { env_key: "NOT A NAME" },
    },
  };
  assert.deepEqual(providerKeys(config), [
    { provider: "b", envKey: "B_KEY", active: true },
    { provider: "a", envKey: "A_KEY", active: false },
  ]);
  assert.deepEqual(providerKeys({}), []);
  assert.deepEqual(providerKeys(null), []);
});

Deno.test("keyPresence() reads codex doctor's auth check for exactly that variable", () => {
  const report = (said: string) =>
    JSON.stringify({
      checks: { "auth.credentials": { details: { "provider auth env var": said } } },
    });
  assert.equal(keyPresence(report("MY_KEY (missing)"), "MY_KEY"), "missing");
  assert.equal(keyPresence(report("MY_KEY (present)"), "MY_KEY"), "present");
  assert.equal(keyPresence(report("OTHER (missing)"), "MY_KEY"), undefined);
  assert.equal(keyPresence("not json", "MY_KEY"), undefined);
  assert.equal(keyPresence(JSON.stringify({ checks: {} }), "MY_KEY"), undefined);
});
