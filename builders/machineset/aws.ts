import { collectErrors, InputError } from "../errors";
import { AWS_EBS_FIELDS } from "../generated/enums";
import {
  requireInteger,
  requireNonEmptyString,
  requireNonNegativeInteger,
  requireOneOf,
} from "../validation";
import {
  AWSBlockDevice,
  AWSMachineProviderConfig,
  AWSResourceReference,
  SecretReference,
} from "./provider-spec";
import { AwsPlacementOptions, checkAwsPlacementOptions, withAwsPlacementOptions } from "./aws-options";
import { requireAwsInstanceType } from "./aws-instance-types";
import { checkAwsZone } from "./aws-zones";
import { admitted } from "./admission";
import { describeSources, MachineSetPlatformModule, WorkerMachineSet } from "./platform";

/** What a user may set on AWS machines; everything else follows the installer's conventions. */
export interface AwsMachineOptions extends AwsPlacementOptions {
  /** The RHCOS (or Windows) AMI id. */
  ami: string;
  instanceType?: string;
  blockDevices?: AWSBlockDevice[];
  /** Instance profile name; default the worker MachineSet's, else `<infraID>-worker-profile`. */
  iamInstanceProfile?: string;
  /**
   * Security group ids (`sg-...`) or references; default the worker MachineSet's, else the installer's
   * tag names (`<infraID>-node` and `<infraID>-lb`, or `<infraID>-worker-sg` on older clusters).
   */
  securityGroups?: Array<string | AWSResourceReference>;
  /** Extra tags, beside the worker MachineSet's; the cluster ownership tag is always present and not theirs to set. */
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
  /**
   * Subnet id (`subnet-...`) or reference; default the worker MachineSet's of the zone, else the
   * installer's tag name `<infraID>-subnet-private-<zone>` (`<infraID>-private-<zone>` on older clusters).
   */
  subnet?: string | AWSResourceReference;
  worker?: WorkerMachineSet;
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

/**
 * metadataServiceOptions.authentication as machine-api's webhook accepts it. openshift/api declares the
 * values with a kubebuilder marker that its generated OpenAPI (../shared/crds) does not carry, so they
 * are listed here.
 */
export const METADATA_SERVICE_AUTHENTICATIONS = ["Optional", "Required"] as const;

function metadataServiceOptions(
  path: string,
  value: NonNullable<AwsMachineOptions["metadataServiceOptions"]>,
): NonNullable<AwsMachineOptions["metadataServiceOptions"]> {
  if (typeof value !== "object" || value === null) {
    throw new InputError(
      path,
      `must be { authentication: "Optional" | "Required" }, got ${JSON.stringify(value)}`,
    );
  }
  for (const key of Object.keys(value)) {
    if (key !== "authentication")
      throw new InputError(`${path}.${key}`, "is not a setting: use authentication");
  }
  if (value.authentication !== undefined) {
    requireOneOf(`${path}.authentication`, value.authentication, METADATA_SERVICE_AUTHENTICATIONS);
  }
  return { ...value };
}

/** An AMI id as EC2 issues them: `ami-` and 8 or 17 hexadecimal digits. */
export function requireAmiId(path: string, value: unknown): string {
  if (typeof value !== "string" || !/^ami-([0-9a-f]{8}|[0-9a-f]{17})$/.test(value)) {
    throw new InputError(
      path,
      `${JSON.stringify(value)} is not an AMI id: use the id ("ami-" and 17 hexadecimal digits, e.g. "ami-0123456789abcdef0"), not the image name; "aws ec2 describe-images --filters Name=name,Values=<name>" finds it`,
    );
  }
  return value;
}

function tagName(...values: string[]): AWSResourceReference {
  return { filters: [{ name: "tag:Name", values }] };
}

type Tag = { name: string; value: string };

/** The installer's cluster ownership tag, which the cloud provider and the machine-api find the cluster's resources by. */
function ownershipTag(infraId: string): Tag {
  return { name: `kubernetes.io/cluster/${infraId}`, value: "owned" };
}

/** Each network reference of a zone's machines, and where it comes from (for the preview). */
interface AwsNetwork {
  subnet: { value: AWSResourceReference; source: string };
  securityGroups: { value: AWSResourceReference[]; source: string };
  iamInstanceProfile: { value: AWSResourceReference; source: string };
  tags: { value: Tag[]; source: string };
}

function isReference(value: unknown): value is AWSResourceReference {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const ref = value as AWSResourceReference;
  return typeof ref.id === "string" || typeof ref.arn === "string" || Array.isArray(ref.filters);
}

/**
 * The network references a zone's machines take when the user gives none. From the worker MachineSet
 * when one was read (its subnet when it is of the same zone, or its subnet tag name moved to this
 * zone); otherwise by the installer's tag names, the current ones (openshift/installer
 * pkg/asset/machines/aws/machines.go, provider: `<infraID>-node`, `<infraID>-lb`,
 * `<infraID>-subnet-private-<zone>`) beside the Terraform-era ones (`<infraID>-worker-sg`,
 * `<infraID>-private-<zone>`), as hive's awsactuator updateProviderConfig lists both: the provider
 * skips a reference that matches nothing.
 */
function awsNetwork(infraId: string, zone: string, worker: WorkerMachineSet | undefined): AwsNetwork {
  const spec = worker?.providerSpec ?? {};
  const from = worker && `worker MachineSet ${worker.name}`;
  const naming = "the installer's tag names";
  const subnetOf = (): AwsNetwork["subnet"] => {
    const subnet = spec.subnet;
    if (from && isReference(subnet) && worker!.zone === zone) return { value: subnet, source: from };
    // A tag name ending in the worker's zone names the same subnet in this zone.
    const suffix = `-${worker?.zone}`;
    const moved =
      isReference(subnet) && subnet.filters?.length
        ? subnet.filters.every((f) => f.values.every((v) => v.endsWith(suffix)))
        : false;
    if (from && moved && worker!.zone !== "") {
      return {
        value: {
          filters: (subnet as AWSResourceReference).filters!.map((f) => ({
            name: f.name,
            values: f.values.map((v) => `${v.slice(0, -suffix.length)}-${zone}`),
          })),
        },
        source: `${from}'s subnet tag name for ${zone}`,
      };
    }
    return {
      value: tagName(`${infraId}-subnet-private-${zone}`, `${infraId}-private-${zone}`),
      source: `${naming} ${infraId}-subnet-private-${zone} (older clusters: ${infraId}-private-${zone})`,
    };
  };
  const groups = spec.securityGroups;
  const profile = spec.iamInstanceProfile;
  const tags = spec.tags;
  return {
    subnet: subnetOf(),
    securityGroups:
      from && Array.isArray(groups) && groups.length > 0 && groups.every(isReference)
        ? { value: groups, source: from }
        : {
            value: [tagName(`${infraId}-node`), tagName(`${infraId}-lb`), tagName(`${infraId}-worker-sg`)],
            source: `${naming} ${infraId}-node and ${infraId}-lb (older clusters: ${infraId}-worker-sg)`,
          },
    iamInstanceProfile:
      from && isReference(profile)
        ? { value: profile, source: from }
        : { value: { id: `${infraId}-worker-profile` }, source: `${naming} ${infraId}-worker-profile` },
    tags:
      from && Array.isArray(tags)
        ? {
            value: tags.filter((t): t is Tag => typeof t?.name === "string" && typeof t?.value === "string"),
            source: from,
          }
        : { value: [], source: naming },
  };
}

/** The tags of a machine: the ownership tag first, then the worker's and the user's (theirs win), by name. */
function machineTags(infraId: string, inherited: readonly Tag[], user: Record<string, string>): Tag[] {
  const owner = ownershipTag(infraId);
  const merged = new Map<string, string>();
  for (const t of inherited) if (t.name !== owner.name) merged.set(t.name, t.value);
  // The user's ownership tag is kept, so that admission names it (it would replace the installer's).
  for (const [name, value] of Object.entries(user)) merged.set(name, value);
  return [
    owner,
    ...[...merged.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, value]) => ({ name, value })),
  ];
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

