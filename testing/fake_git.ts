/**
 * An in-memory git for the worktree operations' unit tests (and their
 * mutation group): one repository at `/repo`, answering the commands
 * `src/ops/worktree*.ts` run the way git 2.39 does in
 * tests/integration/worktree_git_test.ts and worktree_safety_test.ts (those
 * check the real git). Every command is recorded; `fail` turns one into an
 * error exit.
 * @module
 */

import type { Git, GitOutput } from "../src/connect/process/git_runner.ts";

/** A worktree git lists. */
export interface FakeWorktree {
  branch: string;
  /** What `git status --porcelain` prints in it (without and with `--ignored`). */
  status?: string;
  ignored?: string;
  /** Its folder is gone (git lists it `prunable`). */
  gone?: boolean;
}

/** The repository's state. */
export interface FakeRepo {
  head: string;
  /** Branch → commit; `ahead`: commits it has beyond the base asked. */
  branches: Map<string, { sha: string; ahead: number }>;
  worktrees: Map<string, FakeWorktree>;
  /** The record file: key/value lines in order. */
  config: [string, string][];
  /** Folders that exist (the worktrees' root once made). */
  folders: Set<string>;
  /** How many more writes of the record find it locked. */
  lockedWrites: number;
  /** What the user's tree's status prints. */
  userStatus: string;
}

/** The fake: its git, its state, and the commands it ran. */
export interface FakeGit {
  git: Git;
  repo: FakeRepo;
  calls: string[][];
  /** The commands run that change something (`config` writes, branch, worktree add/remove, update-ref, init). */
  writes(): string[];
}

const ok = (stdout = ""): GitOutput => ({ code: 0, stdout, stderr: "" });
const err = (stderr: string, code = 128): GitOutput => ({ code, stdout: "", stderr });

/**
 * A fake git with `/repo` at commit `c0` on `main`; `fail(args)` returning an
 * output answers that command instead.
 */
export function fakeGit(fail?: (args: readonly string[]) => GitOutput | undefined): FakeGit {
  const repo: FakeRepo = {
    head: "c0",
    branches: new Map([["main", { sha: "c0", ahead: 0 }]]),
    worktrees: new Map(),
    config: [],
    folders: new Set(["/repo"]),
    lockedWrites: 0,
    userStatus: "",
  };
  const calls: string[][] = [];
  const git: Git = (args, cwd) => {
    const all = [...(cwd === undefined ? [] : ["-C", cwd]), ...args];
    calls.push(all);
    return Promise.resolve(fail?.(args) ?? answer(repo, args, cwd));
  };
  const changes =
    /^(config --file \S+ (?!--get|--null)|branch|worktree (add|remove)|update-ref|init)/;
  return {
    git,
    repo,
    calls,
    writes: () =>
      calls.map((c) => c.filter((_, i) => c[0] !== "-C" || i > 1).join(" ")).filter((c) =>
        changes.test(c)
      ),
  };
}

/** The commands the fake answers, whole (any other is an unknown command to it). */
const SHAPES = [
  /^config --file \S+ (--null --get-regexp \^worktree\\\.|--get-all \S+|--add \S+ \S+|--fixed-value --unset \S+ \S+|--remove-section \S+|worktree\.\S+ .+)$/,
  /^init --quiet --bare \S+$/,
  /^rev-parse (--show-toplevel --show-prefix|--verify HEAD\^\{commit\}|--verify --quiet refs\/heads\/\S+|--show-toplevel)$/,
  /^status --porcelain( --ignored --untracked-files=normal)?$/,
  /^branch --no-track \S+ \S+$/,
  /^worktree (list --porcelain|add --quiet \S+ \S+|remove (--force --force )?\S+)$/,
  /^rev-list --count \S+\.\.refs\/heads\/\S+$/,
  /^update-ref -d refs\/heads\/\S+ \S+$/,
];

