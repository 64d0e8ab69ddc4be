/**
 * Protects: a fresh clone works (no tracked symlink dangles).
 *
 * A clone works on any machine: no tracked symlink points at an absolute path
 * or out of the repository (it would dangle anywhere else, as
 * `.codex-npm-0.171` once did and broke `.ci/run` on a fresh clone).
 * @module
 */

import assert from "assert";
import { ROOT } from "../../testing/paths.ts";
import { linkProblem, trackedLinks } from "../../testing/tracked_links.ts";

Deno.test("no tracked symlink points at an absolute path or outside the repository", async () => {
  const links = await trackedLinks(ROOT);
  const problems = links.map((l) => linkProblem(l)).filter((p) => p !== undefined);
  assert.deepEqual(problems, [], "every tracked symlink stays inside the repository");
});

Deno.test("a link to an absolute path or one that climbs out of the repository is a problem", () => {
  assert.match(
    linkProblem({ path: ".codex-npm-0.171", target: "/work/main/.codex-npm-0.171" }) ?? "",
    /\.codex-npm-0\.171 -> \/work\/main\/\.codex-npm-0\.171: an absolute path/,
  );
  assert.match(linkProblem({ path: "a/b", target: "C:\\tools\\codex" }) ?? "", /an absolute path/);
  assert.match(linkProblem({ path: "a/b", target: "../../x" }) ?? "", /outside the repository/);
  assert.match(linkProblem({ path: "top", target: ".." }) ?? "", /outside the repository/);
  assert.equal(linkProblem({ path: "a/b", target: "../x" }), undefined);
  assert.equal(linkProblem({ path: "a/b", target: "c/./d" }), undefined);
});
