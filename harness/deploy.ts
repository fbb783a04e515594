/**
 * The local deploy harness: `pulumi up` without the engine. The program runs under Pulumi's mock
 * runtime; each registration is carried out before it resolves, so the SDK (which registers a resource
 * only once its dependencies have resolved) drives the order: Kubernetes resources are applied with
 * server-side apply, `.get` reads are GETs, dynamic resources run their serialized provider, and cloud
 * lookups are answered from the example's fixtures. Revision N+1 diffs against the saved state and
 * deletes what the program no longer declares, dependents first.
 */
import type * as pulumi from "@pulumi/pulumi";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { checkDynamic, dynamicProvider, DYNAMIC_TYPE_PREFIX, withProvider } from "./dynamic";
import { answerInvoke, Fixtures, loadFixtures, noFixtures } from "./fixtures";
import {
  Cluster,
  describeKubeError,
  fieldManager,
  kubeType,
  manifestOf,
  PATCH_FORCE_ANNOTATION,
} from "./kube";
import { loadProject, programDir, Project } from "./project";
import { evaluate, HarnessMocks, HarnessResourceArgs } from "./runtime";
import { markSecret, reveal, secretKeys } from "./secrets";
import { loadState, ResourceState, saveState, StackState } from "./state";

export type Operation = "create" | "update" | "replace" | "same" | "apply" | "read" | "delete";

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
  /** State file; without one, every run starts from nothing and nothing is deleted. */
  statePath?: string;
  /** Default: `fixtures.yaml` beside the program, if present. */
  fixtures?: Fixtures;
  onEvent?: (event: DeployEvent) => void;
}

export interface DeployResult {
  ok: boolean;
  /** Failures, each naming the resource and the provider's (or waiter's) message. */
  errors: string[];
  outputs: Record<string, unknown>;
  /** Operations by kind. */
  counts: Partial<Record<Operation, number>>;
  durationMs: number;
  state: StackState;
}

/** Fixtures beside the program, or none (every lookup then fails saying where to write them). */
export function fixturesFor(project: Project): Fixtures {
  const file = path.join(programDir(project), "fixtures.yaml");
  return fs.existsSync(file) ? loadFixtures(file) : noFixtures(file);
}

/** How a registration after a failure is refused (the engine starts nothing new after an error either). */
const SKIPPED = "not deployed: an earlier resource failed";

class Deployment implements HarnessMocks {
  readonly completed = new Map<string, ResourceState>();
  /** Components (dependencies on them are on their children, awaited anyway) and finished reads. */
  private readonly finished = new Set<string>();
  readonly failures: string[] = [];
  readonly counts: Partial<Record<Operation, number>> = {};

  constructor(
    private readonly cluster: Cluster,
    private readonly fixtures: Fixtures,
    private readonly prior: Map<string, ResourceState>,
    private readonly emit: (event: DeployEvent) => void,
  ) {}

  call(args: pulumi.runtime.MockCallArgs): Record<string, unknown> {
    return answerInvoke(this.fixtures, args.token, reveal(args.inputs) as Record<string, unknown>);
  }

  async newResource(args: HarnessResourceArgs): Promise<pulumi.runtime.MockResourceResult> {
    const { urn } = args.registration;
    if (args.id) return this.read(args);
    if (!args.custom) {
      this.finished.add(urn);
      return { id: undefined, state: {} };
    }
    if (args.type.startsWith("pulumi:providers:")) return { id: `${args.name}-provider`, state: args.inputs };
    if (this.failures.length > 0) throw new Error(`${args.name} ${SKIPPED}`);
    this.checkOrder(args);
    const k8s = kubeType(args.type);
    if (k8s) return this.track(k8s.patch ? "apply" : "apply", args, () => this.applyKube(args));
    if (args.type.startsWith(DYNAMIC_TYPE_PREFIX)) return this.runDynamic(args);
    throw this.fail(args, "apply", new Error(`the harness cannot deploy resources of type ${args.type}`));
  }

