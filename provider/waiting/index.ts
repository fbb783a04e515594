/**
 * The waiting core: watch-based waits for OpenShift convergence, with no Pulumi in it. The dynamic
 * providers in `../dynamic` wrap it; anything else (a CLI, a test, a benchmark) may call it directly.
 * The package exports this list as `waiting`: a client, each wait with its read-only observation, and
 * how to tell its failures apart; the predicates, object helpers and retry policy stay inside
 * (test/public-api.test.ts pins the list).
 */
export { createApiClient, type ApiClient, type ApiClientOptions } from "./api";
export type { Clock } from "./clock";
export {
  isWaitError,
  type Evaluation,
  type Outcome,
  type WaitError,
  type WaitErrorKind,
  type WaitOptions,
} from "./converge";
export { subscribeProgress, type ProgressEvent, type ProgressListener, type WaitState } from "./progress";
export { describeApiError, type ApiError } from "./retry";
export {
  waitForPoolRollout,
  observePoolRollout,
  waitForNodeConfigRemoval,
  waitForMachineSetsReady,
  observeMachineSets,
  waitForMachineSetsDeleted,
  waitForOperatorInstall,
  observeOperatorInstall,
  uninstallOperator,
  waitForExtensionInstall,
  observeExtensionInstall,
  uninstallExtension,
  waitForWindowsNodes,
  observeWindowsNodes,
  waitForNodeMetadata,
  observeNodeMetadata,
  type ClusterAccess,
  type MachineSetOptions,
  type NodeMetadataOptions,
  type NodeConfigKind,
  type NodeConfigRemovalOptions,
  type OperatorOptions,
  type OperatorRemovalOptions,
  type ExtensionOptions,
  type PoolRolloutOptions,
  type WindowsNodesOptions,
} from "./waiters";
export {
  waitForAutoscalersReady,
  observeAutoscalers,
  type AutoscalerOptions,
  type AutoscalerResult,
} from "./autoscaling";
export type { PoolRolloutResult } from "./pool";
export type { MachineSetResult } from "./machineset";
export type { MachineReplacement } from "./replacement";
export type { NodeMetadataResult } from "./node-metadata";
export type { OperatorResult } from "./operator";
export type { ExtensionResult } from "./extension";
export type { WindowsResult } from "./windows";
