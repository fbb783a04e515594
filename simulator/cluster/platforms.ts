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

/** Sizes of an EC2 family by its ladder: vCPUs from the size (medium 1, large 2, xlarge 4, Nxlarge 4N). */
function ec2Family(
  family: string,
  gibPerCpu: number,
  ladder: string,
  more: Partial<CloudSize> = {},
): Record<string, CloudSize> {
  const cpus = (size: string) =>
    size === "medium" ? 1 : size === "large" ? 2 : 4 * Number(/^(\d*)xlarge$/.exec(size)?.[1] || 1);
  const sizes = ladder.split(" ");
  const largest = Math.max(...sizes.filter((s) => !s.startsWith("metal")).map(cpus));
  return Object.fromEntries(
    sizes.map((size) => {
      const cpu = size.startsWith("metal") ? largest : cpus(size);
      return [`${family}.${size}`, amd64(cpu, cpu * gibPerCpu, more)];
    }),
  );
}

const M5 = "large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge";
const M6 = `${M5} 32xlarge`;

/**
 * The simulated AWS: regions with the zones AWS lists for them (the library's table,
 * builders/machineset/aws-zones.ts, must agree: cloud.test.ts) and the instance types of the general
 * purpose, compute and memory families OpenShift documents for compute machines, each with the sizes
 * EC2 has (no m6i.3xlarge). Large and special types are not offered in every zone of a real region;
 * here g5 lacks us-east-2c, so that a pool there fails as EC2 makes it fail.
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
    ...ec2Family("m5", 4, `${M5} metal`),
    ...ec2Family("m5a", 4, M5),
    ...ec2Family("m6i", 4, `${M6} metal`),
    ...ec2Family("m6a", 4, `${M6} 48xlarge metal`),
    ...ec2Family("m7i", 4, `${M6} 48xlarge metal-24xl metal-48xl`),
    ...ec2Family("c5", 2, "large xlarge 2xlarge 4xlarge 9xlarge 12xlarge 18xlarge 24xlarge metal"),
    ...ec2Family("c6i", 2, `${M6} metal`),
    ...ec2Family("r5", 8, `${M5} metal`),
    ...ec2Family("r6i", 8, `${M6} metal`),
    ...ec2Family("m6g", 4, "medium large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge metal", {
      arch: "arm64",
    }),
    ...ec2Family("m7g", 4, "medium large xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge metal", {
      arch: "arm64",
    }),
    ...ec2Family("g5", 4, "xlarge 2xlarge 4xlarge 8xlarge 12xlarge 16xlarge 24xlarge 48xlarge", {
      notIn: ["us-east-2c"],
    }),
  },
};

/** Sizes of an Azure series: `Standard_<family><vCPUs><features>_<version>` for each vCPU count. */
function azureSeries(
  pattern: string,
  gibPerCpu: number,
  cpus: readonly number[],
  more: Partial<CloudSize> = {},
): Record<string, CloudSize> {
  return Object.fromEntries(
    cpus.map((cpu) => [`Standard_${pattern.replace("#", String(cpu))}`, amd64(cpu, cpu * gibPerCpu, more)]),
  );
}

const V3 = [2, 4, 8, 16, 32, 48, 64];
const V5 = [2, 4, 8, 16, 32, 48, 64, 96];

/**
 * The simulated Azure: regions with zones 1 to 3 and some without (the library's table,
 * builders/machineset/azure-regions.ts, must agree), and the D, E and F series the installer and
 * OpenShift's docs use, with their vCPU counts (no Standard_D12s_v3), constrained and Arm sizes among
 * them. B-series sizes cannot use accelerated networking; the T4 GPU size lacks zone 3.
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
    ...azureSeries("D#s_v3", 4, V3),
    ...azureSeries("D#s_v5", 4, V5),
    ...azureSeries("D#ds_v5", 4, V5),
    ...azureSeries("D#as_v5", 4, V5),
    ...azureSeries("E#s_v3", 8, V3),
    ...azureSeries("E#s_v5", 8, V5),
    ...azureSeries("E#ds_v5", 8, V5),
    ...azureSeries("F#s_v2", 2, [2, 4, 8, 16, 32, 48, 64, 72]),
    ...azureSeries("D#ps_v5", 4, [2, 4, 8, 16, 32, 48, 64], { arch: "arm64" }),
    ...azureSeries("B#s", 2, [1, 2], { acceleratedNetworking: false }),
    ...azureSeries("B#ms", 4, [2, 4, 8], { acceleratedNetworking: false }),
    "Standard_E8-4s_v5": amd64(4, 64),
    "Standard_E16-8s_v5": amd64(8, 128),
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