  /** The SDK's ordering promise, checked rather than trusted: every dependency has finished. */
  private checkOrder(args: HarnessResourceArgs): void {
    const pending = args.registration.dependencies.filter(
      (d) => !this.completed.has(d) && !this.finished.has(d),
    );
    if (pending.length > 0) {
      throw this.fail(
        args,
        "apply",
        new Error(`registered before its dependencies finished: ${pending.join(", ")}`),
      );
    }
  }

  private fail(args: { type: string; name: string }, operation: Operation, error: unknown): Error {
    const message = `${args.type.split(":").pop()} ${args.name}: ${error instanceof Error ? error.message : String(error)}`;
    this.failures.push(message);
    this.emit({ phase: "failed", operation, type: args.type, name: args.name, message });
    return new Error(message);
  }

  private async track(
    operation: Operation,
    args: HarnessResourceArgs,
    run: () => Promise<{ id: string; outputs: Record<string, unknown>; operation?: Operation }>,
  ): Promise<pulumi.runtime.MockResourceResult> {
    this.emit({ phase: "start", operation, type: args.type, name: args.name });
    let result: Awaited<ReturnType<typeof run>>;
    try {
      result = await run();
    } catch (error) {
      throw this.fail(args, operation, error);
    }
    const done = result.operation ?? operation;
    this.counts[done] = (this.counts[done] ?? 0) + 1;
    const { urn, dependencies, additionalSecretOutputs } = args.registration;
    const secrets = [...secretKeys(args.inputs), ...additionalSecretOutputs];
    const outputs = markSecret(result.outputs, secrets);
    this.completed.set(urn, {
      urn,
      type: args.type,
      name: args.name,
      id: result.id,
      kind: args.type.startsWith(DYNAMIC_TYPE_PREFIX) ? "dynamic" : "kubernetes",
      inputs: args.inputs,
      outputs,
      dependencies,
    });
    this.emit({ phase: "done", operation: done, type: args.type, name: args.name, id: result.id });
    return { id: result.id, state: outputs };
  }

  private async read(args: HarnessResourceArgs): Promise<pulumi.runtime.MockResourceResult> {
    const k8s = kubeType(args.type);
    if (!k8s)
      throw this.fail(args, "read", new Error(`the harness cannot read resources of type ${args.type}`));
    try {
      const live = await this.cluster.read(k8s.apiVersion, k8s.kind, args.id!);
      this.counts.read = (this.counts.read ?? 0) + 1;
      this.finished.add(args.registration.urn);
      return { id: args.id, state: live as Record<string, unknown> };
    } catch (error) {
      throw this.fail(
        args,
        "read",
        new Error(`cannot read ${k8s.kind} ${args.id}: ${describeKubeError(error)}`),
      );
    }
  }

