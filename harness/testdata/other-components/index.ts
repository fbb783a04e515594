import * as k8s from "@pulumi/kubernetes";
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

// The program's own Kubernetes provider, given as a component's `provider` and in its options.
const cluster = new k8s.Provider("cluster", {});

new ClusterAutoscaler("autoscaler", { spec: { balanceSimilarNodeGroups: true } }, { providers: [cluster] });

new MachineConfigPool("storage", { provider: cluster });

new ContainerRuntimeConfig(
  "storage-crio",
  { pool: "storage", containerRuntimeConfig: { pidsLimit: 2048 } },
  { provider: cluster },
);

export const localStorageCSV = localStorage.installedCSV;
