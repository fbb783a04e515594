import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  imageRegistryPlacementPatch,
  ingressControllerPlacementPatch,
  monitoringConfigMapPatch,
  NodePlacement,
  placementFor,
} from "../../builders/infra-placement";
import { machineConfigPool } from "../../builders/machineconfiguration";
import {
  AwsMachineOptions,
  AzureMachineOptions,
  AzureImage,
  machineSetsForPool,
  MachineSetManifest,
  MachineSetPoolSpec,
  ZoneSpec,
} from "../../builders/machineset";
import { requireDnsLabel, Taint } from "../../builders/validation";
import { awsSecurityGroups, awsSubnet, awsZones } from "../cloud-lookups/aws";
import { checkAzureManagedIdentity, checkAzureSubnet } from "../cloud-lookups/azure";
import {
  ClusterFacts,
  ClusterFactsArgs,
  MachineImage,
  resolveClusterFacts,
  workerImage,
} from "../cluster/facts";
import { kubeOptions, manifestArgs } from "../cluster/kube";
import { checked, inputPropertyError } from "../errors";

export interface InfraNodePoolArgs extends ClusterFactsArgs {
  /** Node role and pool name; default `infra`. Names child resources, so it is a plain string. */
  role?: string;
  /**
   * Zones, one MachineSet each: AWS zone names (`us-east-2a`) or Azure zone numbers (`"1"`), or objects
   * that also give the zone's subnet. On AWS with `cloudLookups`, omitted zones are the region's first three.
   */
  zones?: pulumi.Input<Array<string | ZoneSpec>>;
  /** Total machines spread over the zones as the installer does; default one per zone. */
  replicas?: pulumi.Input<number>;
  /**
   * Taints that keep user workloads off; default `node-role.kubernetes.io/<role>=reserved` with
   * NoSchedule and NoExecute, as OpenShift documents for infra nodes. `[]` for none.
   */
  taints?: pulumi.Input<Taint[]>;
  /** Extra node labels; the role labels (`<role>` and `worker`) are always set. */
  nodeLabels?: pulumi.Input<Record<string, string>>;
  /** AMI id (AWS) or image (Azure); default: copied from the worker MachineSet of the first zone. */
  image?: pulumi.Input<string | Partial<AzureImage>>;
  /** The worker MachineSet to copy the image from, when not the installer's one in the first zone. */
  imageFromMachineSet?: pulumi.Input<string>;
  aws?: pulumi.Input<Omit<AwsMachineOptions, "ami">>;
  azure?: pulumi.Input<Omit<AzureMachineOptions, "image">>;
  /**
   * Look up (AWS) or check (Azure) zones, subnets, security groups and the managed identity with the
   * cloud's Pulumi provider. Explicit values always win; a lookup that finds nothing is an input error.
   */
  cloudLookups?: boolean;
  /** The pool's MachineConfigPool: nodes updated at once (number or percentage); default 1. */
  maxUnavailable?: pulumi.Input<number | string>;
  paused?: pulumi.Input<boolean>;
  /** Move the default router here (IngressController `default` nodePlacement), optionally with replicas. */
  router?: boolean | { replicas?: pulumi.Input<number> };
  /** Move the integrated image registry here. */
  registry?: boolean;
  /**
   * Move monitoring here by owning `config.yaml` of `openshift-monitoring/cluster-monitoring-config`
   * (server-side apply creates the ConfigMap when absent); `config` merges per component.
   */
  monitoring?: boolean | { config?: pulumi.Input<Record<string, Record<string, unknown>>> };
  /** Kubernetes provider for the cluster; default the stack's default provider. */
  provider?: k8s.Provider;
}

interface ResolvedMachineSet {
  zone: string;
  manifest: MachineSetManifest;
}

/**
 * An infra node pool as OpenShift documents it (seeds 000 and 001): one MachineSet per zone whose nodes
 * carry the infra role and taints, a custom MachineConfigPool that inherits worker configs, and
 * optionally the router, registry and monitoring moved onto those nodes with patches that leave every
 * field the library does not own to its operator.
 */
export class InfraNodePool extends pulumi.ComponentResource {
  /** The pool (and node role) name. */
  declare public readonly role: string;
  declare public readonly facts: pulumi.Output<ClusterFacts>;
  declare public readonly machineSetNames: pulumi.Output<string[]>;
  declare public readonly machineSets: pulumi.Output<k8s.apiextensions.CustomResource[]>;
  declare public readonly machineConfigPool: k8s.apiextensions.CustomResource;
  /** nodeSelector and tolerations that place a workload on this pool (for your own infra workloads). */
  declare public readonly placement: pulumi.Output<NodePlacement>;

