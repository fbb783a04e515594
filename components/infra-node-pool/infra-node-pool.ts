import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  imageRegistryPlacementPatch,
  ingressControllerPlacementPatch,
  monitoringConfigMapPatch,
  NodePlacement,
  PatchManifest,
  patchedPaths,
  patchTarget,
  placementFor,
  requireIngressReplicas,
  requireMonitoringConfig,
} from "../../builders/infra-placement";
import { machineConfigPool } from "../../builders/machineconfiguration";
import { AzureImage } from "../../builders/machineset";
import { Taint } from "../../builders/validation";
import { ClusterFacts, resolveClusterFacts, workerImage, workerMachineSet } from "../cluster/facts";
import { contentHash, PoolRollout } from "../../provider/dynamic";
import { PatchRelease } from "../../provider/dynamic/patch-release";
import { kubeOptions, manifestArgs, PATCH_FORCE, withAnnotations } from "../cluster/kube";
import { adoption } from "../cluster/adoption";
import { KINDS } from "../../provider/waiting/kinds";
import { rolloutRecord } from "../cluster/pool-summary";
import type { PoolImpact } from "../../builders/rollout-impact";
import { clusterAccess, waiting } from "../cluster/wait";
import { InputError, InputErrors, within } from "../../builders/errors";
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
import { declarePoolScaling } from "../machine-pool/scaling";

