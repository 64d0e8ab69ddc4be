import assert from "assert";
import {
  type CodexBinary,
  explainCodexBinary,
  nodeModulePaths,
  resolveCodexBinary,
} from "../../src/connect/process/codex_binary.ts";
import { denoFsView } from "../../src/connect/process/codex_binary_fs.ts";
import { cmdShim, type Layout, shShim, simFs } from "../../testing/sim_fs.ts";
import { ROOT } from "../../testing/paths.ts";

const SCRIPT = "#!/usr/bin/env node\n// Unified entry point for the Codex CLI.\n";

/** npm's global layout on Linux or macOS under `prefix` (bin/ symlink, lib/node_modules/). */
function npmPosix(prefix: string, pkg: string | null, triple: string): Layout {
  const modules = `${prefix}/lib/node_modules`;
  const layout: Layout = {
    [`${prefix}/bin/codex`]: { link: "../lib/node_modules/@openai/codex/bin/codex.js" },
    [`${modules}/@openai/codex/bin/codex.js`]: SCRIPT,
    [`${modules}/@openai/codex/package.json`]: "{}",
  };
  if (pkg !== null) {
    layout[`${modules}/@openai/${pkg}/package.json`] = "{}";
    layout[`${modules}/@openai/${pkg}/vendor/${triple}/bin/codex`] = "";
  }
  return layout;
}

/** npm's global layout on Windows under `prefix` (%APPDATA%\npm): three shims beside node_modules. */
function npmWindows(prefix: string, pkg: string | null, triple: string): Layout {
  const modules = `${prefix}\\node_modules`;
  const layout: Layout = {
    [`${prefix}\\codex`]: shShim("node_modules/@openai/codex/bin/codex.js"),
    [`${prefix}\\codex.cmd`]: cmdShim("node_modules\\@openai\\codex\\bin\\codex.js"),
    [`${prefix}\\codex.ps1`]: "#!/usr/bin/env pwsh\n",
    [`${modules}\\@openai\\codex\\bin\\codex.js`]: SCRIPT,
    [`${modules}\\@openai\\codex\\package.json`]: "{}",
  };
  if (pkg !== null) {
    layout[`${modules}\\@openai\\${pkg}\\package.json`] = "{}";
    layout[`${modules}\\@openai\\${pkg}\\vendor\\${triple}\\bin\\codex.exe`] = "";
  }
  return layout;
}

/** The binary `install` registers for `r` (it registers only a native one). */
function native(r: CodexBinary): string {
  assert.ok(r.kind === "native", explainCodexBinary(r));
  return r.path;
}

Deno.test("npm on Linux (x64 and arm64): the symlink on PATH is followed to the platform package's binary", () => {
  for (
    const [arch, pkg, triple] of [
      ["x86_64", "codex-linux-x64", "x86_64-unknown-linux-musl"],
      ["aarch64", "codex-linux-arm64", "aarch64-unknown-linux-musl"],
    ]
  ) {
    const fs = simFs({ ...npmPosix("/usr", pkg, triple), "/bin/ls": "" });
    const r = resolveCodexBinary({ os: "linux", arch, path: "/usr/local/bin:/usr/bin:/bin" }, fs);
    assert.equal(native(r), `/usr/lib/node_modules/@openai/${pkg}/vendor/${triple}/bin/codex`);
    assert.match(
      explainCodexBinary(r),
      new RegExp(`npm's wrapper /usr/bin/codex .*@openai/${pkg}`),
    );
  }
});

Deno.test("npm on macOS (Homebrew's node, x64 and arm64): the darwin package's binary", () => {
  for (
    const [arch, pkg, triple] of [
      ["x86_64", "codex-darwin-x64", "x86_64-apple-darwin"],
      ["aarch64", "codex-darwin-arm64", "aarch64-apple-darwin"],
    ]
  ) {
    // Both platform packages installed: only this machine's is chosen.
    const other = pkg.endsWith("x64") ? "codex-darwin-arm64" : "codex-darwin-x64";
    const fs = simFs({
      ...npmPosix("/opt/homebrew", pkg, triple),
      [`/opt/homebrew/lib/node_modules/@openai/${other}/package.json`]: "{}",
    });
    const r = resolveCodexBinary({ os: "darwin", arch, path: "/opt/homebrew/bin:/usr/bin" }, fs);
    assert.equal(
      native(r),
      `/opt/homebrew/lib/node_modules/@openai/${pkg}/vendor/${triple}/bin/codex`,
    );
  }
});

