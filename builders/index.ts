/**
 * Pure manifest builders: plain data in, plain Kubernetes objects out, no Pulumi. Usable on their own
 * (e.g. to render YAML) and the single source of every manifest the components apply. The package
 * exports this list as `builders`: the builders, their argument and manifest types and the error they
 * throw; the checks and tables they validate with stay inside (test/public-api.test.ts pins the list).
 */
export { InputError, InputErrors } from "./errors";
export type { Taint, TaintEffect } from "./validation";
export {
  machineSetsForPool,
  machineSetsOf,
  machineSet,
  platformModule,
  awsProviderSpec,
  azureProviderSpec,
  spreadReplicas,
  infraTaints,
  nodeMetadataImpact,
  nodeMetadataPhrase,
  type AwsMachineOptions,
  type AzureImage,
  type AzureMachineOptions,
  type MachineReplacementArgs,
  type MachineSetArgs,
  type MachineSetManifest,
  type MachineSetPlatform,
  type MachineSetPlatformModule,
  type MachineSetPoolSpec,
  type NodeMetadataChange,
  type NodeMetadataImpact,
  type NodeMetadataItem,
  type PlatformOptions,
  type ProviderSpec,
  type ZonePlacement,
  type ZoneSpec,
} from "./machineset";
export {
  machineConfigPool,
  machineConfig,
  kubeletConfig,
  containerRuntimeConfig,
  nodeDisruptionPolicyPatch,
  encodeDataUrl,
  decodeDataUrl,
  type ContainerRuntimeConfigArgs,
  type ContainerRuntimeConfigManifest,
  type DecodedDataUrl,
  type FileContents,
  type KubeletConfigArgs,
  type KubeletConfigManifest,
  type MachineConfigArgs,
  type MachineConfigFile,
  type MachineConfigManifest,
  type MachineConfigPoolArgs,
  type MachineConfigPoolManifest,
  type NodeDisruptionPolicyArgs,
  type NodeDisruptionPolicyManifest,
  type SystemdDropin,
  type SystemdUnit,
  type TlsSecurityProfile,
} from "./machineconfiguration";
export {
  placementFor,
  ingressControllerPlacementPatch,
  imageRegistryPlacementPatch,
  monitoringConfigMapPatch,
  type NodePlacement,
  type Toleration,
} from "./infra-placement";
export {
  operatorNamespace,
  operatorGroup,
  subscription,
  type InstallPlanApproval,
  type OperatorSubscriptionArgs,
} from "./olm";
export {
  windowsPoolSpec,
  windowsRuntimeClass,
  type WindowsRuntimeClassArgs,
  type WindowsServerVersion,
} from "./windows";
export {
  rolloutImpact,
  poolConfigsFrom,
  impactLine,
  impactMarkdown,
  type ContainerRuntimeConfigLike,
  type KubeletConfigLike,
  type MachineConfigLike,
  type NodeDisruptionPolicy,
  type ObjectLike,
  type PoolConfigs,
  type PoolImpact,
  type RolloutImpactInput,
  type RolloutTimings,
} from "./rollout-impact";
export {
  clusterAutoscaler,
  machineAutoscalersForPool,
  type ClusterAutoscalerArgs,
  type ClusterAutoscalerManifest,
  type MachineAutoscalerManifest,
  type PoolAutoscaling,
} from "./autoscaling";
export {
  machineHealthCheck,
  type HealthCheckOptions,
  type MachineHealthCheckArgs,
  type MachineHealthCheckManifest,
} from "./health-check";