  constructor(name: string, args: InfraNodePoolArgs = {}, opts: pulumi.ComponentResourceOptions = {}) {
    super("openshift-topology:index:InfraNodePool", name, {}, opts);
    const role = checked(() => requireDnsLabel("role", args.role ?? "infra"));
    const kopts = kubeOptions(this, args.provider);
    const invoke = { parent: this };

    const taints = pulumi
      .output(args.taints)
      .apply((t): Taint[] => (t === undefined ? defaultTaints(role) : (t as Taint[])));
    const placement = taints.apply((t) => checked(() => placementFor(role, t)));

    const poolManifest = pulumi
      .all([args.maxUnavailable, args.paused])
      .apply(([maxUnavailable, paused]) =>
        checked(() => machineConfigPool({ name: role, maxUnavailable, paused })),
      );
    const pool = new k8s.apiextensions.CustomResource(
      `${name}-pool`,
      manifestArgs("machineconfiguration.openshift.io/v1", "MachineConfigPool", poolManifest, [
        "metadata",
        "spec",
      ]),
      kopts,
    );

    const facts = resolveClusterFacts(name, args, kopts);
    const zones = this.zones(args, facts, invoke);
    const image: pulumi.Output<MachineImage | string | Partial<AzureImage>> =
      args.image !== undefined
        ? pulumi.output(args.image)
        : workerImage(
            name,
            facts,
            zones.apply((z) => z[0].zone),
            args.imageFromMachineSet,
            kopts,
          );

    const resolved = pulumi
      .all([facts, zones, image, args.replicas, taints, args.nodeLabels, args.aws, args.azure])
      .apply(async ([f, z, img, replicas, t, labels, awsOptions, azureOptions]) => {
        const spec = await poolSpec(
          {
            facts: f,
            role,
            zones: z,
            replicas: replicas ?? z.length,
            taints: t,
            nodeLabels: {
              ...(labels ?? {}),
              [`node-role.kubernetes.io/${role}`]: "",
              "node-role.kubernetes.io/worker": "",
            },
            image: img,
            aws: (awsOptions ?? {}) as Omit<AwsMachineOptions, "ami">,
            azure: (azureOptions ?? {}) as Omit<AzureMachineOptions, "image">,
          },
          args.cloudLookups === true,
          invoke,
        );
        const manifests = checked(() => machineSetsForPool(spec));
        return manifests.map((manifest, i): ResolvedMachineSet => ({ zone: z[i].zone, manifest }));
      });

    // Nodes should join the custom pool from their first boot, so the pool exists before any machine.
    const machineSets = resolved.apply((sets) =>
      sets.map(
        ({ zone, manifest }) =>
          new k8s.apiextensions.CustomResource(`${name}-${zone}`, manifest, { ...kopts, dependsOn: [pool] }),
      ),
    );

    this.placeWorkloads(name, args, placement, machineSets, kopts);

    this.role = role;
    this.facts = facts;
    this.machineSetNames = resolved.apply((sets) => sets.map((s) => s.manifest.metadata.name));
    this.machineSets = machineSets;
    this.machineConfigPool = pool;
    this.placement = placement;
    this.registerOutputs({
      role,
      facts,
      machineSetNames: this.machineSetNames,
      placement,
    });
  }

  private zones(
    args: InfraNodePoolArgs,
    facts: pulumi.Output<ClusterFacts>,
    invoke: { parent: pulumi.Resource },
  ): pulumi.Output<ZoneSpec[]> {
    if (args.zones !== undefined) {
      return pulumi.output(args.zones).apply((zones) => {
        // Checked here as well as in the builder because the image is read from the first zone's workers.
        if (!Array.isArray(zones) || zones.length === 0) {
          throw inputPropertyError(
            "zones",
            "at least one zone is required (production infra pools want three)",
          );
        }
        return (zones as Array<string | ZoneSpec>).map((z) =>
          typeof z === "string" ? { zone: z } : { ...z },
        );
      });
    }
    return facts.apply(async (f) => {
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

  private placeWorkloads(
    name: string,
    args: InfraNodePoolArgs,
    placement: pulumi.Output<NodePlacement>,
    machineSets: pulumi.Output<k8s.apiextensions.CustomResource[]>,
    kopts: pulumi.CustomResourceOptions,
  ): void {
    // Workloads move only once the machines that will host them are declared.
    const after = { ...kopts, dependsOn: machineSets };
    const owned = { "pulumi.com/patchForce": "true" };
    if (args.router) {
      const replicas = typeof args.router === "object" ? args.router.replicas : undefined;
      new k8s.apiextensions.CustomResourcePatch(
        `${name}-router`,
        manifestArgs(
          "operator.openshift.io/v1",
          "IngressController",
          pulumi
            .all([placement, replicas])
            .apply(([p, r]) => withAnnotations(ingressControllerPlacementPatch(p, r), owned)),
          ["metadata", "spec"],
        ),
        after,
      );
    }
    if (args.registry) {
      new k8s.apiextensions.CustomResourcePatch(
        `${name}-registry`,
        manifestArgs(
          "imageregistry.operator.openshift.io/v1",
          "Config",
          placement.apply((p) => withAnnotations(imageRegistryPlacementPatch(p), owned)),
          ["metadata", "spec"],
        ),
        after,
      );
    }
    if (args.monitoring) {
      const extra = typeof args.monitoring === "object" ? args.monitoring.config : undefined;
      const manifest = pulumi
        .all([placement, extra])
        .apply(([p, e]) => withAnnotations(monitoringConfigMapPatch(p, e), owned));
      new k8s.core.v1.ConfigMapPatch(
        `${name}-monitoring`,
        { metadata: manifest.metadata, data: manifest.data },
        after,
      );
    }
  }
}

function defaultTaints(role: string): Taint[] {
  return [
    { key: `node-role.kubernetes.io/${role}`, value: "reserved", effect: "NoSchedule" },
    { key: `node-role.kubernetes.io/${role}`, value: "reserved", effect: "NoExecute" },
  ];
}

function withAnnotations<T extends { metadata: Record<string, unknown> }>(
  manifest: T,
  annotations: Record<string, string>,
): T {
  return { ...manifest, metadata: { ...manifest.metadata, annotations } };
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
