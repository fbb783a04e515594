import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import { MACHINE_API_NAMESPACE, observeWindowsNodes, waitForWindowsNodes } from "../waiting/waiters";
import type { WindowsResult } from "../waiting/windows";
import {
  checkName,
  checkNames,
  WaiterInputs,
  WaiterArgs,
  waiterOptions,
  waiterProps,
  waiterProvider,
} from "./common";

export interface WindowsNodesReadyInputs extends WaiterInputs {
  namespace?: string;
  machineSets: string[];
  wmcoNamespace?: string;
}

export interface WindowsNodesReadyOutputs {
  machineCount: number;
  configuredCount: number;
  nodes: string[];
  /** The WMCO version the nodes carry. */
  version: string;
}

export const windowsNodesReadyProvider = waiterProvider<
  WindowsNodesReadyInputs,
  WindowsNodesReadyOutputs,
  WindowsResult
>({
  kind: "WindowsNodesReady",
  inputKeys: ["kubeconfig", "namespace", "machineSets", "wmcoNamespace", "contentHash", "timeoutSeconds"],
  check: (inputs) => [
    ...checkName(inputs, "namespace", false),
    ...checkNames(inputs, "machineSets", true),
    ...checkName(inputs, "wmcoNamespace", false),
  ],
  id: (inputs) =>
    `windows-nodes/${inputs.namespace ?? MACHINE_API_NAMESPACE}/${inputs.machineSets.join(",")}`,
  wait: (options) => waitForWindowsNodes(options),
  observe: (options) => observeWindowsNodes(options),
  outputs: (result) => ({
    machineCount: result.machineCount,
    configuredCount: result.configuredCount,
    nodes: result.nodes,
    version: result.version ?? "",
  }),
});

export interface WindowsNodesReadyArgs extends WaiterArgs {
  namespace?: Input<string>;
  /** The Windows MachineSets (template label `machine.openshift.io/os-id: Windows`). */
  machineSets: Input<Input<string>[]>;
  /** Default `openshift-windows-machine-config-operator`. */
  wmcoNamespace?: Input<string>;
}

/**
 * Waits until the Machines of Windows MachineSets are Ready Windows nodes configured by WMCO at its
 * desired version; fails at once, saying so, when WMCO's `cloud-private-key` secret is missing.
 */
export class WindowsNodesReady extends dynamic.Resource {
  declare public readonly machineCount: Output<number>;
  declare public readonly configuredCount: Output<number>;
  declare public readonly nodes: Output<string[]>;
  declare public readonly version: Output<string>;
  declare public readonly durationSeconds: Output<number>;

  constructor(name: string, args: WindowsNodesReadyArgs, opts?: CustomResourceOptions) {
    super(
      windowsNodesReadyProvider,
      name,
      waiterProps(
        args,
        opts,
        {
          namespace: args.namespace,
          machineSets: args.machineSets,
          wmcoNamespace: args.wmcoNamespace,
        },
        ["machineCount", "configuredCount", "nodes", "version", "durationSeconds"],
      ),
      waiterOptions(opts),
      undefined,
      "WindowsNodesReady",
    );
  }
}
