/**
 * The local deploy harness: `pulumi preview`, `up`, `refresh` and `destroy` of one stack through the
 * small engine in `engine/` (the program runs in the SDK's language entry point over the
 * ResourceMonitor protocol, dynamic resources in the SDK's dynamic-provider host, Kubernetes resources
 * by server-side apply, since pulumi-kubernetes is a Go plugin). Cloud lookups are answered from the
 * example's fixtures. State is a Pulumi deployment checkpoint.
 */
import { KubeConfig } from "@kubernetes/client-node";
import * as os from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { cancelStack, Checkpoint, nameOf } from "./engine/checkpoint";
import {
  destroy as destroyStack,
  EngineOptions,
  EngineResult,
  refresh as refreshStack,
  update,
} from "./engine/engine";
import type { PlanStep, StepOp } from "./engine/plan";
import { UNKNOWN } from "./engine/rpc";
import {
  Command,
  diagnosticsLines,
  errorLine,
  Failure,
  header,
  outputLines,
  planLines,
  progressLine,
  resourceLines,
  stepLine,
} from "./display";
import type { Diagnostic } from "./engine/diagnostics";
import { Fixtures, fixturesFor } from "./fixtures";
import { progressFile } from "./progress";
import { loadProject, Project, setConfig } from "./project";
import { isSecret } from "./secrets";
import { clusterKubeconfig, commandLine, commandName, runCommand } from "./cli";

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
  /** The URN of the component the resource belongs to, on failure. */
  parent?: string;
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
  /** The program's and providers' messages (`pulumi.log`), each with its resource's URN. */
  onDiagnostic?: (diagnostic: Diagnostic) => void;
  /** How the engine waits between a create's tries (default: the real time). */
  sleep?: (ms: number) => Promise<void>;
  /** `refresh --clear-pending-creates`: drops the pending creates a killed operation left in the state. */
  clearPendingCreates?: boolean;
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

/** `pulumi destroy`'s preview: what it would delete, in the order it would, nothing carried out. */
function destroyPreview(options: DeployOptions): Promise<DeployResult> {
  return timed(() => destroyStack(engineOptions(options), true));
}

/** Where a command asks its questions: a terminal, unless `interactive` is false (a pipe, CI). */
export interface Terminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  interactive: boolean;
}

/** This process's terminal, interactive as the Pulumi CLI's cmdutil.Interactive: stdin and stdout both one. */
function processTerminal(): Terminal {
  return {
    input: process.stdin,
    output: process.stdout,
    interactive: process.stdin.isTTY === true && process.stdout.isTTY === true,
  };
}

/**
 * Asks on `terminal` whether to destroy, as `pulumi destroy` does after its preview: only `yes`
 * proceeds (Pulumi's prompt offers yes, no and details; a typed answer stands for the arrows).
 */
async function confirmDestroy(terminal: Terminal, stack: string): Promise<boolean> {
  const prompt = createInterface({ input: terminal.input, output: terminal.output });
  try {
    const answer = await prompt.question(`Do you want to perform this destroy of stack ${stack}? (yes/no) `);
    return answer.trim().toLowerCase() === "yes";
  } finally {
    prompt.close();
  }
}

const USAGE = () => `usage: ${commandLine("deploy")} <command> <project dir> [options]

commands:
  preview                  what \`up\` would do, with each resource's messages (a pool's rollout impact)
  up                       create, update and delete, then wait until the cluster has converged
  refresh                  read every resource back; what drifted shows as an update
  destroy                  delete the stack's resources, dependents first
  cancel                   delete the stack's locks (one a killed operation left), as pulumi cancel does
  config set <key> <value> remember a config value in Pulumi.<stack>.yaml
  config                   list the stack's config

options:
  --stack NAME             the stack (default dev), whose config is Pulumi.<stack>.yaml
  --kubeconfig FILE        the cluster (default $KUBECONFIG, else .sim/kubeconfig, which ${commandName("sim")} writes)
  --state FILE             the stack's checkpoint (default ~/.openshift-topology-harness/<project>.<stack>.json)
  --config key=value       set a config value and remember it in Pulumi.<stack>.yaml, as pulumi up --config does
  --replace NAME           replace the resource even when nothing changed
  --yes                    (destroy) proceed without the preview and its question, as pulumi destroy --yes
                           does; without a terminal to ask on, destroy needs it
  --clear-pending-creates  (refresh) drop the pending creates a killed up left in the state, once you
                           checked what they made, as pulumi refresh --clear-pending-creates does
  --debug                  also print the SDK's and providers' debug messages as they come (secrets redacted)`;

