/**
 * A small engine for one stack: what `pulumi preview`, `up`, `refresh` and `destroy` do, with the
 * program run by the SDK's language entry point over the ResourceMonitor protocol (monitor.ts),
 * dynamic resources carried out by the SDK's dynamic-provider host (dynamic-host.ts), and Kubernetes
 * resources applied by the harness with server-side apply (the pulumi-kubernetes provider is a Go
 * plugin that cannot be installed here). Each registration becomes a step (create, update, replace,
 * same) decided from the checkpoint of the last deployment; a preview plans the steps and carries out
 * none of them, handing the program its inputs as outputs, unknowns included, as the engine does for
 * providers without previews.
 */
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { DYNAMIC_TYPE_PREFIX } from "../dynamic";
import { answerInvoke, Fixtures } from "../fixtures";
import {
  Cluster,
  deleteTimeoutSeconds,
  describeKubeError,
  fieldManager,
  isNotFound,
  kubeType,
  KubeType,
  manifestOf,
  normalizeInputs,
  PATCH_FORCE_ANNOTATION,
} from "../kube";
import type { Project } from "../project";
import { annotateSecrets, markSecret, reveal, secretKeys } from "../secrets";
import {
  Checkpoint,
  CheckpointResource,
  loadCheckpoint,
  lockStack,
  nameOf,
  saveCheckpoint,
} from "./checkpoint";
import { ComponentHost, InputPropertiesFailure } from "./component-host";
import { DynamicHost } from "./dynamic-host";
import { Host, qualifiedType, Registration, startMonitor, STACK_TYPE } from "./monitor";
import { runProgram } from "./program";
import { runYamlProgram } from "./yaml-program";
import {
  diffPaths,
  forceNewPaths,
  idOf,
  KubeSettings,
  kubeSettings,
  liveInputs,
  under,
  withoutProvider,
  withPaths,
} from "./diff";
import { containsUnknown, grpcMessage, initFailure, Props, UNKNOWN } from "./rpc";

export type StepOp = "create" | "update" | "replace" | "same" | "delete" | "read" | "import";

export interface PlanStep {
  op: StepOp;
  urn: string;
  type: string;
  name: string;
  /** Changed property paths of an update or replace; for refresh, what drifted. */
  diffs: string[];
}

export interface EngineEvent {
  phase: "start" | "done" | "failed";
  operation: StepOp;
  type: string;
  name: string;
  message?: string;
  id?: string;
  /** The URN of the resource's parent (its component), when it has one. */
  parent?: string;
}

/** A message logged by the program or a provider (`pulumi.log`), with the resource it is about. */
export interface Diagnostic {
  severity: "debug" | "info" | "warning" | "error";
  message: string;
  /** The resource's URN; empty when the logger named none. */
  urn: string;
}

export interface EngineOptions {
  project: Project;
  kubeconfigPath: string;
  statePath?: string;
  fixtures: Fixtures;
  /** URNs or names of resources to replace even when nothing changed (`--replace`). */
  replace?: string[];
  onEvent?: (event: EngineEvent) => void;
  /** Every diagnostic, as the CLI receives them to print under each resource. */
  onDiagnostic?: (diagnostic: Diagnostic) => void;
  /** Extra environment for the program and the dynamic-provider host. */
  env?: NodeJS.ProcessEnv;
  /** Every registration the program (or a component package's provider) made, as the engine received it. */
  onRegistration?: (registration: Registration) => void;
}

export interface EngineResult {
  ok: boolean;
  errors: string[];
  plan: PlanStep[];
  outputs: Props;
  checkpoint: Checkpoint;
}

const PROVIDER_PREFIX = "pulumi:providers:";
/** How a registration after a failure is refused (the engine starts nothing new after an error either). */
const SKIPPED = "not deployed: an earlier resource failed";

const short = (type: string) => type.split(":").pop()!;

function packageOf(type: string): string {
  return type.startsWith(DYNAMIC_TYPE_PREFIX) ? "pulumi-nodejs" : type.split(":")[0];
}