function answer(repo: FakeRepo, args: readonly string[], cwd: string | undefined): GitOutput {
  if (!SHAPES.some((shape) => shape.test(args.join(" ")))) {
    return err(`fake git: not a command it knows: ${args.join(" ")}`, 129);
  }
  const [cmd, ...rest] = args;
  if (cmd === "config") return config(repo, rest);
  if (cmd === "init") {
    const path = rest.at(-1)!;
    repo.folders.add(path.slice(0, path.lastIndexOf("/")));
    return ok();
  }
  const at = cwd ?? "/";
  const inRepo = at === "/repo" || at.startsWith("/repo/");
  const wt = [...repo.worktrees.entries()].find(([p, w]) =>
    !w.gone && (at === p || at.startsWith(`${p}/`))
  );
  if (!inRepo && !wt) return err(`fatal: cannot change to '${at}': No such file or directory`);
  const top = inRepo ? "/repo" : wt![0];
  switch (cmd) {
    case "rev-parse":
      return revParse(repo, rest, at, top);
    case "status":
      if (inRepo) return ok(repo.userStatus);
      return ok(`${wt![1].status ?? ""}${rest.includes("--ignored") ? wt![1].ignored ?? "" : ""}`);
    case "branch": {
      const [, name, base] = rest;
      if (repo.branches.has(name)) return err(`fatal: a branch named '${name}' already exists`);
      repo.branches.set(name, { sha: base, ahead: 0 });
      return ok();
    }
    case "worktree":
      return worktree(repo, rest);
    case "rev-list": {
      const ref = rest[1].split("..")[1].replace("refs/heads/", "");
      const b = repo.branches.get(ref);
      return b ? ok(`${b.ahead}\n`) : err(`fatal: bad revision`);
    }
    case "update-ref": {
      const name = rest[1].replace("refs/heads/", "");
      const b = repo.branches.get(name);
      if (!b || b.sha !== rest[2]) return err(`error: cannot lock ref '${rest[1]}'`, 1);
      repo.branches.delete(name);
      return ok();
    }
  }
  return err(`fake git: ${args.join(" ")}`);
}

function revParse(repo: FakeRepo, rest: string[], at: string, top: string): GitOutput {
  if (rest[0] === "--show-toplevel" && rest[1] === "--show-prefix") {
    const prefix = at === top ? "" : `${at.slice(top.length + 1)}/`;
    return ok(`${top}\n${prefix}\n`);
  }
  if (rest[0] === "--show-toplevel") return ok(`${top}\n`);
  if (rest[1] === "HEAD^{commit}") return ok(`${repo.head}\n`);
  const b = repo.branches.get(rest[2].replace("refs/heads/", ""));
  return b ? ok(`${b.sha}\n`) : err("", 1);
}

function worktree(repo: FakeRepo, rest: string[]): GitOutput {
  if (rest[0] === "list") {
    const blocks = [`worktree /repo\nHEAD c0\nbranch refs/heads/main\n`];
    for (const [p, w] of repo.worktrees) {
      blocks.push(
        `worktree ${p}\nHEAD c0\nbranch refs/heads/${w.branch}\n${
          w.gone ? "prunable gitdir file points to non-existent location\n" : ""
        }`,
      );
    }
    return ok(blocks.join("\n"));
  }
  if (rest[0] === "add") {
    const [, , path, branch] = rest;
    if (repo.worktrees.has(path)) return err(`fatal: '${path}' already exists`);
    repo.worktrees.set(path, { branch });
    return ok();
  }
  const path = rest.at(-1)!;
  const w = repo.worktrees.get(path);
  if (!w) return err(`fatal: '${path}' is not a working tree`);
  if (!rest.includes("--force") && !w.gone && (w.status || w.ignored)) {
    return err(`fatal: '${path}' contains modified or untracked files, use --force to delete it`);
  }
  repo.worktrees.delete(path);
  return ok();
}

function config(repo: FakeRepo, rest: string[]): GitOutput {
  const file = rest[1];
  const folder = file.slice(0, file.lastIndexOf("/"));
  const op = rest[2];
  if (op === "--null") {
    const lines = repo.config.map(([k, v]) => `${k}\n${v}\0`);
    return lines.length ? ok(lines.join("")) : err("", 1);
  }
  if (op === "--get-all") {
    const values = repo.config.filter(([k]) => k === rest[3]).map(([, v]) => v);
    return values.length ? ok(values.map((v) => `${v}\n`).join("")) : err("", 1);
  }
  if (!repo.folders.has(folder)) {
    return err(`error: could not lock config file ${file}: No such file or directory`, 255);
  }
  if (repo.lockedWrites > 0) {
    repo.lockedWrites--;
    return err(`error: could not lock config file ${file}: File exists`, 255);
  }
  if (op === "--add") repo.config.push([rest[3], rest[4]]);
  else if (op === "--fixed-value") {
    repo.config = repo.config.filter(([k, v]) => !(k === rest[4] && v === rest[5]));
  } else if (op === "--remove-section") {
    const before = repo.config.length;
    repo.config = repo.config.filter(([k]) => !k.startsWith(`${rest[3]}.`));
    if (repo.config.length === before) return err("fatal: no such section", 1);
  } else {
    const i = repo.config.findIndex(([k]) => k === op);
    if (i < 0) repo.config.push([op, rest[3]]);
    else repo.config[i] = [op, rest[3]];
  }
  return ok();
}
