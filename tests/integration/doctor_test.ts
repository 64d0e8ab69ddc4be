/**
 * `codex-relay doctor` as users run it (`deno run -P mod.ts doctor`, the
 * relay's own permission set) against the fixture app-server.
 */

import assert from "assert";
import { FIXTURE_BIN, thread, withFixture } from "../../testing/fixture_home.ts";
import { entryArgs, ROOT } from "../../testing/relay.ts";
import { denoChildEnv } from "../../testing/child_env.ts";

async function doctor(
  env: Record<string, string>,
  options: { flags?: string[]; permissions?: string[] } = {},
): Promise<{ code: number; out: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: entryArgs(["doctor", ...(options.flags ?? [])], {
      permissions: options.permissions,
      cachedOnly: true,
      noPrompt: true,
    }),
    env: denoChildEnv(env),
    clearEnv: true,
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  return { code: out.code, out: text + new TextDecoder().decode(out.stderr) };
}

Deno.test("doctor: codex, its version, the app-server, threads and the permission set all pass (exit 0)", async () => {
  await withFixture({ threads: [thread({ name: "alpha" })] }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 0, out);
    assert.match(out, new RegExp(`ok +codex resolves to ${FIXTURE_BIN}/codex`));
    assert.match(out, /ok +codex --version: codex-cli 0\.169\.0/);
    assert.match(
      out,
      /ok +codex app-server answered initialize \(experimental API\) and thread\/list/,
    );
    assert.match(out, new RegExp(`ok +CODEX_HOME \\(${f.home}\\) has threads`));
    assert.match(out, /ok +run: codex only \(and \/bin\/kill, to end a helper.s process group\)/);
    assert.match(out, /ok +env: only the 13 names the relay reads/);
    assert.match(out, /ok +read, write, net, ffi, sys: none/);
    assert.match(out, /tools at these flags: codex_list_threads, codex_queue_message/);
    assert.match(out, /No problems found\./);
    const methods = (await f.requests()).map((r) => r.method);
    assert.deepEqual(methods, [
      "initialize",
      "thread/list",
      "account/read",
      "config/read",
      "model/list",
    ]);
    assert.match(out, /ok +Codex is logged in \(apiKey\)/);
    // The models of model/list (transcript 24, 0.169), each with its efforts.
    assert.match(
      out,
      /info +Codex offers 9 model\(s\) for codex_run's and codex_review's model and effort:\n +gpt-6\.1-sol \(default\): low, medium, high, xhigh, max, ultra\n +gpt-6-astra: /,
    );
    const init = (await f.requests())[0].params as { capabilities: unknown };
    assert.deepEqual(init.capabilities, { experimentalApi: true });
  });
});

Deno.test("doctor: names a provider whose key variable Codex would miss, and loader variables Codex gets empty", async () => {
  const scenario = {
    threads: [thread()],
    modelProvider: "keyed",
    modelProviders: {
      keyed: { env_key: "RELAY_TEST_MISSING_KEY" },
      other: { env_key: "RELAY_TEST_SET_KEY" },
      plain: {},
    },
  };
  await withFixture(scenario, async (f) => {
    const { code, out } = await doctor({
      ...f.env,
      RELAY_TEST_SET_KEY: "set-but-never-shown",
      LD_RELAY_TEST: "1",
    });
    assert.equal(code, 0, out);
    assert.match(
      out,
      /warn +model provider keyed \(the default\) reads its key from RELAY_TEST_MISSING_KEY, which is not set in the environment codex-relay was started with/,
    );
    assert.match(out, /fix: set RELAY_TEST_MISSING_KEY in the "env" of codex-relay's entry/);
    assert.match(out, /ok +model provider other: its key variable RELAY_TEST_SET_KEY is set/);
    assert.doesNotMatch(out, /plain/, "a provider without env_key needs no variable");
    assert.match(out, /warn +LD_RELAY_TEST set in the environment codex-relay was started with/);
    assert.ok(!out.includes("set-but-never-shown"), "no value is shown");
    const asked = (await f.log()).filter((e) => e.event === "doctor").map((e) => e.args);
    assert.deepEqual(asked, [
      ["doctor", "--json", "-c", 'model_provider="keyed"'],
      ["doctor", "--json", "-c", 'model_provider="other"'],
    ]);
  });
});

Deno.test("doctor: without codex on PATH it fails (exit 1) and says how to fix it", async () => {
  await withFixture({ threads: [] }, async (f) => {
    const { code, out } = await doctor({ ...f.env, PATH: "/nonexistent" });
    assert.equal(code, 1, out);
    assert.match(out, /problem +codex is not on the PATH the relay sees \(PATH=\S*\/nonexistent\)/);
    assert.match(out, /fix: install Codex \(npm install -g @openai\/codex\)/);
    assert.match(out, /1 problem\(s\) found/);
    assert.deepEqual(await f.spawned(), []);
  });
});

Deno.test("doctor: an app-server that dies on initialize is a problem with its fix", async () => {
  await withFixture({ threads: [], startup: { exitOnInitialize: 3 } }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 1, out);
    assert.match(out, /problem +codex app-server failed \(\w+\): /);
    assert.match(out, /fix: /);
  });
});

