import * as pulumi from "@pulumi/pulumi";
import { InfraNodePool, KubeletConfig, OperatorSubscription } from "@openshift-topology/pulumi";

const config = new pulumi.Config();

// Infra nodes: a MachineSet per zone, their own MachineConfigPool, and the router, the image registry
// and monitoring moved onto them. The infrastructure ID, region and image are read from the cluster.
const infra = new InfraNodePool("infra", {
  zones: config.requireObject<string[]>("zones"),
  replicas: config.getNumber("infraReplicas") ?? 3,
  router: { replicas: 2 },
  registry: true,
  monitoring: true,
});

// Kubelet settings for the infra pool only: the MCO renders them and rolls them out node by node.
new KubeletConfig("infra-kubelet", {
  pool: infra.role,
  kubeletConfig: {
    maxPods: config.getNumber("maxPods") ?? 250,
    systemReserved: { cpu: "500m", memory: "1Gi" },
  },
});

// An operator from the Red Hat catalog (`kubectl get packagemanifests -n openshift-marketplace` lists
// them), installed in its own namespace; `up` returns once its CSV has succeeded.
const localStorage = new OperatorSubscription("local-storage", {
  packageName: "local-storage-operator",
  namespace: "openshift-local-storage",
  targetNamespaces: "OwnNamespace",
  channel: "stable",
});

export const infraMachineSets = infra.machineSetNames;
export const localStorageCSV = localStorage.installedCSV;
