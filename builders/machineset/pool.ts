import { collectErrors, InputError, within } from "../errors";
import {
  requireDnsLabel,
  requireLabels,
  requireNonEmptyString,
  requireNonNegativeInteger,
  requireTaints,
  requireUnique,
  Taint,
} from "../validation";
import { AwsMachineOptions, awsProviderSpec, requireAmiId } from "./aws";
import { AzureMachineOptions, azureProviderSpec } from "./azure";
import { machineSet, MachineSetManifest } from "./machineset";
import { AZURE_ZONAL_REGIONS } from "./azure-regions";
import { spreadReplicas } from "./naming";
import { AWSResourceReference, AzureImage, ProviderSpec } from "./provider-spec";

export const MACHINESET_PLATFORMS = ["aws", "azure"] as const;
export type MachineSetPlatform = (typeof MACHINESET_PLATFORMS)[number];

export interface ZoneSpec {
  /** AWS availability zone (`us-east-2a`) or Azure zone number (`"1"`). */
  zone: string;
  /** AWS: subnet id or reference; Azure: subnet name. Default: the installer's per-zone subnet. */
  subnet?: string | AWSResourceReference;
  /** Overrides the installer-style name of this zone's MachineSet. */
  machineSetName?: string;
}

interface PoolSpecBase {
  infrastructureId: string;
  /** AWS region or Azure location. */
  region: string;
  /** The pool's name segment in MachineSet names (`infra`, `windows-worker`). */
  role: string;
  /** Value of the machine-role/type labels; default `role`. */
  machineRole?: string;
  zones: ReadonlyArray<string | ZoneSpec>;
  /** Total machines, spread over the zones as the installer does. */
  replicas: number;
  machineLabels?: Record<string, string>;
  nodeLabels?: Record<string, string>;
  taints?: Taint[];
  annotations?: Record<string, string>;
  maxNameLength?: number;
  roleLabelsOnSet?: boolean;
}

export type MachineSetPoolSpec =
  | (PoolSpecBase & { platform: "aws"; aws: AwsMachineOptions })
  | (PoolSpecBase & { platform: "azure"; azure: AzureMachineOptions });

interface PlatformRules {
  /** The installer's MachineSet name for a zone. */
  name(infraId: string, role: string, region: string, zone: string): string;
  /** Throws when a zone cannot belong to the region. */
  checkZone(path: string, zone: string, region: string): void;
  providerSpec(spec: MachineSetPoolSpec, zone: ZoneSpec): ProviderSpec;
}

/** Platform differences as data: naming, zone rules and provider specs. */
const PLATFORMS: Record<MachineSetPlatform, PlatformRules> = {
  aws: {
    name: (infraId, role, _region, zone) => `${infraId}-${role}-${zone}`,
    checkZone(path, zone, region) {
      if (!zone.startsWith(region) || zone.length === region.length) {
        throw new InputError(
          path,
          `AWS zone ${JSON.stringify(zone)} is not in region ${JSON.stringify(region)} (expected e.g. "${region}a")`,
        );
      }
    },
    providerSpec: (spec, zone) =>
      within("aws", () =>
        awsProviderSpec((spec as { aws: AwsMachineOptions }).aws, {
          infrastructureId: spec.infrastructureId,
          region: spec.region,
          zone: zone.zone,
          subnet: zone.subnet,
        }),
      ),
  },
  azure: {
    name: (infraId, role, region, zone) => `${infraId}-${role}-${region}${zone}`,
    checkZone(path, zone) {
      if (!/^[1-9]$/.test(zone)) {
        throw new InputError(
          path,
          `Azure zone ${JSON.stringify(zone)} is not an availability zone number such as "1", "2" or "3"`,
        );
      }
    },
    providerSpec(spec, zone) {
      if (zone.subnet !== undefined && typeof zone.subnet !== "string") {
        throw new InputError("subnet", "an Azure subnet is given by its name, not by a reference");
      }
      return within("azure", () =>
        azureProviderSpec((spec as { azure: AzureMachineOptions }).azure, {
          infrastructureId: spec.infrastructureId,
          location: spec.region,
          // A region without zones: no zone, and the machine-api places the VMs in an availability set.
          zone: zone.zone === "" ? undefined : zone.zone,
          subnet: zone.subnet as string | undefined,
        }),
      );
    },
  },
};

