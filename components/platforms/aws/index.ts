import * as pulumi from "@pulumi/pulumi";
import { AWS_DEFAULTS, AwsMachineOptions } from "../../../builders/machineset";
import { inputPropertyError } from "../../errors";
import { CloudPlatform } from "../platform";
import { awsSecurityGroups, awsSizeProblems, awsSubnet, awsZoneProblems, awsZones } from "./lookups";
import { awsWindowsAmi } from "./windows-image";

/** AWS: the region is on the Infrastructure object; zones, subnets and security groups can be looked up. */
export const AWS_CLOUD: CloudPlatform<Omit<AwsMachineOptions, "ami">> = {
  region(status) {
    const region = (status.platformStatus?.aws as { region?: string } | undefined)?.region;
    if (!region)
      throw inputPropertyError("region", "not given and the Infrastructure object has no AWS region");
    return pulumi.output(region);
  },
  async zonesWhenNotGiven(region, lookups, invoke) {
    if (lookups) return (await awsZones(region, 3, invoke)).map((zone) => ({ zone }));
    throw inputPropertyError(
      "zones",
      "required: list the zones (e.g. us-east-2a, us-east-2b, us-east-2c) or set cloudLookups to use the region's first three",
    );
  },
  zoneProblems: awsZoneProblems,
  sizeProblems: (region, zones, options, invoke) =>
    awsSizeProblems(region, zones, options.instanceType ?? AWS_DEFAULTS.instanceType, invoke),
  async lookUp(infrastructureId, zones, options, invoke) {
    const [placed, securityGroups] = await Promise.all([
      Promise.all(
        zones.map(async (z, i) => ({
          ...z,
          subnet: await awsSubnet(`zones[${i}].subnet`, infrastructureId, z.zone, z.subnet, invoke),
        })),
      ),
      awsSecurityGroups("aws.securityGroups", infrastructureId, options.securityGroups, invoke),
    ]);
    return { zones: placed, options: { ...options, securityGroups } };
  },
  windowsImage: (version, invoke) => awsWindowsAmi(version, invoke),
};
