import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { NodePlacement, placementFor } from "../../builders/infra-placement";
import { machineConfigPool } from "../../builders/machineconfiguration";
import { AzureImage } from "../../builders/machineset";
import type { NodeMetadataImpact } from "../../builders/machineset/node-metadata";
import { Taint } from "../../builders/validation";
import { nodeRoleLabel } from "../../primitives/openshift";
import { ClusterFacts, resolveClusterFacts, workerImage, workerMachineSet } from "../cluster/facts";
import { contentHash, PoolRollout } from "../../provider/dynamic";
import { kubeOptions, manifestArgs } from "../cluster/kube";
import { adoption } from "../cluster/adoption";
import { KINDS } from "../../provider/waiting/kinds";
import { rolloutRecord } from "../cluster/pool-summary";
import { declarePoolName, declareRolloutOrder } from "../cluster/rollout-order";
import type { PoolImpact } from "../../builders/rollout-impact";
import { waiting } from "../cluster/wait";
import { within } from "../../builders/errors";
import { checked, InputChecks } from "../errors";
import { child } from "../declared";
import {
  checkPoolArgs,
  declareMachineSets,
  MachinePoolArgs,
  firstZone,
  placeZones,
  poolZones,
} from "../machine-pool/machine-sets";
import { bootImageOwnerOf } from "../machine-pool/boot-image";
import { declareNodeLabels } from "../machine-pool/node-labels";
import { declarePoolScaling } from "../machine-pool/scaling";

/** What every pool of Linux nodes with its own role and MachineConfigPool takes, beside its role and taints. */
export interface NodePoolSettings extends MachinePoolArgs {
  /** AMI id (AWS) or image (Azure); default: copied from the worker MachineSet of the first zone. */
  image?: pulumi.Input<string | Partial<AzureImage>>;
  /**
   * Who keeps the MachineSets' boot image current. `"mco"` (default without `image`): the MCO's managed
   * boot images update it on each release, and the stack writes it at creation only (`ignoreChanges`,
   * as for autoscaled replicas). `"stack"` (default with `image`): the stack declares it on every `up`
   * and labels the MachineSets `openshift-topology.io/boot-image-owner: stack`, which a `Partial`
   * selection of the MCO's managed boot images can leave out. The preview says which, and whether the
   * cluster's MCO agrees.
   */
  bootImageOwner?: "mco" | "stack";
  /** The worker MachineSet to copy the image from, when not the installer's one in the first zone. */
  imageFromMachineSet?: pulumi.Input<string>;
  /** The pool's MachineConfigPool: nodes updated at once (number or percentage); default 1. */
  maxUnavailable?: pulumi.Input<number | string>;
  /**
   * Pause the pool's MachineConfigPool: the MCO renders new configs but updates no node until it is
   * unpaused; default false.
   */
  paused?: pulumi.Input<boolean>;
  /**
   * Pools this one rolls out after, as `MachineConfigPool`'s `rollOutAfter`: on each `up`, the node
   * configuration declared for the pool (its MachineConfigs, KubeletConfigs, ContainerRuntimeConfigs,
   * and the worker configs it inherits) is applied with the pool paused, and the pool is unpaused once
   * those pools have rolled out theirs. Not with `paused`. Pool names, e.g. `["worker"]`.
   */
  rollOutAfter?: string[];
  /**
   * Adopt the pool and MachineSets of the same names made by hand (OpenShift's infra node docs): Pulumi's
   * `import` on the MachineConfigPool `<role>`, each MachineSet and, when declared, each MachineSet's
   * MachineAutoscaler (its name) and the MachineHealthCheck `<infraID>-<role>` the cluster holds, so the
   * first `up` reads them and applies only what the program declares differently (listed field by field
   * in the preview); no Machine is replaced. One the cluster lacks (a zone's MachineSet, the health check)
   * is created, and the preview says so.
   */
  adopt?: boolean;
}

