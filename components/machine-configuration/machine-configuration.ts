import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  containerRuntimeConfig,
  ContainerRuntimeConfigArgs as ContainerRuntimeConfigSpec,
  kubeletConfig,
  KubeletConfigArgs as KubeletConfigSpec,
  machineConfig,
  MachineConfigArgs as MachineConfigSpec,
  MACHINECONFIGURATION_API_VERSION,
  machineConfigPool,
  MachineConfigPoolArgs as MachineConfigPoolSpec,
} from "../../builders/machineconfiguration";
import type { PoolImpact } from "../../builders/rollout-impact";
import { contentHash, NodeConfigRemoval, PoolRollout } from "../../provider/dynamic";
import type { NodeConfigKind } from "../../provider/waiting/waiters";
import { kubeOptions, manifestArgs } from "../cluster/kube";
import { adoption } from "../cluster/adoption";
import { KINDS, ResourceKind } from "../../provider/waiting/kinds";
import { policiesDeclared, rolloutRecord } from "../cluster/pool-summary";
import { declarePoolName, declareRolloutOrder, orderedSteps } from "../cluster/rollout-order";
import { WaitArgs, waiting } from "../cluster/wait";
import { InputError } from "../../builders/errors";
import { checked, InputChecks } from "../errors";
import { child } from "../declared";

/** Every field of a builder's args as a Pulumi input, the object name optional (default: resource name). */
type Inputs<T> = { [K in keyof T]: pulumi.Input<T[K]> };
type ComponentArgs<T extends { name: string }> = Omit<Inputs<T>, "name"> &
  WaitArgs & {
    /** Object name in the cluster; default the Pulumi resource name. */
    name?: pulumi.Input<string>;
    /**
     * Kubernetes provider for the cluster, of the objects and the waiters; default the `provider` or
     * `providers` option's (the component's or a parent's), else the stack's default provider.
     */
    provider?: k8s.Provider;
    /**
     * Adopt the object of that name made by hand (Pulumi's `import`): the first `up` reads it and
     * applies only what the program declares differently; when the cluster has none, it is created and
     * the preview says so. `name` must then be a plain string.
     */
    adopt?: boolean;
  };

/** What a pool must roll out for an object: the pool it targets, and the waiter input that names it. */
interface RolloutTarget<T> {
  pool: (manifest: { metadata: { name: string } }, spec: T) => string;
  /** The PoolRollout input listing the object; none for a pool, whose rollout is its own. */
  listedIn?: "machineConfigs" | "kubeletConfigs" | "containerRuntimeConfigs";
}

export type MachineConfigPoolArgs = ComponentArgs<MachineConfigPoolSpec> & {
  /**
   * Pools this one rolls out after: on each `up`, the node configuration declared for this pool is
   * applied with the pool paused, and the pool is unpaused once those pools have rolled out theirs
   * (their waiters are done). Should one fail, this pool stays paused, as its pause says. A pool paused
   * by hand is left paused. Not with `paused`. Pool names, e.g. `["worker"]`; the preview's line of
   * the pool names them.
   */
  rollOutAfter?: string[];
};
export type MachineConfigArgs = ComponentArgs<MachineConfigSpec>;
export type KubeletConfigArgs = ComponentArgs<KubeletConfigSpec>;
export type ContainerRuntimeConfigArgs = ComponentArgs<ContainerRuntimeConfigSpec>;

/**
 * The machine-configuration components each own one cluster-scoped object built by a pure builder:
 * inputs resolved, checked (bad input is an InputPropertyError naming the property), rendered, applied.
 */
abstract class MachineConfigurationObject<T extends { name: string }> extends pulumi.ComponentResource {
  /** The object's name in the cluster. */
  declare public readonly objectName: pulumi.Output<string>;
  /** The Kubernetes object; with `adopt`, declared once the cluster has said whether it holds it. */
  declare public readonly resource: pulumi.Output<k8s.apiextensions.CustomResource>;
  /**
   * The wait for the pool's rollout of this object (absent with `wait: false`); declared once the
   * object's inputs are checked.
   */
  declare public readonly rollout: pulumi.Output<PoolRollout> | undefined;
  /** The rendered config the pool's nodes run once this object has rolled out. */
  declare public readonly renderedConfig: pulumi.Output<string | undefined>;
  /** At preview, what applying this object does to the pool's nodes (also logged on the component). */
  declare public readonly rolloutImpact: pulumi.Output<PoolImpact | undefined>;