/** The message the program logged, as the CLI shows it: no colours, no stack, no runner preamble. */
function programError(message: string): string {
  const plain = message
    .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g"), "")
    .replace(/^Running program '[^']*' failed with an unhandled exception:\n/, "")
    .replace(/^<ref \*\d+> /, "");
  const lines = plain.split("\n");
  const stackAt = lines.findIndex((l) => /^\s+at /.test(l));
  return (stackAt > 0 ? lines.slice(0, stackAt) : lines).join("\n").trim();
}

class Deployment implements Host {
  readonly resources = new Map<string, CheckpointResource>();
  readonly plan: PlanStep[] = [];
  readonly failures: string[] = [];
  readonly logged: string[] = [];
  /** Old resources replaced create-before-delete: deleted with the removed ones, after the program. */
  readonly replaced: CheckpointResource[] = [];
  /** URNs of the checkpoint's resources deleted so far. */
  readonly deleted = new Set<string>();
  /** Old URNs of resources registered under an alias: renamed, neither deleted nor kept. */
  readonly aliased = new Set<string>();
  /** Writes the state after each step carried out, as the CLI's snapshot manager does. */
  persist: () => void = () => undefined;
  outputs: Props = {};
  private host?: Promise<DynamicHost>;
  /** The providers of component packages, by package name, started when a program first constructs one. */
  private readonly packages = new Map<string, Promise<ComponentHost>>();
  /** Clusters of explicit Kubernetes providers, by provider URN. */
  private readonly clusters = new Map<string, Cluster>();

  constructor(
    private readonly options: EngineOptions,
    private readonly dryRun: boolean,
    private readonly prior: Map<string, CheckpointResource>,
    private readonly cluster: Cluster,
    private readonly monitorAddress: () => string,
  ) {}

  private emit(event: EngineEvent): void {
    this.options.onEvent?.(event);
  }

  /**
   * The cluster a Kubernetes resource's provider points at: the run's for the default provider, the
   * `kubeconfig` (content or path) of an explicit one, or undefined while that is unknown (a preview of
   * a stack that makes its cluster), when, as for the engine's unconfigured providers, nothing is asked of it.
   */
  clusterOf(providerRef: string | undefined): Cluster | undefined {
    const urn = providerRef?.slice(0, providerRef.lastIndexOf("::")) ?? "";
    if (qualifiedType(urn).split("$").pop() !== `${PROVIDER_PREFIX}kubernetes`) return this.cluster;
    const cached = this.clusters.get(urn);
    if (cached) return cached;
    const inputs = (this.resources.get(urn) ?? this.prior.get(urn))?.inputs ?? {};
    if (containsUnknown(reveal(inputs))) return undefined;
    const kubeconfig = reveal(inputs.kubeconfig);
    if (typeof kubeconfig !== "string" || kubeconfig === "") return this.cluster;
    const text = kubeconfig.includes("\n") ? kubeconfig : fs.readFileSync(kubeconfig, "utf8");
    const cluster = new Cluster(text);
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

  fail(what: { type: string; name: string; parent?: string }, operation: StepOp, error: unknown): Error {
    const reason = error instanceof Error ? error.message : String(error);
    const message = `${short(what.type)} ${what.name}: ${reason}`;
    this.failures.push(message);
    const parent = what.parent ? { parent: what.parent } : {};
    this.emit({ phase: "failed", operation, type: what.type, name: what.name, message, ...parent });
    return new Error(message);
  }

  private step(op: StepOp, r: { urn: string; type: string }, diffs: string[] = []): void {
    this.plan.push({ op, urn: r.urn, type: r.type, name: nameOf(r.urn), diffs });
  }

  /** The default provider of the resource's package, in the checkpoint as the engine keeps it. */
  private providerRef(r: Registration): string {
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

  private record(r: Registration, id: string, inputs: Props, outputs: Props, external = false): Props {
    // As the engine's annotateSecrets: an output is secret at every path where its input was.
    const marked = markSecret(annotateSecrets(outputs, r.inputs) as Props, [
      ...secretKeys(r.inputs),
      ...r.additionalSecretOutputs,
    ]);
    this.resources.set(r.urn, {
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
    } as CheckpointResource);
    return marked;
  }

  invoke(token: string, args: Props): Props {
    try {
      return answerInvoke(this.options.fixtures, token, reveal(args) as Props);
    } catch (error) {
      this.logged.push((error as Error).message);
      throw error;
    }
  }

  registerOutputs(urn: string, outputs: Props): void {
    const resource = this.resources.get(urn);
    if (resource) resource.outputs = outputs;
    if (resource?.type === STACK_TYPE) this.outputs = outputs;
  }

  log(severity: Diagnostic["severity"], message: string, urn: string): void {
    this.options.onDiagnostic?.({ severity, message, urn });
    if (severity !== "error") return;
    const error = programError(message);
    // Logged against a resource, the error names it (as the CLI shows it under that resource), unless
    // it already names its component or is the stack's.
    const type = urn ? (qualifiedType(urn).split("$").pop() ?? "") : "";
    const of = type && type !== STACK_TYPE ? `${short(type)} ${nameOf(urn)}` : undefined;
    this.logged.push(
      of && !error.startsWith(`${of}`) && !/^\w+ "[^"]+": /.test(error) ? `${of}: ${error}` : error,
    );
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
      const live = (await cluster.read(k8s.apiVersion, k8s.kind, r.readId!)) as Props;
      return this.record(r, r.readId!, r.inputs, live, true);
    } catch (error) {
      throw this.fail(
        r,
        "read",
        new Error(`cannot read ${k8s.kind} ${r.readId}: ${describeKubeError(error)}`),
      );
    }
  }