export interface NodePoolArgs extends NodePoolSettings {
  /**
   * Node role and pool name (`highmem`): nodes carry `node-role.kubernetes.io/<role>` beside the worker
   * role, and a MachineConfigPool `<role>` inheriting the worker configs updates them. Names child
   * resources, so it is a plain string.
   */
  role: string;
  /**
   * Taints of the pool's nodes; default none. Like `nodeLabels`, a change reaches the running nodes
   * without replacing, draining or rebooting them (the pool's waiter writes them on its Machines, whose
   * nodelink controller copies them to their Nodes), and one removed from the program is removed from
   * the nodes, never one someone else set. With `wait: false` only machines created afterwards get them.
   */
  taints?: pulumi.Input<Taint[]>;
}

/** What a pool built on NodePool adds: its type, its defaults, its own checks, and what it places on the pool. */
export interface NodePoolPreset {
  /** The component's type token. */
  type: string;
  /** The component's name in messages (`InfraNodePool`). */
  kind: string;
  /** The taints of a pool that declares none. */
  defaultTaints(role: string): Taint[];
  /** Checks of the preset's own args, with the pool's. */
  check?(args: NodePoolArgs, checks: InputChecks): void;
  /**
   * Declares what the preset moves onto the pool once its nodes are there (`after`), returning what the
   * nodes' new taints must wait for: what tolerates them.
   */
  placeWorkloads?(
    component: NodePool,
    name: string,
    args: NodePoolArgs,
    placement: pulumi.Output<NodePlacement>,
    after: pulumi.Input<pulumi.Input<pulumi.Resource>[]>,
    kopts: pulumi.CustomResourceOptions,
  ): pulumi.Output<pulumi.Resource>[];
}

/** A pool of workers of its own role: no taints and no workloads moved by default. */
const NODE_POOL: NodePoolPreset = {
  type: "openshift-topology:index:NodePool",
  kind: "NodePool",
  defaultTaints: () => [],
};

/**
 * A pool of nodes with its own role (`highmem`, `gpu`, `infra`), as OpenShift documents custom machine
 * config pools: one MachineSet per zone whose nodes carry the role's label beside the worker's, and a
 * custom MachineConfigPool that inherits the worker configs, so that MachineConfigs, KubeletConfigs and
 * ContainerRuntimeConfigs can target the role. Its labels and taints reach the running nodes when they
 * change. `InfraNodePool` is this pool with the infra taints and the infra workloads moved onto it.
 */
export class NodePool extends pulumi.ComponentResource {
  /** Type, defaults and additions of the pool: a class built on NodePool gives its own. */
  protected static readonly preset: NodePoolPreset = NODE_POOL;

  /** The pool (and node role) name. */
  declare public readonly role: string;
  /** The cluster facts the MachineSets are built from: given, or read from the cluster. */
  declare public readonly facts: pulumi.Output<ClusterFacts>;
  /** Names of the pool's MachineSets, one per zone (`<infrastructureId>-<role>-<zone>`). */
  declare public readonly machineSetNames: pulumi.Output<string[]>;
  /** The pool's MachineSets, one per zone. */
  declare public readonly machineSets: pulumi.Output<k8s.apiextensions.CustomResource[]>;
  /**
   * At preview, a line per MachineSet whose machines run another spec than it declares (`3 machines
   * keep m6i.xlarge; only new machines get m6i.2xlarge`), also logged on the component.
   */
  declare public readonly machineSpecChanges: pulumi.Output<string[] | undefined>;
  /** One MachineAutoscaler per MachineSet with `autoscaling`, else none. */
  declare public readonly machineAutoscalers: pulumi.Output<k8s.apiextensions.CustomResource[]>;
  /** The pool's MachineHealthCheck with `healthCheck`. */
  declare public readonly machineHealthCheck: pulumi.Output<k8s.apiextensions.CustomResource> | undefined;
  /**
   * The pool's MachineConfigPool, which gives its nodes the worker configs and the pool's own; with
   * `adopt`, declared once the cluster has said whether it holds it.
   */
  declare public readonly machineConfigPool: pulumi.Output<k8s.apiextensions.CustomResource>;
  /** Machines of the pool that are Ready nodes, once waited for. */
  declare public readonly readyMachineCount: pulumi.Output<number | undefined>;
  /** The rendered config the pool's nodes run, once waited for. */
  declare public readonly renderedConfig: pulumi.Output<string | undefined>;
  /**
   * nodeSelector and tolerations that place a workload on this pool (your own workloads, an operator's
   * `config`). Known at preview; whatever takes it depends on the pool's rollout (its MachineSets
   * without waiting), so it is created once the nodes that will run it are there.
   */
  declare public readonly placement: pulumi.Output<NodePlacement>;
  /** At preview, what the pool's declared settings do to its nodes (also logged on the component). */
  declare public readonly rolloutImpact: pulumi.Output<PoolImpact | undefined>;
  /**
   * At preview, the labels and taints the pool's running nodes get and lose (`3 nodes get taint
   * example.com/dedicated=logging:NoSchedule (no drain, no reboot)`, in the pool's one line); undefined
   * when none changes.
   */
  declare public readonly labelsAndTaintsImpact: pulumi.Output<NodeMetadataImpact | undefined>;

