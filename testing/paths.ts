/**
 * Where things are in the checkout, for tests and scripts.
 * @module
 */

import { fileURLToPath } from "node:url";

/** The repository root (no trailing slash; a native path, also on Windows). */
export const ROOT: string = fileURLToPath(new URL("..", import.meta.url)).replace(/[/\\]$/, "");

/** The e2e suite's folder (with a trailing slash): its MCP servers live there. */
export const E2E_DIR = `${ROOT}/tests/e2e/`;

/** The git on PATH, by absolute path (a relay's run permission names it); throws when none is. */
export function gitPath(): string {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      if (Deno.statSync(`${dir}/git`).isFile) return `${dir}/git`;
    } catch { /* not here */ }
  }
  throw new Error("git is not on PATH");
}

/** Whether `path` exists (a file, a folder or a socket). */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
