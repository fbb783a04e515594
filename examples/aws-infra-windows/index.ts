import * as pulumi from "@pulumi/pulumi";
// In your own project: import { builders, INFRA_TAINTS, InfraNodePool, ... } from "@openshift-topology/pulumi";
import {
  builders,
  INFRA_TAINTS,
  InfraNodePool,
  KubeletConfig,
  MachineConfig,
  WindowsNodePool,
} from "../../index";

const config = new pulumi.Config();
const zones = config.getObject<string[]>("zones") ?? ["us-east-2a", "us-east-2b", "us-east-2c"];
// A cluster where what this program declares exists already, in whole or in part (`pulumi config set
// adopt true`): made by hand, or by this stack before its state was lost. The first up imports those
// objects that exist instead of failing on them, and creates the others; the Windows pool keeps the key
// WMCO has.
const adopt = config.getBoolean("adopt");

// Infrastructure ID, region and the RHCOS AMI are read from the cluster (Infrastructure `cluster` and the
// worker MachineSets), so nothing is copied by hand.
const infra = new InfraNodePool("infra", {
  zones,
  replicas: config.getNumber("infraReplicas") ?? 3,
  aws: { instanceType: config.get("infraInstanceType") ?? "m6i.2xlarge" },
  // `pulumi config set replaceMachines true`: a changed instance type replaces the running machines, one
  // new machine first per zone, instead of reaching only machines made later.
  machineReplacement: config.getBoolean("replaceMachines") ? { strategy: "rolling" } : undefined,
  // More node labels and taints (`pulumi config set --path 'infraNodeLabels.team' logging`) reach the
  // running nodes without replacing, draining or rebooting them. `taints` replaces the infra taints, so
  // they are spread in with the config's.
  nodeLabels: config.getObject<Record<string, string>>("infraNodeLabels"),
  taints: [...INFRA_TAINTS, ...(config.getObject<builders.Taint[]>("infraTaints") ?? [])],
  router: { replicas: 3 },
  registry: true,
  monitoring: { config: { prometheusK8s: { retention: "15d" } } },
  adopt,
});

// Time servers for the infra nodes only: the infra pool inherits every worker config and adds its own.
// Changing `timeServer` (pulumi config set timeServer ...) rolls the new file out node by node.
const timeServer = config.get("timeServer") ?? "169.254.169.123";
new MachineConfig("99-infra-chrony", {
  role: infra.role,
  adopt,
  files: [
    {
      path: "/etc/chrony.conf",
      mode: "0644",
      contents: {
        text: `pool ${timeServer} iburst\ndriftfile /var/lib/chrony/drift\nmakestep 1.0 3\nrtcsync\n`,
      },
    },
  ],
});

new KubeletConfig("infra-kubelet", {
  pool: infra.role,
  kubeletConfig: { maxPods: 250 },
  adopt,
});

// Windows Server 2022 workers: WMCO installed through OLM with a generated private key, Windows
// MachineSets (the newest Amazon Windows Server 2022 AMI with containers), and a RuntimeClass that puts
// pods on them.
const windows = new WindowsNodePool("windows", {
  zones: config.getObject<string[]>("windowsZones") ?? [zones[0]],
  replicas: config.getNumber("windowsReplicas") ?? 1,
  windowsServer: "2022",
  // Given, it skips the AMI lookup (and the AWS credentials it needs), e.g. against the simulator.
  image: config.get("windowsAmi"),
  aws: { instanceType: config.get("windowsInstanceType") ?? "m5a.large" },
  adopt,
});

export const infraMachineSets = infra.machineSetNames;
export const infraPlacement = infra.placement;
export const windowsMachineSets = windows.machineSetNames;
export const windowsRuntimeClass = windows.runtimeClassName;
export const windowsKeyFingerprint = windows.privateKeyFingerprint;
