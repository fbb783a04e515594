import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  AwsMachineOptions,
  AzureImage,
  AzureMachineOptions,
  checkPoolInputs,
  defaultReplicas,
  MachineReplacementArgs,
  requireMachineReplacement,
  MACHINE_SET_API_VERSION,
  MachineSetPoolSpec,
  machineSetsInZones,
  zoneSpecs,
  WorkerMachineSet,
  firstPlacedZone,
  placeInRegion,
  PlacedZones,
  refusalErrors,
  ZoneSpec,
} from "../../builders/machineset";
import { PoolAutoscaling, requirePoolAutoscaling } from "../../builders/autoscaling";
import { collectErrors, InputError, InputErrors } from "../../builders/errors";
import { HealthCheckOptions } from "../../builders/health-check";
import {
  BOOT_IMAGE_PATHS,
  BootImageOwner,
  previewBootImages,
  withBootImageOwner,
  withoutBootImage,
} from "./boot-image";
import { healthCheckManifest } from "./health-check";
import { noteMachineSets } from "./machine-set-notes";
import { Taint } from "../../builders/validation";
import { contentHash, MachineSetRemoval } from "../../provider/dynamic";
import type { MachineReplacement } from "../../provider/waiting";
import { ClusterFacts, ClusterFactsArgs, MachineImage } from "../cluster/facts";
import { manifestArgs, PATCH_FORCE, withAnnotations } from "../cluster/kube";
import { Adoption } from "../cluster/adoption";
import { KINDS } from "../../provider/waiting/kinds";
import { PoolOfPart, previewMachineSpecChanges } from "../cluster/pool-summary";
import { MACHINE_API_NAMESPACE } from "../../primitives/openshift";
import { WaitArgs, Waiting } from "../cluster/wait";
import { within } from "../../builders/errors";
import { checked, checkedAsKnown, inputPropertyError, naming } from "../errors";
import { child } from "../declared";
import { platformModules } from "../platforms";

/** What every machine pool component takes to place MachineSets in zones of a cloud. */
export interface MachinePoolArgs extends ClusterFactsArgs, WaitArgs {
  /**
   * Zones, one MachineSet each: AWS zone names (`us-east-2a`) or Azure zone numbers (`"1"` to `"3"`), or
   * objects that also give the zone's subnet; each must be one the region has. On AWS with
   * `cloudLookups`, omitted zones are the region's first three.
   */
  zones?: pulumi.Input<Array<string | ZoneSpec>>;
  /**
   * Total machines spread over the zones as the installer does; default one per zone (in an Azure
   * region without zones the installer's 3), or with `autoscaling` its minimum. With `autoscaling` it is the count at creation only: afterwards the
   * autoscaler owns it.
   */
  replicas?: pulumi.Input<number>;
  /**
   * A MachineAutoscaler per MachineSet: `minReplicas`/`maxReplicas` are pool totals spread over the
   * zones as replicas are (`per: "zone"` for the same bounds in every zone). Nothing scales until a
   * `ClusterAutoscaler` exists. Decided when the program runs: adding or removing it is a plain value.
   */
  autoscaling?: pulumi.Input<PoolAutoscaling>;
  /**
   * A MachineHealthCheck over exactly this pool's machines: `true` for OpenShift's documented defaults
   * (Ready False/Unknown for 300s, maxUnhealthy 40%, nodeStartupTimeout 10m, named `<infraID>-<role>`),
   * or the fields to change.
   */
  healthCheck?: boolean | pulumi.Input<HealthCheckOptions>;
  /**
   * Replace machines when their spec changes (instance type, disks, image, spot): the machine-api
   * applies a changed MachineSet template only to machines it creates afterwards. `{ strategy:
   * "rolling" }` creates `maxSurge` new machines per MachineSet (default 1), deletes an old one (which
   * drains it) each time a new one is Ready, never leaving more than `maxUnavailable` (default 0) of a
   * MachineSet's replicas unready, and `pulumi up` waits until every machine has the current spec. Both
   * take a percentage of each MachineSet's replicas (`"25%"`), the surge rounded up and the unavailable
   * down, as a Deployment's. With `autoscaling` the autoscaler owns the replicas: no surge,
   * `maxUnavailable` default 1.
   */
  machineReplacement?: pulumi.Input<MachineReplacementArgs>;
  /** Extra node labels. */
  nodeLabels?: pulumi.Input<Record<string, string>>;
  /**
   * AWS machine settings (instance type, volume, spot, subnets, security groups, tags); defaults are the
   * installer's. Only on an AWS cluster.
   */
  aws?: pulumi.Input<Omit<AwsMachineOptions, "ami">>;
  /**
   * Azure machine settings (VM size, OS disk, spot, vnet, subnet, managed identity, tags); defaults are the
   * installer's. Only on an Azure cluster.
   */
  azure?: pulumi.Input<Omit<AzureMachineOptions, "image">>;
  /**
   * Look up (AWS) or check (Azure) zones, subnets, security groups and the managed identity with the
   * cloud's Pulumi provider, and check the zones and the machine size with the cloud rather than the
   * library's tables (the size offered in the region and each zone; on Azure also what the options need
   * of it). Explicit values always win; a lookup that finds nothing is an input error.
   */
  cloudLookups?: boolean;
  /**
   * Kubernetes provider for the cluster, of the objects and the waiters; default the `provider` or
   * `providers` option's (the component's or a parent's), else the stack's default provider.
   */
  provider?: k8s.Provider;
}