/** EBS volume sizes in GiB per volume type, as EC2 accepts them. */
const VOLUME_SIZES: Record<(typeof VOLUME_TYPES)[number], [number, number]> = {
  gp2: [1, 16384],
  gp3: [1, 16384],
  io1: [4, 16384],
  io2: [4, 65536],
  st1: [125, 16384],
  sc1: [125, 16384],
  standard: [1, 1024],
};

function blockDevice(at: string, d: AWSBlockDevice): void {
  const ebs = d.ebs ?? ({} as Partial<AWSBlockDevice["ebs"]>);
  collectErrors([
    () =>
      collectErrors(
        Object.keys(d)
          .filter((key) => key !== "deviceName" && key !== "ebs")
          .map((key) => () => {
            throw new InputError(`${at}.${key}`, "is not a block device setting: use deviceName and ebs");
          }),
      ),
    // machine-api ignores a field it does not know: a misspelt one would vanish without a word.
    () =>
      collectErrors(
        Object.keys(ebs)
          .filter((key) => !(AWS_EBS_FIELDS as readonly string[]).includes(key))
          .map((key) => () => {
            throw new InputError(
              `${at}.ebs.${key}`,
              `is not an EBS setting: use ${AWS_EBS_FIELDS.join(", ")}`,
            );
          }),
      ),
    () => {
      const type = requireOneOf(`${at}.ebs.volumeType`, ebs.volumeType, VOLUME_TYPES);
      const [min, max] = VOLUME_SIZES[type];
      collectErrors([
        () => requireInteger(`${at}.ebs.volumeSize`, ebs.volumeSize, min, max),
        () => {
          if ((type === "io1" || type === "io2") && !(typeof ebs.iops === "number" && ebs.iops >= 100)) {
            throw new InputError(
              `${at}.ebs.iops`,
              `is required for ${type} volumes: the provisioned IOPS, 100 or more, got ${JSON.stringify(ebs.iops)}`,
            );
          }
          // 0 leaves the IOPS to the volume type's default.
          if (ebs.iops !== undefined) requireNonNegativeInteger(`${at}.ebs.iops`, ebs.iops);
        },
        () =>
          ebs.throughputMib !== undefined &&
          requireInteger(`${at}.ebs.throughputMib`, ebs.throughputMib, 125, 2000),
      ]);
    },
  ]);
}