  protected constructor(
    type: string,
    kind: string,
    build: (spec: T) => { metadata: { name: string } },
    target: RolloutTarget<T>,
    name: string,
    args: ComponentArgs<T>,
    opts: pulumi.ComponentResourceOptions,
    /** A check of plain settings the subclass takes beside the builder's args (a pool's rollout order). */
    settings?: () => void,
  ) {
    super(`openshift-topology:index:${type}`, name, {}, opts);
    const { provider, wait, kubeconfig, waitTimeouts, adopt, ...inputs } = args;
    const withName = (values: Record<string, unknown>) =>
      build({ ...values, name: values.name ?? name } as unknown as T);
    // Each input is checked once it is known, so that a preview reports bad input even while other
    // inputs are unknown, and with the waiting settings; the manifest waits for those checks.
    const checks = new InputChecks(`${type} "${name}"`);
    checks.asKnown(withName, inputs);
    if (settings) checks.now(settings, undefined);
    const adoptedName = adopt ? checks.now(() => plainName(inputs.name, name), undefined) : undefined;
    const waits = checks.now(() => waiting({ provider, wait, kubeconfig, waitTimeouts }, this), undefined);
    if (waits) checks.add(waits.check);
    const manifest = pulumi
      .all([checks.valid(), inputs as pulumi.Input<Record<string, unknown>>])
      .apply(([, values]) => checked(() => withName(values)));
    const spec = pulumi.output(inputs as pulumi.Input<Record<string, unknown>>) as pulumi.Output<unknown>;
    const pool = pulumi.all([manifest, spec]).apply(([m, s]) => target.pool(m, s as T));
    this.objectName = manifest.apply((m) => m.metadata.name);

    // One waiter per object, on its own pool: pools roll out in parallel, so nothing here serializes them.
    // Not the pool's waiter, even for an InfraNodePool of the same program: the object names its pool by
    // role, a string, so nothing in the graph links the two, and the pool's waiter is registered in the
    // pool's constructor, before any object naming it exists; to await this object it would have to
    // take it as an input and a dependency, which no later declaration can add.
    // Node disruption policies declared before it are applied before it, so that its nodes follow them
    // as the preview says, and released after its removal has rolled out.
    const policies = policiesDeclared();
    // A pool that rolls out after others is paused before the object is applied, and its waiter waits
    // for the resume that follows their waiters (cluster/rollout-order.ts).
    const steps = waits && orderedSteps(name, pool, manifest.apply(contentHash), waits, policies);
    // Its removal guard stays apart from it: declared before the object (not for a pool, which has no
    // pool to leave), Pulumi deletes it after the object, so it can wait for the pool to roll out a
    // render without it, while the waiter, which depends on the object, is deleted before it.
    const removal =
      waits &&
      target.listedIn &&
      child(
        NodeConfigRemoval,
        `${name}-removal`,
        { kubeconfig: waits.kubeconfig, pool, kind: kind as NodeConfigKind, name: this.objectName },
        waits.options(policies),
      );
    const declare = (adopted: pulumi.CustomResourceOptions = {}) =>
      child(
        k8s.apiextensions.CustomResource,
        name,
        manifestArgs(MACHINECONFIGURATION_API_VERSION, kind, manifest, ["metadata", "spec"]),
        {
          ...kubeOptions(this, provider, adopted),
          dependsOn: pulumi
            .all([removal ? removal.apply((r) => [r]) : [], steps ? steps.pause : [], pulumi.all(policies)])
            .apply(([r, p, o]) => [...r, ...p, ...o]),
        },
      );
    // Adopting imports the object when the cluster holds it and creates it otherwise, as a pool does.
    const adopting =
      adoptedName === undefined
        ? undefined
        : adoption({ provider, wait, kubeconfig, waitTimeouts, adopt }, waits, this);
    this.resource = adopting
      ? adopting.kubeconfig
          .apply((config) => adopting.options(config, [{ kind: kindOf(kind), name: adoptedName! }]))
          .apply(([adopted]) => declare(adopted))
      : declare();
    const record = rolloutRecord(this, name, {
      kubeconfig: waits?.kubeconfig,
      deadlineSeconds: waits?.deadlineSeconds,
      pool,
      kind,
      manifest,
    });
    const rolloutOf = (on: pulumi.Input<string>, after: pulumi.Input<pulumi.Input<pulumi.Resource>[]>) =>
      child(
        PoolRollout,
        on === pool ? `${name}-rollout` : `${name}-${on}-rollout`,
        {
          ...waits!.watching(this.resource.apply((r) => [r])),
          contentHash: manifest.apply(contentHash),
          pool: on,
          ...(target.listedIn ? { [target.listedIn]: this.objectName.apply((n) => [n]) } : {}),
          ...(on === pool ? record.inputs : {}),
        },
        waits!.options(after),
      );
    this.rollout =
      waits &&
      rolloutOf(
        pool,
        pulumi
          .all([this.resource, steps ? steps.resume(this.resource, (p, after) => rolloutOf(p, after)) : []])
          .apply(([r, resumed]) => [r, ...resumed]),
      );
    if (this.rollout) steps?.waiter(this.rollout);
    this.renderedConfig = this.rollout
      ? this.rollout.apply((r) => r.renderedConfig)
      : pulumi.output(undefined);
    this.rolloutImpact = record.impact(this.rollout);
    this.registerOutputs({
      objectName: this.objectName,
      renderedConfig: this.renderedConfig,
      rolloutImpact: this.rolloutImpact,
    });
  }
}

