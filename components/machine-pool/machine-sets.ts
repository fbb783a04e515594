import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  AwsMachineOptions,
  AzureImage,
  AzureMachineOptions,
  checkPoolInputs,
  checkZonesInRegion,
  MACHINE_SET_API_VERSION,
  requireAzureImage,
  MachineSetManifest,
  MachineSetPoolSpec,
  machineSetsForPool,
  ZoneSpec,
} from "../../builders/machineset";
import { PoolAutoscaling, requirePoolAutoscaling } from "../../builders/autoscaling";
import { HealthCheckOptions } from "../../builders/health-check";
import { healthCheckManifest } from "./health-check";
import { Taint } from "../../builders/validation";
import { awsSecurityGroups, awsSubnet, awsZones } from "../cloud-lookups/aws";
import { checkAzureManagedIdentity, checkAzureSubnet } from "../cloud-lookups/azure";
import { contentHash, MachineSetRemoval } from "../../provider/dynamic";
import { ClusterFacts, ClusterFactsArgs, MachineImage } from "../cluster/facts";
import { manifestArgs } from "../cluster/kube";
import { WaitArgs, Waiting } from "../cluster/wait";
import { within } from "../../builders/errors";
import { checked, checkedAsKnown, inputPropertyError } from "../errors";

/** What every machine pool component takes to place MachineSets in zones of a cloud. */
export interface MachinePoolArgs extends ClusterFactsArgs, WaitArgs {
  /**
   * Zones, one MachineSet each: AWS zone names (`us-east-2a`) or Azure zone numbers (`"1"`), or objects
   * that also give the zone's subnet. On AWS with `cloudLookups`, omitted zones are the region's first three.
   */
  zones?: pulumi.Input<Array<string | ZoneSpec>>;
  /**
   * Total machines spread over the zones as the installer does; default one per zone, or with
   * `autoscaling` its minimum. With `autoscaling` it is the count at creation only: afterwards the
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
   * (Ready False/Unknown for 300s, maxUnhealthy 40%, nodeStartupTimeout 10m), or the fields to change.
   */
  healthCheck?: boolean | pulumi.Input<HealthCheckOptions>;
  /** Extra node labels. */
  nodeLabels?: pulumi.Input<Record<string, string>>;
  aws?: pulumi.Input<Omit<AwsMachineOptions, "ami">>;
  azure?: pulumi.Input<Omit<AzureMachineOptions, "image">>;
  /**
   * Look up (AWS) or check (Azure) zones, subnets, security groups and the managed identity with the
   * cloud's Pulumi provider. Explicit values always win; a lookup that finds nothing is an input error.
   */
  cloudLookups?: boolean;
  /** Kubernetes provider for the cluster; default the stack's default provider. */
  provider?: k8s.Provider;
}

export interface MachineSetsOptions {
  /** The name segment of the MachineSets (`infra`, `windows-worker`). */
  role: pulumi.Input<string>;
  /** Labels every node gets on top of `MachinePoolArgs.nodeLabels`. */
  nodeLabels: Record<string, string>;
  taints: pulumi.Output<Taint[]>;
  image: pulumi.Output<MachineImage | string | Partial<AzureImage>>;
  /** Final touches to the pool spec (Windows machines). */
  adjust?: (spec: MachineSetPoolSpec) => MachineSetPoolSpec;
  /** What the MachineSets must wait for (the pool they join, the operator that configures them). */
  dependsOn?: pulumi.Input<pulumi.Resource>[];
  kubeOptions: pulumi.CustomResourceOptions;
  /** With waiting on, the MachineSets are guarded so that what they depend on is deleted only after their machines. */
  waiting?: Waiting;
}

export interface DeclaredMachineSets {
  names: pulumi.Output<string[]>;
  resources: pulumi.Output<k8s.apiextensions.CustomResource[]>;
  /** Hash of the rendered MachineSets: what their readiness waiter depends on. */
  contentHash: pulumi.Output<string>;
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
  });
  return pulumi.all([own, waits?.check]).apply(() => undefined);
}

/**
 * The pool's zones: given, or on AWS with lookups the region's first three. Given zones are checked
 * against the cluster's region before anything is read for them (the worker MachineSet of the first).
 */
