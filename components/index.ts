export * from "./infra-node-pool/infra-node-pool";
export * from "./windows-node-pool/windows-node-pool";
export * from "./operator-subscription/operator-subscription";
export * from "./machine-configuration/machine-configuration";
export * from "./cluster-autoscaler/cluster-autoscaler";
export { type MachinePoolArgs } from "./machine-pool/machine-sets";
export {
  resolveClusterFacts,
  workerImage,
  type ClusterFacts,
  type ClusterFactsArgs,
  type MachineImage,
} from "./cluster/facts";
export { RsaPrivateKey, type RsaPrivateKeyArgs } from "../provider/private-key/rsa-private-key";
