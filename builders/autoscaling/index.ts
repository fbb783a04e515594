export {
  clusterAutoscaler,
  CLUSTER_AUTOSCALER_API_VERSION,
  CLUSTER_AUTOSCALER_NAME,
  type ClusterAutoscalerArgs,
  type ClusterAutoscalerManifest,
  type MinMax,
} from "./cluster-autoscaler";
export {
  machineAutoscalersForPool,
  requirePoolAutoscaling,
  MACHINE_AUTOSCALER_API_VERSION,
  type MachineAutoscalerManifest,
  type PoolAutoscaling,
} from "./machine-autoscaler";
