/** Protects: CONTRIBUTING's layer rule and layout (imports go down; no backend above connect/; every folder named). */
import assert from "assert";

/**
 * The layers of `src/` (CONTRIBUTING.md, "The layer rule"), lowest first. A module may import
 * modules of its own layer folder and of layers strictly below it; folders on
 * one rank are siblings and do not import each other.
 */
const RANKS: Record<string, number> = {
  core: 0,
  codex: 1,
  connect: 2,
  reply: 2,
  elicit: 2,
  ops: 3,
  turn: 4,
  host: 5,
  install: 5,
  cli: 6,
};

const SRC = new URL("../../src/", import.meta.url);
const IMPORT = /(?:import|export)\s[^;]*?from\s+["'](\.{1,2}\/[^"']+)["']/gs;

async function modules(dir: URL, prefix = ""): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const rel = prefix + entry.name;
    if (entry.isDirectory) out.push(...await modules(new URL(entry.name + "/", dir), rel + "/"));
    else if (entry.name.endsWith(".ts")) out.push(rel);
  }
  return out.sort();
}

/** The `src/`-relative modules each module imports (relative imports only). */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const path of await modules(SRC)) {
    const text = await Deno.readTextFile(new URL(path, SRC));
    const targets: string[] = [];
    for (const match of text.matchAll(IMPORT)) {
      const url = new URL(match[1], new URL(path, SRC));
      if (url.href.startsWith(SRC.href)) targets.push(url.href.slice(SRC.href.length));
    }
    graph.set(path, targets);
  }
  return graph;
}

const layerOf = (path: string) => path.split("/")[0];

/** Every import of `graph` that breaks the layer order, as "from -> to". */
function upwardImports(graph: Map<string, string[]>): string[] {
  const bad: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = layerOf(from), b = layerOf(to);
      if (a === b) continue;
      if (!(a in RANKS) || !(b in RANKS) || RANKS[b] >= RANKS[a]) bad.push(`${from} -> ${to}`);
    }
  }
  return bad;
}

/**
 * Every import of a backend's module (`connect/<backend>/`; `connect/process/`
 * is the process code backends share) from outside `connect/`, as
 * "from -> to": above `connect/` a backend is reached through
 * `connect/open.ts` and the `Connection` seam only.
 */
function backendImports(graph: Map<string, string[]>): string[] {
  const isBackend = (path: string) => /^connect\/(?!process\/)[^/]+\//.test(path);
  const bad: string[] = [];
  for (const [from, targets] of graph) {
    if (layerOf(from) === "connect") continue;
    for (const to of targets) if (isBackend(to)) bad.push(`${from} -> ${to}`);
  }
  return bad;
}

/** One module cycle of `graph`, if there is one. */
function findCycle(graph: Map<string, string[]>): string[] | undefined {
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === "open") return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, "done");
    return undefined;
  };
  for (const node of graph.keys()) {
    if (!state.has(node)) {
      const found = visit(node);
      if (found) return found;
    }
  }
  return undefined;
}

Deno.test("src/ imports point down the layers only", async () => {
  const graph = await importGraph();
  assert.deepEqual(
    [...new Set([...graph.keys()].map(layerOf))].filter((l) => !(l in RANKS)),
    [],
    "every folder of src/ has a layer",
  );
  assert.deepEqual(upwardImports(graph), []);
});

Deno.test("CONTRIBUTING's layout names every folder of src/, each of which has a layer", async () => {
  const folders: string[] = [];
  for await (const entry of Deno.readDir(SRC)) if (entry.isDirectory) folders.push(entry.name);
  assert.deepEqual(Object.keys(RANKS).sort(), folders.sort(), "every folder has a layer");
  const contributing = await Deno.readTextFile(new URL("../../CONTRIBUTING.md", import.meta.url));
  const layout = contributing.slice(contributing.indexOf("## Layout"));
  const named = [...layout.matchAll(/^src\/([a-z_]+)\/ /gm)].map((m) => m[1]);
  assert.deepEqual(named.sort(), folders.sort(), "CONTRIBUTING's layout names each folder");
});

Deno.test("src/ has no import cycle", async () => {
  assert.equal(findCycle(await importGraph())?.join(" -> "), undefined);
});

Deno.test("upwardImports() and findCycle() catch a bad edge", () => {
  const graph = new Map([
    ["turn/a.ts", ["host/b.ts"]],
    ["host/b.ts", ["turn/a.ts"]],
    ["reply/c.ts", ["elicit/d.ts"]],
    ["elicit/d.ts", []],
  ]);
  assert.deepEqual(upwardImports(graph), ["turn/a.ts -> host/b.ts", "reply/c.ts -> elicit/d.ts"]);
  assert.deepEqual(findCycle(graph), ["turn/a.ts", "host/b.ts", "turn/a.ts"]);
});

Deno.test("nothing above connect/ imports a backend's module (connect/open.ts opens them)", async () => {
  assert.deepEqual(backendImports(await importGraph()), []);
});

Deno.test("backendImports() catches a backend imported from above connect/", () => {
  const graph = new Map([
    ["host/serve.ts", ["connect/open.ts", "connect/daemon/daemon_connection.ts"]],
    ["cli/doctor.ts", ["connect/process/curated_env.ts", "connect/socket/socket_connection.ts"]],
    ["connect/open.ts", ["connect/spawn/spawn_connection.ts"]],
  ]);
  assert.deepEqual(backendImports(graph), [
    "host/serve.ts -> connect/daemon/daemon_connection.ts",
    "cli/doctor.ts -> connect/socket/socket_connection.ts",
  ]);
});
