import * as pulumi from "@pulumi/pulumi";
import { Refusal, ZoneSpec } from "../../../builders/machineset";
import { isAwsInstanceTypeName } from "../../../builders/machineset/aws-instance-types";
import { AWSResourceReference } from "../../../builders/machineset/provider-spec";
import { inputPropertyError } from "../../errors";
import { cloudModule } from "../cloud-sdk";

// Each data source from its own module, loaded when a lookup runs: @pulumi/aws is an optional peer
// dependency, and its index loads some 300 modules (which Pulumi's closure serializer then scans).
const ec2 = () =>
  cloudModule("@pulumi/aws", "cloudLookups", () => ({
    ...(require("@pulumi/aws/ec2/getInstanceTypeOfferings") as typeof import("@pulumi/aws/ec2/getInstanceTypeOfferings")),
    ...(require("@pulumi/aws/ec2/getSecurityGroups") as typeof import("@pulumi/aws/ec2/getSecurityGroups")),
    ...(require("@pulumi/aws/ec2/getSubnet") as typeof import("@pulumi/aws/ec2/getSubnet")),
    ...(require("@pulumi/aws/ec2/getSubnets") as typeof import("@pulumi/aws/ec2/getSubnets")),
    ...(require("@pulumi/aws/getAvailabilityZones") as typeof import("@pulumi/aws/getAvailabilityZones")),
  }));

/**
 * AWS lookups for pools whose zones, subnets or security groups are not spelled out. Explicit values
 * always win; an explicit id is checked to exist; a lookup that finds nothing is an input error that
 * says what was searched for.
 */

type InvokeParent = { parent?: pulumi.Resource };

/** The region's availability zones (not local or wavelength zones), sorted, at most `count`. */
export async function awsZones(region: string, count: number, opts: InvokeParent): Promise<string[]> {
  const result = await ec2().getAvailabilityZones(
    { state: "available", filters: [{ name: "zone-type", values: ["availability-zone"] }] },
    opts,
  );
  const zones = [...result.names].filter((z) => z.startsWith(region)).sort();
  if (zones.length === 0)
    throw inputPropertyError("zones", `no available zone found in AWS region ${region}`);
  return zones.slice(0, count);
}

/**
 * The zones of a pool EC2 does not have in the region (DescribeAvailabilityZones with every zone, Local
 * and Wavelength Zones among them), asked in the cluster's region whatever the provider's.
 */
export async function awsZoneProblems(
  region: string,
  zones: readonly ZoneSpec[],
  opts: InvokeParent,
): Promise<Refusal[]> {
  const all = await ec2().getAvailabilityZones({ allAvailabilityZones: true, region }, opts);
  const known = [...all.names].filter((z) => z.startsWith(region)).sort();
  return zones.flatMap(({ zone }, i) =>
    known.includes(zone)
      ? []
      : [
          {
            path: `zones[${i}]`,
            reason: `${JSON.stringify(zone)} is not a zone of AWS region ${region}: its zones are ${known.join(", ")} (aws ec2 describe-availability-zones --region ${region} --all-availability-zones)`,
          },
        ],
  );
}

/**
 * Where EC2 does not offer the pool's instance type: in the region at all, or in one of its zones
 * (DescribeInstanceTypeOfferings by availability zone). A type of the wrong shape is the preview's to
 * report, not asked about.
 */
export async function awsSizeProblems(
  region: string,
  zones: readonly ZoneSpec[],
  instanceType: string,
  opts: InvokeParent,
): Promise<Refusal[]> {
  if (!isAwsInstanceTypeName(instanceType)) return [];
  const offerings = await ec2().getInstanceTypeOfferings(
    {
      locationType: "availability-zone",
      filters: [{ name: "instance-type", values: [instanceType] }],
      region,
    },
    opts,
  );
  const offered = [...offerings.locations].filter((z) => z.startsWith(region)).sort();
  if (offered.length === 0) {
    return [
      {
        path: "aws.instanceType",
        reason: `${JSON.stringify(instanceType)} is not offered in AWS region ${region} ("aws ec2 describe-instance-type-offerings --region ${region} --location-type availability-zone --filters Name=instance-type,Values=${instanceType}" finds none)`,
      },
    ];
  }
  return zones.flatMap(({ zone }, i) =>
    offered.includes(zone)
      ? []
      : [
          {
            path: `zones[${i}]`,
            reason: `instance type ${instanceType} is not offered in ${zone}: choose among ${offered.join(", ")}, or another instance type`,
          },
        ],
  );
}

/** The cluster's private subnet in `zone`, found by the installer's tags, or the given id checked. */
export async function awsSubnet(
  path: string,
  infrastructureId: string,
  zone: string,
  given: string | AWSResourceReference | undefined,
  opts: InvokeParent,
): Promise<AWSResourceReference> {
  if (given && typeof given !== "string") return given;
  const { getSubnet, getSubnets } = ec2();
  if (given) {
    const subnet = await getSubnet({ id: given }, opts).catch((e: Error) => {
      throw inputPropertyError(path, `subnet ${given} could not be found: ${e.message}`);
    });
    if (subnet.availabilityZone !== zone) {
      throw inputPropertyError(path, `subnet ${given} is in ${subnet.availabilityZone}, not in ${zone}`);
    }
    return { id: given };
  }
  const found = await getSubnets(
    {
      filters: [
        { name: "availability-zone", values: [zone] },
        { name: `tag:kubernetes.io/cluster/${infrastructureId}`, values: ["owned", "shared"] },
        { name: "tag:Name", values: [`*private*`] },
      ],
    },
    opts,
  );
  const ids = [...found.ids].sort();
  if (ids.length === 0) {
    throw inputPropertyError(
      path,
      `no private subnet tagged kubernetes.io/cluster/${infrastructureId} found in ${zone}; give its id`,
    );
  }
  return { id: ids[0] };
}

/** The worker security groups (installer tags `<infraID>-worker-sg`, or `-node` and `-lb` since 4.16). */
export async function awsSecurityGroups(
  path: string,
  infrastructureId: string,
  given: ReadonlyArray<string | AWSResourceReference> | undefined,
  opts: InvokeParent,
): Promise<AWSResourceReference[]> {
  const { getSecurityGroups } = ec2();
  if (given) {
    const ids = given.filter((g): g is string => typeof g === "string");
    if (ids.length > 0) {
      const found = await getSecurityGroups({ filters: [{ name: "group-id", values: ids }] }, opts);
      const missing = ids.filter((id) => !found.ids.includes(id));
      if (missing.length > 0)
        throw inputPropertyError(path, `security groups not found: ${missing.join(", ")}`);
    }
    return given.map((g) => (typeof g === "string" ? { id: g } : g));
  }
  const found = await getSecurityGroups(
    {
      filters: [
        {
          name: "tag:Name",
          values: [`${infrastructureId}-worker-sg`, `${infrastructureId}-node`, `${infrastructureId}-lb`],
        },
      ],
    },
    opts,
  );
  if (found.ids.length === 0) {
    throw inputPropertyError(
      path,
      `no security group tagged Name=${infrastructureId}-worker-sg, -node or -lb found`,
    );
  }
  return [...found.ids].sort().map((id) => ({ id }));
}
