import * as pulumi from "@pulumi/pulumi";
// In your own project: import { InfraNodePool, KubeletConfig, MachineConfig } from "@openshift-topology/pulumi";
import { InfraNodePool, KubeletConfig, MachineConfig } from "../../index";

const config = new pulumi.Config();
const zones = config.getObject<string[]>("zones") ?? ["us-east-2a", "us-east-2b", "us-east-2c"];

// Infrastructure ID, region and the RHCOS AMI are read from the cluster (Infrastructure `cluster` and the
// worker MachineSets), so nothing is copied by hand.
const infra = new InfraNodePool("infra", {
  zones,
  replicas: config.getNumber("infraReplicas") ?? 3,
  aws: { instanceType: config.get("infraInstanceType") ?? "m6i.2xlarge" },
  router: { replicas: 3 },
  registry: true,
  monitoring: { config: { prometheusK8s: { retention: "15d" } } },
});

// Time servers for the infra nodes only: the infra pool inherits every worker config and adds its own.
new MachineConfig("99-infra-chrony", {
  role: infra.role,
  files: [
    {
      path: "/etc/chrony.conf",
      mode: "0644",
      contents: {
        text: "pool 169.254.169.123 iburst\ndriftfile /var/lib/chrony/drift\nmakestep 1.0 3\nrtcsync\n",
      },
    },
  ],
});

new KubeletConfig("infra-kubelet", {
  pool: infra.role,
  kubeletConfig: { maxPods: 250 },
});

export const infraMachineSets = infra.machineSetNames;
export const infraPlacement = infra.placement;