export interface MachineSetsOptions {
  /** The component, as its errors name it (`InfraNodePool "infra"`). */
  of: string;
  /** The name segment of the MachineSets (`infra`, `windows-worker`). */
  role: pulumi.Input<string>;
  /** The pool whose one preview line says what changes of its machines (pool-summary.ts). */
  pool: PoolOfPart;
  /** Labels every node gets on top of `MachinePoolArgs.nodeLabels`. */
  nodeLabels: Record<string, string>;
  taints: pulumi.Output<Taint[]>;
  image: pulumi.Output<MachineImage | Partial<AzureImage>>;
  /** The installer's worker MachineSet the pool takes the network references the user does not give from. */
  worker?: pulumi.Output<WorkerMachineSet>;
  /** Final touches to the pool spec (Windows machines). */
  adjust?: (spec: MachineSetPoolSpec) => MachineSetPoolSpec;
  /** What the MachineSets must wait for (the pool they join, the operator that configures them). */
  dependsOn?: pulumi.Input<pulumi.Input<pulumi.Resource>[]>;
  kubeOptions: pulumi.CustomResourceOptions;
  /** With waiting on, the MachineSets are guarded so that what they depend on is deleted only after their machines. */
  waiting?: Waiting;
  /** Adopt the MachineSets of the same names made by hand that the cluster holds (adoption.ts). */
  adoption?: Adoption;
  /** Who keeps the boot image current (see boot-image.ts); undefined where the MCO never does (Windows). */
  bootImageOwner?: BootImageOwner;
}

export interface DeclaredMachineSets {
  /** The pool's zones as its entry normalised them. */
  zones: PoolZones;
  names: pulumi.Output<string[]>;
  /**
   * What names each MachineSet's resource, in the order of `names`: its zone, or the region for one
   * without a zone. Every other object of a zone is named by it too, so that reordering zones renames nothing.
   */
  keys: pulumi.Output<string[]>;
  resources: pulumi.Output<k8s.apiextensions.CustomResource[]>;
  /** Hash of the rendered MachineSets: what their readiness waiter depends on. */
  contentHash: pulumi.Output<string>;
  /** What the readiness waiter replaces machines by (`machineReplacement`), with the replicas it keeps. */
  replacement?: pulumi.Output<MachineReplacement>;
  /** At preview, a line per MachineSet whose machines run another spec than its template (in the pool's line). */
  specChanges: pulumi.Output<string[] | undefined>;
  /** The labels each MachineSet gives its machines (its template's). */
  machineLabels: pulumi.Output<Array<Record<string, string>>>;
  /** The node labels and taints of the pool's MachineSets' templates, which its running nodes get too. */
  nodeMetadata: pulumi.Output<{ labels: Record<string, string>; taints: Taint[] }>;
}

/**
 * The pool's own inputs (zones, replicas, labels, taints, a given image, the kubeconfig), each checked
 * as soon as it is known and whatever else is unknown, before any cluster read.
 */
export function checkPoolArgs(
  args: MachinePoolArgs,
  taints: pulumi.Input<Taint[]>,
  image: pulumi.Input<string | Partial<AzureImage>> | undefined,
  waits: Waiting | undefined,
): pulumi.Output<void> {
  const own = checkedAsKnown(checkPoolInputs, {
    zones: args.zones,
    replicas: args.replicas,
    nodeLabels: args.nodeLabels,
    taints,
    image,
    machineReplacement: args.machineReplacement,
    autoscaled: args.autoscaling !== undefined,
    waits: args.wait !== false,
  });
  return pulumi.all([own, waits?.check]).apply(() => undefined);
}