export interface InfraNodePoolArgs extends MachinePoolArgs {
  /** Node role and pool name; default `infra`. Names child resources, so it is a plain string. */
  role?: string;
  /**
   * Taints that keep user workloads off; default `node-role.kubernetes.io/<role>=reserved` with
   * NoSchedule and NoExecute, as OpenShift documents for infra nodes. `[]` for none.
   */
  taints?: pulumi.Input<Taint[]>;
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
   * Adopt the pool and MachineSets of the same names made by hand (OpenShift's infra node docs): Pulumi's
   * `import` on the MachineConfigPool `<role>`, each MachineSet and, when declared, each MachineSet's
   * MachineAutoscaler (its name) and the MachineHealthCheck `<infraID>-<role>` the cluster holds, so the
   * first `up` reads them and applies only what the program declares differently (listed field by field
   * in the preview); no Machine is replaced. One the cluster lacks (a zone's MachineSet, the health check)
   * is created, and the preview says so. The router, registry and monitoring patches adopt by nature.
   */
  adopt?: boolean;
  /** Move the default router here (IngressController `default` nodePlacement), optionally with replicas. */
  router?: boolean | { replicas?: pulumi.Input<number> };
  /** Move the integrated image registry here. */
  registry?: boolean;
  /**
   * Move monitoring here by owning `config.yaml` of `openshift-monitoring/cluster-monitoring-config`
   * (server-side apply creates the ConfigMap when absent); `config` merges per component.
   */
  monitoring?: boolean | { config?: pulumi.Input<Record<string, unknown>> };
}

/**
 * An infra node pool as OpenShift documents it (machine config pools and infrastructure machine sets): one MachineSet per zone whose nodes
 * carry the infra role and taints, a custom MachineConfigPool that inherits worker configs, and
 * optionally the router, registry and monitoring moved onto those nodes with patches that leave every
 * field the library does not own to its operator.
 */
export class InfraNodePool extends pulumi.ComponentResource {
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
   * nodeSelector and tolerations that place a workload on this pool (your own infra workloads, an
   * operator's `config`). Known at preview; whatever takes it depends on the pool's rollout (its
   * MachineSets without waiting), so it is created once the nodes that will run it are there.
   */
  declare public readonly placement: pulumi.Output<NodePlacement>;
  /** At preview, what the pool's declared settings do to its nodes (also logged on the component). */
  declare public readonly rolloutImpact: pulumi.Output<PoolImpact | undefined>;

  constructor(name: string, args: InfraNodePoolArgs = {}, opts: pulumi.ComponentResourceOptions = {}) {
    super("openshift-topology:index:InfraNodePool", name, {}, opts);
    const of = `InfraNodePool "${name}"`;
    const checks = new InputChecks(of);
    // The role names the pool: checked as a pool name, reported at role.
    const toRole = (path: string) => (path === "name" ? "role" : path);
    const givenRole = args.role ?? "infra";
    const role = checks.now(
      () => within(toRole, () => machineConfigPool({ name: givenRole }).metadata.name),
      givenRole,
    );
    checks.now(() => checkPlacementSwitches(args), undefined);
    const kopts = kubeOptions(this, args.provider);
    const bootImageOwner = checks.now(
      () => bootImageOwnerOf(args.bootImageOwner, args.image !== undefined),
      "mco" as const,
    );

    const taints = pulumi
      .output(args.taints)
      .apply((t): Taint[] => (t === undefined ? defaultTaints(role) : (t as Taint[])));
    checkPlacement(args, checks);
    const poolArgs = { maxUnavailable: args.maxUnavailable, paused: args.paused };
    checks.asKnown(
      (a: { maxUnavailable?: number | string; paused?: boolean }) =>
        within(toRole, () => machineConfigPool({ name: role, ...a })),
      poolArgs,
    );
    const waits = checks.now(() => waiting(args, this), undefined);
    checks.add(checkPoolArgs(args, taints, args.image, waits));
    const valid = checks.valid();

    // Users read the placement; every patch depends on it.
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
    // ROLES infra,worker as OpenShift documents infra nodes; the custom pool still claims these nodes from worker.
    const nodeRoleLabels = { [`node-role.kubernetes.io/${role}`]: "", "node-role.kubernetes.io/worker": "" };
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

    // Workloads move once the nodes that will host them are there (or, without waiting, declared).
    this.placeWorkloads(
      name,
      args,
      placement,
      rollout ? rollout.apply((r) => [r]) : machineSets.resources,
      kopts,
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
    this.registerOutputs({
      rolloutImpact: this.rolloutImpact,
      role,
      facts,
      machineSetNames: this.machineSetNames,
      machineSpecChanges: this.machineSpecChanges,
      placement,
      readyMachineCount: this.readyMachineCount,
      renderedConfig: this.renderedConfig,
    });
  }

  private placeWorkloads(
    name: string,
    args: InfraNodePoolArgs,
    placement: pulumi.Output<NodePlacement>,
    after: pulumi.Input<pulumi.Input<pulumi.Resource>[]>,
    kopts: pulumi.CustomResourceOptions,
  ): void {
    const cluster = clusterAccess(args, this);
    // Each patch gives back, once destroyed, what it took from the object the cluster owns. One release
    // per patch, not one per pool: router, registry and monitoring are switched one by one, and a patch
    // switched off is deleted alone, after its release's last update, so only a release deleted with
    // it (declared before it, so deleted after it) can give back what it took.
    const released = (
      patch: string,
      manifest: pulumi.Output<PatchManifest>,
    ): pulumi.CustomResourceOptions => {
      const release =
        cluster &&
        child(
          PatchRelease,
          `${patch}-release`,
          {
            kubeconfig: cluster.kubeconfig,
            target: manifest.apply(patchTarget),
            paths: manifest.apply(patchedPaths),
          },
          cluster.options(after),
        );
      return {
        ...kopts,
        dependsOn: release ? pulumi.all([after, release]).apply(([a, r]) => [...a, r]) : after,
      };
    };
    if (args.router) {
      const replicas = typeof args.router === "object" ? args.router.replicas : undefined;
      const manifest = pulumi
        .all([placement, replicas])
        .apply(([p, r]) => checked(() => within("router", () => ingressControllerPlacementPatch(p, r))));
      child(
        k8s.apiextensions.CustomResourcePatch,
        `${name}-router`,
        manifestArgs("operator.openshift.io/v1", "IngressController", manifest, ["metadata", "spec"]),
        released(`${name}-router`, manifest),
      );
    }
    if (args.registry) {
      const manifest = placement.apply((p) => imageRegistryPlacementPatch(p));
      child(
        k8s.apiextensions.CustomResourcePatch,
        `${name}-registry`,
        manifestArgs("imageregistry.operator.openshift.io/v1", "Config", manifest, ["metadata", "spec"]),
        released(`${name}-registry`, manifest),
      );
    }
    if (args.monitoring) {
      const extra = typeof args.monitoring === "object" ? args.monitoring.config : undefined;
      const manifest = pulumi.all([placement, extra]).apply(([p, e]) =>
        withAnnotations(
          checked(() => within("monitoring", () => monitoringConfigMapPatch(p, e))),
          PATCH_FORCE,
        ),
      );
      child(
        k8s.core.v1.ConfigMapPatch,
        `${name}-monitoring`,
        { metadata: manifest.metadata, data: manifest.data },
        released(`${name}-monitoring`, manifest),
      );
    }
  }
}

/**
 * router, registry and monitoring are plain values (they decide which patches exist): a shape the
 * component does not read would otherwise be ignored without a word.
 */
function checkPlacementSwitches(args: InfraNodePoolArgs): void {
  const shapes: Array<[keyof InfraNodePoolArgs, string[], string]> = [
    ["router", ["replicas"], "true, false or { replicas }"],
    ["registry", [], "true or false"],
    ["monitoring", ["config"], "true, false or { config }"],
  ];
  const errors: InputError[] = [];
  for (const [key, fields, allowed] of shapes) {
    const value = args[key] as unknown;
    if (value === undefined || typeof value === "boolean") continue;
    if (fields.length === 0 || typeof value !== "object" || value === null || Array.isArray(value)) {
      errors.push(new InputError(key, `must be ${allowed}, got ${JSON.stringify(value)}`));
      continue;
    }
    for (const extra of Object.keys(value).filter((k) => !fields.includes(k))) {
      errors.push(new InputError(`${key}.${extra}`, `is not a setting of ${key}: use ${allowed}`));
    }
  }
  InputErrors.throwIfAny(errors);
}

/** The router's and monitoring's settings, checked as soon as each is known. */
function checkPlacement(args: InfraNodePoolArgs, checks: InputChecks): void {
  const router = typeof args.router === "object" ? args.router : {};
  const monitoring = typeof args.monitoring === "object" ? args.monitoring : {};
  checks.asKnown(
    (a: { router: { replicas?: unknown } }) =>
      a.router.replicas === undefined ||
      within("router", () => requireIngressReplicas("replicas", a.router.replicas)),
    { router: { replicas: router.replicas } },
  );
  checks.asKnown(
    (a: { monitoring: { config?: unknown } }) =>
      a.monitoring.config === undefined ||
      within("monitoring", () => requireMonitoringConfig("config", a.monitoring.config)),
    { monitoring: { config: monitoring.config } },
  );
}

function defaultTaints(role: string): Taint[] {
  return [
    { key: `node-role.kubernetes.io/${role}`, value: "reserved", effect: "NoSchedule" },
    { key: `node-role.kubernetes.io/${role}`, value: "reserved", effect: "NoExecute" },
  ];
}
