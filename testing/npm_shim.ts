/**
 * An npm-style `deno` shim (testing/npm_deno_shim.cjs): the Node script that
 * a global `npm install deno` can put first on PATH, which starts the real
 * binary. The suite must pass behind it (`.ci/run` runs it so), and a test
 * starts the relay through it.
 * @module
 */

/** A folder holding the shim as `deno`, and its removal. */
export interface NpmShim {
  /** The folder (put it first on PATH). */
  dir: string;
  /** The shim's path. */
  deno: string;
  /** Removes the folder. */
  remove(): Promise<void>;
}

const TEMPLATE = new URL("./npm_deno_shim.cjs", import.meta.url);

/** Writes the shim, starting the Deno running this process, into a new temp folder. */
export async function makeNpmShim(): Promise<NpmShim> {
  const dir = await Deno.makeTempDir({ prefix: "codex-relay-npm-shim-" });
  const deno = `${dir}/deno`;
  const text = (await Deno.readTextFile(TEMPLATE)).replace(
    '"__DENO_EXE__"',
    JSON.stringify(Deno.execPath()),
  );
  await Deno.writeTextFile(deno, text, { mode: 0o755 });
  return { dir, deno, remove: () => Deno.remove(dir, { recursive: true }) };
}

/**
 * Whether the first `deno` on PATH is a script (an npm-style shim, as .ci/run's second run puts
 * first): then a helper's group leader is Node, which dies at SIGTERM, and the fixture behind it
 * may be killed before it can log that it ignored the signal.
 *
 * @example
 * ```ts
 * if (!denoOnPathIsShim()) assert.ok(events.includes("sigterm-ignored"));
 * ```
 */
export function denoOnPathIsShim(): boolean {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (!dir) continue;
    try {
      const head = Deno.readFileSync(`${dir}/deno`).subarray(0, 2);
      return head[0] === 0x23 && head[1] === 0x21; // "#!"
    } catch {
      continue;
    }
  }
  return false;
}