export function resolveZones(
  args: MachinePoolArgs,
  facts: pulumi.Output<ClusterFacts>,
  checkedArgs: pulumi.Output<void>,
  invoke: { parent: pulumi.Resource },
): pulumi.Output<ZoneSpec[]> {
  if (args.zones !== undefined) {
    return pulumi.all([checkedArgs, args.zones, facts]).apply(([, zones, f]) => {
      const given = (zones as Array<string | ZoneSpec>).map((z) =>
        typeof z === "string" ? { zone: z } : { ...z },
      );
      // An empty list is an Azure region without zones (the builder refuses it for zonal regions).
      // Checked here as well as in the builder because images are read from the first zone's workers.
      if (given.length === 0 && f.platform !== "azure")
        throw inputPropertyError("zones", "at least one zone is required (production pools want three)");
      checked(() => checkZonesInRegion(f.platform, f.region, given));
      return given;
    });
  }
  return pulumi.all([checkedArgs, facts]).apply(async ([, f]) => {
    if (f.platform === "aws" && args.cloudLookups) {
      return (await awsZones(f.region, 3, invoke)).map((zone) => ({ zone }));
    }
    throw inputPropertyError(
      "zones",
      f.platform === "aws"
        ? "required: list the zones (e.g. us-east-2a, us-east-2b, us-east-2c) or set cloudLookups to use the region's first three"
        : 'required on Azure: list the zone numbers, e.g. ["1", "2", "3"]',
    );
  });
}

/** The zone names when the program spells them out as plain values, so resources can be named by them now. */
export function zoneNames(zones: MachinePoolArgs["zones"]): string[] | undefined {
  if (!Array.isArray(zones) || zones.length === 0) return undefined;
  const names = zones.map((z: unknown) =>
    typeof z === "string"
      ? z
      : typeof (z as ZoneSpec | undefined)?.zone === "string"
        ? (z as ZoneSpec).zone
        : undefined,
  );
  return names.every((n): n is string => n !== undefined) ? names : undefined;
}

/**
 * Declares one MachineSet per zone, named `<name>-<zone>`. Their manifests need resolved facts, zones
 * and lookups; when the program lists the zones the resources are declared at once with those
 * manifests as outputs, otherwise (zones looked up) once the zones are known.
 */
export function declareMachineSets(
  name: string,
  args: MachinePoolArgs,
  facts: pulumi.Output<ClusterFacts>,
  zones: pulumi.Output<ZoneSpec[]>,
  options: MachineSetsOptions,
): DeclaredMachineSets {
  const invoke = { parent: options.kubeOptions.parent! };
  const healthCheck =
    args.healthCheck === undefined || args.healthCheck === false
      ? undefined
      : args.healthCheck === true
        ? {}
        : args.healthCheck;
  const resolved = pulumi
    .all([
      facts,
      zones,
      options.role,
      options.image,
      options.taints,
      pulumi.all([args.replicas, args.nodeLabels, args.aws, args.azure, args.autoscaling, healthCheck]),
    ])
    .apply(async ([f, z, role, image, taints, [replicas, labels, awsOptions, azureOptions, scaling, hc]]) => {
      // The health check's settings fail the MachineSets too, so its mistakes show with the pool's.
      if (hc) healthCheckManifest(hc, "check", f.infrastructureId, "worker", ["check"]);
      const spec = await poolSpec(
        {
          facts: f,
          role,
          zones: z,
          replicas: initialReplicas(replicas, z.length, scaling),
          taints,
          nodeLabels: { ...(labels ?? {}), ...options.nodeLabels },
          image,
          aws: (awsOptions ?? {}) as Omit<AwsMachineOptions, "ami">,
          azure: (azureOptions ?? {}) as Omit<AzureMachineOptions, "image">,
        },
        args.cloudLookups === true,
        invoke,
      );
      const manifests = checked(() => machineSetsForPool(options.adjust ? options.adjust(spec) : spec));
      return manifests.map((manifest, i): { zone: string; manifest: MachineSetManifest } => ({
        zone: z[i]?.zone || f.region,
        manifest,
      }));
    });
  const guardFor = (names: pulumi.Input<string[]>) =>
    // Pulumi deletes in reverse dependency order: the MachineSets, then this guard (which waits until
    // their machines and nodes are gone), then the pool or operator they depended on.
    options.waiting &&
    new MachineSetRemoval(
      `${name}-machines-removal`,
      { kubeconfig: options.waiting.kubeconfig, machineSets: names },
      options.waiting.options(options.dependsOn ?? []),
    );
  const declare = (
    zone: string,
    resourceArgs: k8s.apiextensions.CustomResourceArgs,
    guard?: pulumi.Resource,
  ) =>
    new k8s.apiextensions.CustomResource(`${name}-${zone}`, resourceArgs, {
      ...options.kubeOptions,
      dependsOn: guard ? [guard] : options.dependsOn,
      // The autoscaler owns replicas once the set exists: never diffed, never applied again.
      ...(args.autoscaling !== undefined ? { ignoreChanges: ["spec.replicas"] } : {}),
    });
  const known = zoneNames(args.zones);
  let resources: pulumi.Output<k8s.apiextensions.CustomResource[]>;
  if (known) {
    // Zones spelled out in the program: the MachineSets are declared now, so that a preview shows them
    // even while the facts or lookups their manifests need are still unknown.
    const guard = guardFor(resolved.apply((sets) => sets.map((s) => s.manifest.metadata.name)));
    resources = pulumi.output(
      known.map((zone, i) =>
        declare(
          zone,
          manifestArgs(
            MACHINE_SET_API_VERSION,
            "MachineSet",
            resolved.apply((sets) => sets[i].manifest),
            ["metadata", "spec"],
          ),
          guard,
        ),
      ),
    );
  } else {
    resources = resolved.apply((sets) => {
      const guard = guardFor(sets.map((s) => s.manifest.metadata.name));
      return sets.map(({ zone, manifest }) => declare(zone, manifest, guard));
    });
  }
  return {
    names: resolved.apply((sets) => sets.map((s) => s.manifest.metadata.name)),
    resources,
    contentHash: resolved.apply((sets) => contentHash(sets.map((s) => s.manifest))),
  };
}

