import {
  MACHINE_API_NAMESPACE,
  observeMachineSets,
  waitForMachineSetsDeleted,
  waitForMachineSetsReady,
} from "../waiting/waiters";
import { percentOf } from "../../primitives/int-or-percent";
import type { MachineReplacement } from "../waiting/replacement";
import type { Input } from "@pulumi/pulumi";
import type { CheckFailure } from "./common";
import {
  ArgsOf,
  InputSpec,
  ProviderOf,
  defineRemoval,
  defineWaiter,
  labelMap,
  objectName,
  objectNames,
  output,
} from "./schema";
import * as self from "./machineset";

/** The inputs of a waiter on MachineSets, which name them in their namespace. */
export const machineSetInputs = {
  /** Default `openshift-machine-api`. */
  namespace: objectName(),
  machineSets: objectNames({ required: true }),
};

/**
 * The id of a waiter on machine-api objects named in `key`: `<prefix>/<namespace>/<names>`. A closure
 * made here, so that the serialized provider carries it and requires no module of its own.
 */
export function machineApiId<K extends string>(prefix: string, key: K) {
  return (inputs: { namespace?: string } & Record<K, string[]>) =>
    `${prefix}/${inputs.namespace ?? MACHINE_API_NAMESPACE}/${inputs[key].join(",")}`;
}

const count = (value: unknown) => typeof value === "number" && Number.isInteger(value) && value >= 0;
const countOrPercent = (value: unknown) =>
  count(value) || (typeof value === "string" && percentOf(value) !== undefined);

/**
 * A replacement policy: counts of 0 or more or percentages, replicas per MachineSet name. The pool checks the policy
 * users write; this guards the waiter's own inputs, as every input spec does.
 */
export function replacementPolicy(): InputSpec<MachineReplacement, Input<MachineReplacement>, false> {
  return {
    required: false,
    check(value, property): CheckFailure[] {
      if (value === undefined || value === null) return [];
      const policy = value as Partial<Record<keyof MachineReplacement, unknown>>;
      const replicas = policy.replicas ?? {};
      const valid =
        typeof value === "object" &&
        countOrPercent(policy.maxSurge) &&
        countOrPercent(policy.maxUnavailable) &&
        typeof replicas === "object" &&
        Object.values(replicas as object).every(count);
      return valid
        ? []
        : [
            {
              property,
              reason: `${property} needs maxSurge and maxUnavailable (0 or more, or a percentage) and replicas per MachineSet (0 or more)`,
            },
          ];
    },
  };
}

/**
 * Waits until every replica of some MachineSets is a Ready node with its Machine's node labels; fails on a
 * MachineSet error or a failed Machine, naming it. Depend it on the MachineSets; give `contentHash` of
 * their specs, so that a change (a scale, a new instance type) waits again. With `machineReplacement`
 * it also replaces the machines a changed template left on the previous spec.
 */
export const MachineSetReady = defineWaiter({
  kind: "MachineSetReady",
  locate: (): ProviderOf => self.machineSetReadyProvider,
  inputs: {
    ...machineSetInputs,
    /** Labels every node of the MachineSets carries (the pool's role labels), which narrow the nodes listed. */
    nodeLabels: labelMap(),
    /**
     * Replace machines whose provider spec is not their template's, through the machine-api, and wait
     * until none is left (`provider/waiting/replacement.ts`).
     */
    machineReplacement: replacementPolicy(),
  },
  outputs: { machineCount: output<number>(), readyMachineCount: output<number>(), nodes: output<string[]>() },
  id: machineApiId("machinesets", "machineSets"),
  wait: (options) => waitForMachineSetsReady({ ...options, replacement: options.machineReplacement }),
  observe: (options) => observeMachineSets({ ...options, replacement: options.machineReplacement }),
});
export type MachineSetReady = InstanceType<typeof MachineSetReady>;
export type MachineSetReadyArgs = ArgsOf<typeof MachineSetReady>;
/** The whole provider, which the one each MachineSetReady carries finds by this name: keep it. */
export const machineSetReadyProvider = MachineSetReady.provider;

/**
 * Holds the deletion of what it depends on (the pool) until MachineSets are gone with all their
 * Machines and Nodes, so no node is left behind unmanaged. Pulumi deletes in reverse dependency order,
 * so wire it between the two: `new MachineSetRemoval(..., { dependsOn: [pool] })`, then the MachineSets
 * with `dependsOn: [removal]`. On destroy the MachineSets go first, then this waits, then the pool goes.
 * (A MachineSetReady cannot do this: it depends on the MachineSet, so it is deleted before it.)
 */
export const MachineSetRemoval = defineRemoval({
  kind: "MachineSetRemoval",
  locate: (): ProviderOf => self.machineSetRemovalProvider,
  // The MachineSets that must be gone, with their Machines and Nodes, before what this depends on is deleted.
  inputs: machineSetInputs,
  id: machineApiId("machineset-removal", "machineSets"),
  // `read` reports how the MachineSets stand.
  observe: (options) => observeMachineSets(options),
  remove: (options) => waitForMachineSetsDeleted(options),
});
export type MachineSetRemoval = InstanceType<typeof MachineSetRemoval>;
export type MachineSetRemovalArgs = ArgsOf<typeof MachineSetRemoval>;
/** The whole provider, which the one each MachineSetRemoval carries finds by this name: keep it. */
export const machineSetRemovalProvider = MachineSetRemoval.provider;
