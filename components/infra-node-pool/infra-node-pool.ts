import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  imageRegistryPlacementPatch,
  ingressControllerPlacementPatch,
  monitoringConfigMapPatch,
  NodePlacement,
  requireIngressReplicas,
  requireMonitoringConfig,
} from "../../builders/infra-placement";
import { infraTaints, INFRA_TAINTS } from "../../builders/machineset/node-metadata";
import { Taint } from "../../builders/validation";
import { PatchManifest, patchedPaths, patchTarget } from "../../builders/patch";
import { released as releasedPatch } from "../cluster/released";
import { manifestArgs, PATCH_FORCE, patchFieldManager, withAnnotations } from "../cluster/kube";
import { clusterAccess } from "../cluster/wait";
import { InputError, InputErrors, within } from "../../builders/errors";
import { checked, InputChecks } from "../errors";
import { child } from "../declared";
import { NodePool, NodePoolPreset, NodePoolSettings } from "../node-pool/node-pool";

export { INFRA_TAINTS };

export interface InfraNodePoolArgs extends NodePoolSettings {
  /** Node role and pool name; default `infra`. Names child resources, so it is a plain string. */
  role?: string;
  /**
   * Taints that keep user workloads off. Default: the infra taints OpenShift documents,
   * `node-role.kubernetes.io/<role>=reserved` with NoSchedule and NoExecute (`INFRA_TAINTS` for the
   * `infra` role, exported). Given, the list replaces those defaults rather than adding to them: spread
   * `INFRA_TAINTS` into it to keep them; `[]` for none. A change reaches the running nodes without
   * replacing, draining or rebooting them, after the router, registry and monitoring tolerate it; one
   * removed from the program is removed from the nodes, never one someone else set. With `wait: false`
   * only machines created afterwards get them.
   */
  taints?: pulumi.Input<Taint[]>;
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

/** The infra pool: NodePool with the infra taints, and the router, registry and monitoring moved onto it. */
const INFRA_POOL: NodePoolPreset = {
  type: "openshift-topology:index:InfraNodePool",
  kind: "InfraNodePool",
  defaultTaints: infraTaints,
  check(args, checks) {
    checks.now(() => checkPlacementSwitches(args), undefined);
    checkPlacement(args, checks);
  },
  placeWorkloads,
};

/**
 * An infra node pool as OpenShift documents it (machine config pools and infrastructure machine sets):
 * a NodePool of role `infra` whose nodes carry the infra taints, and optionally the router, registry and
 * monitoring moved onto those nodes with patches that leave every field the library does not own to its
 * operator. The patches adopt by nature; `adopt` adopts the pool and MachineSets made by hand.
 */
export class InfraNodePool extends NodePool {
  protected static override readonly preset: NodePoolPreset = INFRA_POOL;

  constructor(name: string, args: InfraNodePoolArgs = {}, opts: pulumi.ComponentResourceOptions = {}) {
    super(name, { ...args, role: args.role ?? "infra" }, opts);
  }
}

/**
 * The router, registry and monitoring moved onto the pool, each with a patch that leaves every field the
 * library does not own to its operator; returned, so that the nodes' taints wait for their tolerations.
 */
function placeWorkloads(
  component: NodePool,
  name: string,
  args: InfraNodePoolArgs,
  placement: pulumi.Output<NodePlacement>,
  after: pulumi.Input<pulumi.Input<pulumi.Resource>[]>,
  kopts: pulumi.CustomResourceOptions,
): pulumi.Output<pulumi.Resource>[] {
  const cluster = clusterAccess(args, component);
  const moved: pulumi.Output<pulumi.Resource>[] = [];
  // Each patch gives back, once destroyed, what it took from the object the cluster owns; one release
  // per patch, as router, registry and monitoring are switched one by one. Each patch applies as a
  // manager named after it, which its release keeps what it took under: both survive a lost state.
  const owned = (patch: string, manifest: pulumi.Output<PatchManifest>) =>
    manifest.apply((m) => withAnnotations(m, patchFieldManager(patch)));
  const released = (patch: string, manifest: pulumi.Output<PatchManifest>): pulumi.CustomResourceOptions =>
    releasedPatch(
      cluster,
      patch,
      {
        target: manifest.apply(patchTarget),
        paths: manifest.apply(patchedPaths),
        fieldManager: patchFieldManager(patch)["pulumi.com/patchFieldManager"],
      },
      after,
      kopts,
    );
  if (args.router) {
    const replicas = typeof args.router === "object" ? args.router.replicas : undefined;
    const manifest = pulumi
      .all([placement, replicas])
      .apply(([p, r]) => checked(() => within("router", () => ingressControllerPlacementPatch(p, r))));
    moved.push(
      child(
        k8s.apiextensions.CustomResourcePatch,
        `${name}-router`,
        manifestArgs("operator.openshift.io/v1", "IngressController", owned(`${name}-router`, manifest), [
          "metadata",
          "spec",
        ]),
        released(`${name}-router`, manifest),
      ),
    );
  }
  if (args.registry) {
    const manifest = placement.apply((p) => imageRegistryPlacementPatch(p));
    moved.push(
      child(
        k8s.apiextensions.CustomResourcePatch,
        `${name}-registry`,
        manifestArgs(
          "imageregistry.operator.openshift.io/v1",
          "Config",
          owned(`${name}-registry`, manifest),
          ["metadata", "spec"],
        ),
        released(`${name}-registry`, manifest),
      ),
    );
  }
  if (args.monitoring) {
    const extra = typeof args.monitoring === "object" ? args.monitoring.config : undefined;
    const manifest = pulumi.all([placement, extra]).apply(([p, e]) =>
      withAnnotations(
        checked(() => within("monitoring", () => monitoringConfigMapPatch(p, e))),
        {
          ...PATCH_FORCE,
          ...patchFieldManager(`${name}-monitoring`),
        },
      ),
    );
    moved.push(
      child(
        k8s.core.v1.ConfigMapPatch,
        `${name}-monitoring`,
        { metadata: manifest.metadata, data: manifest.data },
        released(`${name}-monitoring`, manifest),
      ),
    );
  }
  return moved;
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
