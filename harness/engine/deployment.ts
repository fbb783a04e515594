/**
 * One operation's deployment, as the engine keeps it while the program runs: the resources registered
 * so far with their state, the plan, the old resources to delete afterwards, the providers (default
 * ones in the checkpoint as the engine keeps them, explicit Kubernetes providers' clusters), and the
 * Host side of the monitor that turns each registration into a step, carried out by kube-steps.ts or
 * dynamic-steps.ts.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { providerKubeconfig } from "../../provider/dynamic/credentials";
import { DYNAMIC_TYPE_PREFIX } from "../dynamic";
import { answerInvoke } from "../fixtures";
import { Cluster, describeKubeError, kubeType } from "../kube";
import { annotateSecrets, markSecret, reveal, secretKeys } from "../secrets";
import { CheckpointResource, nameOf, OperationType, PendingOperation } from "./checkpoint";
import { Diagnostic, Diagnostics, EngineEvent, SKIPPED } from "./diagnostics";
import { KubeSettings, kubeSettings } from "./diff";
import { ComponentHost } from "./component-host";
import { constructStep } from "./component-steps";
import { deleteDynamic, dynamicStep } from "./dynamic-steps";
import { DynamicHost } from "./dynamic-host";
import type { EngineOptions } from "./options";
import { deleteKube, kubeStep } from "./kube-steps";
import { Host, qualifiedType, Registration, STACK_TYPE } from "./monitor";
import { PlanStep, StepOp } from "./plan";
import { containsUnknown, Props, UNKNOWN } from "./rpc";
import type { StepContext } from "./step-context";

export const PROVIDER_PREFIX = "pulumi:providers:";
/** The engine's builtin invoke that gives an SDK a registered resource's state by URN. */
const GET_RESOURCE = "pulumi:pulumi:getResource";

function packageOf(type: string): string {
  return type.startsWith(DYNAMIC_TYPE_PREFIX) ? "pulumi-nodejs" : type.split(":")[0];
}

export class Deployment implements Host, StepContext {
  readonly resources = new Map<string, CheckpointResource>();
  readonly plan: PlanStep[] = [];
  readonly diagnostics: Diagnostics;
  /** Old resources replaced create-before-delete: deleted with the removed ones, after the program. */
  readonly replaced: CheckpointResource[] = [];
  /** URNs of the checkpoint's resources deleted so far. */
  readonly deleted = new Set<string>();
  /** Old URNs of resources registered under an alias: renamed, neither deleted nor kept. */
  readonly aliased = new Set<string>();
  /** Writes the state after each step carried out, as the CLI's snapshot manager does. */
  persist: () => void = () => undefined;
  /** Steps under way, by URN, written with the state (the snapshot manager's pending operations). */
  readonly pending = new Map<string, PendingOperation>();
  outputs: Props = {};
  private host?: Promise<DynamicHost>;
  /** The providers of component packages, by package name, started when a program first constructs one. */
  private readonly packages = new Map<string, Promise<ComponentHost>>();
  /** Clusters of explicit Kubernetes providers, by provider URN. */
  private readonly clusters = new Map<string, Cluster>();
  private inflight = 0;
  /** Set while the program runs: cancels it once a step failed and no other step is in flight. */
  cancelProgram?: () => void;

  constructor(
    readonly options: EngineOptions,
    readonly dryRun: boolean,
    private readonly prior: Map<string, CheckpointResource>,
    private readonly cluster: Cluster,
    readonly monitorAddress: () => string,
  ) {
    this.diagnostics = new Diagnostics(options.onEvent, options.onDiagnostic);
    // The run's kubeconfig files and every secret of the stack's state are never printed.
    const files = [options.kubeconfigPath, ...(options.env?.KUBECONFIG ?? "").split(path.delimiter)];
    for (const file of files.filter((f) => f !== "" && fs.existsSync(f)))
      this.diagnostics.secrets.add(fs.readFileSync(file, "utf8"), true);
    for (const resource of prior.values()) this.diagnostics.secrets.add([resource.inputs, resource.outputs]);
  }

