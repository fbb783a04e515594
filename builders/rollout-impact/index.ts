export {
  DISRUPTION_ACTION_TYPES,
  DEFAULT_CLUSTER_POLICIES,
  ALWAYS_REBOOT_FIELDS,
  mergeClusterPolicies,
  filePolicyFor,
  decide,
  serviceOf,
  type DisruptionActionType,
  type DisruptionAction,
  type FilePolicy,
  type UnitPolicy,
  type NodeDisruptionPolicy,
  type ClusterPolicies,
  type ConfigDiff,
  type Cause,
  type Decision,
} from "./rules";
export {
  generatedConfigs,
  type MachineConfigLike,
  type KubeletConfigLike,
  type ContainerRuntimeConfigLike,
  type PoolConfigs,
} from "./render";
export {
  rolloutImpact,
  withTimings,
  resolveMaxUnavailable,
  DEFAULT_TIMINGS,
  type RolloutTimings,
  type RolloutImpactInput,
  type NodeAction,
  type ImpactCause,
  type PoolImpact,
} from "./impact";
export { poolConfigsFrom, poolLabel, type ObjectLike } from "./pool-configs";
export { impactLine, isPoolLine, renderPhrase, describeAction, formatDuration } from "./format";
export {
  deadlineFor,
  deadlineProblem,
  DEFAULT_DEADLINE_SECONDS,
  MCO_DRAIN_TIMEOUT_SECONDS,
  impactMarkdown,
  machinesPhrase,
  poolEstimate,
  replacementEstimate,
  summaryLine,
  canaryPhrases,
  summaryMarkdown,
  type PoolSummary,
  type ReplacementEstimate,
} from "./summary";
export {
  deadlineSincePrevious,
  impactSincePrevious,
  type DeploymentRecord,
  type WaiterPlan,
} from "./baseline";
