// The public surface: builders, their argument and manifest types, and the data tables they validate
// against. Generic helpers (common.ts, json.ts, quantity.ts) stay internal so that they cannot clash with
// other builders' exports in the package's entry point.
export {
  MACHINECONFIGURATION_API_VERSION,
  ROLE_LABEL,
  poolSelectorLabel,
  nodeRoleLabel,
  type LabelSelector,
} from "./common";
export { encodeDataUrl, decodeDataUrl, type DecodedDataUrl } from "./dataurl";
export { SSH_KEY_TYPES } from "./ssh";
export {
  machineConfigPool,
  BUILT_IN_POOLS,
  type MachineConfigPoolArgs,
  type MachineConfigPoolManifest,
} from "./pool";
export {
  machineConfig,
  parseFileMode,
  IGNITION_VERSIONS,
  DEFAULT_IGNITION_VERSION,
  KERNEL_TYPES,
  RHCOS_EXTENSIONS,
  WRITABLE_ROOTS,
  UNIT_SUFFIXES,
  MAX_FILE_MODE,
  DEFAULT_FILE_MODE,
  type IgnitionVersion,
  type KernelType,
  type RhcosExtension,
  type FileContents,
  type MachineConfigFile,
  type SystemdUnit,
  type SystemdDropin,
  type MachineConfigArgs,
  type IgnitionConfig,
  type IgnitionFile,
  type IgnitionUnit,
  type MachineConfigManifest,
} from "./machineconfig";
export {
  kubeletConfig,
  TLS_PROFILE_TYPES,
  TLS_VERSIONS,
  type TlsSecurityProfile,
  type KubeletConfigArgs,
  type KubeletConfigManifest,
} from "./kubeletconfig";
export { FORBIDDEN_KUBELET_FIELDS, KUBELET_FIELDS, EVICTION_SIGNALS } from "./kubelet-fields";
export {
  containerRuntimeConfig,
  CRIO_LOG_LEVELS,
  OCI_RUNTIMES,
  MIN_PIDS_LIMIT,
  MIN_LOG_SIZE,
  type ContainerRuntimeSettings,
  type ContainerRuntimeConfigArgs,
  type ContainerRuntimeConfigManifest,
} from "./containerruntimeconfig";
export {
  nodeDisruptionPolicyPatch,
  type NodeDisruptionPolicyArgs,
  type NodeDisruptionPolicyManifest,
} from "./node-disruption-policy";
