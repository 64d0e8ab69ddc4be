/**
 * The real {@linkcode FsView} of the Codex resolution (`codex_binary.ts`):
 * synchronous looks that never throw. A path the process may not read (Deno
 * refuses it) is `unreadable`, so the resolution says so instead of failing.
 * @module
 */

import type { FsView } from "./codex_binary.ts";

/** How much of a shim is read (npm's `codex.cmd` is well under 1 KiB). */
const HEAD_BYTES = 4096;

/** The file system as the running process may see it. */
export function denoFsView(): FsView {
  return {
    kind(path) {
      try {
        const info = Deno.statSync(path);
        return info.isDirectory ? "dir" : "file";
      } catch (error) {
        return refused(error) ? "unreadable" : "missing";
      }
    },
    realPath(path) {
      try {
        return Deno.realPathSync(path);
      } catch {
        return null;
      }
    },
    head(path) {
      let file: Deno.FsFile | undefined;
      try {
        file = Deno.openSync(path, { read: true });
        const buffer = new Uint8Array(HEAD_BYTES);
        const n = file.readSync(buffer) ?? 0;
        return new TextDecoder("latin1").decode(buffer.subarray(0, n));
      } catch {
        return null;
      } finally {
        file?.close();
      }
    },
  };
}

function refused(error: unknown): boolean {
  return error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied;
}
