/**
 * OpenShift node topology for Pulumi: the components at the top level; the pure manifest builders they
 * are made of as `builders`; the convergence waiters (Pulumi dynamic resources, provider/dynamic) as
 * `waiters`, and the Pulumi-free waiting core they wrap (provider/waiting) as `waiting`, for programs
 * that compose their own. Each list is written out by name (test/public-api.test.ts pins it).
 */
export {
  InfraNodePool,
  INFRA_TAINTS,
  NodePool,
  WindowsNodePool,
  RsaPrivateKey,
  OperatorSubscription,
  ClusterExtension,
  MachineConfigPool,
  MachineConfig,
  KubeletConfig,
  ContainerRuntimeConfig,
  NodeDisruptionPolicy,
  CanaryPool,
  ClusterAutoscaler,
  type InfraNodePoolArgs,
  type NodePoolArgs,
  type NodePoolSettings,
  type WindowsNodePoolArgs,
  type RsaPrivateKeyArgs,
  type OperatorSubscriptionArgs,
  type ClusterExtensionArgs,
  type MachineConfigPoolArgs,
  type MachineConfigArgs,
  type KubeletConfigArgs,
  type ContainerRuntimeConfigArgs,
  type NodeDisruptionPolicyArgs,
  type CanaryPoolArgs,
  type ClusterAutoscalerArgs,
  type MachinePoolArgs,
  type WaitArgs,
  type ClusterFacts,
  type ClusterFactsArgs,
  type MachineImage,
  type SubscriptionConfig,
  type SubscriptionToleration,
} from "./components";
export type { KubeletConfiguration } from "./builders/generated/kubelet-configuration";
import * as builders from "./builders";
import * as waiters from "./provider/dynamic";
import * as waiting from "./provider/waiting";
export { builders, waiters, waiting };
