import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import {
  MACHINE_API_NAMESPACE,
  observeMachineSets,
  waitForMachineSetsDeleted,
  waitForMachineSetsReady,
} from "../waiting/waiters";
import type { MachineSetResult } from "../waiting/machineset";
import {
  checkName,
  checkNames,
  RemovalArgs,
  RemovalInputs,
  removalProps,
  removalProvider,
  WaiterArgs,
  WaiterInputs,
  waiterOptions,
  waiterProps,
  waiterProvider,
} from "./common";

export interface MachineSetReadyInputs extends WaiterInputs {
  namespace?: string;
  machineSets: string[];
  nodeLabels?: Record<string, string>;
}

export interface MachineSetReadyOutputs {
  machineCount: number;
  readyMachineCount: number;
  nodes: string[];
}

function checkLabels(inputs: Record<string, unknown>) {
  const labels = inputs.nodeLabels;
  if (labels === undefined || labels === null) return [];
  if (
    typeof labels !== "object" ||
    Array.isArray(labels) ||
    Object.values(labels).some((v) => typeof v !== "string")
  ) {
    return [{ property: "nodeLabels", reason: "nodeLabels must map label names to string values" }];
  }
  return [];
}

export const machineSetReadyProvider = waiterProvider<
  MachineSetReadyInputs,
  MachineSetReadyOutputs,
  MachineSetResult
>({
  kind: "MachineSetReady",
  inputKeys: ["kubeconfig", "namespace", "machineSets", "nodeLabels", "contentHash", "timeoutSeconds"],
  check: (inputs) => [
    ...checkName(inputs, "namespace", false),
    ...checkNames(inputs, "machineSets", true),
    ...checkLabels(inputs),
  ],
  id: (inputs) => `machinesets/${inputs.namespace ?? MACHINE_API_NAMESPACE}/${inputs.machineSets.join(",")}`,
  wait: (options) => waitForMachineSetsReady(options),
  observe: (options) => observeMachineSets(options),
  outputs: (result) => ({
    machineCount: result.machineCount,
    readyMachineCount: result.readyMachineCount,
    nodes: result.nodes,
  }),
});

export interface MachineSetReadyArgs extends WaiterArgs {
  /** Default `openshift-machine-api`. */
  namespace?: Input<string>;
  machineSets: Input<Input<string>[]>;
  /** Labels each node must carry besides its MachineSet template's node labels. */
  nodeLabels?: Input<Record<string, Input<string>>>;
  /** Hash of the MachineSets' specs: a change (a scale, a new instance type) waits again. */
  contentHash?: Input<string>;
}

/**
 * Waits until every replica of some MachineSets is a Ready node with the template's labels; fails on a
 * MachineSet error or a failed Machine, naming it. Depend it on the MachineSets.
 */
export class MachineSetReady extends dynamic.Resource {
  declare public readonly machineSets: Output<string[]>;
  declare public readonly machineCount: Output<number>;
  declare public readonly readyMachineCount: Output<number>;
  declare public readonly nodes: Output<string[]>;
  declare public readonly durationSeconds: Output<number>;

  constructor(name: string, args: MachineSetReadyArgs, opts?: CustomResourceOptions) {
    super(
      machineSetReadyProvider,
      name,
      waiterProps(
        args,
        opts,
        {
          namespace: args.namespace,
          machineSets: args.machineSets,
          nodeLabels: args.nodeLabels,
        },
        ["machineCount", "readyMachineCount", "nodes", "durationSeconds"],
      ),
      waiterOptions(opts),
      undefined,
      "MachineSetReady",
    );
  }
}

export interface MachineSetRemovalInputs extends RemovalInputs {
  namespace?: string;
  machineSets: string[];
}

export const machineSetRemovalProvider = removalProvider<MachineSetRemovalInputs, MachineSetResult>({
  kind: "MachineSetRemoval",
  inputKeys: ["namespace", "machineSets"],
  check: (inputs) => [...checkName(inputs, "namespace", false), ...checkNames(inputs, "machineSets", true)],
  id: (inputs) =>
    `machineset-removal/${inputs.namespace ?? MACHINE_API_NAMESPACE}/${inputs.machineSets.join(",")}`,
  // `read` reports how the MachineSets stand.
  observe: (options) => observeMachineSets(options),
  remove: (options) => waitForMachineSetsDeleted(options),
});

export interface MachineSetRemovalArgs extends RemovalArgs {
  namespace?: Input<string>;
  /** The MachineSets that must be gone, with their Machines and Nodes, before what this depends on is deleted. */
  machineSets: Input<Input<string>[]>;
}

/**
 * Holds the deletion of what it depends on (the pool) until MachineSets are gone with all their
 * Machines and Nodes, so no node is left behind unmanaged. Pulumi deletes in reverse dependency order,
 * so wire it between the two: `new MachineSetRemoval(..., { dependsOn: [pool] })`, then the MachineSets
 * with `dependsOn: [removal]`. On destroy the MachineSets go first, then this waits, then the pool goes.
 * (A MachineSetReady cannot do this: it depends on the MachineSet, so it is deleted before it.)
 */
export class MachineSetRemoval extends dynamic.Resource {
  declare public readonly machineSets: Output<string[]>;

  constructor(name: string, args: MachineSetRemovalArgs, opts?: CustomResourceOptions) {
    super(
      machineSetRemovalProvider,
      name,
      removalProps(args, opts, {
        namespace: args.namespace,
        machineSets: args.machineSets,
      }),
      waiterOptions(opts),
      undefined,
      "MachineSetRemoval",
    );
  }
}
