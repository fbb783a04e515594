import * as pulumi from "@pulumi/pulumi";
import { InfraNodePool, MachineConfig } from "../../index";

const config = new pulumi.Config();
const pools = config.requireNumber("pools");
// bench:eval also measures the components without their waiters.
const wait = config.getBoolean("wait") ?? true;
// bench:eval also previews the first pool moving the router, registry and monitoring onto its nodes.
const placement = config.getBoolean("placement") ?? false;
// Cluster facts and image given, so the evaluation measures the program itself, not fixture reads.
const cluster = { infrastructureId: "cluster-zbwlg-cbgq7", platform: "aws" as const, region: "us-east-2" };

for (let i = 0; i < pools; i++) {
  const pool = new InfraNodePool(`pool${i}`, {
    ...cluster,
    role: `pool${i}`,
    zones: ["us-east-2a", "us-east-2b", "us-east-2c"],
    replicas: 3,
    image: "ami-0c4d1f6a9e2b37c85",
    aws: { instanceType: "m6i.xlarge" },
    wait,
    ...(placement && i === 0 ? { router: true, registry: true, monitoring: true } : {}),
  });
  new MachineConfig(`99-pool${i}-chrony`, {
    role: pool.role,
    files: [{ path: "/etc/chrony.conf", contents: { text: `pool 169.254.169.123 iburst # ${i}\n` } }],
    wait,
  });
}