  private inflight = 0;
  /** Set while the program runs: cancels it once a step failed and no other step is in flight. */
  cancelProgram?: () => void;

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
    if (r.remote) return this.construct(r);
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
    if (kubeType(r.type)) return this.kube(r);
    if (r.type.startsWith(DYNAMIC_TYPE_PREFIX)) return this.dynamic(r);
    throw this.fail(r, "create", new Error(`the harness cannot deploy resources of type ${r.type}`));
  }

  /**
   * A component of a package, as the engine's step generator handles a remote registration: its
   * provider constructs it, registering the component and its children with this monitor, and its
   * state is the component's outputs. Bad input fails it with the properties and reasons.
   */
  private async construct(r: Registration): Promise<{ id: string; outputs: Props }> {
    if (this.failures.length > 0) throw new Error(`${r.name} ${SKIPPED}`);
    try {
      const host = await this.componentHost(r.type.split(":")[0]);
      const { state } = await host.construct({
        project: this.options.project.name,
        stack: this.options.project.stack,
        config: this.options.project.config,
        dryRun: this.dryRun,
        monitor: this.monitorAddress(),
        type: r.type,
        name: r.name,
        parent: r.parent,
        inputs: r.inputs,
        dependencies: r.dependencies,
      });
      const component = this.resources.get(r.urn);
      if (component) component.outputs = state;
      return { id: "", outputs: state };
    } catch (error) {
      // The component's own name heads its message; the engine names the resource once.
      const named = new RegExp(`^${short(r.type)} "${r.name}": `);
      const message =
        error instanceof InputPropertiesFailure ? error.message.replace(named, "") : grpcMessage(error);
      throw this.fail(r, "create", new Error(message));
    }
  }

  /**
   * The checkpoint's state of a registration: under its URN, or under one of its aliases, as the step
   * generator finds it, so a rename or a new parent is no replacement.
   */
  private priorOf(r: Registration): CheckpointResource | undefined {
    const own = this.prior.get(r.urn);
    if (own) return own;
    const alias = r.aliases.find((a) => this.prior.has(a) && !this.resources.has(a));
    if (alias === undefined) return undefined;
    this.aliased.add(alias);
    return this.prior.get(alias);
  }

  private replaceRequested(urn: string): boolean {
    return (this.options.replace ?? []).some((t) => t === urn || t === nameOf(urn));
  }

  private async carryOut(
    op: StepOp,
    r: Registration,
    run: () => Promise<{ id: string; outputs: Props }>,
    inputs: Props,
  ): Promise<{ id: string; outputs: Props }> {
    this.emit({ phase: "start", operation: op, type: r.type, name: r.name });
    let result: { id: string; outputs: Props };
    try {
      result = await run();
    } catch (error) {
      throw this.fail(r, op, error);
    }
    const outputs = this.record(r, result.id, inputs, result.outputs);
    this.persist();
    this.emit({ phase: "done", operation: op, type: r.type, name: r.name, id: result.id });
    return { id: result.id, outputs };
  }

  private async kube(r: Registration): Promise<{ id: string; outputs: Props }> {
    const type = kubeType(r.type)!;
    const known = this.priorOf(r);
    const imported = known || !r.importId ? undefined : await this.importKube(r, type);
    const old = known ?? imported;
    // As the engine does, ignored paths take their old inputs before the diff.
    const normal = (props: Props) => normalizeInputs(type, reveal(props) as Props);
    const diffs = old
      ? diffPaths(normal(old.inputs ?? {}), normal(withPaths(r.inputs, old.inputs ?? {}, r.ignoreChanges)))
      : [];
    const renamed = diffs.some((d) => d === "metadata.name" || d === "metadata.namespace");
    const forceNew = [
      ...forceNewPaths(type, reveal(r.inputs) as Props, this.kubeSettings(r.provider)),
      ...r.replaceOnChanges,
    ];
    const replaces = diffs.filter((d) => forceNew.some((p) => under(d, p)));
    const op: StepOp = !old
      ? "create"
      : replaces.length > 0 || this.replaceRequested(r.urn)
        ? "replace"
        : diffs.length > 0
          ? "update"
          : "same";
    if (op === "replace" && old!.protect && r.protect) {
      throw this.fail(
        r,
        op,
        new Error(
          `unable to replace resource "${r.urn}"\nas it is currently marked for protection. To unprotect the resource, remove the \`protect\` flag from the resource in your Pulumi program and run \`pulumi up\``,
        ),
      );
    }
    if (!imported || op !== "same") this.step(op, r, diffs);
    if (this.dryRun || op === "same") {
      // A provider whose config is unknown previews nothing: every output is unknown.
      const planned = this.clusterOf(r.provider) ? r.inputs : {};
      const outputs = op === "same" ? (old!.outputs ?? {}) : planned;
      const id = op === "same" ? old!.id! : "";
      return {
        id,
        outputs: this.record(r, id, op === "same" && imported ? old!.inputs! : r.inputs, outputs),
      };
    }
    return this.carryOut(
      op,
      r,
      async () => {
        if (op === "update") return this.applyKube(r, r.ignoreChanges, true);
        if (op === "replace") {
          // Same name: the old object goes first (delete before replace, as pulumi-kubernetes' Diff
          // asks for a named object); a renamed one is deleted after the deployment.
          if (renamed) this.replaced.push(old!);
          else await this.deleteKube(old!);
        }
        return this.createKube(r);
      },
      r.inputs,
    );
  }

  /**
   * The `import` option: the object is read (the engine's ImportStep, through pulumi-kubernetes' Read)
   * and fails the step when it is missing; what the program declares differently then updates or
   * replaces it as any change would.
   */
  private async importKube(r: Registration, type: KubeType): Promise<CheckpointResource | undefined> {
    this.step("import", r);
    const cluster = this.clusterOf(r.provider);
    if (!cluster) return undefined;
    if (!this.dryRun) this.emit({ phase: "start", operation: "import", type: r.type, name: r.name });
    let live: Props;
    try {
      live = (await cluster.read(type.apiVersion, type.kind, r.importId)) as Props;
    } catch (error) {
      const reason = isNotFound(error)
        ? `resource '${r.importId}' does not exist`
        : `cannot read ${type.kind} ${r.importId}: ${describeKubeError(error)}`;
      throw this.fail(r, "import", new Error(reason));
    }
    const imported: CheckpointResource = {
      urn: r.urn,
      custom: true,
      id: r.importId,
      type: r.type,
      inputs: liveInputs(type, live, r.inputs),
      outputs: live,
      provider: this.providerRef(r),
      importID: r.importId,
    };
    if (!this.dryRun)
      this.emit({ phase: "done", operation: "import", type: r.type, name: r.name, id: r.importId });
    return imported;
  }

  /**
   * A create as pulumi-kubernetes does it (await.go, Creation): client-side, failing on an object that
   * exists, unless the provider upserts or the resource is a Patch, which apply server-side.
   */
  private async createKube(r: Registration): Promise<{ id: string; outputs: Props }> {
    const type = kubeType(r.type)!;
    if (type.patch || this.kubeSettings(r.provider).upsertExistingObjects)
      return this.applyKube(r, [], false);
    const object = manifestOf(type, reveal(r.inputs) as Props);
    try {
      const live = await this.clusterOf(r.provider)!.create(object);
      return { id: idOf(live), outputs: live as Props };
    } catch (error) {
      throw new Error(
        `creation of ${type.kind} ${object.metadata?.name} failed: ${describeKubeError(error)}`,
        {
          cause: error,
        },
      );
    }
  }

  /**
   * Server-side apply; on update, the fields of client-side writers (the create's) move to the
   * resource's manager first (fixCSAFieldManagers), and `ignoreChanges` paths carry what the cluster has
   * now (e.g. replicas an autoscaler set), as pulumi-kubernetes does in SSA mode: the apply neither takes
   * the field back nor drops it.
   */
  private async applyKube(
    r: Registration,
    ignored: string[],
    update: boolean,
  ): Promise<{ id: string; outputs: Props }> {
    const type = kubeType(r.type)!;
    const cluster = this.clusterOf(r.provider)!;
    const manager = fieldManager(r.urn);
    let object = manifestOf(type, reveal(r.inputs) as Props);
    if (update) {
      const { name, namespace } = object.metadata ?? {};
      let live = await cluster.read(
        String(object.apiVersion),
        String(object.kind),
        namespace ? `${namespace}/${name}` : String(name),
      );
      // Patch resources never take fields over: they would own what they do not declare.
      if (!type.patch) live = await cluster.takeOverFields(live, manager);
      if (ignored.length > 0) {
        object = withPaths(object as unknown as Props, live as Props, ignored) as unknown as typeof object;
      }
    }
    // As pulumi-kubernetes, for every resource it applies server-side, not only the Patch ones.
    const force = object.metadata?.annotations?.[PATCH_FORCE_ANNOTATION] === "true";
    try {
      const live = await cluster.apply(object, manager, force);
      return { id: idOf(live), outputs: live as Props };
    } catch (error) {
      throw new Error(
        `server-side apply of ${type.kind} ${object.metadata?.name} failed: ${describeKubeError(error)}`,
        { cause: error },
      );
    }
  }

  /** Deletes the object and waits until it is gone, within customTimeouts.delete (await.go, Deletion). */
  async deleteKube(resource: CheckpointResource): Promise<void> {
    const type = kubeType(resource.type)!;
    const object = manifestOf(type, reveal(resource.inputs ?? {}) as Props);
    const cluster = this.clusterOf(resource.provider)!;
    if (type.patch) await cluster.relinquish(object, fieldManager(resource.urn));
    else await cluster.delete(object, deleteTimeoutSeconds(object, resource.customTimeouts?.delete ?? 0));
  }

  private async dynamic(r: Registration): Promise<{ id: string; outputs: Props }> {
    const old = this.priorOf(r);
    const host = await this.dynamicHost();
    const checked = await host.check(r.urn, old?.inputs ?? {}, r.inputs).catch((e) => {
      throw this.fail(r, old ? "update" : "create", new Error(grpcMessage(e)));
    });
    if (checked.failures.length > 0) {
      throw this.fail(
        r,
        old ? "update" : "create",
        new Error(checked.failures.map((f) => `${f.property}: ${f.reason}`).join("; ")),
      );
    }
    const inputs = markSecret(checked.inputs, secretKeys(r.inputs));
    let op: StepOp = "create";
    let diffs: string[] = [];
    let deleteBeforeReplace = r.deleteBeforeReplace;
    if (old) {
      diffs = diffPaths(withoutProvider(old.inputs ?? {}), withoutProvider(inputs)).map(
        (d) => d.split(".")[0],
      );
      diffs = [...new Set(diffs)];
      const diff = await host.diff(r.urn, old.id!, old.outputs ?? {}, inputs).catch((e) => {
        throw this.fail(r, "update", new Error(grpcMessage(e)));
      });
      deleteBeforeReplace ||= diff.deleteBeforeReplace;
      // A resource that failed to initialize is updated even without changes (step_generator.go).
      const changed =
        (diff.changes === "unknown" ? diffs.length > 0 : diff.changes === "some") ||
        (old.initErrors?.length ?? 0) > 0;
      op = diff.replaces.length > 0 || this.replaceRequested(r.urn) ? "replace" : changed ? "update" : "same";
      if (op === "replace" && diff.replaces.length > 0) diffs = diff.replaces;
    }
    this.step(op, r, op === "same" ? [] : diffs);
    if (this.dryRun || op === "same") {
      const outputs = op === "same" ? (old!.outputs ?? {}) : inputs;
      const id = op === "same" ? old!.id! : "";
      return { id, outputs: this.record(r, id, inputs, outputs) };
    }
    return this.carryOut(
      op,
      r,
      async () => {
        try {
          if (op === "update") {
            return { id: old!.id!, outputs: await host.update(r.urn, old!.id!, old!.outputs ?? {}, inputs) };
          }
          if (op === "replace" && deleteBeforeReplace)
            await host.delete(old!.urn, old!.id!, old!.outputs ?? {});
          const created = await host.create(r.urn, inputs);
          if (op === "replace" && !deleteBeforeReplace) this.replaced.push(old!);
          return created;
        } catch (error) {
          this.keepInitFailure(r, inputs, error);
          throw new Error(grpcMessage(error), { cause: error });
        }
      },
      inputs,
    );
  }

  /**
   * A create or update the provider carried out but whose resource did not initialize stays in the
   * state with its id, outputs and reasons, as the engine keeps InitErrors; the step still fails.
   */
  private keepInitFailure(r: Registration, inputs: Props, error: unknown): void {
    const failure = initFailure(error);
    if (!failure || this.dryRun) return;
    this.record(r, failure.id, inputs, failure.properties);
    this.resources.get(r.urn)!.initErrors = failure.reasons;
    this.persist();
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
    this.emit({ phase: "start", operation: "delete", ...what });
    try {
      // retainOnDelete: the engine drops it from the state and leaves the object where it is.
      if (!resource.retainOnDelete) await this.providerDelete(resource);
    } catch (error) {
      throw this.fail(what, "delete", new Error(describeKubeError(error)));
    }
    this.emit({ phase: "done", operation: "delete", ...what });
  }

  private async providerDelete(resource: CheckpointResource): Promise<void> {
    if (!resource.type.startsWith(DYNAMIC_TYPE_PREFIX)) return this.deleteKube(resource);
    const host = await this.dynamicHost();
    await host.delete(resource.urn, resource.id!, resource.outputs ?? {}).catch((e) => {
      throw new Error(grpcMessage(e));
    });
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
    const seen = new Set<string>();
    return this.logged.filter((m) => {
      if (m.includes(SKIPPED) || this.failures.some((f) => m.includes(f)) || seen.has(m)) return false;
      seen.add(m);
      return true;
    });
  }
}

