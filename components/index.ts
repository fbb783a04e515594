export * from "./infra-node-pool/infra-node-pool";
export * from "./machine-configuration/machine-configuration";
export {
  resolveClusterFacts,
  workerImage,
  type ClusterFacts,
  type ClusterFactsArgs,
  type MachineImage,
} from "./cluster/facts";
