/** Protects: #47's one table of serve options: the parser, the help, install and doctor read each row. */

import assert from "assert";
import { SERVE_OPTIONS, type ServeOption } from "../../src/core/serve_options.ts";
import { parseCommand } from "../../src/cli/flags.ts";
import { doctorHelp, serveHelp } from "../../src/cli/help.ts";
import { INSTALL_USAGE, parseInstallArgs } from "../../src/install/args.ts";
import { UsageError } from "../../src/core/usage_error.ts";

/** A command line that gives `o` (and what it needs) with a valid value. */
function given(o: ServeOption): string[] {
  const value: Record<string, string> = {
    "--log-level": "info",
    "--app-server": "daemon",
    "--codex": "/opt/codex",
    "--git": "/usr/bin/git",
    "--disable-codex-mcp-server": "docs",
    "--compat": "codex-mcp-server",
  };
  const own = o.type === "boolean" ? [o.flag] : [o.flag, value[o.flag]];
  const needs = o.needs ? given(SERVE_OPTIONS.find((r) => r.option === o.needs)!) : [];
  return [...needs, ...own];
}

Deno.test("every serve option is parsed, helped, and refused without what it needs", () => {
  for (const o of SERVE_OPTIONS) {
    assert.equal(parseCommand(["serve", ...given(o)]).kind, "serve", o.flag);
    assert.ok(serveHelp("0").includes(`  ${o.flag}`), o.flag);
    if (o.needs) {
      const own = given(o).slice(o.type === "boolean" ? -1 : -2);
      assert.throws(() => parseCommand(["serve", ...own]), UsageError, `${o.flag} alone`);
    }
  }
});

Deno.test("doctor takes exactly the rows marked for it; install exactly its own, passed on", () => {
  for (const o of SERVE_OPTIONS) {
    const doctor = () => parseCommand(["doctor", ...given(o)]);
    if (o.doctor) {
      assert.equal(doctor().kind, "doctor", o.flag);
      assert.ok(doctorHelp("0").includes(`  ${o.flag}`), o.flag);
    } else {
      assert.throws(doctor, UsageError, o.flag);
      assert.ok(!doctorHelp("0").includes(`  ${o.flag} `), o.flag);
    }
    const install = () => parseInstallArgs(["install", "--client", "cursor", ...given(o)]);
    if (o.install) {
      assert.equal(install().action, "install", o.flag);
      assert.ok(INSTALL_USAGE.includes(`  ${o.flag}`), o.flag);
    } else {
      assert.throws(install, UsageError, o.flag);
    }
  }
});

Deno.test("doctor --print-command passes on the serve options doctor was given", () => {
  const command = parseCommand([
    "doctor",
    "--allow-turn-start",
    "--allow-worktrees",
    "--git",
    "/usr/bin/git",
    "--app-server",
    "daemon",
    "--client",
    "cursor",
    "--print-command",
  ]);
  assert.equal(command.kind, "doctor");
  assert.deepEqual(command.kind === "doctor" && command.registration?.passOn, [
    "--allow-turn-start",
    "--allow-worktrees",
    "--git",
    "/usr/bin/git",
    "--app-server",
    "daemon",
  ]);
});
