/**
 * What differs between the simulated clouds, as data: regions and zones, the installer's naming, how a
 * machine's placement and node name derive from its providerSpec, and instance sizes.
 */
import { Json, field } from "../../primitives/objects";
import { hexHash } from "../controllers/util";

export type PlatformName = "aws" | "azure";

export interface Placement {
  region: string;
  zone: string;
  instanceType: string;
}

export interface InstanceType {
  cpu: string;
  memory: string;
  arch: "amd64" | "arm64";
}

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
  /** Region, zone and size from a Machine's providerSpec.value. */
  placement(providerSpec: Json): Placement;
  /** Node name as the cloud's kubelet registers it. */
  nodeName(machineName: string, placement: Placement, ip: string): string;
  providerId(machineName: string, placement: Placement, infraId: string): string;
  /** Private subnet of a zone (third octet base), so node IPs look like the installer's VPC. */
  subnetBase(zoneIndex: number): number;
}

export const INSTANCE_TYPES: Record<string, InstanceType> = {
  "m6i.large": { cpu: "2", memory: "7981216Ki", arch: "amd64" },
  "m6i.xlarge": { cpu: "4", memory: "16106084Ki", arch: "amd64" },
  "m6i.2xlarge": { cpu: "8", memory: "32408172Ki", arch: "amd64" },
  "m5.xlarge": { cpu: "4", memory: "16106084Ki", arch: "amd64" },
  "m5a.large": { cpu: "2", memory: "7981216Ki", arch: "amd64" },
  "r5.xlarge": { cpu: "4", memory: "32408172Ki", arch: "amd64" },
  "m6g.xlarge": { cpu: "4", memory: "16106084Ki", arch: "arm64" },
  Standard_D2s_v3: { cpu: "2", memory: "8141484Ki", arch: "amd64" },
  Standard_D4s_v3: { cpu: "4", memory: "16372400Ki", arch: "amd64" },
  Standard_D8s_v3: { cpu: "8", memory: "32890520Ki", arch: "amd64" },
  Standard_E4s_v3: { cpu: "4", memory: "32890520Ki", arch: "amd64" },
};

export function instanceType(name: string): InstanceType {
  return INSTANCE_TYPES[name] ?? { cpu: "4", memory: "16106084Ki", arch: "amd64" };
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
      `azure:///subscriptions/53b8f551-f0fc-4bea-8cba-6d1fefd54c8a/resourceGroups/${infraId}-rg/providers/Microsoft.Compute/virtualMachines/${machine}`,
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
