import type { MachineSetPoolSpec } from "../builders/machineset";

/** A two-zone infra pool on each cloud, as the builders' tests take it. */
export const AWS_POOL: Extract<MachineSetPoolSpec, { platform: "aws" }> = {
  platform: "aws",
  infrastructureId: "c",
  region: "us-east-2",
  role: "infra",
  zones: ["us-east-2a", "us-east-2b"],
  replicas: 2,
  aws: { ami: "ami-01af87a6ecc18023d" },
};

export const AZURE_POOL: Extract<MachineSetPoolSpec, { platform: "azure" }> = {
  platform: "azure",
  infrastructureId: "c",
  region: "centralus",
  role: "infra",
  zones: ["1", "2"],
  replicas: 2,
  azure: { image: { resourceID: "/resourceGroups/c-rg/providers/Microsoft.Compute/images/c" } },
};
