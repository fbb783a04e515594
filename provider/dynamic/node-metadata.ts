import { observeNodeMetadata, waitForNodeMetadata } from "../waiting/waiters";
import { machineApiId, machineSetInputs } from "./machineset";
import { ArgsOf, ProviderOf, defineWaiter, labelMap, output, taintList } from "./schema";
import * as self from "./node-metadata";

/**
 * Writes a pool's node labels and taints on its running Machines, which the machine-api's nodelink
 * controller copies to their Nodes (the machine-api copies a MachineSet's template only into Machines it
 * creates), removes from Machines and Nodes those the Machines record as the stack's and the pool no
 * longer declares (never anyone else's), and waits until every Node carries exactly that; no node is
 * replaced, drained or rebooted (`provider/waiting/node-metadata.ts`). Depend it on the MachineSets,
 * whose template holds the same labels and taints for the Machines they create.
 */
export const NodeLabelsAndTaints = defineWaiter({
  kind: "NodeLabelsAndTaints",
  locate: (): ProviderOf => self.nodeLabelsAndTaintsProvider,
  inputs: {
    ...machineSetInputs,
    /** The node labels the pool declares (its MachineSets' `spec.template.spec.metadata.labels`). */
    labels: labelMap(),
    /** The taints the pool declares (its MachineSets' `spec.template.spec.taints`). */
    taints: taintList(),
  },
  outputs: { machineCount: output<number>(), nodes: output<string[]>() },
  id: machineApiId("node-labels-and-taints", "machineSets"),
  wait: (options) => waitForNodeMetadata(options),
  observe: (options) => observeNodeMetadata(options),
});
export type NodeLabelsAndTaints = InstanceType<typeof NodeLabelsAndTaints>;
export type NodeLabelsAndTaintsArgs = ArgsOf<typeof NodeLabelsAndTaints>;
/** The whole provider, which the one each NodeLabelsAndTaints carries finds by this name: keep it. */
export const nodeLabelsAndTaintsProvider = NodeLabelsAndTaints.provider;