function priorMap(checkpoint: Checkpoint): Map<string, CheckpointResource> {
  return new Map(checkpoint.deployment.resources.map((r) => [r.urn, r]));
}

function save(options: EngineOptions, checkpoint: Checkpoint, resources: CheckpointResource[]): Checkpoint {
  const next: Checkpoint = { ...checkpoint, deployment: { ...checkpoint.deployment, resources } };
  if (options.statePath) saveCheckpoint(options.statePath, next);
  return next;
}

/**
 * Runs an operation that writes the state under the stack's lock; one the lock refuses fails before
 * anything is read or changed.
 */
async function locked(options: EngineOptions, run: () => Promise<EngineResult>): Promise<EngineResult> {
  let release: () => void;
  try {
    release = options.statePath ? lockStack(options.statePath) : () => undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      errors: [message],
      plan: [],
      outputs: {},
      checkpoint: loadCheckpoint(options.statePath),
    };
  }
  try {
    return await run();
  } finally {
    release();
  }
}

/** `pulumi preview` (dryRun) or `pulumi up`: runs the program and carries out (or plans) its steps. */
export function update(options: EngineOptions, dryRun: boolean): Promise<EngineResult> {
  return dryRun ? updateStack(options, true) : locked(options, () => updateStack(options, false));
}

