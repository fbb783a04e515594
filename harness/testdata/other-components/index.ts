import {
  ClusterAutoscaler,
  ContainerRuntimeConfig,
  MachineConfigPool,
  OperatorSubscription,
} from "../../../index";

new MachineConfigPool("gpu", { maxUnavailable: "50%" });

new ContainerRuntimeConfig("gpu-crio", { pool: "gpu", containerRuntimeConfig: { pidsLimit: 4096 } });

const localStorage = new OperatorSubscription("local-storage", {
  packageName: "local-storage-operator",
  namespace: "openshift-local-storage",
  targetNamespaces: "OwnNamespace",
  channel: "stable",
});

new ClusterAutoscaler("autoscaler", { spec: { balanceSimilarNodeGroups: true } });

export const localStorageCSV = localStorage.installedCSV;
