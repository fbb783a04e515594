/**
 * The local deploy harness: `pulumi preview`, `up`, `refresh` and `destroy` of one stack through the
 * small engine in `engine/` (the program runs in the SDK's language entry point over the
 * ResourceMonitor protocol, dynamic resources in the SDK's dynamic-provider host, Kubernetes resources
 * by server-side apply, since pulumi-kubernetes is a Go plugin). Cloud lookups are answered from the
 * example's fixtures. State is a Pulumi deployment checkpoint.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { Checkpoint } from "./engine/checkpoint";
import {
  destroy as destroyStack,
  EngineOptions,
  EngineResult,
  PlanStep,
  refresh as refreshStack,
  StepOp,
  update,
  UNKNOWN,
} from "./engine/engine";
import { Fixtures, loadFixtures, noFixtures } from "./fixtures";
import { loadProject, programDir, Project } from "./project";
import { isSecret } from "./secrets";
import { runCommand } from "./cli";

export type Operation = StepOp;
export type { PlanStep };

export interface DeployEvent {
  phase: "start" | "done" | "failed";
  operation: Operation;
  type: string;
  name: string;
  /** Failure message. */
  message?: string;
  /** The object or waiter id, once done (`namespace/name` for namespaced objects). */
  id?: string;
}

export interface DeployOptions {
  project: Project;
  /** Kubeconfig file of the cluster; the waiters get its content through $KUBECONFIG. */
  kubeconfigPath: string;
  /** Checkpoint file; without one, every run starts from nothing and nothing is deleted. */
  statePath?: string;
  /** Default: `fixtures.yaml` beside the program, if present. */
  fixtures?: Fixtures;
  /** URNs or names of resources to replace (`pulumi up --replace`). */
  replace?: string[];
  /** Extra environment for the program and the dynamic-provider host. */
  env?: NodeJS.ProcessEnv;
  onEvent?: (event: DeployEvent) => void;
}

export interface DeployResult {
  ok: boolean;
  /** Failures, each naming the resource and the provider's (or waiter's) message. */
  errors: string[];
  /** Stack outputs; a secret shows as `{ secret: true }`, a value unknown in preview as `UNKNOWN`. */
  outputs: Record<string, unknown>;
  /** The steps, per custom resource: what a preview plans, what an update did, what a refresh found. */
  plan: PlanStep[];
  /** Steps by kind. */
  counts: Partial<Record<Operation, number>>;
  durationMs: number;
  state: Checkpoint;
}

export { UNKNOWN };

/** Fixtures beside the program, or none (every lookup then fails saying where to write them). */
export function fixturesFor(project: Project): Fixtures {
  const file = path.join(programDir(project), "fixtures.yaml");
  return fs.existsSync(file) ? loadFixtures(file) : noFixtures(file);
}

function engineOptions(options: DeployOptions): EngineOptions {
  return { ...options, fixtures: options.fixtures ?? fixturesFor(options.project) };
}

async function timed(run: () => Promise<EngineResult>): Promise<DeployResult> {
  const started = Date.now();
  const result = await run();
  const counts: Partial<Record<Operation, number>> = {};
  for (const step of result.plan) counts[step.op] = (counts[step.op] ?? 0) + 1;
  const outputs = Object.fromEntries(
    Object.entries(result.outputs).map(([k, v]) => [k, isSecret(v) ? { secret: true } : v]),
  );
  return {
    ok: result.ok,
    errors: result.errors,
    outputs,
    plan: result.plan,
    counts,
    durationMs: Date.now() - started,
    state: result.checkpoint,
  };
}

/** `pulumi up`: deploys one revision of the project to the cluster. */
export function deploy(options: DeployOptions): Promise<DeployResult> {
  return timed(() => update(engineOptions(options), false));
}

/** `pulumi preview`: the plan of the revision, nothing carried out. */
export function preview(options: DeployOptions): Promise<DeployResult> {
  return timed(() => update(engineOptions(options), true));
}

/** `pulumi refresh`: reads every resource; drift shows as updates with the drifted paths. */
export function refresh(options: DeployOptions): Promise<DeployResult> {
  return timed(() => refreshStack(engineOptions(options)));
}

/** `pulumi destroy`: deletes the stack's resources, dependents first. */
export function destroy(options: DeployOptions): Promise<DeployResult> {
  return timed(() => destroyStack(engineOptions(options)));
}

const MARKS: Record<Operation, string> = {
  create: "+",
  update: "~",
  replace: "+-",
  delete: "-",
  same: " ",
  read: ">",
  import: "=",
};

/** The plan as `pulumi preview --diff` lists it: one line per changed resource, its changed paths. */
export function formatPlan(plan: PlanStep[]): string[] {
  return plan
    .filter((s) => s.op !== "same")
    .map(
      (s) =>
        `${MARKS[s.op].padEnd(2)} ${s.op.padEnd(7)} ${s.type.split(":").pop()} ${s.name}${s.diffs.length > 0 ? `  [${s.diffs.join(", ")}]` : ""}`,
    );
}

const USAGE = `usage: ts-node harness/deploy.ts [up|preview|refresh|destroy] <project dir> [--stack dev] [--kubeconfig FILE] [--state FILE] [--config key=value]... [--replace NAME]...
Runs the Pulumi operation on the project's stack with the harness's engine (default: up; kubeconfig: $KUBECONFIG or .sim/kubeconfig; state: a checkpoint under ~/.openshift-topology-harness).`;

const COMMANDS = { up: deploy, preview, refresh, destroy } as const;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      stack: { type: "string", default: "dev" },
      kubeconfig: { type: "string" },
      state: { type: "string" },
      config: { type: "string", multiple: true, default: [] },
      replace: { type: "string", multiple: true, default: [] },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const command = positionals[0] in COMMANDS ? (positionals.shift() as keyof typeof COMMANDS) : "up";
  const [location, ...extra] = positionals;
  if (!location || extra.length > 0) throw new Error(USAGE);
  const stack = values.stack;
  const kubeconfigPath = path.resolve(
    values.kubeconfig ?? (process.env.KUBECONFIG || path.resolve(__dirname, "..", ".sim", "kubeconfig")),
  );
  let statePath = values.state && path.resolve(values.state);
  const project = loadProject(location, stack, values.config);
  statePath ??= path.join(os.homedir(), ".openshift-topology-harness", `${project.name}.${stack}.json`);
  const result = await COMMANDS[command]({
    project,
    kubeconfigPath,
    statePath,
    replace: values.replace,
    onEvent: (e) => {
      if (e.phase === "failed") console.error(`FAILED ${e.message}`);
      else if (e.phase === "done") console.log(`${e.operation} ${e.type} ${e.name}`);
    },
  });
  if (command === "preview" || command === "refresh")
    for (const line of formatPlan(result.plan)) console.log(line);
  const counts = Object.entries(result.counts)
    .map(([op, n]) => `${n} ${op}`)
    .join(", ");
  console.log(
    `${command} ${result.ok ? "succeeded" : "failed"} in ${(result.durationMs / 1000).toFixed(1)}s (${counts}); state: ${statePath}`,
  );
  for (const error of result.errors) console.error(`error: ${error}`);
  return result.ok ? 0 : 1;
}

if (require.main === module) {
  // Exit handlers stop the program and the dynamic-provider host; signals skip them unless handled.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(1));
  runCommand(main);
}