Deno.test("doctor: an empty CODEX_HOME is reported, not a problem; an old codex is a warning", async () => {
  await withFixture({ threads: [], startup: { version: "0.150.2" } }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 0, out);
    assert.match(out, /info +CODEX_HOME \(.*\) has no threads yet/);
    assert.match(
      out,
      /warn +codex 0\.150\.2 is older than the Codex releases codex-relay supports \(0\.169\.0 to 0\.171\.0\)/,
    );
    assert.match(out, /fix: npm install -g @openai\/codex@0\.171\.0/);
  });
});

Deno.test("doctor: a codex newer than the supported range is a warning with its fix; the newest supported is not", async () => {
  await withFixture({ threads: [], startup: { version: "0.172.0" } }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 0, out);
    assert.match(
      out,
      /warn +codex 0\.172\.0 is newer than the Codex releases codex-relay supports/,
    );
    assert.match(out, /fix: npm install -g @openai\/codex@0\.171\.0, or update codex-relay/);
  });
  await withFixture({ threads: [], startup: { version: "0.171.0" } }, async (f) => {
    const { out } = await doctor(f.env);
    assert.match(out, /ok +codex --version: codex-cli 0\.171\.0/);
    assert.doesNotMatch(out, /supports/, "no warning at the newest supported release");
  });
});

Deno.test("doctor: capability flags change the tools and the entry's arguments", async () => {
  await withFixture({ threads: [thread()] }, async (f) => {
    const { code, out } = await doctor(f.env, {
      flags: ["--allow-reply-read", "--allow-turn-start"],
    });
    assert.equal(code, 0, out);
    assert.match(
      out,
      /tools at these flags: codex_list_threads, codex_queue_message, codex_read_reply, codex_wait_reply, codex_run, codex_review, codex_steer, codex_interrupt, codex_withdraw_message/,
    );
    assert.match(
      out,
      /the client entry's arguments end with: serve --allow-reply-read --allow-turn-start/,
    );
  });
});

Deno.test("doctor: run with -A, every needless permission is a problem", async () => {
  await withFixture({ threads: [thread()] }, async (f) => {
    const { code, out } = await doctor(f.env, { permissions: ["-A"] });
    assert.equal(code, 1, out);
    assert.match(out, /problem +run: any program may be started/);
    assert.match(out, /problem +env: every environment variable is readable/);
    assert.match(out, /problem +read, write, net, ffi, sys: granted but not needed/);
    assert.match(out, /fix: start the relay with exactly its permission set/);
  });
});

Deno.test("doctor: Codex not logged in is a problem with its fix (exit 1), as account/read tells", async () => {
  // Codex 0.169 and 0.171 answer this with no auth.json and the default (OpenAI) provider.
  const account = { account: null, userId: null, requiresOpenaiAuth: true, workspaceRouting: null };
  await withFixture({ threads: [thread({ name: "alpha" })], account }, async (f) => {
    const { code, out } = await doctor(f.env);
    assert.equal(code, 1, out);
    assert.match(
      out,
      /problem +Codex is not logged in \(account\/read has no account\): turns would fail/,
    );
    assert.match(out, /fix: run `codex login` in a terminal/);
    assert.doesNotMatch(out, /No problems found/);
  });
  // A model provider that needs no OpenAI login (requiresOpenaiAuth: false) is fine.
  await withFixture(
    { threads: [], account: { ...account, requiresOpenaiAuth: false } },
    async (f) => {
      const { code, out } = await doctor(f.env);
      assert.equal(code, 0, out);
      assert.match(out, /ok +Codex's model provider needs no OpenAI login/);
    },
  );
});
