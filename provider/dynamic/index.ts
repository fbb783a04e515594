/**
 * Pulumi dynamic resources that wait until the cluster has converged, thin wrappers over `../waiting`.
 */
export { changedInputs, contentHash, durationSeconds, providerProgress, timeoutsFrom } from "./common";
export type { RemovalArgs, WaiterArgs, WaiterInputs, WaiterOutputs } from "./common";
export * from "./machineset";
export * from "./operator";
export * from "./pool-rollout";
export * from "./windows-nodes-ready";
export * from "./machine-autoscaler";
export * from "./rollout-baseline";
