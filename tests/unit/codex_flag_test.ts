import assert from "assert";
import { parseCommand } from "../../src/cli/flags.ts";
import { UsageError } from "../../src/core/usage_error.ts";
import { serveFlags } from "../../src/host/serve_flags.ts";

Deno.test("serve and doctor --codex: an absolute path is the binary the relay runs", () => {
  const serve = parseCommand(["serve", "--codex", "/opt/codex/bin/codex"]);
  assert.equal(serve.kind === "serve" && serve.flags.codex, "/opt/codex/bin/codex");
  const doctor = parseCommand(["doctor", "--codex", "C:\\npm\\codex.exe"]);
  assert.equal(doctor.kind === "doctor" && doctor.flags.codex, "C:\\npm\\codex.exe");
  const plain = parseCommand(["serve"]);
  assert.equal(plain.kind === "serve" && plain.flags.codex, undefined);
});

Deno.test("--codex refuses a relative path, a comma, and a batch file (cmd.exe would run it)", () => {
  const refused: [string, RegExp][] = [
    ["codex", /absolute path/],
    ["./bin/codex", /absolute path/],
    ["/opt/a,b/codex", /comma/],
    ["C:\\Users\\u\\AppData\\Roaming\\npm\\codex.cmd", /batch file.*codex\.exe/],
    ["C:\\tools\\CODEX.BAT", /batch file/],
  ];
  for (const [value, message] of refused) {
    assert.throws(() => parseCommand(["serve", "--codex", value]), (e: unknown) => {
      assert.ok(e instanceof UsageError);
      assert.equal(e.code, 64);
      assert.match(e.message, message);
      return true;
    }, value);
  }
  assert.throws(
    () => parseCommand(["serve", "--codex", "/a", "--codex", "/b"]),
    UsageError,
    "given once",
  );
});

Deno.test("the library's codex option: the same rule, a TypeError for what --codex refuses", () => {
  const options = (codex?: string) => serveFlags({ codex }, "options");
  assert.equal(options("/opt/codex/bin/codex").codex, "/opt/codex/bin/codex");
  assert.equal(options().codex, undefined);
  for (const bad of ["codex", "C:\\npm\\codex.cmd", "/a,b/codex"]) {
    assert.throws(() => options(bad), TypeError, bad);
  }
});
