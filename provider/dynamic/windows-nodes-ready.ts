import { MACHINE_API_NAMESPACE, observeWindowsNodes, waitForWindowsNodes } from "../waiting/waiters";
import { ArgsOf, defineWaiter, objectName, objectNames, output } from "./schema";

/**
 * Waits until the Machines of Windows MachineSets are Ready Windows nodes configured by WMCO at its
 * desired version; fails at once, saying so, when WMCO's `cloud-private-key` secret is missing.
 */
export const WindowsNodesReady = defineWaiter({
  kind: "WindowsNodesReady",
  inputs: {
    namespace: objectName(),
    /** The Windows MachineSets (template label `machine.openshift.io/os-id: Windows`). */
    machineSets: objectNames({ required: true }),
    /** Default `openshift-windows-machine-config-operator`. */
    wmcoNamespace: objectName(),
  },
  outputs: {
    machineCount: output<number>(),
    configuredCount: output<number>(),
    nodes: output<string[]>(),
    /** The WMCO version the nodes carry. */
    version: output(""),
  },
  id: (inputs) =>
    `windows-nodes/${inputs.namespace ?? MACHINE_API_NAMESPACE}/${inputs.machineSets.join(",")}`,
  wait: (options) => waitForWindowsNodes(options),
  observe: (options) => observeWindowsNodes(options),
});
export type WindowsNodesReady = InstanceType<typeof WindowsNodesReady>;
export type WindowsNodesReadyArgs = ArgsOf<typeof WindowsNodesReady>;
