import * as pulumi from "@pulumi/pulumi";
// In your own project: import { InfraNodePool, MachineConfig, WindowsNodePool } from "@openshift-topology/pulumi";
import { InfraNodePool, MachineConfig, WindowsNodePool } from "../../index";

const config = new pulumi.Config();
const zones = config.getObject<string[]>("zones") ?? ["1", "2", "3"];
// A cluster where what this program declares exists already, in whole or in part (`pulumi config set
// adopt true`): made by hand, or by this stack before its state was lost. The first up imports those
// objects that exist instead of failing on them, and creates the others; the Windows pool keeps the key
// WMCO has.
const adopt = config.getBoolean("adopt");

// Infrastructure ID and resource group are read from the cluster, the location from the resource group,
// the RHCOS image from the worker MachineSets; cloudLookups checks that the subnet and the managed
// identity the machines will use exist before anything is created.
const infra = new InfraNodePool("infra", {
  zones,
  replicas: config.getNumber("infraReplicas") ?? 3,
  azure: { vmSize: config.get("infraVmSize") ?? "Standard_D8s_v3", osDisk: { diskSizeGB: 128 } },
  cloudLookups: true,
  router: { replicas: 3 },
  registry: true,
  monitoring: true,
  adopt,
});

// Time servers for the infra nodes only; Azure VMs get time from the host through PTP by default.
const timeServer = config.get("timeServer") ?? "time.windows.com";
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

// Windows Server 2022 workers. Azure Windows MachineSets are named `<role><zone>` ("win1"): Windows VM
// names are limited to 15 characters.
const windows = new WindowsNodePool("windows", {
  zones: config.getObject<string[]>("windowsZones") ?? ["1"],
  replicas: config.getNumber("windowsReplicas") ?? 1,
  windowsServer: "2022",
  azure: { vmSize: config.get("windowsVmSize") ?? "Standard_D4s_v3" },
  adopt,
});

export const infraMachineSets = infra.machineSetNames;
export const windowsMachineSets = windows.machineSetNames;
export const windowsRuntimeClass = windows.runtimeClassName;
