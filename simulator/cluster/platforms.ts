/**
 * What differs between the simulated clouds, as data: regions and zones, the installer's naming, how a
 * machine's placement and node name derive from its providerSpec, and instance sizes.
 */
import { Json, field } from "../../primitives/objects";
import { hexHash } from "../controllers/util";
import {
  AZURE_SUBSCRIPTION,
  awsLaunchProblem,
  azureLaunchProblem,
  CloudCatalog,
  CloudSize,
} from "./cloud-api";

export type PlatformName = "aws" | "azure";

export interface Placement {
  region: string;
  zone: string;
  instanceType: string;
}

export type InstanceType = CloudSize;

export interface PlatformSpec {
  /** `status.platformStatus.type` of the Infrastructure object. */
  type: "AWS" | "Azure";
  /** `providerSpec.value.kind` the platform's machine actuator accepts. */
  providerKind: string;
  region: string;
  /** The zone suffixes the installer spreads MachineSets over. */
  zones: string[];
  /** The zone as the cloud and the node labels name it. */
  zoneName(region: string, zone: string): string;
  /** MachineSet name: `<infraID>-<role>-<zone as the installer writes it>`. */
  machineSetName(infraId: string, role: string, region: string, zone: string): string;
  workerInstanceType: string;
  masterInstanceType: string;
  credentialsSecret: string;
  /** The regions, zones and sizes the simulated cloud has. */
  catalog: CloudCatalog;
  /** Why the cloud refuses to create a Machine's instance, as the actuator reports it; undefined when it creates it. */
  launchProblem(machineName: string, providerSpec: Json): string | undefined;
  /** Region, zone and size from a Machine's providerSpec.value. */
  placement(providerSpec: Json): Placement;
  /** Node name as the cloud's kubelet registers it. */
  nodeName(machineName: string, placement: Placement, ip: string): string;
  providerId(machineName: string, placement: Placement, infraId: string): string;
  /** Private subnet of a zone (third octet base), so node IPs look like the installer's VPC. */
  subnetBase(zoneIndex: number): number;
}

/** `count` GiB as a kubelet reports the memory of an instance that size, in Ki (what the firmware keeps aside is gone). */
function memory(gib: number): string {
  return `${Math.round(gib * 1024 * 1024 * 0.96)}Ki`;
}

const amd64 = (cpu: number, gib: number, more: Partial<CloudSize> = {}): CloudSize => ({
  cpu: String(cpu),
  memory: memory(gib),
  arch: "amd64",
  ...more,
});

/**
 * The simulated AWS: regions with the zones AWS lists for them (the library's table,
 * builders/machineset/aws-zones.ts, must agree: platforms.test.ts) and the instance types the examples,
 * tests and demo use, with a few others. Large and special types are not offered in every zone of a
 * real region; here g5 lacks us-east-2c, so that a pool there fails as EC2 makes it fail.
 */
const AWS_CATALOG: CloudCatalog = {
  regions: Object.fromEntries(
    Object.entries({
      "us-east-1": "abcdef",
      "us-east-2": "abc",
      "us-west-1": "abc",
      "us-west-2": "abcd",
      "eu-west-1": "abc",
    }).map(([region, letters]) => [region, [...letters].map((l) => `${region}${l}`)]),
  ),
  sizes: {
    "m5.large": amd64(2, 8),
    "m5.xlarge": amd64(4, 16),
    "m5.2xlarge": amd64(8, 32),
    "m5.4xlarge": amd64(16, 64),
    "m5a.large": amd64(2, 8),
    "m5a.xlarge": amd64(4, 16),
    "m6a.xlarge": amd64(4, 16),
    "m6i.large": amd64(2, 8),
    "m6i.xlarge": amd64(4, 16),
    "m6i.2xlarge": amd64(8, 32),
    "m6i.4xlarge": amd64(16, 64),
    "m7i.xlarge": amd64(4, 16),
    "c6i.xlarge": amd64(4, 8),
    "r5.xlarge": amd64(4, 32),
    "r6i.xlarge": amd64(4, 32),
    "m6g.xlarge": { ...amd64(4, 16), arch: "arm64" },
    "m7g.xlarge": { ...amd64(4, 16), arch: "arm64" },
    "g5.xlarge": amd64(4, 16, { notIn: ["us-east-2c"] }),
  },
};

/**
 * The simulated Azure: regions with zones 1 to 3 and some without (the library's table,
 * builders/machineset/azure-regions.ts, must agree), and the VM sizes in use. Basic-tier and B-series
 * sizes cannot use accelerated networking; the T4 GPU size lacks centralus zone 3.
 */
