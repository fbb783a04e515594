import * as pulumi from "@pulumi/pulumi";
import { WindowsServerVersion } from "../../../builders/windows";
import { inputPropertyError } from "../../errors";
import { cloudModule } from "../cloud-sdk";

/** Amazon's Windows Server images with a container runtime, by version (newest image of the pattern). */
export const AWS_WINDOWS_AMI_NAMES: Record<WindowsServerVersion, string> = {
  "2019": "Windows_Server-2019-English-Full-ContainersLatest-*",
  "2022": "Windows_Server-2022-English-Full-ContainersLatest-*",
  "2025": "Windows_Server-2025-English-Full-ContainersLatest-*",
};

/** The newest Amazon-owned Windows Server AMI with containers for `version`. */
export async function awsWindowsAmi(
  version: WindowsServerVersion,
  opts: { parent?: pulumi.Resource },
): Promise<string> {
  const pattern = AWS_WINDOWS_AMI_NAMES[version];
  const { getAmi } = cloudModule(
    "@pulumi/aws",
    "image",
    () => require("@pulumi/aws/ec2/getAmi") as typeof import("@pulumi/aws/ec2/getAmi"),
    `a Windows Server ${version} AMI id of the cluster's region`,
  );
  const ami = await getAmi(
    {
      owners: ["amazon"],
      mostRecent: true,
      filters: [
        { name: "name", values: [pattern] },
        { name: "architecture", values: ["x86_64"] },
      ],
    },
    opts,
  ).catch((e: Error) => {
    throw inputPropertyError(
      "image",
      `no Windows Server ${version} AMI named ${pattern} was found: ${e.message}`,
    );
  });
  return ami.id;
}