function blockDevices(path: string, devices: readonly AWSBlockDevice[]): AWSBlockDevice[] {
  if (devices.length === 0)
    throw new InputError(path, "at least one block device (the root volume) is required");
  collectErrors(devices.map((d, i) => () => blockDevice(`${path}[${i}]`, d)));
  return devices.map((d) => ({ ...d, ebs: { ...d.ebs } }));
}

/** An AWSMachineProviderConfig for one zone, keys in the order the machine-api serializes them. */
export function awsProviderSpec(
  options: AwsMachineOptions,
  placement: AwsZonePlacement,
): AWSMachineProviderConfig {
  const infraId = placement.infrastructureId;
  const network = awsNetwork(infraId, placement.zone, placement.worker);
  const tags = machineTags(infraId, network.tags.value, options.tags ?? {});
  // The type's spelling is reported with every other problem, admission's included, and stops none.
  const instanceType = options.instanceType ?? AWS_DEFAULTS.instanceType;
  const built = (): AWSMachineProviderConfig => {
    const [ami, devices, metadata, securityGroups, subnet] = collectErrors([
      () => requireNonEmptyString("ami", options.ami),
      () => blockDevices("blockDevices", options.blockDevices ?? AWS_DEFAULTS.blockDevices),
      () =>
        options.metadataServiceOptions &&
        metadataServiceOptions("metadataServiceOptions", options.metadataServiceOptions),
      () =>
        options.securityGroups
          ? collectErrors(
              options.securityGroups.map((sg, i) => () => reference(`securityGroups[${i}]`, sg, "sg-")),
            )
          : network.securityGroups.value,
      () => (placement.subnet ? reference("subnet", placement.subnet, "subnet-") : network.subnet.value),
      () => checkAwsPlacementOptions(options),
    ]);
    const spec = withAwsPlacementOptions(
      {
        ami: { id: ami },
        apiVersion: options.providerApiVersion ?? AWS_DEFAULTS.providerApiVersion,
        blockDevices: devices,
        credentialsSecret: options.credentialsSecret ?? { ...AWS_DEFAULTS.credentialsSecret },
        deviceIndex: 0,
        iamInstanceProfile: options.iamInstanceProfile
          ? { id: options.iamInstanceProfile }
          : network.iamInstanceProfile.value,
        instanceType,
        kind: "AWSMachineProviderConfig",
        ...(metadata ? { metadataServiceOptions: metadata } : {}),
        placement: { availabilityZone: placement.zone, region: placement.region },
        ...(options.publicIp !== undefined ? { publicIp: options.publicIp } : {}),
        securityGroups,
        subnet,
        tags,
        userDataSecret: options.userDataSecret ?? { ...AWS_DEFAULTS.userDataSecret },
      },
      options,
    );
    return admitted(spec);
  };
  return collectErrors([() => requireAwsInstanceType("instanceType", instanceType), built])[1];
}

/** AWS as the installer's aws MachineSet generator makes it: zones named after the region. */
export const AWS_PLATFORM: MachineSetPlatformModule<AwsMachineOptions> = {
  infrastructureType: "AWS",
  machineSetName: (infraId, role, _region, zone) => `${infraId}-${role}-${zone}`,
  checkZone: checkAwsZone,
  zonesWhenNoneListed(path) {
    throw new InputError(path, "at least one zone is required (production pools want three)");
  },
  withImage(path, image, options) {
    if (typeof image !== "string" || image === "") {
      throw new InputError(path, "on AWS the image is an AMI id such as ami-0123456789abcdef0");
    }
    return { ...options, ami: image };
  },
  imageOf: (spec) => (spec?.ami as { id?: string } | undefined)?.id,
  imageField: "ami.id",
  zoneOf: (spec) =>
    String((spec.placement as { availabilityZone?: string } | undefined)?.availabilityZone ?? ""),
  providerSpec: (options, placement) => awsProviderSpec(options, placement),
  networkFields: ["subnet", "securityGroups", "iamInstanceProfile", "tags"],
  networkSource(options, placement) {
    const network = awsNetwork(placement.infrastructureId, placement.zone, placement.worker);
    return describeSources([
      ["subnet", placement.subnet === undefined ? network.subnet.source : undefined],
      ["security groups", options.securityGroups === undefined ? network.securityGroups.source : undefined],
      [
        "IAM instance profile",
        options.iamInstanceProfile === undefined ? network.iamInstanceProfile.source : undefined,
      ],
      ["tags", placement.worker ? network.tags.source : undefined],
    ]);
  },
  windows: {
    defaultRole: "windows-worker",
    // A LocalObjectReference on AWS (openshift/api AWSMachineProviderConfig): the name alone.
    options: (options, userDataSecret) => ({ ...options, userDataSecret: { name: userDataSecret.name } }),
  },
};
