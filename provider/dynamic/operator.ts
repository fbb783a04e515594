import { observeOperatorInstall, uninstallOperator, waitForOperatorInstall } from "../waiting/waiters";
import { ArgsOf, ProviderOf, defineRemoval, defineWaiter, flag, objectName, output } from "./schema";
import * as self from "./operator";

/**
 * Waits until an OLM Subscription's installed CSV has Succeeded, its Deployments run with the
 * Subscription's `spec.config` and the CRDs it owns are served; fails with OLM's (or the scheduler's) reason. Deleting it
 * changes nothing in the cluster: uninstalling is `OperatorRemoval`'s job, so that turning waiting off
 * never uninstalls an operator.
 */
export const OperatorInstall = defineWaiter({
  kind: "OperatorInstall",
  locate: (): ProviderOf => self.operatorInstallProvider,
  inputs: {
    /** Namespace of the Subscription. */
    namespace: objectName({ required: true }),
    subscription: objectName({ required: true }),
    /**
     * The CSV the Subscription pins. Under Manual approval the waiter approves exactly the InstallPlan of
     * this Subscription that installs it, and nothing else.
     */
    startingCSV: objectName(),
  },
  outputs: {
    installedCSV: output<string>(),
    phase: output<string>(),
    /** The InstallPlan this waiter approved (Manual approval), else empty. */
    approvedInstallPlan: output(""),
    /** The CRDs the installed CSV owns, each Established and served by the API server. */
    crds: output<string[]>([]),
  },
  id: (inputs) => `subscription/${inputs.namespace}/${inputs.subscription}`,
  wait: (options) => waitForOperatorInstall(options),
  observe: (options) => observeOperatorInstall(options),
});
export type OperatorInstall = InstanceType<typeof OperatorInstall>;
export type OperatorInstallArgs = ArgsOf<typeof OperatorInstall>;
/** The whole provider, which the one each OperatorInstall carries finds by this name: keep it. */
export const operatorInstallProvider = OperatorInstall.provider;

/**
 * Uninstalls an operator when it is deleted, as OLM wants it done: the Subscription, then the CSVs it
 * names as installed (OLM leaves them running when only the Subscription goes), waiting until all are
 * gone. Declare it depending on the Subscription, so that Pulumi deletes it first; what must be gone
 * before the operator (machines it configures) should depend on it.
 */
export const OperatorRemoval = defineRemoval({
  kind: "OperatorRemoval",
  locate: (): ProviderOf => self.operatorRemovalProvider,
  inputs: {
    /** Namespace of the Subscription. */
    namespace: objectName({ required: true }),
    subscription: objectName({ required: true }),
    /**
     * Also delete the CRDs the operator owns and their instances (instances first, while the operator
     * runs; then the operator; then the CRDs); refused when another Subscription's CSV owns one.
     */
    customResources: flag(),
  },
  id: (inputs) => `operator-removal/${inputs.namespace}/${inputs.subscription}`,
  // `read` reports how the operator stands.
  observe: (options) => observeOperatorInstall(options),
  remove: (options) => uninstallOperator(options),
});
export type OperatorRemoval = InstanceType<typeof OperatorRemoval>;
export type OperatorRemovalArgs = ArgsOf<typeof OperatorRemoval>;
/** The whole provider, which the one each OperatorRemoval carries finds by this name: keep it. */
export const operatorRemovalProvider = OperatorRemoval.provider;