  private async applyKube(args: HarnessResourceArgs) {
    const type = kubeType(args.type)!;
    const object = manifestOf(type, reveal(args.inputs) as Record<string, unknown>);
    if (this.prior.has(args.registration.urn) && args.registration.ignoreChanges.length > 0) {
      await this.keepIgnored(object as unknown as Record<string, unknown>, args.registration.ignoreChanges);
    }
    const force = type.patch && object.metadata?.annotations?.[PATCH_FORCE_ANNOTATION] === "true";
    try {
      const live = await this.cluster.apply(object, fieldManager(args.registration.urn), force);
      const { name, namespace } = live.metadata ?? {};
      return {
        id: namespace ? `${namespace}/${name}` : String(name),
        outputs: live as Record<string, unknown>,
      };
    } catch (error) {
      throw new Error(
        `server-side apply of ${type.kind} ${object.metadata?.name} failed: ${describeKubeError(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * On update, `ignoreChanges` paths carry what the cluster has now (e.g. replicas an autoscaler set):
   * the apply neither conflicts with the other writer nor takes the field back, and never drops it.
   */
  private async keepIgnored(object: Record<string, unknown>, paths: string[]): Promise<void> {
    const meta = (object as { metadata?: { name?: string; namespace?: string } }).metadata ?? {};
    const id = meta.namespace ? `${meta.namespace}/${meta.name}` : String(meta.name);
    const live = (await this.cluster.read(String(object.apiVersion), String(object.kind), id)) as Record<
      string,
      unknown
    >;
    for (const path of paths) {
      const keys = path.split(".");
      const value = keys.reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], live);
      let parent = object;
      for (const k of keys.slice(0, -1)) parent = (parent[k] ??= {}) as Record<string, unknown>;
      if (value === undefined) delete parent[keys[keys.length - 1]];
      else parent[keys[keys.length - 1]] = value;
    }
  }

  private async runDynamic(args: HarnessResourceArgs): Promise<pulumi.runtime.MockResourceResult> {
    const old = this.prior.get(args.registration.urn);
    const news = reveal(args.inputs) as Record<string, unknown>;
    const provider = dynamicProvider(news);
    if (!old) {
      return this.track("create", args, async () => {
        const inputs = await checkDynamic(provider, {}, news);
        const created = await provider.create(inputs);
        return { id: created.id, outputs: withProvider(created.outs, inputs) };
      });
    }
    const oldInputs = reveal(old.inputs) as Record<string, unknown>;
    const oldOutputs = reveal(old.outputs) as Record<string, unknown>;
    const inputs = await checkDynamic(provider, oldInputs, news).catch((e) => {
      throw this.fail(args, "update", e);
    });
    const diff = provider.diff ? await provider.diff(old.id, oldOutputs, inputs) : {};
    const changed =
      diff.changes ?? JSON.stringify(stripProvider(oldInputs)) !== JSON.stringify(stripProvider(inputs));
    if ((diff.replaces ?? []).length > 0) {
      return this.track("replace", args, async () => {
        const oldProvider = dynamicProvider(oldInputs);
        if (diff.deleteBeforeReplace) await oldProvider.delete?.(old.id, oldOutputs);
        const created = await provider.create(inputs);
        if (!diff.deleteBeforeReplace) await oldProvider.delete?.(old.id, oldOutputs);
        return { id: created.id, outputs: withProvider(created.outs, inputs) };
      });
    }
    if (!changed) {
      return this.track("same", args, async () => ({ id: old.id, outputs: oldOutputs }));
    }
    return this.track("update", args, async () => {
      const updated = provider.update ? await provider.update(old.id, oldOutputs, inputs) : { outs: inputs };
      return { id: old.id, outputs: withProvider(updated.outs, inputs) };
    });
  }

  /** Deletes what the prior revision had and this one does not, dependents before their dependencies. */
  async deleteRemoved(priorOrder: ResourceState[]): Promise<void> {
    const removed = priorOrder.filter((r) => !this.completed.has(r.urn)).reverse();
    for (const resource of removed) {
      const args = { type: resource.type, name: resource.name };
      this.emit({ phase: "start", operation: "delete", ...args });
      try {
        if (resource.kind === "dynamic") {
          const outputs = reveal(resource.outputs) as Record<string, unknown>;
          await dynamicProvider(reveal(resource.inputs) as Record<string, unknown>).delete?.(
            resource.id,
            outputs,
          );
        } else {
          const type = kubeType(resource.type)!;
          const object = manifestOf(type, reveal(resource.inputs) as Record<string, unknown>);
          if (type.patch) await this.cluster.relinquish(object, fieldManager(resource.urn));
          else await this.cluster.delete(object);
        }
      } catch (error) {
        this.fail(args, "delete", new Error(describeKubeError(error)));
        return;
      }
      this.counts.delete = (this.counts.delete ?? 0) + 1;
      this.emit({ phase: "done", operation: "delete", ...args });
    }
  }
}

function stripProvider(inputs: Record<string, unknown>): Record<string, unknown> {
  const { __provider: _p, ...rest } = inputs;
  return rest;
}

/** Deploys one revision of the project to the cluster. */
export async function deploy(options: DeployOptions): Promise<DeployResult> {
  const started = Date.now();
  const { project } = options;
  const priorState = loadState(options.statePath, project.name, project.stack);
  const cluster = new Cluster(fs.readFileSync(options.kubeconfigPath, "utf8"));
  const deployment = new Deployment(
    cluster,
    options.fixtures ?? fixturesFor(project),
    new Map(priorState.resources.map((r) => [r.urn, r])),
    options.onEvent ?? (() => undefined),
  );
  const evaluation = await evaluate(project, deployment, { kubeconfigPath: options.kubeconfigPath });
  // Resource failures name their resource; the program's own errors (input errors, lookups the fixtures
  // do not answer) come after them. Echoes of a resource failure in its dependents, and the refusals
  // that follow a failure, are not errors of their own.
  const programErrors = evaluation.errors
    .map((e) => e.message)
    .filter((m) => !m.includes(SKIPPED) && !deployment.failures.some((f) => m.includes(f)));
  if (deployment.failures.length === 0 && programErrors.length === 0) {
    // Deletes run as in the engine's provider host, which has the environment of the CLI.
    const previous = process.env.KUBECONFIG;
    process.env.KUBECONFIG = options.kubeconfigPath;
    try {
      await deployment.deleteRemoved(priorState.resources);
    } finally {
      if (previous === undefined) delete process.env.KUBECONFIG;
      else process.env.KUBECONFIG = previous;
    }
  }
  const failures = [...deployment.failures, ...programErrors];

  // What this revision did, then what it did not touch (kept when it failed before deleting them).
  const state: StackState = {
    ...priorState,
    resources: [
      ...deployment.completed.values(),
      ...(failures.length > 0 ? priorState.resources.filter((r) => !deployment.completed.has(r.urn)) : []),
    ],
  };
  if (options.statePath) saveState(options.statePath, state);
  return {
    ok: failures.length === 0,
    errors: failures,
    outputs: evaluation.outputs,
    counts: deployment.counts,
    durationMs: Date.now() - started,
    state,
  };
}

const USAGE = `usage: ts-node harness/deploy.ts <project dir> [--stack dev] [--kubeconfig FILE] [--state FILE] [--config key=value]...
Deploys a Pulumi program to a cluster without the Pulumi engine (default kubeconfig: $KUBECONFIG or .sim/kubeconfig).`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      stack: { type: "string", default: "dev" },
      kubeconfig: { type: "string" },
      state: { type: "string" },
      config: { type: "string", multiple: true, default: [] },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const [location, ...extra] = positionals;
  if (!location || extra.length > 0) throw new Error(USAGE);
  const stack = values.stack;
  const kubeconfigPath = path.resolve(
    values.kubeconfig ?? (process.env.KUBECONFIG || path.resolve(__dirname, "..", ".sim", "kubeconfig")),
  );
  let statePath = values.state && path.resolve(values.state);
  const overrides = values.config;
  const project = loadProject(location, stack, overrides);
  statePath ??= path.join(os.homedir(), ".openshift-topology-harness", `${project.name}.${stack}.json`);
  const result = await deploy({
    project,
    kubeconfigPath,
    statePath,
    onEvent: (e) => {
      if (e.phase === "failed") console.error(`FAILED ${e.message}`);
      else if (e.phase === "done" && e.operation !== "same")
        console.log(`${e.operation} ${e.type} ${e.name}`);
    },
  });
  const counts = Object.entries(result.counts)
    .map(([op, n]) => `${n} ${op}`)
    .join(", ");
  console.log(
    `${result.ok ? "deployed" : "failed"} in ${(result.durationMs / 1000).toFixed(1)}s (${counts}); state: ${statePath}`,
  );
  for (const error of result.errors) console.error(`error: ${error}`);
  return result.ok ? 0 : 1;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: Error) => {
      console.error(error.message);
      process.exit(1);
    },
  );
}