/** A custom MachineConfigPool that inherits worker configs, as OpenShift documents custom pools, for nodes of one role. */
export class MachineConfigPool extends MachineConfigurationObject<MachineConfigPoolSpec> {
  constructor(name: string, args: MachineConfigPoolArgs = {}, opts: pulumi.ComponentResourceOptions = {}) {
    const { rollOutAfter, ...spec } = args;
    super(
      "MachineConfigPool",
      "MachineConfigPool",
      machineConfigPool,
      { pool: (m) => m.metadata.name },
      name,
      spec,
      opts,
      () => {
        // A pool named when the program runs is checked against the run's canaries.
        if (spec.name === undefined || typeof spec.name === "string")
          declarePoolName(spec.name ?? name, `MachineConfigPool "${name}"`, "name");
        if (rollOutAfter !== undefined)
          declareRolloutOrder(
            plainName(spec.name, name, "with rollOutAfter: the order is known before anything resolves"),
            rollOutAfter,
            spec.paused,
          );
      },
    );
  }
}

/**
 * A MachineConfig for the pool of `role`: Ignition files, systemd units, kernel settings. The machine
 * config server is reachable from the node network, so never put secrets in one.
 */
export class MachineConfig extends MachineConfigurationObject<MachineConfigSpec> {
  constructor(name: string, args: MachineConfigArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(
      "MachineConfig",
      "MachineConfig",
      machineConfig,
      { pool: (_m, spec) => spec.role, listedIn: "machineConfigs" },
      name,
      args,
      opts,
    );
  }
}

/** Kubelet settings for one pool, which the MCO turns into a generated MachineConfig. */
export class KubeletConfig extends MachineConfigurationObject<KubeletConfigSpec> {
  constructor(name: string, args: KubeletConfigArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(
      "KubeletConfig",
      "KubeletConfig",
      kubeletConfig,
      { pool: (_m, spec) => spec.pool, listedIn: "kubeletConfigs" },
      name,
      args,
      opts,
    );
  }
}

/** CRI-O settings for one pool, which the MCO turns into a generated MachineConfig. */
export class ContainerRuntimeConfig extends MachineConfigurationObject<ContainerRuntimeConfigSpec> {
  constructor(name: string, args: ContainerRuntimeConfigArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super(
      "ContainerRuntimeConfig",
      "ContainerRuntimeConfig",
      containerRuntimeConfig,
      { pool: (_m, spec) => spec.pool, listedIn: "containerRuntimeConfigs" },
      name,
      args,
      opts,
    );
  }
}

/** The object's name as adopting (or a rollout order) needs it, known when the program runs. */
function plainName(
  given: unknown,
  resourceName: string,
  why = "to adopt the object: the import names it before anything resolves",
): string {
  if (given === undefined) return resourceName;
  if (typeof given === "string") return given;
  throw new InputError("name", `must be a plain string ${why}`);
}

/** The API resource of a machine-configuration kind, for an adoption's read. */
function kindOf(kind: string): ResourceKind {
  const known = [KINDS.pool, KINDS.machineConfig, KINDS.kubeletConfig, KINDS.containerRuntimeConfig];
  return known.find((k) => k.kind === kind)!;
}
