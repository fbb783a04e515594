// What other folders use: the pool builders, the platform table and modules, and their option types.
// Option checks (aws-options.ts, azure-options.ts) and the name rules stay inside the folder.
export {
  machineSetsForPool,
  machineSetsInZones,
  machineSetsOf,
  machineSetNameOf,
  checkPoolInputs,
  zoneSpecs,
  placeInRegion,
  firstPlacedZone,
  refusalErrors,
  type MachineSetPoolSpec,
  type PlacedZones,
  type PlacedPoolSpec,
  type PoolInputs,
} from "./pool";
export {
  machineSet,
  MACHINE_SET_API_VERSION,
  type MachineSetArgs,
  type MachineSetManifest,
} from "./machineset";
export { defaultReplicas, spreadReplicas } from "./naming";
export {
  describeTaint,
  infraTaints,
  INFRA_TAINTS,
  nodeMetadataImpact,
  nodeMetadataPhrase,
  nodeMetadataRecord,
  type NodeMetadataChange,
  type NodeMetadataImpact,
  type NodeMetadataItem,
} from "./node-metadata";
export {
  describeMachineSetChange,
  differsFromDeclared,
  machineSetChange,
  replacementPace,
  requireMachineReplacement,
  specsOf,
  type MachineSetChange,
  type MachineTemplate,
  type MachineReplacementArgs,
  type MachineReplacementPolicy,
} from "./replacement";
export type { Refusal } from "./admission";
export type { MachineSetPlatformModule, WorkerMachineSet, ZonePlacement, ZoneSpec } from "./platform";
export {
  isMachineSetPlatform,
  platformModule,
  MACHINESET_PLATFORMS,
  type MachineSetPlatform,
  type PlatformOptions,
} from "./platforms";
export { awsProviderSpec, AWS_DEFAULTS, type AwsMachineOptions, type AwsZonePlacement } from "./aws";
export {
  azureProviderSpec,
  AZURE_DEFAULTS,
  type AzureMachineOptions,
  type AzureZonePlacement,
} from "./azure";
export type { AwsPlacementOptions } from "./aws-options";
export type { AzureVmOptions } from "./azure-options";
export type {
  AWSBlockDevice,
  AWSMachineProviderConfig,
  AWSResourceReference,
  AzureImage,
  AzureMachineProviderSpec,
  AzureOSDisk,
  AzureUefiSettings,
  ProviderSpec,
  SecretReference,
} from "./provider-spec";