  get failures(): string[] {
    return this.diagnostics.failures;
  }

  emit(event: EngineEvent): void {
    this.diagnostics.emit(event);
  }

  fail(what: { type: string; name: string; parent?: string }, operation: StepOp, error: unknown): Error {
    return this.diagnostics.fail(what, operation, error);
  }

  /**
   * The cluster a Kubernetes resource's provider points at: the run's for the default provider, for an
   * explicit one what its `kubeconfig` (content or path, else the run's), `context` and `cluster` reach
   * as pulumi-kubernetes' Configure reads them (credentials.ts, providerKubeconfig), or undefined while
   * those are unknown (a preview of a stack that makes its cluster), when, as for the engine's
   * unconfigured providers, nothing is asked of it.
   */
  clusterOf(providerRef: string | undefined): Cluster | undefined {
    const urn = providerRef?.slice(0, providerRef.lastIndexOf("::")) ?? "";
    if (qualifiedType(urn).split("$").pop() !== `${PROVIDER_PREFIX}kubernetes`) return this.cluster;
    const cached = this.clusters.get(urn);
    if (cached) return cached;
    const inputs = reveal((this.resources.get(urn) ?? this.prior.get(urn))?.inputs ?? {}) as Props;
    if (containsUnknown(inputs)) return undefined;
    const setting = (key: string) => (typeof inputs[key] === "string" ? (inputs[key] as string) : undefined);
    const settings = {
      kubeconfig: setting("kubeconfig"),
      context: setting("context"),
      cluster: setting("cluster"),
    };
    if (!settings.kubeconfig && !settings.context && !settings.cluster) return this.cluster;
    // As the library's waiters connect (components/cluster/wait.ts), in the CLI's environment.
    const env = { ...process.env, KUBECONFIG: this.options.kubeconfigPath, ...this.options.env };
    const { file, text } = providerKubeconfig(settings, env);
    if (text === undefined)
      throw new Error(`provider ${nameOf(urn)}: no kubeconfig could be read at ${file}`);
    this.diagnostics.secrets.add(text, true);
    if (settings.kubeconfig && fs.existsSync(settings.kubeconfig))
      this.diagnostics.secrets.add(fs.readFileSync(settings.kubeconfig, "utf8"), true);
    const cluster = new Cluster(text, this.options.sleep);
    this.clusters.set(urn, cluster);
    return cluster;
  }

  /**
   * The settings of a Kubernetes resource's provider: an explicit provider's inputs, the default
   * provider's the stack's `kubernetes:` config, either falling back to the environment.
   */
  kubeSettings(providerRef: string | undefined): KubeSettings {
    const urn = providerRef?.slice(0, providerRef.lastIndexOf("::")) ?? "";
    const explicit = qualifiedType(urn).split("$").pop() === `${PROVIDER_PREFIX}kubernetes`;
    const inputs = explicit
      ? (reveal((this.resources.get(urn) ?? this.prior.get(urn))?.inputs) as Props)
      : {};
    const config = (key: string) =>
      explicit ? inputs?.[key] : this.options.project.config[`kubernetes:${key}`];
    return kubeSettings(config, { ...process.env, ...this.options.env });
  }

  dynamicHost(): Promise<DynamicHost> {
    // The host has the CLI's environment, whose $KUBECONFIG is the run's cluster (read and delete use it).
    this.host ??= DynamicHost.start(path.dirname(this.options.project.main), this.monitorAddress(), {
      KUBECONFIG: this.options.kubeconfigPath,
      ...this.options.env,
    });
    return this.host;
  }

  /** A component package's provider, started from the directory the project names for the package. */
  componentHost(pkg: string): Promise<ComponentHost> {
    let host = this.packages.get(pkg);
    if (!host) {
      const dir = this.options.project.packages[pkg];
      host = !dir
        ? Promise.reject(
            new Error(`no package ${pkg} in the project's packages (pulumi package add adds it)`),
          )
        : !fs.existsSync(path.join(dir, "PulumiPlugin.yaml"))
          ? Promise.reject(new Error(`package ${pkg}: no PulumiPlugin.yaml in ${dir} (is it installed?)`))
          : ComponentHost.start(dir, this.monitorAddress(), {
              KUBECONFIG: this.options.kubeconfigPath,
              ...this.options.env,
            });
      this.packages.set(pkg, host);
    }
    return host;
  }

