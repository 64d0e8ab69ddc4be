/**
 * `deno task npm [--out DIR] [--binaries DIR]`: builds the npm packages into
 * `DIR` (default `dist/npm`) and packs each with `npm pack`: `codex-relay/`
 * (the launcher `bin/codex-relay.cjs`, the bundled relay and its installer,
 * `launch.json`; npm's `deno` as its dependency) and, for every compiled
 * binary found in the binaries folder (default `dist/`, as `deno task
 * compile` names them), `codex-relay-<os>-<cpu>/` with that binary, plus
 * `mcpb/<target>/` (the Desktop bundle's folder: manifest and binary, for
 * `mcpb pack`). What goes in is `scripts/npm_package.ts`. Nothing is
 * downloaded; `npm pack` runs offline. `--server-json` writes the MCP
 * Registry's `server.json` at the root instead.
 * @module
 */

import { buildBundle } from "./bundle.ts";
import {
  launchSpec,
  mainPackageJson,
  mcpbManifest,
  NPM_NAME,
  PACKAGE_BUNDLE,
  platformPackageJson,
  platformPackageName,
  PLATFORMS,
  serverJson,
} from "./npm_package.ts";
import { TARGETS } from "./compile.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** What a build wrote: each package's folder and the tarball `npm pack` made of it. */
export interface NpmBuild {
  /** The main package's folder and tarball. */
  main: { dir: string; tarball: string };
  /** One per compiled binary found. */
  platforms: { target: string; dir: string; tarball: string }[];
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

async function pack(dir: string, dest: string): Promise<string> {
  const out = await new Deno.Command("npm", {
    args: ["pack", "--json", "--pack-destination", dest],
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`npm pack in ${dir} failed: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  const [{ filename }] = JSON.parse(new TextDecoder().decode(out.stdout));
  return `${dest}/${filename}`;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function writeMain(out: string, deno: string): Promise<string> {
  const dir = `${out}/${NPM_NAME}`;
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await buildBundle(`${dir}/${PACKAGE_BUNDLE}`, deno);
  await Deno.copyFile(`${ROOT}/scripts/npm/launcher.cjs`, `${dir}/bin/codex-relay.cjs`);
  await Deno.chmod(`${dir}/bin/codex-relay.cjs`, 0o755);
  await Deno.writeTextFile(`${dir}/launch.json`, json(launchSpec()));
  await Deno.writeTextFile(`${dir}/package.json`, json(mainPackageJson()));
  await Deno.copyFile(`${ROOT}/README.md`, `${dir}/README.md`);
  await Deno.copyFile(`${ROOT}/LICENSE`, `${dir}/LICENSE`);
  return dir;
}

async function writePlatform(out: string, target: typeof TARGETS[number], binary: string) {
  const { file } = PLATFORMS[target];
  const dir = `${out}/${platformPackageName(target)}`;
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await Deno.copyFile(binary, `${dir}/${file}`);
  await Deno.chmod(`${dir}/${file}`, 0o755);
  await Deno.writeTextFile(`${dir}/package.json`, json(platformPackageJson(target)));
  const mcpb = `${out}/mcpb/${target}`;
  await Deno.mkdir(`${mcpb}/server`, { recursive: true });
  await Deno.copyFile(binary, `${mcpb}/server/${file.slice("bin/".length)}`);
  await Deno.writeTextFile(`${mcpb}/manifest.json`, json(mcpbManifest()));
  return dir;
}

/**
 * Builds and packs the packages into `out` (emptied first), taking compiled
 * binaries from `binaries`; `deno` is the Deno that bundles.
 */
export async function buildNpm(
  out: string,
  binaries = `${ROOT}/dist`,
  deno = "deno",
): Promise<NpmBuild> {
  await Deno.remove(out, { recursive: true }).catch((e) => {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  });
  await Deno.mkdir(out, { recursive: true });
  const platforms: NpmBuild["platforms"] = [];
  for (const target of TARGETS) {
    const ext = PLATFORMS[target].os === "win32" ? ".exe" : "";
    const binary = `${binaries}/codex-relay-${target}${ext}`;
    if (!await exists(binary)) continue;
    const dir = await writePlatform(out, target, binary);
    platforms.push({ target, dir, tarball: await pack(dir, out) });
  }
  const dir = await writeMain(out, deno);
  return { main: { dir, tarball: await pack(dir, out) }, platforms };
}

if (import.meta.main) {
  const at = (flag: string) => {
    const i = Deno.args.indexOf(flag);
    return i >= 0 ? Deno.args[i + 1] : undefined;
  };
  const known = Deno.args.every((a, i) =>
    ["--out", "--binaries", "--server-json"].includes(a) ||
    ["--out", "--binaries"].includes(Deno.args[i - 1])
  );
  if (!known) {
    console.error(
      "usage: deno task npm [--out DIR] [--binaries DIR] | deno task npm --server-json",
    );
    Deno.exit(64);
  }
  if (Deno.args.includes("--server-json")) {
    // The MCP Registry's entry, committed at the root (tests/unit/npm_package_test.ts checks it).
    await Deno.writeTextFile(`${ROOT}/server.json`, json(serverJson()));
    Deno.exit(0);
  }
  try {
    const built = await buildNpm(at("--out") ?? `${ROOT}/dist/npm`, at("--binaries"));
    for (const p of built.platforms) console.log(`${p.target}: ${p.tarball}`);
    console.log(built.main.tarball);
    if (built.platforms.length === 0) {
      console.error(
        "npm: no compiled binary in the binaries folder: the package runs the bundle under npm's deno (deno task compile builds them where the runtime can be downloaded)",
      );
    }
  } catch (error) {
    console.error(`npm: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}