/** The zones as given, each a ZoneSpec with a name, none twice; nothing here needs the cluster. */
function zoneList(given: unknown): ZoneSpec[] {
  if (!Array.isArray(given)) {
    throw new InputError("zones", "at least one zone is required (production infra pools want three)");
  }
  const zones = given.map((z: string | ZoneSpec, i) => {
    const zone = typeof z === "string" ? { zone: z } : { ...z };
    requireNonEmptyString(`zones[${i}]`, zone.zone);
    return zone;
  });
  requireUnique("zones", zones, (z) => z.zone, "zone");
  return zones;
}

function zoneSpecs(spec: MachineSetPoolSpec): ZoneSpec[] {
  const zones = zoneList(spec.zones);
  if (zones.length === 0) {
    if (spec.platform !== "azure")
      throw new InputError("zones", "at least one zone is required (production infra pools want three)");
    if (AZURE_ZONAL_REGIONS.has(spec.region)) {
      throw new InputError(
        "zones",
        `Azure region ${JSON.stringify(spec.region)} has availability zones: list them, e.g. ["1", "2", "3"] (an empty list is for regions without zones)`,
      );
    }
    // One MachineSet without a zone, named <infraID>-<role>-<region> as the installer names it there.
    return [{ zone: "" }];
  }
  checkZonesInRegion(spec.platform, spec.region, zones);
  return zones;
}

/** Throws at `zones[i]` for the first zone that cannot belong to the cluster's region. */
export function checkZonesInRegion(
  platform: MachineSetPlatform,
  region: string,
  zones: ReadonlyArray<string | ZoneSpec>,
): void {
  zones.forEach((z, i) =>
    PLATFORMS[platform]?.checkZone(`zones[${i}]`, typeof z === "string" ? z : z.zone, region),
  );
}

/** What a pool's args must satisfy whatever the cluster: checked before any cluster fact is read. */
export interface PoolInputs {
  zones?: ReadonlyArray<string | ZoneSpec>;
  replicas?: number;
  nodeLabels?: Record<string, string>;
  taints?: Taint[];
  /**
   * A given image. A string can only be an AMI id; an object is checked once the platform is known,
   * since on AWS the better message is that an AMI id is needed.
   */
  image?: string | Partial<AzureImage>;
}

/** Every problem of a pool's own inputs at once, without the cluster's facts. */
export function checkPoolInputs(inputs: PoolInputs): void {
  collectErrors([
    () => inputs.zones === undefined || zoneList(inputs.zones),
    () => inputs.replicas === undefined || requireNonNegativeInteger("replicas", inputs.replicas),
    () => requireLabels("nodeLabels", inputs.nodeLabels),
    () => requireTaints("taints", inputs.taints),
    () => typeof inputs.image !== "string" || requireAmiId("image", inputs.image),
  ]);
}

/**
 * The MachineSets of one pool: one per zone, named and sized as openshift/installer does for its own
 * compute pools, so that an infra pool sits beside the worker sets as if the installer had made it.
 */
export function machineSetsForPool(spec: MachineSetPoolSpec): MachineSetManifest[] {
  const rules = PLATFORMS[spec.platform];
  if (!rules) {
    throw new InputError(
      "platform",
      `${JSON.stringify(spec.platform)} is not supported: use "aws" or "azure"`,
    );
  }
  const infraId = requireDnsLabel("infrastructureId", spec.infrastructureId);
  const region = requireNonEmptyString("region", spec.region);
  const role = requireDnsLabel("role", spec.role);
  const zones = zoneSpecs(spec);
  const replicas = spreadReplicas("replicas", spec.replicas, zones.length);
  const names = zones.map((z) => z.machineSetName ?? rules.name(infraId, role, region, z.zone));
  requireUnique("zones", names, (n) => n, "MachineSet name");

  return zones.map((zone, i) => {
    const providerSpec = within(
      (path) => (path === "subnet" || path.endsWith(".subnet") ? `zones[${i}].subnet` : path),
      () => rules.providerSpec(spec, zone),
    );
    return within(
      // A bad name comes from the user's override, or else from the role that names the pool.
      (path) => (path === "name" ? (zone.machineSetName ? `zones[${i}].machineSetName` : "role") : path),
      () =>
        machineSet({
          name: names[i],
          infrastructureId: infraId,
          machineRole: spec.machineRole ?? role,
          replicas: replicas[i],
          machineLabels: spec.machineLabels,
          nodeLabels: spec.nodeLabels,
          taints: spec.taints,
          annotations: spec.annotations,
          providerSpec,
          maxNameLength: spec.maxNameLength,
          roleLabelsOnSet: spec.roleLabelsOnSet,
        }),
    );
  });
}
