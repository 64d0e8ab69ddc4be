/**
 * The symlinks git tracks in a checkout (mode 120000 in `git ls-files -s`)
 * and whether each stays inside the repository.
 * @module
 */

/** A tracked symlink: its path in the repository and the target it stores. */
export interface TrackedLink {
  /** The link's path, relative to the repository root (forward slashes). */
  path: string;
  /** The stored target, as written in the link. */
  target: string;
}

/** Every symlink tracked in the repository at `root`, with the target stored in the index. */
export async function trackedLinks(root: string): Promise<TrackedLink[]> {
  const git = (args: string[]) =>
    new Deno.Command("git", { args: ["-C", root, ...args], stdout: "piped", stderr: "piped" })
      .output();
  const listed = await git(["ls-files", "-s", "-z"]);
  if (!listed.success) throw new Error(`git ls-files failed: ${decode(listed.stderr)}`);
  const links: TrackedLink[] = [];
  for (const entry of decode(listed.stdout).split("\0")) {
    const m = entry.match(/^120000 ([0-9a-f]+) \d+\t(.+)$/);
    if (!m) continue;
    const blob = await git(["cat-file", "blob", m[1]]);
    if (!blob.success) throw new Error(`git cat-file ${m[1]} failed: ${decode(blob.stderr)}`);
    links.push({ path: m[2], target: decode(blob.stdout) });
  }
  return links;
}

/**
 * Why `link` would dangle in another clone (an absolute target, or one that
 * climbs out of the repository), or `undefined` when it stays inside.
 */
export function linkProblem(link: TrackedLink): string | undefined {
  const { path, target } = link;
  if (/^([/\\]|[A-Za-z]:)/.test(target)) {
    return `${path} -> ${target}: an absolute path (it dangles in any other clone)`;
  }
  const parts = path.split("/").slice(0, -1);
  for (const step of target.split(/[/\\]/)) {
    if (step === "" || step === ".") continue;
    if (step === "..") {
      if (parts.length === 0) return `${path} -> ${target}: points outside the repository`;
      parts.pop();
    } else parts.push(step);
  }
  return undefined;
}

function decode(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}
