import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import { AutoscalerResult, observeAutoscalers, waitForAutoscalersReady } from "../waiting/autoscaling";
import { MACHINE_API_NAMESPACE } from "../waiting/waiters";
import {
  checkName,
  checkNames,
  WaiterArgs,
  WaiterInputs,
  waiterOptions,
  waiterProps,
  waiterProvider,
} from "./common";

export interface MachineAutoscalerReadyInputs extends WaiterInputs {
  namespace?: string;
  autoscalers: string[];
}

export interface MachineAutoscalerReadyOutputs {
  readyMachineCount: number;
}

export const machineAutoscalerReadyProvider = waiterProvider<
  MachineAutoscalerReadyInputs,
  MachineAutoscalerReadyOutputs,
  AutoscalerResult
>({
  kind: "MachineAutoscalerReady",
  inputKeys: ["kubeconfig", "namespace", "autoscalers", "contentHash", "timeoutSeconds"],
  check: (inputs) => [...checkName(inputs, "namespace", false), ...checkNames(inputs, "autoscalers", true)],
  id: (inputs) =>
    `machineautoscalers/${inputs.namespace ?? MACHINE_API_NAMESPACE}/${inputs.autoscalers.join(",")}`,
  wait: (options) => waitForAutoscalersReady(options),
  observe: (options) => observeAutoscalers(options),
  outputs: (result) => ({ readyMachineCount: result.readyMachineCount }),
});

export interface MachineAutoscalerReadyArgs extends WaiterArgs {
  /** Default `openshift-machine-api`. */
  namespace?: Input<string>;
  /** MachineAutoscaler names (each named after the MachineSet it targets). */
  autoscalers: Input<Input<string>[]>;
  /** Hash of the autoscalers' specs: new bounds wait again. */
  contentHash?: Input<string>;
}

/**
 * Waits until MachineAutoscalers are accepted by the machine-api (bounds annotated on their MachineSets,
 * `status.lastTargetRef` set) and each MachineSet has at least its minimum of Ready machines. Depend it
 * on the MachineAutoscalers.
 */
export class MachineAutoscalerReady extends dynamic.Resource {
  declare public readonly autoscalers: Output<string[]>;
  declare public readonly readyMachineCount: Output<number>;
  declare public readonly durationSeconds: Output<number>;

  constructor(name: string, args: MachineAutoscalerReadyArgs, opts?: CustomResourceOptions) {
    super(
      machineAutoscalerReadyProvider,
      name,
      waiterProps(args, opts, { namespace: args.namespace, autoscalers: args.autoscalers }, [
        "readyMachineCount",
        "durationSeconds",
      ]),
      waiterOptions(opts),
      undefined,
      "MachineAutoscalerReady",
    );
  }
}