async function updateStack(options: EngineOptions, dryRun: boolean): Promise<EngineResult> {
  const checkpoint = loadCheckpoint(options.statePath);
  const prior = priorMap(checkpoint);
  const cluster = new Cluster(fs.readFileSync(options.kubeconfigPath, "utf8"));
  let address = "";
  const deployment = new Deployment(options, dryRun, prior, cluster, () => address);
  // What this deployment did, then what it did not touch yet (or kept when it failed before deleting them).
  const snapshot = () => [
    ...deployment.resources.values(),
    ...checkpoint.deployment.resources.filter(
      (r) =>
        !deployment.resources.has(r.urn) && !deployment.deleted.has(r.urn) && !deployment.aliased.has(r.urn),
    ),
  ];
  if (!dryRun) deployment.persist = () => save(options, checkpoint, snapshot());
  const monitor = await startMonitor(options.project.name, options.project.stack, deployment);
  address = monitor.address;
  try {
    const program = (options.project.runtime === "yaml" ? runYamlProgram : runProgram)(options.project, {
      monitor: monitor.address,
      dryRun,
      env: { KUBECONFIG: options.kubeconfigPath, ...options.env },
    });
    deployment.cancelProgram = program.cancel;
    const run = await program.done;
    const programErrors = deployment.programErrors();
    if (run.code !== 0 && deployment.failures.length === 0 && programErrors.length === 0) {
      programErrors.push(`the program exited with code ${run.code}: ${run.output.trim()}`);
    }
    let errors = [...deployment.failures, ...programErrors];
    if (errors.length === 0) {
      const removed = checkpoint.deployment.resources.filter(
        (r) => !deployment.resources.has(r.urn) && !deployment.aliased.has(r.urn),
      );
      await deployment.deleteAll([...removed, ...deployment.replaced]);
      errors = [...deployment.failures];
    }
    if (dryRun) {
      return {
        ok: errors.length === 0,
        errors,
        plan: deployment.plan,
        outputs: deployment.outputs,
        checkpoint,
      };
    }
    const next = save(options, checkpoint, snapshot());
    return {
      ok: errors.length === 0,
      errors,
      plan: deployment.plan,
      outputs: deployment.outputs,
      checkpoint: next,
    };
  } finally {
    await deployment.close();
    await monitor.stop();
  }
}

