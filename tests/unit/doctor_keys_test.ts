/**
 * `doctor --client`'s check of the providers' key variables as each client
 * starts the relay (src/cli/doctor_client.ts), on entries as install writes
 * them and as users edit them.
 */

import assert from "assert";
import { registrationKeyFindings } from "../../src/cli/doctor_client.ts";
import { type ClientId, resolveTarget } from "../../src/install/clients.ts";
import type { ProviderKey } from "../../src/cli/doctor_env.ts";

const RELAY = "deno run -P /opt/relay/mod.ts";
const KEYS: ProviderKey[] = [
  { provider: "azure", envKey: "AZURE_KEY", active: true },
  { provider: "other", envKey: "OTHER_KEY", active: false },
];

function check(client: ClientId, env: Record<string, string>, keys = KEYS) {
  const target = resolveTarget(client, "user", {
    os: "linux",
    cwd: "/p",
    get: (n) => ({ HOME: "/h" })[n],
  });
  const entry = { command: "/usr/bin/deno", args: ["serve"], env };
  return registrationKeyFindings({ target, entry }, keys, RELAY);
}

Deno.test("Cursor and VS Code: a ${env:NAME} reference passes the key; none is a problem for the default provider, a warning for another, with install's fix", () => {
  for (const [client, label] of [["cursor", "Cursor"], ["vscode", "VS Code"]] as const) {
    const ok = check(client, { AZURE_KEY: "${env:AZURE_KEY}", OTHER_KEY: "${env:OTHER_KEY}" });
    assert.deepEqual(ok.map((f) => f.level), ["ok", "ok"], client);
    assert.match(ok[0].text, new RegExp(`passes AZURE_KEY from ${label}'s environment`));
    const missing = check(client, {});
    assert.deepEqual(missing.map((f) => f.level), ["problem", "warn"], client);
    assert.match(missing[0].text, /does not give it AZURE_KEY: .* fail \(missing_provider_key/);
    assert.match(
      missing[0].fix!,
      new RegExp(
        `install --client ${client} prints the command; it adds "AZURE_KEY": "\\$\\{env:AZURE_KEY\\}"`,
      ),
    );
  }
});

Deno.test("Claude Desktop: only a literal value in the entry gives the key (never shown); a reference is not expanded", () => {
  const set = check("claude-desktop", { AZURE_KEY: "sk-secret", OTHER_KEY: "sk-other" });
  assert.deepEqual(set.map((f) => f.level), ["ok", "ok"]);
  assert.ok(set.every((f) => !f.text.includes("sk-")), "a value is never shown");
  const missing = check("claude-desktop", { OTHER_KEY: "${env:OTHER_KEY}" });
  assert.deepEqual(missing.map((f) => f.level), ["problem", "warn"]);
  assert.match(missing[1].text, /gives OTHER_KEY a reference Claude Desktop does not expand/);
  assert.match(
    missing[0].fix!,
    /takes only literal values there: add "AZURE_KEY": "<its value>" to the "env" of codex-relay's entry in \/h\/\.config\/Claude\/claude_desktop_config\.json yourself/,
  );
});

Deno.test("Claude Code passes its own environment: nothing to add to the entry; a ${env:} reference it does not expand is a problem", () => {
  const inherited = check("claude-code", {});
  assert.deepEqual(inherited.map((f) => f.level), ["info", "info"]);
  assert.match(inherited[0].text, /starts codex-relay with its own environment/);
  const wrong = check("claude-code", { AZURE_KEY: "${env:AZURE_KEY}" });
  assert.equal(wrong[0].level, "problem");
  assert.match(wrong[0].fix!, /remove "AZURE_KEY" from the "env" of codex-relay's entry/);
});

Deno.test("no provider keys, no entry, or Codex (checked from config/read): nothing to say", () => {
  assert.deepEqual(check("cursor", {}, []), []);
  assert.deepEqual(registrationKeyFindings(undefined, KEYS, RELAY), []);
  assert.deepEqual(check("codex", {}), []);
});
