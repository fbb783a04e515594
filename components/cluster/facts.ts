import * as pulumi from "@pulumi/pulumi";
import {
  isMachineSetPlatform,
  MACHINESET_PLATFORMS,
  machineSetNameOf,
  MachineSetPlatform,
  platformModule,
  WorkerMachineSet,
} from "../../builders/machineset";
import { AzureImage } from "../../builders/machineset/provider-spec";
import { MACHINE_API_NAMESPACE } from "../../primitives/openshift";
import { inputPropertyError } from "../errors";
import { platformModules } from "../platforms";
import { InfrastructureStatus } from "../platforms/platform";
import { readObject } from "./kube";

/** The facts every MachineSet is built from, as the OpenShift docs read them with `oc get -o jsonpath`. */
export interface ClusterFacts {
  infrastructureId: string;
  platform: MachineSetPlatform;
  /** AWS region or Azure location. */
  region: string;
}

export interface ClusterFactsArgs {
  /** `status.infrastructureName` of `infrastructures.config.openshift.io/cluster`; read when omitted. */
  infrastructureId?: pulumi.Input<string>;
  /** Read from `status.platformStatus.type` when omitted. */
  platform?: pulumi.Input<MachineSetPlatform>;
  /**
   * AWS region or Azure location. Read when omitted: on AWS from the Infrastructure object, on Azure
   * from the location of the cluster's resource group (the Infrastructure object does not record it).
   */
  region?: pulumi.Input<string>;
}

/** The read of the cluster facts, as Pulumi's mocks see it. */
const INFRASTRUCTURE_READ =
  "Infrastructure cluster (type kubernetes:config.openshift.io/v1:Infrastructure, id cluster)";

/**
 * Why a read's answer lacks `field`, which every OpenShift cluster sets: what answered was a unit
 * test's mocks, which must answer with the object as the cluster holds it.
 */
function unanswered(read: string, field: string, skip: string): string {
  return `not given, and the read of ${read} was answered without ${field}, which an OpenShift cluster always sets: mocks must answer it with the object as the cluster holds it (@openshift-topology/pulumi/testing answers from a fixtures file, which openshift-topology fixtures capture writes), or ${skip}`;
}

const SKIP_FACTS = "give infrastructureId, platform and region to skip it";

/** The platform whose Infrastructure type (`status.platformStatus.type`) is `type`. */
function platformOfType(type: string | undefined): MachineSetPlatform | undefined {
  return MACHINESET_PLATFORMS.find((p) => platformModule("platform", p).infrastructureType === type);
}

/**
 * Resolves the cluster facts: what the user gave wins, the rest is read from the cluster's
 * Infrastructure object (and, on Azure, the resource group), so nobody copies values by hand. The read
 * waits for `checkedFirst`, the component's checks of its own inputs.
 */
export function resolveClusterFacts(
  name: string,
  args: ClusterFactsArgs,
  opts: pulumi.CustomResourceOptions,
  checkedFirst?: pulumi.Output<void>,
): pulumi.Output<ClusterFacts> {
  const given = pulumi.all([args.infrastructureId, args.platform, args.region]);
  if (args.infrastructureId !== undefined && args.platform !== undefined && args.region !== undefined) {
    return given.apply(([infrastructureId, platform, region]) => ({
      infrastructureId: infrastructureId as string,
      platform: checkPlatform(platform, "platform"),
      region: region as string,
    }));
  }
  const infrastructure = readObject(
    `${name}-infrastructure`,
    {
      apiVersion: "config.openshift.io/v1",
      kind: "Infrastructure",
      // Bad input is reported before the cluster is read.
      id: checkedFirst ? checkedFirst.apply(() => "cluster") : "cluster",
    },
    opts,
  );
  return pulumi.all([given, infrastructure.status]).apply(([[infrastructureId, platform, region], raw]) => {
    const status = (raw ?? {}) as InfrastructureStatus;
    const id = infrastructureId ?? status.infrastructureName;
    if (!id)
      throw inputPropertyError(
        "infrastructureId",
        unanswered(INFRASTRUCTURE_READ, "status.infrastructureName", SKIP_FACTS),
      );
    const type = status.platformStatus?.type;
    if (platform === undefined && type === undefined)
      throw inputPropertyError(
        "platform",
        unanswered(INFRASTRUCTURE_READ, "status.platformStatus.type", SKIP_FACTS),
      );
    const resolvedPlatform = checkPlatform(platform ?? platformOfType(type) ?? type, "platform");
    const resolvedRegion = region
      ? pulumi.output(region)
      : platformModules(resolvedPlatform).cloud.region(status, opts);
    return resolvedRegion.apply((r) => ({ infrastructureId: id, platform: resolvedPlatform, region: r }));
  });
}

function checkPlatform(value: unknown, path: string): MachineSetPlatform {
  if (isMachineSetPlatform(value)) return value;
  throw inputPropertyError(
    path,
    `the cluster's platform ${JSON.stringify(value)} is not supported: machine pools are built for ${MACHINESET_PLATFORMS.map((p) => JSON.stringify(p)).join(" and ")}`,
  );
}

/** The machine image of new MachineSets: an AMI id on AWS, an image on Azure. */
export type MachineImage = string | AzureImage;

/**
 * Reads the worker MachineSet the installer made in `zone` (or the one named): new pools boot the
 * same RHCOS as the workers do and, unless given, use the same network references.
 */
export function workerMachineSet(
  name: string,
  facts: pulumi.Output<ClusterFacts>,
  zone: pulumi.Input<string>,
  machineSetName: pulumi.Input<string> | undefined,
  opts: pulumi.CustomResourceOptions,
  readName = `${name}-image-source`,
): pulumi.Output<WorkerMachineSet> {
  const source = pulumi
    .all([facts, zone, machineSetName])
    .apply(
      ([f, z, given]) =>
        given ??
        machineSetNameOf(platformModules(f.platform).machineSets, { ...f, role: "worker" }, { zone: z }),
    );
  const machineSet = readObject(
    readName,
    {
      apiVersion: "machine.openshift.io/v1beta1",
      kind: "MachineSet",
      id: pulumi.interpolate`${MACHINE_API_NAMESPACE}/${source}`,
    },
    opts,
  );
  return pulumi.all([facts, source, machineSet.spec]).apply(([f, from, raw]) => {
    const value = (raw as { template?: { spec?: { providerSpec?: { value?: Record<string, unknown> } } } })
      ?.template?.spec?.providerSpec?.value;
    if (value === undefined) {
      const id = `${MACHINE_API_NAMESPACE}/${from}`;
      const read = `MachineSet ${id} (type kubernetes:machine.openshift.io/v1beta1:MachineSet, id ${id})`;
      throw inputPropertyError(
        "image",
        unanswered(
          read,
          "spec.template.spec.providerSpec.value",
          "give an InfraNodePool its image to skip it",
        ),
      );
    }
    return { name: from, zone: platformModules(f.platform).machineSets.zoneOf(value), providerSpec: value };
  });
}

/** The image of the worker MachineSet, which new pools copy. */
export function workerImage(
  facts: pulumi.Output<ClusterFacts>,
  worker: pulumi.Output<WorkerMachineSet>,
): pulumi.Output<MachineImage> {
  return pulumi.all([facts, worker]).apply(([f, w]) => {
    const platform = platformModules(f.platform).machineSets;
    const image = platform.imageOf(w.providerSpec);
    if (image) return image as MachineImage;
    throw inputPropertyError(
      "image",
      `not given, and worker MachineSet ${w.name} has no ${platform.imageField} to copy`,
    );
  });
}
