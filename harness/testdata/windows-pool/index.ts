import * as pulumi from "@pulumi/pulumi";
import { WindowsNodePool } from "../../../index";

const config = new pulumi.Config();
const adopt = config.getBoolean("adopt");
// Tests run the simulator fast; a wait that has not converged in a minute never will.
const waitTimeouts = { create: "60s", update: "60s", delete: "60s" };

const windows = new WindowsNodePool("windows", {
  zones: ["us-east-2a"],
  replicas: config.getNumber("replicas") ?? 1,
  image: "ami-0a2b3c4d5e6f70812",
  aws: { instanceType: config.get("instanceType") ?? "m5a.large" },
  // A new instance type reaches the running machines only through a replacement.
  machineReplacement: config.getBoolean("replace") ? { strategy: "rolling", maxSurge: "50%" } : undefined,
  healthCheck: config.getBoolean("healthCheck"),
  // Adopting what seed 002 made by hand: WMCO as the seed subscribes it, the key it was given.
  adopt,
  privateKey: config.getSecret("privateKey"),
  operator: adopt
    ? undefined
    : { installPlanApproval: "Manual", startingCSV: "windows-machine-config-operator.v10.16.1" },
  waitTimeouts,
});
export const configuredNodes = windows.configuredNodes;
export const installedCSV = windows.operator!.installedCSV;