/** A pool's zones, normalised once at the component's entry. */
export interface PoolZones {
  /** The zone names when the program spells the zones out as plain values: resources are named by them now. */
  listed?: string[];
  /** The zones given, once the pool's own checks pass; undefined when none are given. */
  given: pulumi.Output<ZoneSpec[] | undefined>;
}

/** Normalises the pool's `zones` (after `checks`, the pool's checks of its own inputs). */
export function poolZones(zones: MachinePoolArgs["zones"], checks: pulumi.Output<void>): PoolZones {
  return {
    listed: plainZones(zones)?.map((z) => z.zone),
    given: pulumi
      .all([checks, zones])
      .apply(([, z]) => (z === undefined ? undefined : checked(() => zoneSpecs(z)))),
  };
}

/** The zones when they are plain values now; bad ones are the pool checks' to report. */
function plainZones(zones: MachinePoolArgs["zones"]): ZoneSpec[] | undefined {
  try {
    const specs = zoneSpecs(zones);
    return specs.length > 0 ? specs : undefined;
  } catch (e) {
    if (e instanceof InputError || e instanceof InputErrors) return undefined;
    throw e;
  }
}

/**
 * The pool's zones placed in the cluster's region: the given ones checked against it (before anything
 * is read for them, such as the worker MachineSet of the first), or the platform's when none are given.
 * The problems of zones the region lacks are reported with the pool's other ones (declareMachineSets).
 */
export function placeZones(
  zones: PoolZones,
  facts: pulumi.Output<ClusterFacts>,
  lookups: boolean,
  invoke: { parent: pulumi.Resource },
  of: string,
): pulumi.Output<PlacedZones> {
  return pulumi.all([zones.given, facts]).apply(([given, f]) =>
    naming(of, async () => {
      const platform = platformModules(f.platform);
      if (given === undefined)
        return { zones: await platform.cloud.zonesWhenNotGiven(f.region, lookups, invoke), problems: [] };
      // With lookups the cloud says which zones the region has, not the table; it is asked of zones
      // named well.
      const placed = checked(() => placeInRegion(platform.machineSets, f.region, given, !lookups));
      if (lookups && placed.problems.length === 0)
        placed.problems.push(...(await platform.cloud.zoneProblems(f.region, placed.zones, invoke)));
      return placed;
    }),
  );
}

/** The first of the placed zones the region has: whose worker MachineSet the pool reads. */
export function firstZone(placed: pulumi.Output<PlacedZones>, of: string): pulumi.Output<string> {
  return placed.apply((p) => naming(of, () => checked(() => firstPlacedZone(p).zone)));
}

/**
 * Declares one MachineSet per zone, named `<name>-<zone>`. Their manifests need resolved facts, zones
 * and lookups; when the program lists the zones the resources are declared at once with those
 * manifests as outputs, otherwise (zones looked up, or none in an Azure region) once they are known.
 */
