import { InputError } from "../errors";
import { requireNonEmptyString, requireOneOf, requirePositiveInteger } from "../validation";
import {
  AWSBlockDevice,
  AWSMachineProviderConfig,
  AWSResourceReference,
  SecretReference,
} from "./provider-spec";
import { AwsPlacementOptions, withAwsPlacementOptions } from "./aws-options";

/** What a user may set on AWS machines; everything else follows the installer's conventions. */
export interface AwsMachineOptions extends AwsPlacementOptions {
  /** The RHCOS (or Windows) AMI id. */
  ami: string;
  instanceType?: string;
  blockDevices?: AWSBlockDevice[];
  /** Instance profile name; default `<infraID>-worker-profile`. */
  iamInstanceProfile?: string;
  /** Security group ids (`sg-...`) or references; default the installer's `<infraID>-worker-sg` tag filter. */
  securityGroups?: Array<string | AWSResourceReference>;
  /** Extra tags; the cluster ownership tag is always present. */
  tags?: Record<string, string>;
  credentialsSecret?: SecretReference;
  userDataSecret?: SecretReference;
  metadataServiceOptions?: { authentication?: "Required" | "Optional" };
  publicIp?: boolean;
  /** `machine.openshift.io/v1beta1` today; `awsproviderconfig.openshift.io/v1beta1` in 4.6-era docs. */
  providerApiVersion?: string;
}

export interface AwsZonePlacement {
  infrastructureId: string;
  region: string;
  zone: string;
  /** Subnet id (`subnet-...`) or reference; default the installer's `<infraID>-private-<zone>` tag filter. */
  subnet?: string | AWSResourceReference;
}

export const AWS_DEFAULTS = {
  instanceType: "m6i.xlarge",
  blockDevices: [
    { ebs: { encrypted: true, iops: 0, volumeSize: 120, volumeType: "gp3" } },
  ] as AWSBlockDevice[],
  credentialsSecret: { name: "aws-cloud-credentials" },
  userDataSecret: { name: "worker-user-data" },
  providerApiVersion: "machine.openshift.io/v1beta1",
} as const;

const VOLUME_TYPES = ["gp2", "gp3", "io1", "io2", "st1", "sc1", "standard"] as const;

function tagName(value: string): AWSResourceReference {
  return { filters: [{ name: "tag:Name", values: [value] }] };
}

function reference(
  path: string,
  value: string | AWSResourceReference,
  idPrefix: string,
): AWSResourceReference {
  if (typeof value === "string") {
    if (!value.startsWith(idPrefix)) {
      throw new InputError(
        path,
        `${JSON.stringify(value)} is not an id starting with "${idPrefix}"; pass { filters } to select by tag`,
      );
    }
    return { id: value };
  }
  if (!value.id && !value.arn && !(value.filters && value.filters.length > 0)) {
    throw new InputError(path, "a resource reference needs an id, an arn or at least one filter");
  }
  return value;
}

function blockDevices(path: string, devices: readonly AWSBlockDevice[]): AWSBlockDevice[] {
  if (devices.length === 0)
    throw new InputError(path, "at least one block device (the root volume) is required");
  devices.forEach((d, i) => {
    requirePositiveInteger(`${path}[${i}].ebs.volumeSize`, d.ebs?.volumeSize);
    requireOneOf(`${path}[${i}].ebs.volumeType`, d.ebs.volumeType, VOLUME_TYPES);
  });
  return devices.map((d) => ({ ...d, ebs: { ...d.ebs } }));
}

/** An AWSMachineProviderConfig for one zone, keys in the order the machine-api serializes them. */
export function awsProviderSpec(
  options: AwsMachineOptions,
  placement: AwsZonePlacement,
): AWSMachineProviderConfig {
  const infraId = placement.infrastructureId;
  const tags = [
    { name: `kubernetes.io/cluster/${infraId}`, value: "owned" },
    ...Object.entries(options.tags ?? {})
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, value]) => ({ name, value })),
  ];
  return withAwsPlacementOptions(
    {
      ami: { id: requireNonEmptyString("ami", options.ami) },
      apiVersion: options.providerApiVersion ?? AWS_DEFAULTS.providerApiVersion,
      blockDevices: blockDevices("blockDevices", options.blockDevices ?? AWS_DEFAULTS.blockDevices),
      credentialsSecret: options.credentialsSecret ?? { ...AWS_DEFAULTS.credentialsSecret },
      deviceIndex: 0,
      iamInstanceProfile: { id: options.iamInstanceProfile ?? `${infraId}-worker-profile` },
      instanceType: requireNonEmptyString("instanceType", options.instanceType ?? AWS_DEFAULTS.instanceType),
      kind: "AWSMachineProviderConfig",
      ...(options.metadataServiceOptions ? { metadataServiceOptions: options.metadataServiceOptions } : {}),
      placement: { availabilityZone: placement.zone, region: placement.region },
      ...(options.publicIp !== undefined ? { publicIp: options.publicIp } : {}),
      securityGroups: options.securityGroups
        ? options.securityGroups.map((sg, i) => reference(`securityGroups[${i}]`, sg, "sg-"))
        : [tagName(`${infraId}-worker-sg`)],
      subnet: placement.subnet
        ? reference("subnet", placement.subnet, "subnet-")
        : tagName(`${infraId}-private-${placement.zone}`),
      tags,
      userDataSecret: options.userDataSecret ?? { ...AWS_DEFAULTS.userDataSecret },
    },
    options,
  );
}