  async close(): Promise<void> {
    if (this.host) (await this.host.catch(() => undefined))?.stop();
    for (const host of this.packages.values()) (await host.catch(() => undefined))?.stop();
  }

  step(op: StepOp, r: { urn: string; type: string }, diffs: string[] = []): void {
    this.plan.push({ op, urn: r.urn, type: r.type, name: nameOf(r.urn), diffs });
  }

  /** The default provider of the resource's package, in the checkpoint as the engine keeps it. */
  providerRef(r: Registration): string {
    if (r.provider) return r.provider;
    const pkg = packageOf(r.type);
    const urn = `urn:pulumi:${this.options.project.stack}::${this.options.project.name}::${PROVIDER_PREFIX}${pkg}::default`;
    let provider = this.resources.get(urn);
    if (!provider) {
      provider = {
        urn,
        custom: true,
        id: this.prior.get(urn)?.id ?? randomUUID(),
        type: `${PROVIDER_PREFIX}${pkg}`,
        inputs: {},
        outputs: {},
      };
      this.resources.set(urn, provider);
    }
    return `${urn}::${provider.id}`;
  }

  record(r: Registration, id: string, inputs: Props, outputs: Props, external = false): Props {
    const state = this.stateOf(r, id, inputs, outputs, external);
    this.resources.set(r.urn, state);
    return state.outputs!;
  }

  /** A registration's state as the checkpoint keeps it. */
  stateOf(r: Registration, id: string, inputs: Props, outputs: Props, external = false): CheckpointResource {
    // As the engine's annotateSecrets: an output is secret at every path where its input was.
    const marked = markSecret(annotateSecrets(outputs, r.inputs) as Props, [
      ...secretKeys(r.inputs),
      ...r.additionalSecretOutputs,
    ]);
    this.diagnostics.secrets.add([r.inputs, marked]);
    return {
      urn: r.urn,
      custom: r.custom,
      ...(r.custom ? { id } : {}),
      type: r.type,
      inputs,
      outputs: marked,
      ...(r.parent ? { parent: r.parent } : {}),
      ...(r.custom && !r.type.startsWith(PROVIDER_PREFIX) ? { provider: this.providerRef(r) } : {}),
      dependencies: r.dependencies,
      propertyDependencies: r.propertyDependencies,
      ...(r.additionalSecretOutputs.length > 0 ? { additionalSecretOutputs: r.additionalSecretOutputs } : {}),
      ...(r.ignoreChanges.length > 0 ? { ignoreChanges: r.ignoreChanges } : {}),
      ...(Object.values(r.customTimeouts ?? {}).some((t) => t > 0)
        ? { customTimeouts: r.customTimeouts }
        : {}),
      ...(r.protect ? { protect: true } : {}),
      ...(r.retainOnDelete ? { retainOnDelete: true } : {}),
      ...(r.importId ? { importID: r.importId } : {}),
      ...(external ? { external: true } : {}),
    } as CheckpointResource;
  }

  /**
   * Runs a step's work with its operation pending in the state written before it starts (and before
   * it is reported started), as the snapshot manager marks an operation pending before the step and
   * complete at its end, so that the state of a process killed meanwhile names what it was doing.
   */
  async pendingDuring<T>(
    resource: CheckpointResource,
    type: OperationType,
    work: () => Promise<T>,
  ): Promise<T> {
    if (this.dryRun) return work();
    this.pending.set(resource.urn, { resource, type });
    this.persist();
    try {
      return await work();
    } finally {
      this.pending.delete(resource.urn);
    }
  }

  invoke(token: string, args: Props): Props {
    if (token === GET_RESOURCE) return this.getResource(String(args.urn));
    try {
      return answerInvoke(this.options.fixtures, token, reveal(args) as Props);
    } catch (error) {
      this.diagnostics.invokeFailed((error as Error).message);
      throw error;
    }
  }