/** `pulumi destroy`: deletes every resource of the checkpoint, dependents first. */
export function destroy(options: EngineOptions, dryRun = false): Promise<EngineResult> {
  return dryRun ? destroyStack(options, true) : locked(options, () => destroyStack(options, false));
}

async function destroyStack(options: EngineOptions, dryRun: boolean): Promise<EngineResult> {
  const checkpoint = loadCheckpoint(options.statePath);
  const cluster = new Cluster(fs.readFileSync(options.kubeconfigPath, "utf8"));
  const deployment = new Deployment(options, dryRun, priorMap(checkpoint), cluster, () => "127.0.0.1:0");
  const remaining = () => checkpoint.deployment.resources.filter((r) => !deployment.deleted.has(r.urn));
  if (!dryRun) deployment.persist = () => save(options, checkpoint, remaining());
  try {
    await deployment.deleteAll(checkpoint.deployment.resources);
    const errors = [...deployment.failures];
    const next = dryRun ? checkpoint : save(options, checkpoint, remaining());
    return { ok: errors.length === 0, errors, plan: deployment.plan, outputs: {}, checkpoint: next };
  } finally {
    await deployment.close();
  }
}

interface Refreshed {
  id: string;
  inputs: Props;
  outputs: Props;
  diffs: string[];
  changed: boolean;
}

