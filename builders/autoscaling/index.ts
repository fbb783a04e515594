export * from "./machine-autoscaler";
export * from "./cluster-autoscaler";