  /**
   * A resource this deployment registered, as the engine's builtin provider answers the SDK's
   * rehydration of a resource reference (pulumi/pulumi pkg/resource/deploy/builtins.go, getResource): a
   * component package's provider gets its program's providers so (provider/server.ts, createProviderResource).
   */
  private getResource(urn: string): Props {
    const resource = this.resources.get(urn);
    if (!resource) throw new Error(`unknown resource ${urn}`);
    return {
      urn,
      id: resource.id ?? "",
      ...(resource.provider ? { provider: resource.provider } : {}),
      state: resource.outputs,
    };
  }

  registerOutputs(urn: string, outputs: Props): void {
    const resource = this.resources.get(urn);
    if (resource) resource.outputs = outputs;
    if (resource?.type === STACK_TYPE) this.outputs = outputs;
  }

  log(severity: Diagnostic["severity"], message: string, urn: string, ephemeral = false): void {
    this.diagnostics.log(severity, message, urn, ephemeral);
  }

  read(r: Registration): Promise<Props> {
    return this.tracked(() => this.readStep(r));
  }

  private async readStep(r: Registration): Promise<Props> {
    const k8s = kubeType(r.type);
    if (!k8s) throw this.fail(r, "read", new Error(`the harness cannot read resources of type ${r.type}`));
    this.step("read", r);
    const cluster = this.clusterOf(r.provider);
    // As the engine's read step: an unknown id, or a provider whose config is unknown, reads nothing and
    // every output is unknown.
    if (r.readId === UNKNOWN || !cluster) return this.record(r, r.readId!, r.inputs, {}, true);
    try {
      const planned = this.stateOf(r, r.readId!, r.inputs, {}, true);
      const live = await this.pendingDuring(
        planned,
        "reading",
        async () => (await cluster.read(k8s.apiVersion, k8s.kind, r.readId!)) as Props,
      );
      return this.record(r, r.readId!, r.inputs, live, true);
    } catch (error) {
      throw this.fail(
        r,
        "read",
        new Error(`cannot read ${k8s.kind} ${r.readId}: ${describeKubeError(error)}`),
      );
    }
  }

  private async tracked<T>(work: () => Promise<T>): Promise<T> {
    this.inflight++;
    try {
      return await work();
    } finally {
      this.inflight--;
      if (this.failures.length > 0 && this.inflight === 0) this.cancelProgram?.();
    }
  }

  register(r: Registration): Promise<{ id: string; outputs: Props }> {
    return this.tracked(() => this.registerStep(r));
  }

  private async registerStep(r: Registration): Promise<{ id: string; outputs: Props }> {
    this.options.onRegistration?.(r);
    this.diagnostics.secrets.add(r.inputs);
    if (r.remote) return constructStep(this, r);
    if (!r.custom) {
      this.record(r, "", r.inputs, this.priorOf(r)?.outputs ?? {});
      return { id: "", outputs: {} };
    }
    if (r.type.startsWith(PROVIDER_PREFIX)) {
      // As the engine's provider registry: a new provider has no id until it is created.
      const id = this.priorOf(r)?.id ?? (this.dryRun ? UNKNOWN : randomUUID());
      return { id, outputs: this.record(r, id, r.inputs, r.inputs) };
    }
    if (this.failures.length > 0) throw new Error(`${r.name} ${SKIPPED}`);
    const pending = r.dependencies.filter((d) => !this.resources.has(d));
    if (pending.length > 0) {
      throw this.fail(
        r,
        "create",
        new Error(`registered before its dependencies finished: ${pending.join(", ")}`),
      );
    }
    if (kubeType(r.type)) return kubeStep(this, r);
    if (r.type.startsWith(DYNAMIC_TYPE_PREFIX)) return dynamicStep(this, r);
    throw this.fail(r, "create", new Error(`the harness cannot deploy resources of type ${r.type}`));
  }