export function declareMachineSets(
  name: string,
  args: MachinePoolArgs,
  facts: pulumi.Output<ClusterFacts>,
  zones: PoolZones,
  placed: pulumi.Output<PlacedZones>,
  options: MachineSetsOptions,
): DeclaredMachineSets {
  const invoke = { parent: options.kubeOptions.parent! };
  const healthCheck =
    args.healthCheck === undefined || args.healthCheck === false
      ? undefined
      : args.healthCheck === true
        ? {}
        : args.healthCheck;
  // The options of the cluster's platform, under its name (`aws`, `azure`).
  const platformOptions = facts.apply((f) =>
    pulumi.output((args as Record<string, pulumi.Input<object> | undefined>)[f.platform]),
  );
  const autoscaled = args.autoscaling !== undefined;
  const resolved = pulumi
    .all([
      facts,
      placed,
      options.role,
      options.image,
      options.taints,
      pulumi.all([args.replicas, args.nodeLabels, platformOptions, args.autoscaling, healthCheck]),
      options.worker,
    ])
    .apply(([f, placement, role, image, taints, [replicas, labels, given, scaling, hc], worker]) =>
      naming(options.of, async () => {
        // The health check's settings fail the MachineSets too, so its mistakes show with the pool's.
        if (hc) healthCheckManifest(hc, hc.name ?? "check", f.infrastructureId, "worker", ["check"]);
        const platform = platformModules(f.platform);
        const machineOptions = checked(() => platform.machineSets.withImage("image", image, given ?? {}));
        // What the cloud lacks of the size is asked in zones it has, and reported with every other
        // problem, which are checked on the zones found valid; the subnets and security groups are
        // looked up only when nothing is wrong.
        const problems = [...placement.problems];
        if (args.cloudLookups && problems.length === 0) {
          const lacking = await platform.cloud.sizeProblems(
            f.region,
            placement.zones,
            machineOptions,
            invoke,
          );
          problems.push(...lacking);
        }
        const z = placement.zones.filter((_, i) => !problems.some((r) => r.path === `zones[${i}]`));
        const cloud =
          args.cloudLookups && problems.length === 0
            ? await platform.cloud.lookUp(f.infrastructureId, z, machineOptions, invoke)
            : { zones: z, options: machineOptions };
        const spec = {
          platform: f.platform,
          infrastructureId: f.infrastructureId,
          region: f.region,
          role,
          zones: cloud.zones,
          replicas: initialReplicas(replicas, z, scaling),
          taints,
          nodeLabels: { ...(labels ?? {}), ...options.nodeLabels },
          worker,
          [f.platform]: cloud.options,
        } as unknown as MachineSetPoolSpec;
        const owner = options.bootImageOwner;
        const [, built] = checked(() =>
          collectErrors([
            () => InputErrors.throwIfAny(refusalErrors(problems)),
            () => machineSetsInZones(options.adjust ? options.adjust(spec) : spec),
          ]),
        );
        const manifests = built.map((m) => (owner ? withBootImageOwner(m, owner) : m));
        // Where each MachineSet's network references come from, so that the preview says it.
        const networkSource = (i: number) =>
          platform.machineSets.networkSource(cloud.options, {
            infrastructureId: f.infrastructureId,
            region: f.region,
            zone: cloud.zones[i].zone,
            subnet: cloud.zones[i].subnet,
            worker,
          });
        // Named by zone, or by the region for a MachineSet without one. Applied forced (manifestArgs):
        // without autoscaling the stack takes the replicas back from a cluster autoscaler that scaled the
        // set while it was autoscaled; with it, `ignoreChanges` applies the autoscaler's own count.
        return manifests.map((manifest, i) => ({
          key: cloud.zones[i].zone || f.region,
          manifest,
          network: `MachineSet ${manifest.metadata.name}: ${networkSource(i)}`,
        }));
      }),
    );
  if (pulumi.runtime.isDryRun()) {
    const owner = options.bootImageOwner;
    const kubeconfig = options.waiting ? pulumi.unsecret(options.waiting.kubeconfig) : undefined;
    pulumi.all([resolved, facts, kubeconfig]).apply(async ([sets, f, config]) => {
      const fields = platformModules(f.platform).machineSets.networkFields;
      const notes = sets.map((s) => ({ machineSet: s.manifest, text: s.network, fields }));
      await noteMachineSets(invoke.parent, config, notes);
      if (owner)
        await previewBootImages(
          invoke.parent,
          config,
          f.platform,
          sets.map((s) => s.manifest),
          owner,
        );
    });
  }
  const guardFor = (names: pulumi.Input<string[]>) =>
    // Pulumi deletes in reverse dependency order: the MachineSets, then this guard (which waits until
    // their machines and nodes are gone), then the pool or operator they depended on.
    options.waiting &&
    child(
      MachineSetRemoval,
      `${name}-machines-removal`,
      {
        // The Kubernetes objects it holds the deletion of (the pool), found by UID before anything waits.
        ...options.waiting.watching(
          pulumi
            .output(options.dependsOn ?? [])
            .apply((list) =>
              list.filter((r): r is k8s.apiextensions.CustomResource =>
                k8s.apiextensions.CustomResource.isInstance(r),
              ),
            ),
        ),
        machineSets: names,
      },
      options.waiting.options(options.dependsOn ?? []),
    );
  const declare = (
    key: string,
    resourceArgs: k8s.apiextensions.CustomResourceArgs,
    guard?: pulumi.Output<pulumi.Resource>,
    adopted: pulumi.CustomResourceOptions = {},
  ) =>
    child(k8s.apiextensions.CustomResource, `${name}-${key}`, resourceArgs, {
      ...options.kubeOptions,
      ...adopted,
      dependsOn: guard ? guard.apply((g) => [g]) : options.dependsOn,
      // The autoscaler owns replicas once the set exists, the MCO the boot image it manages: never
      // diffed, never applied again.
      ignoreChanges: [
        ...(autoscaled ? ["spec.replicas"] : []),
        ...(options.bootImageOwner === "mco" ? BOOT_IMAGE_PATHS : []),
      ],
    });
  let resources: pulumi.Output<k8s.apiextensions.CustomResource[]>;
  // Adopting imports each MachineSet the cluster holds by its name, which needs the cluster facts:
  // declared once known.
  const adoption = options.adoption;
  if (zones.listed && !adoption) {
    // Zones spelled out in the program: the MachineSets are declared now, so that a preview shows them
    // even while the facts or lookups their manifests need are still unknown.
    const guard = guardFor(resolved.apply((sets) => sets.map((s) => s.manifest.metadata.name)));
    resources = pulumi.all(
      zones.listed.map((key) =>
        declare(
          key,
          manifestArgs(
            MACHINE_SET_API_VERSION,
            "MachineSet",
            resolved.apply((sets) => sets.find((s) => s.key === key)!.manifest),
            ["metadata", "spec"],
          ),
          guard,
        ),
      ),
    );
  } else {
    const adopted = pulumi.all([resolved, adoption?.kubeconfig]).apply(async ([sets, kubeconfig]) => {
      const guard = guardFor(sets.map((s) => s.manifest.metadata.name));
      const adopted = adoption
        ? await adoption.options(
            kubeconfig,
            sets.map((s) => ({
              kind: KINDS.machineSet,
              name: s.manifest.metadata.name,
              namespace: MACHINE_API_NAMESPACE,
            })),
          )
        : [];
      return pulumi.all(
        sets.map(({ key, manifest }, i) =>
          // Forced as manifestArgs forces the listed ones (docs/components.md, "Hand edits").
          declare(key, withAnnotations(manifest, PATCH_FORCE), guard, adopted[i]),
        ),
      );
    });
    resources = pulumi.output(adopted);
  }
  const replacement =
    args.machineReplacement === undefined
      ? undefined
      : pulumi.all([resolved, args.machineReplacement]).apply(([sets, given]) => {
          const policy = checked(() =>
            within("machineReplacement", () => requireMachineReplacement(given, autoscaled)),
          );
          // An autoscaled set's replicas are the autoscaler's: the waiter keeps whatever they are.
          if (autoscaled) return policy;
          const replicas = sets.map((s) => [s.manifest.metadata.name, s.manifest.spec.replicas]);
          return { ...policy, replicas: Object.fromEntries(replicas) as Record<string, number> };
        });
  // The image the MCO keeps current is no spec of the stack's: machines it made from a newer one are not old.
  const declared = resolved.apply((sets) =>
    sets.map((s) => ({
      name: s.manifest.metadata.name,
      providerSpec: withoutBootImage(s.manifest, options.bootImageOwner).spec.template.spec.providerSpec
        .value as unknown as Record<string, unknown>,
      labels: s.manifest.spec.template.metadata.labels,
    })),
  );
  return {
    zones,
    names: resolved.apply((sets) => sets.map((s) => s.manifest.metadata.name)),
    keys: resolved.apply((sets) => sets.map((s) => s.key)),
    resources,
    // The MCO's updates of an image it owns are no change of the pool's: its waiter stays the same.
    contentHash: resolved.apply((sets) =>
      contentHash(sets.map((s) => withoutBootImage(s.manifest, options.bootImageOwner))),
    ),
    replacement,
    machineLabels: resolved.apply((sets) =>
      sets.map((s) => (s.manifest.spec.template.metadata?.labels ?? {}) as Record<string, string>),
    ),
    specChanges: previewMachineSpecChanges(
      invoke.parent,
      options.waiting?.kubeconfig,
      options.pool,
      declared,
      replacement,
    ),
    // Every MachineSet of a pool is built with the same node labels and taints (machineSetsOf).
    nodeMetadata: resolved.apply(([first]) => ({
      labels: first.manifest.spec.template.spec.metadata.labels ?? {},
      taints: first.manifest.spec.template.spec.taints ?? [],
    })),
  };
}

/** Replicas at creation: as given (within the autoscaling bounds), else the minimum, else the default. */
function initialReplicas(
  replicas: number | undefined,
  zones: readonly ZoneSpec[],
  scaling: PoolAutoscaling | undefined,
): number {
  if (!scaling) return replicas ?? defaultReplicas(zones);
  const zoneCount = zones.length;
  const bounds = checked(() => within("autoscaling", () => requirePoolAutoscaling(scaling, zoneCount)));
  const factor = bounds.per === "zone" ? zoneCount : 1;
  const [min, max] = [bounds.minReplicas * factor, bounds.maxReplicas * factor];
  if (replicas === undefined) return min;
  if (typeof replicas === "number" && (replicas < min || replicas > max)) {
    throw inputPropertyError(
      "replicas",
      `${replicas} is outside the autoscaling bounds of the pool (${min} to ${max} machines in all)`,
    );
  }
  return replicas;
}