Deno.test("npm on Windows (x64 and arm64): codex.cmd by PATHEXT, followed to codex.exe, never cmd.exe", () => {
  const prefix = "C:\\Users\\u\\AppData\\Roaming\\npm";
  for (
    const [arch, pkg, triple] of [
      ["x86_64", "codex-win32-x64", "x86_64-pc-windows-msvc"],
      ["aarch64", "codex-win32-arm64", "aarch64-pc-windows-msvc"],
    ]
  ) {
    const fs = simFs({
      ...npmWindows(prefix, pkg, triple),
      "C:\\Windows\\System32\\cmd.exe": "",
    }, { windows: true });
    const r = resolveCodexBinary({
      os: "windows",
      arch,
      path: `C:\\Windows\\System32;${prefix}`,
      pathext: ".COM;.EXE;.BAT;.CMD;.VBS;.JS;.WSH;.MSC",
    }, fs);
    assert.equal(
      native(r),
      `${prefix}\\node_modules\\@openai\\${pkg}\\vendor\\${triple}\\bin\\codex.exe`,
    );
    assert.equal(r.kind === "native" && r.wrapper.found, `${prefix}\\codex.cmd`);
  }
});

Deno.test("Windows: a project's node_modules\\.bin\\codex.cmd (shim path with ..) and an unset PATHEXT", () => {
  const project = "D:\\work\\app";
  const fs = simFs({
    [`${project}\\node_modules\\.bin\\codex.cmd`]: cmdShim("..\\@openai\\codex\\bin\\codex.js"),
    [`${project}\\node_modules\\@openai\\codex\\bin\\codex.js`]: SCRIPT,
    [`${project}\\node_modules\\@openai\\codex-win32-x64\\package.json`]: "{}",
    [`${project}\\node_modules\\@openai\\codex-win32-x64\\vendor\\x86_64-pc-windows-msvc\\bin\\codex.exe`]:
      "",
  }, { windows: true });
  const r = resolveCodexBinary({
    os: "windows",
    arch: "x86_64",
    path: `${project}\\node_modules\\.bin`,
  }, fs);
  assert.equal(
    native(r),
    `${project}\\node_modules\\@openai\\codex-win32-x64\\vendor\\x86_64-pc-windows-msvc\\bin\\codex.exe`,
  );
});

Deno.test("Windows: PATH order, then PATHEXT order within a folder, decide between codex.exe and codex.cmd", () => {
  const npm = "C:\\Users\\u\\AppData\\Roaming\\npm";
  const standalone = "C:\\Program Files\\Codex";
  const layout: Layout = {
    ...npmWindows(npm, "codex-win32-x64", "x86_64-pc-windows-msvc"),
    [`${standalone}\\codex.exe`]: "",
    [`${npm}\\codex.exe`]: "",
  };
  const fs = simFs(layout, { windows: true });
  const at = (path: string, pathext?: string) =>
    resolveCodexBinary({ os: "windows", arch: "x86_64", path, pathext }, fs);
  // The first folder that has one wins.
  assert.deepEqual(at(`${standalone};${npm}`), {
    kind: "direct",
    path: `${standalone}\\codex.exe`,
    from: "path",
  });
  // In one folder, .EXE comes before .CMD in the default PATHEXT ...
  assert.deepEqual(at(npm), { kind: "direct", path: `${npm}\\codex.exe`, from: "path" });
  // ... and a PATHEXT that lists .CMD first finds the shim, followed to the native binary.
  assert.equal(at(npm, ".CMD;.EXE").kind, "native");
  // Upper-case names on disk and in PATH match (Windows paths are case-insensitive).
  assert.equal(at(npm.toUpperCase(), ".CMD").kind, "native");
  // Folder order beats extension order: npm's folder (only codex.cmd) before a codex.exe elsewhere.
  const shimOnly = simFs({
    ...npmWindows(npm, "codex-win32-x64", "x86_64-pc-windows-msvc"),
    [`${standalone}\\codex.exe`]: "",
  }, { windows: true });
  const first = resolveCodexBinary(
    { os: "windows", arch: "x86_64", path: `${npm};${standalone}` },
    shimOnly,
  );
  assert.equal(first.kind === "native" && first.wrapper.found, `${npm}\\codex.cmd`);
});