/**
 * `pulumi refresh`: reads every resource back, inputs as well as outputs (the provider's read result),
 * and shows as drift what an `up` of the unchanged program would now change, as the engine's refresh
 * step does. The next `up` then takes the drifted fields back.
 */
export function refresh(options: EngineOptions): Promise<EngineResult> {
  return locked(options, () => refreshStack(options));
}

async function refreshStack(options: EngineOptions): Promise<EngineResult> {
  const checkpoint = loadCheckpoint(options.statePath);
  const cluster = new Cluster(fs.readFileSync(options.kubeconfigPath, "utf8"));
  const deployment = new Deployment(options, false, priorMap(checkpoint), cluster, () => "127.0.0.1:0");
  const plan: PlanStep[] = [];
  const resources: CheckpointResource[] = [];

  /** A Kubernetes object read back: its inputs are the live fields the program declared. */
  const readKube = async (resource: CheckpointResource, k8s: KubeType): Promise<Refreshed | undefined> => {
    let live: Props;
    try {
      live = (await deployment
        .clusterOf(resource.provider)!
        .read(k8s.apiVersion, k8s.kind, resource.id!)) as Props;
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw new Error(describeKubeError(error), { cause: error });
    }
    const declared = normalizeInputs(k8s, reveal(resource.inputs ?? {}) as Props);
    const inputs = liveInputs(k8s, live, resource.inputs);
    // As the engine's refresh diffs: what the program lets another actor own (its ignoreChanges) is no
    // drift, though the state takes what was read.
    const wanted = withPaths(inputs, declared, resource.ignoreChanges ?? []);
    const diffs = diffPaths(manifestOf(k8s, declared), manifestOf(k8s, wanted));
    return { id: resource.id!, inputs, outputs: live, diffs, changed: diffs.length > 0 };
  };

  /** A dynamic resource read back by its provider; the provider's diff against the last inputs decides drift. */
  const readDynamic = async (resource: CheckpointResource): Promise<Refreshed | undefined> => {
    const host = await deployment.dynamicHost();
    const declared = resource.inputs ?? {};
    const read = await host.read(resource.urn, resource.id!, declared, resource.outputs ?? {});
    if (!read.id) return undefined;
    const inputs = read.inputs ? (annotateSecrets(read.inputs, declared) as Props) : declared;
    const diff = await host.diff(resource.urn, read.id, read.outputs, declared);
    const visible = withoutProvider(declared);
    const diffs = Object.keys(visible).filter((k) => diffPaths(visible[k], read.outputs[k]).length > 0);
    const changed = diff.changes === "unknown" ? diffs.length > 0 : diff.changes === "some";
    return { id: read.id, inputs, outputs: read.outputs, diffs: changed ? diffs : [], changed };
  };

  try {
    for (const resource of checkpoint.deployment.resources) {
      const k8s = kubeType(resource.type);
      const dynamic = resource.type.startsWith(DYNAMIC_TYPE_PREFIX);
      if (!resource.custom || (!k8s && !dynamic)) {
        resources.push(resource);
        continue;
      }
      const step = (op: StepOp, diffs: string[]) =>
        plan.push({ op, urn: resource.urn, type: resource.type, name: nameOf(resource.urn), diffs });
      try {
        const refreshed = k8s ? await readKube(resource, k8s) : await readDynamic(resource);
        if (!refreshed) {
          // Gone: the refresh drops it from the state.
          step("delete", []);
          continue;
        }
        const { id, inputs, outputs, diffs, changed } = refreshed;
        step(
          changed ? "update" : "same",
          diffs.filter((d) => d !== "apiVersion" && d !== "kind"),
        );
        resources.push({
          ...resource,
          id,
          inputs,
          outputs: markSecret(outputs, secretKeys(resource.outputs ?? {})),
        });
      } catch (error) {
        deployment.fail({ type: resource.type, name: nameOf(resource.urn) }, "read", error);
        resources.push(resource);
      }
    }
    const errors = [...deployment.failures];
    const next = save(options, checkpoint, resources);
    return { ok: errors.length === 0, errors, plan, outputs: {}, checkpoint: next };
  } finally {
    await deployment.close();
  }
}

export { UNKNOWN };
