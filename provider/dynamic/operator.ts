import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import { observeOperatorInstall, uninstallOperator, waitForOperatorInstall } from "../waiting/waiters";
import type { OperatorResult } from "../waiting/operator";
import {
  checkName,
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
  wait: (options) => waitForOperatorInstall(options),
  observe: (options) => observeOperatorInstall(options),
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

/**
 * Waits until an OLM Subscription's installed CSV has Succeeded; fails with OLM's reason. Deleting it
 * changes nothing in the cluster: uninstalling is `OperatorRemoval`'s job, so that turning waiting off
 * never uninstalls an operator.
 */
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

export interface OperatorRemovalInputs extends RemovalInputs {
  namespace: string;
  subscription: string;
}

/** The provider of OperatorRemoval: nothing to do on create; on delete, the uninstall. */
export const operatorRemovalProvider = removalProvider<OperatorRemovalInputs, OperatorResult>({
  kind: "OperatorRemoval",
  inputKeys: ["namespace", "subscription"],
  check: (inputs) => [...checkName(inputs, "namespace"), ...checkName(inputs, "subscription")],
  id: (inputs) => `operator-removal/${inputs.namespace}/${inputs.subscription}`,
  // `read` reports how the operator stands.
  observe: (options) => observeOperatorInstall(options),
  remove: (options) => uninstallOperator(options),
});

export interface OperatorRemovalArgs extends RemovalArgs {
  /** Namespace of the Subscription. */
  namespace: Input<string>;
  subscription: Input<string>;
}

/**
 * Uninstalls an operator when it is deleted, as OLM wants it done: the Subscription, then the CSVs it
 * names as installed (OLM leaves them running when only the Subscription goes), waiting until all are
 * gone. Declare it depending on the Subscription, so that Pulumi deletes it first; what must be gone
 * before the operator (machines it configures) should depend on it.
 */
export class OperatorRemoval extends dynamic.Resource {
  declare public readonly subscription: Output<string>;

  constructor(name: string, args: OperatorRemovalArgs, opts?: CustomResourceOptions) {
    super(
      operatorRemovalProvider,
      name,
      removalProps(args, opts, {
        namespace: args.namespace,
        subscription: args.subscription,
      }),
      waiterOptions(opts),
      undefined,
      "OperatorRemoval",
    );
  }
}
