import { observeWindowsNodes, waitForWindowsNodes } from "../waiting/waiters";
import { machineApiId, machineSetInputs } from "./machineset";
import { ArgsOf, ProviderOf, defineWaiter, objectName, output } from "./schema";
import * as self from "./windows-nodes-ready";

/**
 * Waits until the Machines of Windows MachineSets are Ready Windows nodes configured by WMCO at its
 * desired version; fails at once, saying so, when WMCO's `cloud-private-key` secret is missing.
 */
export const WindowsNodesReady = defineWaiter({
  kind: "WindowsNodesReady",
  locate: (): ProviderOf => self.windowsNodesReadyProvider,
  inputs: {
    // machineSets: the Windows MachineSets (template label `machine.openshift.io/os-id: Windows`).
    ...machineSetInputs,
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
  id: machineApiId("windows-nodes", "machineSets"),
  wait: (options) => waitForWindowsNodes(options),
  observe: (options) => observeWindowsNodes(options),
});
export type WindowsNodesReady = InstanceType<typeof WindowsNodesReady>;
export type WindowsNodesReadyArgs = ArgsOf<typeof WindowsNodesReady>;
/** The whole provider, which the one each WindowsNodesReady carries finds by this name: keep it. */
export const windowsNodesReadyProvider = WindowsNodesReady.provider;