const AZURE_CATALOG: CloudCatalog = {
  regions: {
    centralus: ["1", "2", "3"],
    eastus: ["1", "2", "3"],
    eastus2: ["1", "2", "3"],
    westeurope: ["1", "2", "3"],
    westcentralus: [],
    westus: [],
  },
  sizes: {
    Standard_B2s: amd64(2, 4, { acceleratedNetworking: false }),
    Standard_D2s_v3: amd64(2, 8),
    Standard_D4s_v3: amd64(4, 16),
    Standard_D8s_v3: amd64(8, 32),
    Standard_D16s_v3: amd64(16, 64),
    Standard_D4s_v5: amd64(4, 16),
    Standard_D8s_v5: amd64(8, 32),
    Standard_D4ds_v5: amd64(4, 16),
    Standard_E4s_v3: amd64(4, 32),
    Standard_E8s_v5: amd64(8, 64),
    Standard_E16s_v5: amd64(16, 128),
    "Standard_E8-4s_v5": amd64(4, 64),
    Standard_D4ps_v5: { ...amd64(4, 16), arch: "arm64" },
    Standard_NC4as_T4_v3: amd64(4, 28, { notIn: ["3"] }),
  },
};

/** The size of a Machine's instance; one the cloud does not have never gets this far (launchProblem). */
export function instanceType(spec: PlatformSpec, name: string): InstanceType {
  const known = Object.keys(spec.catalog.sizes).find((s) => s.toLowerCase() === name.toLowerCase());
  return known ? spec.catalog.sizes[known] : amd64(4, 16);
}

export const PLATFORMS: Record<PlatformName, PlatformSpec> = {
  aws: {
    type: "AWS",
    providerKind: "AWSMachineProviderConfig",
    region: "us-east-2",
    zones: ["a", "b", "c"],
    zoneName: (region, zone) => `${region}${zone}`,
    machineSetName: (infraId, role, region, zone) => `${infraId}-${role}-${region}${zone}`,
    workerInstanceType: "m6i.xlarge",
    masterInstanceType: "m6i.2xlarge",
    credentialsSecret: "aws-cloud-credentials",
    catalog: AWS_CATALOG,
    launchProblem: (machine, spec) => awsLaunchProblem(AWS_CATALOG, machine, spec),
    placement: (spec) => ({
      region: field<string>(spec, "placement", "region") ?? "us-east-2",
      zone: field<string>(spec, "placement", "availabilityZone") ?? "us-east-2a",
      instanceType: field<string>(spec, "instanceType") ?? "m6i.xlarge",
    }),
    nodeName: (_machine, placement, ip) =>
      `ip-${ip.replaceAll(".", "-")}.${placement.region === "us-east-1" ? "ec2.internal" : `${placement.region}.compute.internal`}`,
    providerId: (machine, placement) => `aws:///${placement.zone}/i-0${hexHash(`instance/${machine}`, 16)}`,
    subnetBase: (zoneIndex) => 128 + 16 * zoneIndex,
  },
  azure: {
    type: "Azure",
    providerKind: "AzureMachineProviderSpec",
    region: "centralus",
    zones: ["1", "2", "3"],
    zoneName: (region, zone) => `${region}-${zone}`,
    machineSetName: (infraId, role, region, zone) => `${infraId}-${role}-${region}${zone}`,
    workerInstanceType: "Standard_D4s_v3",
    masterInstanceType: "Standard_D8s_v3",
    credentialsSecret: "azure-cloud-credentials",
    catalog: AZURE_CATALOG,
    launchProblem: (machine, spec) => azureLaunchProblem(AZURE_CATALOG, machine, spec),
    placement: (spec) => {
      const region = field<string>(spec, "location") ?? "centralus";
      const zone = field<string>(spec, "zone");
      return {
        region,
        zone: zone ? `${region}-${zone}` : "0",
        instanceType: field<string>(spec, "vmSize") ?? "Standard_D4s_v3",
      };
    },
    // Azure VMs register under the Machine's name.
    nodeName: (machine) => machine,
    providerId: (machine, _placement, infraId) =>
      `azure:///subscriptions/${AZURE_SUBSCRIPTION}/resourceGroups/${infraId}-rg/providers/Microsoft.Compute/virtualMachines/${machine}`,
    subnetBase: (zoneIndex) => 1 + zoneIndex,
  },
};

/**
 * A private IP in the zone's subnet, derived from the machine name, skipping addresses in use, so names
 * are the same on every run.
 */
export function machineIp(
  spec: PlatformSpec,
  machine: string,
  zoneIndex: number,
  used: (ip: string) => boolean,
): string {
  for (let i = 0; ; i++) {
    const h = parseInt(hexHash(`ip/${machine}/${i}`, 8), 16);
    const ip = `10.0.${spec.subnetBase(zoneIndex) + (h % 16)}.${((h >>> 8) % 250) + 4}`;
    if (!used(ip)) return ip;
  }
}