Deno.test("Windows: a batch file that is not npm's shim, and a shim without its package, are never run", () => {
  const dir = "C:\\tools";
  const bat = simFs({ [`${dir}\\codex.bat`]: "@echo off\r\nC:\\elsewhere\\codex.exe %*\r\n" }, {
    windows: true,
  });
  const r = resolveCodexBinary({ os: "windows", arch: "x86_64", path: dir }, bat);
  assert.equal(r.kind, "notRunnable");
  assert.match(explainCodexBinary(r), /never runs codex through cmd\.exe/);

  const npm = "C:\\Users\\u\\AppData\\Roaming\\npm";
  const missing = simFs(npmWindows(npm, null, ""), { windows: true });
  const m = resolveCodexBinary({ os: "windows", arch: "x86_64", path: npm }, missing);
  assert.equal(m.kind, "wrapperOnly");
  assert.match(explainCodexBinary(m), /@openai\/codex-win32-x64 is missing/);
});

Deno.test("a missing platform package: the wrapper on PATH is what runs, and the reason says how to fix it", () => {
  const fs = simFs(npmPosix("/usr", null, ""));
  const r = resolveCodexBinary({ os: "linux", arch: "x86_64", path: "/usr/bin" }, fs);
  assert.equal(r.kind, "wrapperOnly");
  assert.match(explainCodexBinary(r), /codex-linux-x64 is missing .*npm install -g @openai\/codex/);
});

Deno.test("an older package with vendor/ inside @openai/codex itself: codex.js's fallback folder", () => {
  const m = "/home/u/.npm-global/lib/node_modules/@openai/codex";
  const fs = simFs({
    "/home/u/.npm-global/bin/codex": { link: "../lib/node_modules/@openai/codex/bin/codex.js" },
    [`${m}/bin/codex.js`]: SCRIPT,
    [`${m}/vendor/x86_64-unknown-linux-musl/bin/codex`]: "",
  });
  const r = resolveCodexBinary(
    { os: "linux", arch: "x86_64", path: "/home/u/.npm-global/bin" },
    fs,
  );
  assert.equal(native(r), `${m}/vendor/x86_64-unknown-linux-musl/bin/codex`);
});

Deno.test("pnpm: an sh shim, a symlinked package, and the platform package found beside its real folder", () => {
  const store = "/home/u/.local/share/pnpm/global/5/node_modules";
  const real = `${store}/.pnpm/@openai+codex@0.169.0/node_modules/@openai`;
  const fs = simFs({
    "/home/u/.local/share/pnpm/codex": shShim("global/5/node_modules/@openai/codex/bin/codex.js"),
    [`${store}/@openai/codex`]: {
      link: "../.pnpm/@openai+codex@0.169.0/node_modules/@openai/codex",
    },
    [`${real}/codex/bin/codex.js`]: SCRIPT,
    [`${real}/codex-linux-x64`]: {
      link: "../../../@openai+codex@0.169.0-linux-x64/node_modules/@openai/codex",
    },
    [`${store}/.pnpm/@openai+codex@0.169.0-linux-x64/node_modules/@openai/codex/package.json`]:
      "{}",
    [`${store}/.pnpm/@openai+codex@0.169.0-linux-x64/node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/bin/codex`]:
      "",
  });
  const r = resolveCodexBinary(
    { os: "linux", arch: "x86_64", path: "/home/u/.local/share/pnpm" },
    fs,
  );
  assert.equal(
    native(r),
    `${store}/.pnpm/@openai+codex@0.169.0-linux-x64/node_modules/@openai/codex/vendor/x86_64-unknown-linux-musl/bin/codex`,
  );
});

Deno.test("a native codex on PATH (a symlink to a binary, not to codex.js) runs as found", () => {
  const fs = simFs({
    "/opt/homebrew/bin/codex": { link: "../Caskroom/codex/0.169.0/codex-aarch64-apple-darwin" },
    "/opt/homebrew/Caskroom/codex/0.169.0/codex-aarch64-apple-darwin": "\xcf\xfa\xed\xfe",
  });
  const r = resolveCodexBinary({ os: "darwin", arch: "aarch64", path: "/opt/homebrew/bin" }, fs);
  assert.deepEqual(r, { kind: "direct", path: "/opt/homebrew/bin/codex", from: "path" });
});