/** Replicas at creation: as given (within the autoscaling bounds), else the minimum, else one per zone. */
function initialReplicas(
  replicas: number | undefined,
  zoneCount: number,
  scaling: PoolAutoscaling | undefined,
): number {
  if (!scaling) return replicas ?? zoneCount;
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

interface PoolInputs {
  facts: ClusterFacts;
  role: string;
  zones: ZoneSpec[];
  replicas: number;
  taints: Taint[];
  nodeLabels: Record<string, string>;
  image: MachineImage | string | Partial<AzureImage>;
  aws: Omit<AwsMachineOptions, "ami">;
  azure: Omit<AzureMachineOptions, "image">;
}

/** The builder's pool spec, with cloud lookups filled in where asked for and nothing was given. */
async function poolSpec(
  inputs: PoolInputs,
  lookups: boolean,
  invoke: { parent: pulumi.Resource },
): Promise<MachineSetPoolSpec> {
  const { facts, image } = inputs;
  const base = {
    infrastructureId: facts.infrastructureId,
    region: facts.region,
    role: inputs.role,
    replicas: inputs.replicas,
    taints: inputs.taints,
    nodeLabels: inputs.nodeLabels,
  };
  if (facts.platform === "aws") {
    const ami = typeof image === "string" ? image : "ami" in image ? image.ami : undefined;
    if (!ami)
      throw inputPropertyError("image", "on AWS the image is an AMI id such as ami-0123456789abcdef0");
    const zones = lookups
      ? await Promise.all(
          inputs.zones.map(async (z, i) => ({
            ...z,
            subnet: await awsSubnet(`zones[${i}].subnet`, facts.infrastructureId, z.zone, z.subnet, invoke),
          })),
        )
      : inputs.zones;
    const securityGroups = lookups
      ? await awsSecurityGroups(
          "aws.securityGroups",
          facts.infrastructureId,
          inputs.aws.securityGroups,
          invoke,
        )
      : inputs.aws.securityGroups;
    return {
      ...base,
      platform: "aws",
      zones,
      aws: { ...inputs.aws, ami, ...(securityGroups ? { securityGroups } : {}) },
    };
  }
  const azureImage =
    typeof image === "string"
      ? undefined
      : "platform" in image
        ? image.platform === "azure"
          ? image.image
          : undefined
        : image;
  if (!azureImage)
    throw inputPropertyError(
      "image",
      "on Azure the image is { resourceID } or publisher, offer, sku and version",
    );
  checked(() => requireAzureImage("image", azureImage));
  if (lookups) {
    const rg = inputs.azure.resourceGroup ?? `${facts.infrastructureId}-rg`;
    await Promise.all([
      ...inputs.zones.map((z, i) =>
        checkAzureSubnet(
          z.subnet !== undefined ? `zones[${i}].subnet` : "azure.subnet",
          {
            networkResourceGroup: inputs.azure.networkResourceGroup ?? rg,
            vnet: inputs.azure.vnet ?? `${facts.infrastructureId}-vnet`,
            subnet:
              (z.subnet as string | undefined) ??
              inputs.azure.subnet ??
              `${facts.infrastructureId}-worker-subnet`,
          },
          invoke,
        ),
      ),
      checkAzureManagedIdentity(
        "azure.managedIdentity",
        {
          resourceGroup: rg,
          managedIdentity: inputs.azure.managedIdentity ?? `${facts.infrastructureId}-identity`,
        },
        invoke,
      ),
    ]);
  }
  return { ...base, platform: "azure", zones: inputs.zones, azure: { ...inputs.azure, image: azureImage } };
}