  /**
   * The checkpoint's state of a registration: under its URN, or under one of its aliases, as the step
   * generator finds it, so a rename or a new parent is no replacement.
   */
  priorOf(r: Registration): CheckpointResource | undefined {
    const own = this.prior.get(r.urn);
    if (own) return own;
    const alias = r.aliases.find((a) => this.prior.has(a) && !this.resources.has(a));
    if (alias === undefined) return undefined;
    this.aliased.add(alias);
    return this.prior.get(alias);
  }

  /**
   * A create or update the provider carried out but whose resource did not initialize stays in the
   * state with its id, outputs and reasons, as the engine keeps InitErrors; the step still fails.
   */
  recordInitFailure(r: Registration, id: string, inputs: Props, outputs: Props, reasons: string[]): void {
    this.record(r, id, inputs, outputs);
    this.resources.get(r.urn)!.initErrors = reasons;
    this.persist();
  }

  /** Carries out a planned step, reporting it, and records its result in the state as soon as it is done. */
  async carryOut(
    op: StepOp,
    r: Registration,
    run: () => Promise<{ id: string; outputs: Props }>,
    inputs: Props,
  ): Promise<{ id: string; outputs: Props }> {
    let result: { id: string; outputs: Props };
    const updating = op === "update";
    const planned = this.stateOf(r, updating ? (this.prior.get(r.urn)?.id ?? "") : "", inputs, {});
    try {
      result = await this.pendingDuring(planned, updating ? "updating" : "creating", () => {
        this.emit({ phase: "start", operation: op, type: r.type, name: r.name });
        return run();
      });
    } catch (error) {
      this.persist();
      throw this.fail(r, op, error);
    }
    const outputs = this.record(r, result.id, inputs, result.outputs);
    this.persist();
    this.emit({ phase: "done", operation: op, type: r.type, name: r.name, id: result.id });
    return { id: result.id, outputs };
  }

  /** Deletes one resource of the checkpoint with the provider that made it. */
  async delete(resource: CheckpointResource): Promise<void> {
    const what = { type: resource.type, name: nameOf(resource.urn), parent: resource.parent };
    // The old half of a replacement belongs to its replace step.
    const replacing = this.replaced.includes(resource);
    if (!replacing) this.step("delete", resource);
    if (resource.protect && !replacing) {
      // As the engine's DeleteStep, in preview as well.
      throw this.fail(
        what,
        "delete",
        new Error(
          `resource "${resource.urn}" cannot be deleted\nbecause it is protected. To unprotect the resource, either remove the \`protect\` flag from the resource in your Pulumi program and run \`pulumi up\`, or use the command:\n\`pulumi state unprotect '${resource.urn}'\``,
        ),
      );
    }
    if (this.dryRun) return;
    try {
      // retainOnDelete: the engine drops it from the state and leaves the object where it is.
      await this.pendingDuring(resource, "deleting", async () => {
        this.emit({ phase: "start", operation: "delete", ...what });
        if (resource.retainOnDelete) return;
        if (resource.type.startsWith(DYNAMIC_TYPE_PREFIX)) await deleteDynamic(this, resource);
        else await deleteKube(this, resource);
      });
    } catch (error) {
      this.persist();
      throw this.fail(what, "delete", new Error(describeKubeError(error)));
    }
    this.emit({ phase: "done", operation: "delete", ...what });
  }

  /** Deletes `resources` dependents first (reverse checkpoint order); stops at the first failure. */
  async deleteAll(resources: CheckpointResource[]): Promise<void> {
    for (const resource of [...resources].reverse()) {
      if (
        !resource.custom ||
        resource.type.startsWith(PROVIDER_PREFIX) ||
        (resource as { external?: boolean }).external
      ) {
        this.deleted.add(resource.urn);
        continue;
      }
      try {
        await this.delete(resource);
      } catch {
        break;
      }
      this.deleted.add(resource.urn);
      this.persist();
    }
  }

  /** Program errors that are not echoes of a resource failure or refusals after one. */
  programErrors(): string[] {
    return this.diagnostics.programErrors();
  }
}
