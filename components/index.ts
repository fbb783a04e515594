// The components with their Args, and the types their Args and outputs are made of. How they are wired
// (cluster reads, platform modules, machine pool declarations) stays inside.
// InfraNodePool first: the schema names the types a component shares after the first that has them,
// and other languages' SDKs know them as InfraNodePool's since before NodePool.
export { InfraNodePool, INFRA_TAINTS, type InfraNodePoolArgs } from "./infra-node-pool/infra-node-pool";
export { NodePool, type NodePoolArgs, type NodePoolSettings } from "./node-pool/node-pool";
export { WindowsNodePool, type WindowsNodePoolArgs } from "./windows-node-pool/windows-node-pool";
export { RsaPrivateKey, type RsaPrivateKeyArgs } from "./windows-node-pool/rsa-private-key";
export {
  OperatorSubscription,
  type OperatorSubscriptionArgs,
} from "./operator-subscription/operator-subscription";
export { ClusterExtension, type ClusterExtensionArgs } from "./cluster-extension/cluster-extension";
export {
  MachineConfigPool,
  MachineConfig,
  KubeletConfig,
  ContainerRuntimeConfig,
  type MachineConfigPoolArgs,
  type MachineConfigArgs,
  type KubeletConfigArgs,
  type ContainerRuntimeConfigArgs,
} from "./machine-configuration/machine-configuration";
export {
  NodeDisruptionPolicy,
  type NodeDisruptionPolicyArgs,
} from "./machine-configuration/node-disruption-policy";
export { CanaryPool, type CanaryPoolArgs } from "./machine-configuration/canary-pool";
export { ClusterAutoscaler, type ClusterAutoscalerArgs } from "./cluster-autoscaler/cluster-autoscaler";
export type { MachinePoolArgs } from "./machine-pool/machine-sets";
export type { WaitArgs } from "./cluster/wait";
export type { ClusterFacts, ClusterFactsArgs, MachineImage } from "./cluster/facts";
export type { SubscriptionConfig, SubscriptionToleration } from "../builders/olm";
