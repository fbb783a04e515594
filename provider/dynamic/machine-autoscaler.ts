import { observeAutoscalers, waitForAutoscalersReady } from "../waiting/autoscaling";
import { machineApiId } from "./machineset";
import { ArgsOf, ProviderOf, defineWaiter, objectName, objectNames, output } from "./schema";
import * as self from "./machine-autoscaler";

/**
 * Waits until MachineAutoscalers are accepted by the machine-api (bounds annotated on their MachineSets,
 * `status.lastTargetRef` set) and each MachineSet has at least its minimum of Ready machines. Depend it
 * on the MachineAutoscalers; give `contentHash` of their specs, so that new bounds wait again.
 */
export const MachineAutoscalerReady = defineWaiter({
  kind: "MachineAutoscalerReady",
  locate: (): ProviderOf => self.machineAutoscalerReadyProvider,
  inputs: {
    /** Default `openshift-machine-api`. */
    namespace: objectName(),
    /** MachineAutoscaler names (each named after the MachineSet it targets). */
    autoscalers: objectNames({ required: true }),
  },
  outputs: { readyMachineCount: output<number>() },
  id: machineApiId("machineautoscalers", "autoscalers"),
  wait: (options) => waitForAutoscalersReady(options),
  observe: (options) => observeAutoscalers(options),
});
export type MachineAutoscalerReady = InstanceType<typeof MachineAutoscalerReady>;
export type MachineAutoscalerReadyArgs = ArgsOf<typeof MachineAutoscalerReady>;
/** The whole provider, which the one each MachineAutoscalerReady carries finds by this name: keep it. */
export const machineAutoscalerReadyProvider = MachineAutoscalerReady.provider;
