/**
 * Pulumi dynamic resources that wait until the cluster has converged, thin wrappers over `../waiting`,
 * each declared once as a schema (`./schema`). Each class has its dynamic provider at `.provider`; its
 * resources carry a small one that finds it through the waiter's module.
 * The package exports this list as `waiters`: the waiter and removal-guard classes with their Args, and
 * what a program needs to declare a waiter of its own (test/public-api.test.ts pins the list).
 */
export { contentHash } from "./common";
export type { RemovalArgs, WaiterArgs, WaiterInputs, WaiterOutputs } from "./common";
export { MachineSetReady, MachineSetRemoval } from "./machineset";
export type { MachineSetReadyArgs, MachineSetRemovalArgs } from "./machineset";
export { OperatorInstall, OperatorRemoval } from "./operator";
export type { OperatorInstallArgs, OperatorRemovalArgs } from "./operator";
export { ExtensionInstall, ExtensionRemoval } from "./extension";
export type { ExtensionInstallArgs, ExtensionRemovalArgs } from "./extension";
export { NodeConfigRemoval, PoolRollout } from "./pool-rollout";
export type { NodeConfigRemovalArgs, PoolRolloutArgs } from "./pool-rollout";
export { WindowsNodesReady } from "./windows-nodes-ready";
export type { WindowsNodesReadyArgs } from "./windows-nodes-ready";
export { MachineAutoscalerReady } from "./machine-autoscaler";
export { NodeLabelsAndTaints } from "./node-metadata";
export type { NodeLabelsAndTaintsArgs } from "./node-metadata";
export type { MachineAutoscalerReadyArgs } from "./machine-autoscaler";
export {
  defineRemoval,
  defineWaiter,
  labelMap,
  objectName,
  objectNames,
  oneOf,
  output,
  taintList,
} from "./schema";
export type { ArgsOf, InputSpec, OutputSpec, RemovalSchema, WaiterSchema } from "./schema";