Deno.test("the user's choice is looked at instead of PATH: a binary as named, npm's wrapper followed", () => {
  const fs = simFs({
    ...npmPosix("/usr", "codex-linux-x64", "x86_64-unknown-linux-musl"),
    "/home/u/src/codex/target/release/codex": "",
  });
  const q = { os: "linux", arch: "x86_64", path: "/usr/bin" };
  assert.deepEqual(
    resolveCodexBinary({ ...q, chosen: "/home/u/src/codex/target/release/codex" }, fs),
    { kind: "direct", path: "/home/u/src/codex/target/release/codex", from: "chosen" },
  );
  const wrapper = resolveCodexBinary({ ...q, chosen: "/usr/bin/codex" }, fs);
  assert.equal(wrapper.kind === "native" && wrapper.from, "chosen");
  assert.equal(
    resolveCodexBinary({ ...q, chosen: "/nowhere/codex" }, fs).kind,
    "notFound",
  );
});

Deno.test("PATH entries that are empty or relative are never searched (no codex from the current folder)", () => {
  const fs = simFs({ "bin/codex": "", "/usr/bin/other": "" });
  const r = resolveCodexBinary({ os: "linux", arch: "x86_64", path: ":bin:.:/usr/bin" }, fs);
  assert.equal(r.kind, "notFound");
  assert.match(explainCodexBinary(r), /no codex on PATH=/);
});

Deno.test("what may not be read is said, not guessed: an unreadable PATH folder, an unreadable package", () => {
  const layout = npmPosix("/usr", "codex-linux-x64", "x86_64-unknown-linux-musl");
  const blind = resolveCodexBinary(
    { os: "linux", arch: "x86_64", path: "/usr/bin" },
    simFs(layout, { unreadable: ["/usr/bin"] }),
  );
  assert.equal(blind.kind, "notFound");
  assert.match(explainCodexBinary(blind), /no read permission/);
  const half = resolveCodexBinary(
    { os: "linux", arch: "x86_64", path: "/usr/bin" },
    simFs(layout, { unreadable: ["/usr/lib/node_modules/@openai/codex-linux-x64"] }),
  );
  assert.equal(half.kind, "wrapperOnly");
  assert.match(explainCodexBinary(half), /could not be looked at/);
});

Deno.test("a platform Codex ships no binary for: the wrapper, with why", () => {
  const fs = simFs(npmPosix("/usr", "codex-linux-x64", "x86_64-unknown-linux-musl"));
  const r = resolveCodexBinary({ os: "freebsd", arch: "x86_64", path: "/usr/bin" }, fs);
  assert.equal(r.kind, "wrapperOnly");
  assert.match(explainCodexBinary(r), /no native binary for freebsd/);
});

Deno.test("Node's module lookup folders, as Module._nodeModulePaths lists them", () => {
  assert.deepEqual(nodeModulePaths("/a/node_modules/@openai/codex/bin", false), [
    "/a/node_modules/@openai/codex/bin/node_modules",
    "/a/node_modules/@openai/codex/node_modules",
    "/a/node_modules/@openai/node_modules",
    "/a/node_modules",
    "/node_modules",
  ]);
  assert.deepEqual(nodeModulePaths("C:\\npm\\node_modules\\x", true), [
    "C:\\npm\\node_modules\\x\\node_modules",
    "C:\\npm\\node_modules",
    "C:\\node_modules",
  ]);
});

const installed = `${ROOT}/.codex-npm/node_modules/.bin/codex`;
const hasInstall = (() => {
  try {
    return Deno.statSync(installed).isFile && Deno.build.os === "linux";
  } catch {
    return false;
  }
})();

Deno.test({
  name: "the real npm install of this checkout resolves to the binary bin/codex.js starts",
  ignore: !hasInstall,
  fn() {
    const r = resolveCodexBinary(
      { os: Deno.build.os, arch: Deno.build.arch, chosen: installed },
      denoFsView(),
    );
    assert.match(
      native(r),
      /\/@openai\/codex-linux-(x64|arm64)\/vendor\/[a-z0-9_]+-unknown-linux-musl\/bin\/codex$/,
    );
  },
});
