import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import { observeOperatorInstall, uninstallOperator, waitForOperatorInstall } from "../waiting/waiters";
import type { OperatorResult } from "../waiting/operator";
import {
  checkName,
  deadlineMs,
  providerProgress,
  WaiterInputs,
  WaiterArgs,
  waiterOptions,
  waiterProps,
  waiterProvider,
} from "./common";

export interface OperatorInstallInputs extends WaiterInputs {
  namespace: string;
  subscription: string;
  startingCSV?: string;
}

export interface OperatorInstallOutputs {
  installedCSV: string;
  phase: string;
  /** The InstallPlan this waiter approved (Manual approval), else empty. */
  approvedInstallPlan: string;
}

export const operatorInstallProvider = waiterProvider<
  OperatorInstallInputs,
  OperatorInstallOutputs,
  OperatorResult
>({
  kind: "OperatorInstall",
  inputKeys: ["kubeconfig", "namespace", "subscription", "startingCSV", "contentHash", "timeoutSeconds"],
  check: (inputs) => [
    ...checkName(inputs, "namespace"),
    ...checkName(inputs, "subscription"),
    ...checkName(inputs, "startingCSV", false),
  ],
  id: (inputs) => `subscription/${inputs.namespace}/${inputs.subscription}`,
  async wait(inputs, _olds, progress) {
    const { result } = await waitForOperatorInstall({
      kubeconfig: inputs.kubeconfig,
      namespace: inputs.namespace,
      subscription: inputs.subscription,
      startingCSV: inputs.startingCSV,
      timeoutMs: deadlineMs(inputs.timeoutSeconds),
      onProgress: progress,
    });
    return result;
  },
  // OLM leaves the CSV installed when only the Subscription goes, so destroying the install removes both.
  async remove(props) {
    await uninstallOperator({
      kubeconfig: props.kubeconfig,
      namespace: props.namespace,
      subscription: props.subscription,
      csv: props.installedCSV,
      timeoutMs: deadlineMs(props.timeoutSeconds),
      onProgress: providerProgress(`OperatorInstall ${props.namespace}/${props.subscription}`),
    });
  },
  observe: (inputs) => observeOperatorInstall({ ...inputs, timeoutMs: 60_000 }),
  outputs: (result) => ({
    installedCSV: result.installedCSV,
    phase: result.phase,
    approvedInstallPlan: result.approvedInstallPlan ?? "",
  }),
});

export interface OperatorInstallArgs extends WaiterArgs {
  /** Namespace of the Subscription. */
  namespace: Input<string>;
  subscription: Input<string>;
  /**
   * The CSV the Subscription pins. Under Manual approval the waiter approves exactly the InstallPlan of
   * this Subscription that installs it, and nothing else.
   */
  startingCSV?: Input<string>;
}

/** Waits until an OLM Subscription's installed CSV has Succeeded; fails with OLM's reason. */
export class OperatorInstall extends dynamic.Resource {
  declare public readonly installedCSV: Output<string>;
  declare public readonly phase: Output<string>;
  declare public readonly approvedInstallPlan: Output<string>;
  declare public readonly durationSeconds: Output<number>;

  constructor(name: string, args: OperatorInstallArgs, opts?: CustomResourceOptions) {
    super(
      operatorInstallProvider,
      name,
      waiterProps(
        args,
        opts,
        {
          namespace: args.namespace,
          subscription: args.subscription,
          startingCSV: args.startingCSV,
        },
        ["installedCSV", "phase", "approvedInstallPlan", "durationSeconds"],
      ),
      waiterOptions(opts),
      undefined,
      "OperatorInstall",
    );
  }
}
