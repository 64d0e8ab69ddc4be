import assert from "assert";
import denoJson from "../../deno.json" with { type: "json" };
import {
  INSTALL_PERMISSIONS,
  permissionFlags,
  RELAY_PERMISSIONS,
} from "../../src/core/permissions.ts";
import { normalizePermissionSet, permissionSetOfFlags } from "../../testing/permission_flags.ts";

Deno.test("permissionFlags() writes lists, booleans and allow/deny/ignore objects as flags", () => {
  assert.deepEqual(
    permissionFlags({
      run: ["codex"],
      env: { allow: ["A", "B"], deny: ["C"], ignore: true },
      read: false,
      write: [],
      net: true,
      sys: { allow: false },
    }),
    ["--allow-run=codex", "--allow-env=A,B", "--deny-env=C", "--ignore-env", "--allow-net"],
  );
  assert.deepEqual(permissionFlags({ all: true, run: ["x"] }), ["--allow-all"]);
});

Deno.test("permissionFlags() makes relative file paths absolute against the config folder", () => {
  assert.deepEqual(
    permissionFlags({ read: ["./data", "/etc/x"], write: ["dist"], run: ["./bin/tool"] }, "/repo"),
    ["--allow-run=./bin/tool", "--allow-read=/repo/data,/etc/x", "--allow-write=/repo/dist"],
  );
});

Deno.test("permissionSetOfFlags() reads derived flags back to the same normalized set", () => {
  for (const set of [RELAY_PERMISSIONS, INSTALL_PERMISSIONS, { net: ["127.0.0.1"], read: true }]) {
    assert.deepEqual(permissionSetOfFlags(permissionFlags(set)), normalizePermissionSet(set));
  }
  assert.deepEqual(permissionSetOfFlags(["-A"]), { all: true });
  assert.throws(() => permissionSetOfFlags(["--no-prompt"]), /Not a permission flag/);
});

Deno.test("a dropped or widened flag no longer matches the set", () => {
  const flags = permissionFlags(RELAY_PERMISSIONS);
  const expected = normalizePermissionSet(RELAY_PERMISSIONS);
  assert.notDeepEqual(permissionSetOfFlags(flags.slice(1)), expected);
  assert.notDeepEqual(permissionSetOfFlags([...flags, "--allow-write"]), expected);
  assert.notDeepEqual(
    permissionSetOfFlags(flags.map((f) => f.replace(/^--allow-run=.*$/, "--allow-run"))),
    expected,
  );
});

Deno.test("the relay and install sets are the ones in deno.json, and neither writes", () => {
  assert.deepEqual(RELAY_PERMISSIONS, denoJson.permissions.default);
  assert.deepEqual(INSTALL_PERMISSIONS, denoJson.permissions.install);
  for (const set of [RELAY_PERMISSIONS, INSTALL_PERMISSIONS]) {
    const n = normalizePermissionSet(set);
    assert.equal(n.write, undefined);
    assert.equal(n.net, undefined);
    assert.equal(n.all, undefined);
  }
  assert.deepEqual(permissionFlags(INSTALL_PERMISSIONS), [
    `--allow-env=${denoJson.permissions.install.env.join(",")}`,
  ]);
});