  constructor(name: string, args: NodePoolArgs, opts: pulumi.ComponentResourceOptions = {}) {
    const preset = (new.target as typeof NodePool).preset;
    super(preset.type, name, {}, opts);
    const of = `${preset.kind} "${name}"`;
    const checks = new InputChecks(of);
    // The role names the pool: checked as a pool name, reported at role.
    const toRole = (path: string) => (path === "name" ? "role" : path);
    const givenRole = args.role;
    const role = checks.now(
      () => within(toRole, () => machineConfigPool({ name: givenRole }).metadata.name),
      givenRole,
    );
    preset.check?.(args, checks);
    checks.now(() => declarePoolName(role, of, "role"), undefined);
    if (args.rollOutAfter !== undefined)
      checks.now(() => declareRolloutOrder(role, args.rollOutAfter, args.paused), undefined);
    const kopts = kubeOptions(this, args.provider);
    const bootImageOwner = checks.now(
      () => bootImageOwnerOf(args.bootImageOwner, args.image !== undefined),
      "mco" as const,
    );

    const taints = pulumi
      .output(args.taints)
      .apply((t): Taint[] => (t === undefined ? preset.defaultTaints(role) : (t as Taint[])));
    const poolArgs = { maxUnavailable: args.maxUnavailable, paused: args.paused };
    checks.asKnown(
      (a: { maxUnavailable?: number | string; paused?: boolean }) =>
        within(toRole, () => machineConfigPool({ name: role, ...a })),
      poolArgs,
    );
    const waits = checks.now(() => waiting(args, this), undefined);
    checks.add(checkPoolArgs(args, taints, args.image, waits));
    const valid = checks.valid();

    // Users read the placement; every workload moved onto the pool depends on it.
    const placement = pulumi
      .all([valid, taints])
      .apply(([, t]) => checked(() => placementFor(role, t as Taint[])));
    const poolManifest = pulumi
      .all([valid, args.maxUnavailable, args.paused])
      .apply(([, maxUnavailable, paused]) =>
        checked(() => within(toRole, () => machineConfigPool({ name: role, maxUnavailable, paused }))),
      );
    const declarePool = (adopted: pulumi.CustomResourceOptions = {}) =>
      child(
        k8s.apiextensions.CustomResource,
        `${name}-pool`,
        manifestArgs("machineconfiguration.openshift.io/v1", "MachineConfigPool", poolManifest, [
          "metadata",
          "spec",
        ]),
        { ...kopts, ...adopted },
      );
    const adopting = adoption(args, waits, this);
    const pool = adopting
      ? adopting.kubeconfig
          .apply((config) => adopting.options(config, [{ kind: KINDS.pool, name: role }]))
          .apply(([adopted]) => declarePool(adopted))
      : declarePool();

    const facts = resolveClusterFacts(name, args, kopts, valid);
    const zones = poolZones(args.zones, valid);
    const placed = placeZones(zones, facts, args.cloudLookups === true, { parent: this }, of);
    // ROLES <role>,worker as OpenShift documents infra nodes; the custom pool still claims these nodes from worker.
    const nodeRoleLabels = { [nodeRoleLabel(role)]: "", [nodeRoleLabel("worker")]: "" };
    // A given image skips the read: the network references then follow the installer's naming.
    const worker =
      args.image === undefined
        ? workerMachineSet(name, facts, firstZone(placed, of), args.imageFromMachineSet, kopts)
        : undefined;
    const machineSets = declareMachineSets(name, args, facts, zones, placed, {
      of,
      role,
      pool: { name: role, renders: true },
      nodeLabels: nodeRoleLabels,
      taints,
      image: worker ? workerImage(facts, worker) : pulumi.output(args.image!),
      worker,
      // Nodes should join the custom pool from their first boot, so the pool exists before any machine.
      dependsOn: [pool],
      kubeOptions: kopts,
      waiting: waits,
      bootImageOwner,
      adoption: adopting,
    });

    const scaling = declarePoolScaling(name, args, facts, machineSets, {
      of,
      machineRole: role,
      role: role,
      kubeOptions: kopts,
      waiting: waits,
      adoption: adopting,
    });

    // The pool has converged once its machines are Ready nodes and run its rendered config: one waiter.
    // Its removal guard (declareMachineSets) stays apart, declared before the MachineSets so that Pulumi
    // deletes it after them, while this waiter, which depends on them, is deleted before them.
    const record = rolloutRecord(this, name, {
      kubeconfig: waits?.kubeconfig,
      deadlineSeconds: waits?.deadlineSeconds,
      pool: role,
      kind: "MachineConfigPool",
      manifest: poolManifest,
    });
    // The MachineSets first: a kubeconfig for another cluster is then reported on what the pool adds.
    const awaited = pulumi.all([machineSets.resources, pool]).apply(([sets, p]) => [...sets, p]);
    const rollout =
      waits &&
      child(
        PoolRollout,
        `${name}-pool-rollout`,
        {
          ...waits.watching(awaited),
          pool: role,
          machineSets: machineSets.names,
          nodeLabels: nodeRoleLabels,
          machineReplacement: machineSets.replacement,
          contentHash: pulumi
            .all([machineSets.contentHash, poolManifest])
            .apply(([sets, manifest]) => contentHash({ machineSets: sets, pool: manifest })),
          ...record.inputs,
        },
        waits.options(awaited),
      );

    // Workloads move once the nodes that will host them are there (or, without waiting, declared);
    // the running nodes get a new taint only once what must tolerate it does.
    const nodesThere = rollout ? rollout.apply((r) => [r]) : machineSets.resources;
    const moved = preset.placeWorkloads?.(this, name, args, placement, nodesThere, kopts) ?? [];
    const tolerated = rollout
      ? [rollout, ...moved]
      : machineSets.resources.apply((sets) => [...sets, ...moved]);
    const labels = declareNodeLabels(
      name,
      { name: role, renders: true },
      machineSets,
      waits,
      tolerated,
      this,
    );

    this.role = role;
    this.facts = facts;
    this.machineSetNames = machineSets.names;
    this.machineSpecChanges = machineSets.specChanges;
    this.machineSets = machineSets.resources;
    this.machineAutoscalers = scaling.autoscalers;
    this.machineHealthCheck = scaling.healthCheck;
    this.machineConfigPool = pool;
    this.readyMachineCount = rollout ? rollout.apply((r) => r.readyMachineCount) : pulumi.output(undefined);
    this.renderedConfig = rollout ? rollout.apply((r) => r.renderedConfig) : pulumi.output(undefined);
    // Known at preview (a URN is), and carrying the rollout as a dependency to whatever takes it.
    const hosts: pulumi.Output<unknown> = rollout
      ? rollout.apply((r) => r.urn)
      : machineSets.resources.apply((sets) => pulumi.all(sets.map((set) => set.urn)));
    this.placement = pulumi.all([placement, hosts]).apply(([p]) => p as NodePlacement);
    this.rolloutImpact = record.impact(rollout);
    this.labelsAndTaintsImpact = labels.impact;
    this.registerOutputs({
      rolloutImpact: this.rolloutImpact,
      labelsAndTaintsImpact: this.labelsAndTaintsImpact,
      role,
      facts,
      machineSetNames: this.machineSetNames,
      machineSpecChanges: this.machineSpecChanges,
      placement,
      readyMachineCount: this.readyMachineCount,
      renderedConfig: this.renderedConfig,
    });
  }
}