const COMMANDS = { up: deploy, preview, refresh, destroy } as const;

/** How often `up` prints the waiters' progress: each waiter's message as it changes. */
const PROGRESS_MS = 250;

function configCommand(positionals: string[], stack: string): number {
  const [action, ...rest] = positionals;
  if (action === "set") {
    const [key, value, location] = rest;
    if (!key || value === undefined || !location || rest.length > 3) throw new Error(USAGE());
    const file = setConfig(location, stack, key, value);
    console.log(`${key} set in ${path.relative(process.cwd(), file) || file}`);
    return 0;
  }
  if (!action || rest.length > 0) throw new Error(USAGE());
  const project = loadProject(action, stack);
  const keys = Object.keys(project.config).sort();
  const width = Math.max(3, ...keys.map((k) => k.length));
  console.log(`${"KEY".padEnd(width)}  VALUE`);
  for (const key of keys) console.log(`${key.padEnd(width)}  ${project.config[key]}`);
  return 0;
}

/** The SDK's advice for a missing config key names the CLI; beside it, the same with this command. */
function withoutCli(message: string, location: string): string {
  return message.replace(
    /`pulumi config set (\S+) <value>`/g,
    (advice, key: string) =>
      `${advice} (without the CLI: \`${commandLine("deploy")} config set ${key} <value> ${location}\`)`,
  );
}

/** `Cluster: <server> (kubeconfig <file>, from <source>)`, the server of the file's current context. */
function clusterLine(kubeconfigPath: string, source: string): string {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const server = kc.getCurrentCluster()?.server ?? "none (the kubeconfig has no current context)";
  return `Cluster: ${server} (kubeconfig ${kubeconfigPath}, from ${source})`;
}

/** `pulumi destroy` on a terminal: the plan of what it deletes, then whether to go on. */
async function confirmedDestroy(
  terminal: Terminal,
  project: Project,
  kubeconfigPath: string,
  source: string,
  statePath: string,
): Promise<boolean> {
  console.log(`Previewing destroy (${project.stack})`);
  console.log(`${clusterLine(kubeconfigPath, source)}\n`);
  const planned = await destroyPreview({ project, kubeconfigPath, statePath });
  for (const line of [...planLines(planned.plan), "", ...resourceLines("preview", planned.counts), ""])
    console.log(line);
  const confirmed = await confirmDestroy(terminal, project.stack);
  console.log("");
  return confirmed;
}

