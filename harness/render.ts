/**
 * `npm run render -- <example> [--out dir] [--stack dev] [--config key=value] [--validate crd-dir]
 * [--baseline dir [--machines pool=N]]`: the manifests a program
 * declares, one YAML file per resource, without a cluster or credentials. Reads of cluster objects and
 * cloud lookups are answered from the example's fixtures; waiters are not manifests, so they are listed
 * (in the summary and `_waiters.yaml`) instead of written. File names are `<kind>.<group>/[<namespace>/]<name>.yaml`
 * (`.patch.yaml` for patches): a resource added or removed in a pull request adds or removes one file
 * and renames none. `--validate` checks each CRD-backed manifest against the CRDs of a directory (e.g. exported
 * from the user's cluster by `npm run crds:export`) as that cluster's API server would, and fails on any
 * violation or pruned field. With `--baseline`, ROLLOUT.md beside them says what the change does to each
 * pool's nodes (rollout-baseline.ts).
 */
import type * as pulumi from "@pulumi/pulumi";
import * as fs from "node:fs";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import type { CrdSchemas } from "../simulator/schema";
import { answerInvoke, answerRead, armAnswers, Fixtures, fixturesFor, interceptArm } from "./fixtures";
import { kubeType } from "./kube-type";
import { Renderer, Rendering } from "./rendering";
import { loadProject, Project } from "./project";
import { evaluate, HarnessMocks, HarnessResourceArgs } from "./runtime";
import { baselineImpact, readRendering, rolloutReport } from "./rollout-baseline";
import { reveal } from "./secrets";
import { commandLine, requirePeers, runCommand, SCHEMA_PEERS } from "./cli";

/** A kubeconfig that names no real cluster: components want one for their waiters, which render never runs. */
const PLACEHOLDER_KUBECONFIG = path.join(__dirname, "render-kubeconfig.yaml");

class RenderMocks implements HarnessMocks {
  readonly renderer = new Renderer();

  constructor(private readonly fixtures: Fixtures) {}

  call(args: pulumi.runtime.MockCallArgs): Record<string, unknown> {
    return answerInvoke(this.fixtures, args.token, reveal(args.inputs) as Record<string, unknown>);
  }

  async newResource(args: HarnessResourceArgs): Promise<pulumi.runtime.MockResourceResult> {
    if (args.id) {
      const k8s = kubeType(args.type);
      if (!k8s) throw new Error(`${args.name}: render cannot read resources of type ${args.type}`);
      return { id: args.id, state: answerRead(this.fixtures, k8s.apiVersion, k8s.kind, args.id) };
    }
    if (!args.custom) return { id: undefined, state: {} };
    this.renderer.add(args.type, args.name, args.inputs);
    return { id: `${args.name}-rendered`, state: args.inputs };
  }
}

/** Evaluates the project and returns its manifests and waiters in a stable order (by file, by name). */
export async function render(
  project: Project,
  fixtures: Fixtures = fixturesFor(project),
): Promise<Rendering> {
  const mocks = new RenderMocks(fixtures);
  const restore = interceptArm(armAnswers(fixtures));
  const evaluation = await evaluate(project, mocks, { kubeconfigPath: PLACEHOLDER_KUBECONFIG }).finally(
    restore,
  );
  // A failed read also fails every registration that takes its outputs, each quoting its message.
  const messages = evaluation.errors.map((e) => e.message);
  return mocks.renderer.rendering(
    messages.filter((m) => !messages.some((other) => other !== m && m.includes(other))),
  );
}

/** Kubernetes serves these groups itself (core, `apps`, `*.k8s.io`): no CRD defines their kinds. */
function builtinGroup(apiVersion: string): boolean {
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  return !group.includes(".") || group.endsWith(".k8s.io");
}

export interface RenderingCheck {
  /** The CRD-backed manifests checked. */
  checked: number;
  /** Per file, what the API server would refuse or prune; only files with problems. */
  invalid: Array<{ file: string; problems: string[] }>;
}

/**
 * Checks every CRD-backed manifest as an API server with these CRDs would: every schema violation and
 * pruned field (patches for pruning only), and any kind the CRDs do not serve. Built-in kinds are left
 * to the server's own validation.
 */
export function checkRendering(rendering: Rendering, schemas: CrdSchemas): RenderingCheck {
  const crdBacked = rendering.manifests.filter((m) => !builtinGroup(String(m.manifest.apiVersion)));
  const invalid = crdBacked
    .map(({ file, manifest, patch }) => ({ file, problems: schemas.problems(manifest, { patch }) }))
    .filter((r) => r.problems.length > 0);
  return { checked: crdBacked.length, invalid };
}

/** Marks a directory as render output, so a later render may replace it. */
const MARKER = ".rendered-manifests";

