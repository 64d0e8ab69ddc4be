import assert from "assert";
import {
  CACHED_ONLY,
  cachedOnly,
  denoCacheDir,
  denoChildEnv,
  PASSED_TO_CHILDREN,
  passedVariables,
} from "../../testing/child_env.ts";

Deno.test("the cache, certificate and proxy variables a process has are passed, nothing else", () => {
  const have: Record<string, string> = {
    DENO_DIR: "/cache/deno",
    DENO_CERT: "/etc/corp-ca.pem",
    SSL_CERT_FILE: "/etc/ssl/cert.pem",
    HTTPS_PROXY: "http://proxy:3128",
    no_proxy: "127.0.0.1,localhost",
    OPENAI_API_KEY: "sk-never-passed",
    LD_PRELOAD: "/evil.so",
    XDG_CACHE_HOME: "",
  };
  assert.deepEqual(passedVariables((name) => have[name]), {
    DENO_DIR: "/cache/deno",
    DENO_CERT: "/etc/corp-ca.pem",
    SSL_CERT_FILE: "/etc/ssl/cert.pem",
    HTTPS_PROXY: "http://proxy:3128",
    no_proxy: "127.0.0.1,localhost",
  });
  for (const name of ["DENO_DIR", "XDG_CACHE_HOME", "DENO_TLS_CA_STORE", "NODE_EXTRA_CA_CERTS"]) {
    assert.ok(PASSED_TO_CHILDREN.includes(name), name);
  }
  assert.ok(PASSED_TO_CHILDREN.includes("HTTP_PROXY") && PASSED_TO_CHILDREN.includes("http_proxy"));
});

Deno.test("a Deno child with a temp HOME uses this process's module cache, not the temp home's", async () => {
  const home = await Deno.makeTempDir({ prefix: "child-env-home-" });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json"],
      env: denoChildEnv({ HOME: home, NO_COLOR: "1" }),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { denoDir: string };
    assert.equal(info.denoDir, denoCacheDir());
    assert.ok(!info.denoDir.startsWith(home), "nothing goes to the temp home's cache");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a test's own values win over the passed ones", () => {
  assert.equal(denoChildEnv({ DENO_DIR: "/elsewhere" }).DENO_DIR, "/elsewhere");
});

Deno.test("deno run children get --cached-only once; other commands are left alone", () => {
  assert.deepEqual(cachedOnly(["run", "-P", "mod.ts"]), ["run", CACHED_ONLY, "-P", "mod.ts"]);
  assert.deepEqual(cachedOnly(["run", CACHED_ONLY, "x.ts"]), ["run", CACHED_ONLY, "x.ts"]);
  assert.deepEqual(cachedOnly(["info", "--json"]), ["info", "--json"]);
});