export async function main(argv: string[], terminal: Terminal = processTerminal()): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      stack: { type: "string", default: "dev" },
      kubeconfig: { type: "string" },
      state: { type: "string" },
      config: { type: "string", multiple: true, default: [] },
      replace: { type: "string", multiple: true, default: [] },
      "clear-pending-creates": { type: "boolean" },
      yes: { type: "boolean", short: "y", default: false },
      debug: { type: "boolean", default: false },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE());
    return 0;
  }
  const stack = values.stack;
  const first = positionals.shift();
  if (first === "config") return configCommand(positionals, stack);
  if (!first || !(first in COMMANDS || first === "cancel")) throw new Error(USAGE());
  const [location, ...extra] = positionals;
  if (!location || extra.length > 0) throw new Error(USAGE());
  // As `pulumi destroy` refuses without a terminal to ask on (pkg/cmd/pulumi/operations/destroy.go).
  if (first === "destroy" && !values.yes && !terminal.interactive) {
    throw new Error(
      "--yes must be passed in to proceed when running in non-interactive mode: destroy deletes every resource of the stack (on a terminal, it shows what and asks first)",
    );
  }
  const statePathOf = (project: Project) =>
    values.state
      ? path.resolve(values.state)
      : path.join(os.homedir(), ".openshift-topology-harness", `${project.name}.${stack}.json`);
  if (first === "cancel") {
    cancelStack(statePathOf(loadProject(location, stack)));
    console.log(`The currently running update for '${stack}' has been canceled!`);
    return 0;
  }
  const command = first as Command;
  const [kubeconfigPath, kubeconfigSource] = clusterKubeconfig(values.kubeconfig);
  for (const setting of values.config) {
    const at = setting.indexOf("=");
    if (at <= 0) throw new Error(`--config ${JSON.stringify(setting)} must be key=value`);
    setConfig(location, stack, setting.slice(0, at), setting.slice(at + 1));
  }
  const project = loadProject(location, stack);
  const statePath = statePathOf(project);

  if (
    command === "destroy" &&
    !values.yes &&
    !(await confirmedDestroy(terminal, project, kubeconfigPath, kubeconfigSource, statePath))
  ) {
    console.log("confirmation declined, not proceeding with the destroy");
    return 1;
  }
  console.log(header(command, stack));
  // Which cluster, before anything reaches it: a $KUBECONFIG left on another cluster is seen at once.
  console.log(`${clusterLine(kubeconfigPath, kubeconfigSource)}\n`);
  const diagnostics: Diagnostic[] = [];
  const failures: Failure[] = [];
  const started = new Map<string, number>();
  const progress = progressFile();
  const shown = new Map<string, string>();
  const printProgress = () => {
    for (const event of progress.read()) {
      const key = event.resource ?? event.waiter;
      if (shown.get(key) === event.message) continue;
      shown.set(key, event.message);
      console.log(progressLine(event));
    }
  };
  const timer = setInterval(printProgress, PROGRESS_MS);
  let result: DeployResult;
  try {
    result = await COMMANDS[command]({
      project,
      kubeconfigPath,
      statePath,
      replace: values.replace,
      clearPendingCreates: values["clear-pending-creates"],
      env: progress.env,
      // Redacted by the engine before they get here (harness/secrets.ts, Redactor), debug lines included.
      // A status message shows under its resource's step as it runs, as the CLI's progress does.
      onDiagnostic: (d) => {
        if (d.ephemeral) return console.log(progressLine({ waiter: nameOf(d.urn), message: d.message }));
        diagnostics.push({ ...d, message: withoutCli(d.message, location) });
        if (values.debug && d.severity === "debug") console.log(`debug: ${d.message}`);
      },
      onEvent: (e) => {
        const key = `${e.type} ${e.name}`;
        if (e.phase === "start") started.set(key, Date.now());
        if (e.phase === "failed") failures.push({ ...e, message: e.message ?? "failed" });
        // A waiter's last progress comes before the line saying it finished.
        if (e.phase !== "start") printProgress();
        const since = started.get(key);
        console.log(stepLine(e, e.phase === "start" || since === undefined ? undefined : Date.now() - since));
      },
    });
  } finally {
    clearInterval(timer);
    printProgress();
    progress.remove();
  }
  if (command === "preview" || command === "refresh")
    for (const line of planLines(result.plan)) console.log(line);
  const programErrors = result.errors
    .filter((e) => !failures.some((f) => f.message === e))
    .map((e) => withoutCli(e, location));
  console.log("");
  const sections = [
    ...diagnosticsLines(diagnostics, failures, programErrors, { project: project.name, stack }),
    ...(command === "destroy" ? [] : outputLines(result.outputs)),
    ...resourceLines(command, result.counts),
  ];
  for (const line of sections) console.log(line);
  if (command !== "preview") console.log(`\nDuration: ${(result.durationMs / 1000).toFixed(1)}s`);
  for (const failure of failures) console.error(errorLine(failure));
  for (const error of programErrors) console.error(`error: ${error}`);
  return result.ok ? 0 : 1;
}

/** Runs as a command: exit handlers stop the program and the dynamic-provider host; signals skip them unless handled. */
export function runDeploy(argv: string[] = process.argv.slice(2)): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(1));
  runCommand(main, argv);
}

if (require.main === module) runDeploy();
