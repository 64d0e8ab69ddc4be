import assert from "assert";
import { type CodexLookIo, whichCodexFindings } from "../../src/cli/doctor_which.ts";
import { cmdShim, simFs } from "../../testing/sim_fs.ts";
import type { FsView } from "../../src/connect/process/codex_binary.ts";

const NPM = "C:\\Users\\u\\AppData\\Roaming\\npm";
const EXE =
  `${NPM}\\node_modules\\@openai\\codex-win32-x64\\vendor\\x86_64-pc-windows-msvc\\bin\\codex.exe`;
const WINDOWS_NPM = simFs({
  [`${NPM}\\codex.cmd`]: cmdShim("node_modules\\@openai\\codex\\bin\\codex.js"),
  [`${NPM}\\node_modules\\@openai\\codex\\bin\\codex.js`]: "",
  [`${NPM}\\node_modules\\@openai\\codex-win32-x64\\package.json`]: "{}",
  [EXE]: "",
}, { windows: true });

function io(fs: FsView, granted: (d: Deno.PermissionDescriptor) => boolean): CodexLookIo {
  const env: Record<string, string> = { PATH: `C:\\Windows;${NPM}`, PATHEXT: ".EXE;.CMD" };
  return { env: (n) => env[n], granted, os: "windows", arch: "x86_64", fs };
}

Deno.test("doctor on Windows: the codex.cmd Deno found, npm's wrapper, and the codex.exe install registers", () => {
  const granted = (d: Deno.PermissionDescriptor) =>
    d.name === "run" && "command" in d && d.command === `${NPM}\\codex.cmd`;
  const findings = whichCodexFindings(io(WINDOWS_NPM, granted), undefined);
  assert.deepEqual(findings[0], {
    level: "ok",
    text: `codex resolves to ${NPM}\\codex.cmd (the PATH lookup Deno's --allow-run=codex made)`,
  });
  assert.equal(findings[1].level, "info");
  assert.match(
    findings[1].text,
    /npm's Node wrapper; it starts .*codex\.exe \(@openai\/codex-win32-x64\)/,
  );
  assert.ok(findings[1].text.includes(EXE));
  assert.match(
    findings[1].fix ?? "",
    /sh -c "\$\(codex-relay install --client <[a-z|-]+> --print-command\)" registers the native binary/,
  );
});

Deno.test("doctor without read permission says it cannot tell, and --codex naming npm's wrapper is a warning", () => {
  const blind = whichCodexFindings(
    io(simFs({}, { unreadable: ["C:\\"], windows: true }), () => false),
    undefined,
  );
  assert.deepEqual(blind.map((f) => f.level), ["info"]);
  assert.match(blind[0].text, /doctor may read no file, so it cannot tell/);

  const wrapper = whichCodexFindings(io(WINDOWS_NPM, () => false), `${NPM}\\codex.cmd`);
  assert.deepEqual(wrapper.map((f) => f.level), ["info", "warn"]);
  assert.match(wrapper[1].text, /--codex names npm's Node wrapper/);
  assert.deepEqual(
    whichCodexFindings(io(WINDOWS_NPM, () => false), EXE),
    [{ level: "info", text: `codex: runs ${EXE} (named by --codex)` }],
  );
});

Deno.test("doctor's entry check names each path of an --allow-run list, so an entry install wrote has none missing (issue 38)", async () => {
  const { commandPaths } = await import("../../src/cli/doctor_entry.ts");
  const { serveLauncher } = await import("../../src/install/launch.ts");
  const caps = { replyRead: true, turnStart: false };
  const written = serveLauncher(
    { kind: "checkout", root: "/opt/relay" },
    "/bin/deno",
    caps,
    "/n/codex",
  );
  assert.deepEqual(commandPaths(written).sort(), [
    "/bin/deno",
    "/bin/kill",
    "/n/codex",
    "/opt/relay/deno.json",
    "/opt/relay/mod.ts",
  ]);
});

Deno.test("doctor's fixes name a complete install command: the client it checks, else the choices", () => {
  const granted = () => false;
  const checked = { ...io(WINDOWS_NPM, granted), client: "cursor" };
  const fix = whichCodexFindings(checked, undefined, "relay")[0].fix ?? "";
  assert.match(fix, /^sh -c "\$\(relay install --client cursor --print-command\)" registers/);
});

Deno.test("install and doctor look only where read is granted: elsewhere unreadable, never touched (no prompt)", async () => {
  const { grantedOnly } = await import("../../src/install/io.ts");
  const touched: string[] = [];
  const view: FsView = {
    kind: (p) => (touched.push(p), "file"),
    realPath: (p) => (touched.push(p), p),
    head: (p) => (touched.push(p), ""),
  };
  const fs = grantedOnly(view, (d) => d.name === "read" && d.path === "/ok/codex");
  assert.deepEqual(
    [fs.kind("/no/codex"), fs.realPath("/no/codex"), fs.head("/no/codex")],
    ["unreadable", null, null],
  );
  assert.equal(fs.kind("/ok/codex"), "file");
  assert.deepEqual(touched, ["/ok/codex"]);
});
