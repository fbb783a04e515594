import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";

/** The modules under `dir` (tests and test programs left out), as paths relative to it. */
function modulesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.split(path.sep).includes("testdata"))
    .sort();
}

/**
 * Each module's imports of other modules under `dir` (`import type` included: a cycle of types is a
 * cycle of concepts), by path relative to `dir`.
 */
function importGraph(dir: string): Record<string, string[]> {
  const modules = modulesUnder(dir);
  const graph: Record<string, string[]> = {};
  for (const file of modules) {
    const text = fs.readFileSync(path.join(dir, file), "utf8");
    const specifiers = [...text.matchAll(/(?:from|require\(|import\()\s*"(\.{1,2}\/[^"]+)"/g)].map(
      (m) => m[1],
    );
    graph[file] = specifiers
      .map((s) => path.join(path.dirname(file), s))
      .flatMap((target) =>
        [`${target}.ts`, path.join(target, "index.ts")].filter((t) => modules.includes(t)),
      );
  }
  return graph;
}

/** One cycle of `graph` as the modules it passes through, first repeated at the end; undefined when none. */
function findCycle(graph: Record<string, string[]>): string[] | undefined {
  const done = new Set<string>();
  const visit = (file: string, trail: string[]): string[] | undefined => {
    const at = trail.indexOf(file);
    if (at >= 0) return [...trail.slice(at), file];
    if (done.has(file)) return undefined;
    for (const next of graph[file] ?? []) {
      const cycle = visit(next, [...trail, file]);
      if (cycle) return cycle;
    }
    done.add(file);
    return undefined;
  };
  for (const file of Object.keys(graph)) {
    const cycle = visit(file, []);
    if (cycle) return cycle;
  }
  return undefined;
}

// The engine's operation hands registrations to its step modules, which record what they did in it: a
// step that imported the deployment back would tie every module of the engine into one, as six were.
describe("harness/: modules import one another without cycles", () => {
  it("finds a cycle where there is one, through a type import or an index", () => {
    assert.deepEqual(findCycle({ "a.ts": ["b.ts"], "b.ts": ["c/index.ts"], "c/index.ts": ["a.ts"] }), [
      "a.ts",
      "b.ts",
      "c/index.ts",
      "a.ts",
    ]);
    assert.equal(findCycle({ "a.ts": ["b.ts", "c.ts"], "b.ts": ["c.ts"], "c.ts": [] }), undefined);
    const engine = importGraph(path.join(__dirname, "engine"));
    assert.ok(engine["deployment.ts"].includes("step-context.ts"), "type imports are read");
    assert.ok(engine["engine.ts"].includes("deployment.ts"));
  });

  it("has none in harness/ and its engine", () => {
    const graph = importGraph(__dirname);
    assert.ok(Object.keys(graph).length >= 30, Object.keys(graph).join(", "));
    assert.deepEqual(findCycle(graph), undefined);
  });
});