/** Writes the rendering into `outDir` (replacing an earlier rendering there); returns the files written. */
export function writeRendering(rendering: Rendering, outDir: string): string[] {
  if (fs.existsSync(outDir) && fs.readdirSync(outDir).length > 0) {
    if (!fs.existsSync(path.join(outDir, MARKER))) {
      throw new Error(`${outDir} exists and was not written by render: choose another --out`);
    }
    fs.rmSync(outDir, { recursive: true });
  }
  fs.mkdirSync(outDir, { recursive: true });
  fs.writeFileSync(path.join(outDir, MARKER), "Written by npm run render; replaced by the next render.\n");
  const files: string[] = [];
  for (const { file, manifest } of rendering.manifests) {
    fs.mkdirSync(path.dirname(path.join(outDir, file)), { recursive: true });
    fs.writeFileSync(path.join(outDir, file), stringify(manifest, { lineWidth: 0 }));
    files.push(file);
  }
  const waiters = rendering.waiters.map((w) => ({ type: w.type, name: w.name, inputs: w.inputs }));
  fs.writeFileSync(path.join(outDir, "_waiters.yaml"), stringify(waiters, { lineWidth: 0 }));
  files.push("_waiters.yaml");
  return files;
}

/** The CRDs of `dir`, checked by the simulator's validation, which only --validate loads. */
function loadSchemas(dir: string): CrdSchemas {
  requirePeers(SCHEMA_PEERS, "render --validate");
  return (require("../simulator/schema") as typeof import("../simulator/schema")).CrdSchemas.load(dir);
}

const USAGE = () =>
  `usage: ${commandLine("render")} <project dir> [--out DIR] [--stack dev] [--config key=value]... [--validate CRD_DIR] [--baseline DIR [--machines pool=N]...]`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: "string" },
      stack: { type: "string", default: "dev" },
      config: { type: "string", multiple: true, default: [] },
      validate: { type: "string" },
      baseline: { type: "string" },
      machines: { type: "string", multiple: true, default: [] },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE());
    return 0;
  }
  const [location, ...extra] = positionals;
  if (!location || extra.length > 0) throw new Error(USAGE());
  const { out, stack, config: overrides } = values;
  // Read first, so that a wrong directory fails before the program runs.
  if (values.validate !== undefined && !fs.existsSync(values.validate))
    throw new Error(
      `--validate: no directory ${values.validate} (${commandLine("crds:export")} --out DIR writes one)`,
    );
  const schemas = values.validate === undefined ? undefined : loadSchemas(values.validate);
  if (schemas?.definitions.length === 0)
    throw new Error(`--validate: no CustomResourceDefinition in ${values.validate}`);
  const project = loadProject(location, stack, overrides);
  const rendering = await render(project);
  if (rendering.errors.length > 0) {
    for (const error of rendering.errors) console.error(`error: ${error}`);
    return 1;
  }
  const outDir = path.resolve(out ?? path.join("out", path.basename(path.resolve(location))));
  // Read before writing: the baseline may be the directory this render replaces.
  const base = values.baseline === undefined ? undefined : readRendering(values.baseline);
  const files = writeRendering(rendering, outDir);
  if (base) {
    const machines = Object.fromEntries(
      values.machines.map((m) => {
        const [pool, n] = m.split("=");
        if (!pool || !/^\d+$/.test(n ?? "")) throw new Error(`--machines ${m}: use pool=N`);
        return [pool, Number(n)];
      }),
    );
    const report = rolloutReport(
      project.name,
      baselineImpact(
        base,
        rendering.manifests.map((m) => m.manifest),
        machines,
        rendering.waiters,
      ),
    );
    fs.writeFileSync(path.join(outDir, "ROLLOUT.md"), report);
    files.push("ROLLOUT.md");
    console.log(report);
  }
  for (const m of rendering.manifests) console.log(`  ${m.file}`);
  console.log(`waiters (not manifests; listed in _waiters.yaml):`);
  for (const w of rendering.waiters) console.log(`  ${w.type} ${w.name}`);
  console.log(
    `${rendering.manifests.length} manifests of ${project.name} (stack ${stack}) written to ${path.relative(process.cwd(), outDir) || "."}/ (${files.length} files)`,
  );
  if (!schemas) return 0;
  const { checked, invalid } = checkRendering(rendering, schemas);
  for (const { file, problems } of invalid) {
    console.error(`✗ ${file}`);
    for (const problem of problems) console.error(`    ${problem}`);
  }
  const count = invalid.reduce((n, r) => n + r.problems.length, 0);
  console.log(
    `${checked} CRD-backed manifests checked against the CRDs in ${values.validate}: ${count === 0 ? "all valid, nothing pruned" : `${count} problems in ${invalid.length} files`}`,
  );
  return count === 0 ? 0 : 1;
}

if (require.main === module) {
  runCommand(main);
}
