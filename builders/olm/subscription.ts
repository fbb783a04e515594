import { InputError } from "../errors";
import { requireDnsLabel, requireDnsSubdomain, requireNonEmptyString, requireOneOf } from "../validation";

/**
 * OLM objects for installing an operator from a catalog: Namespace, OperatorGroup, Subscription. Field
 * order and values follow the OpenShift docs (seed 002's WMCO install by CLI).
 */

export const INSTALL_PLAN_APPROVALS = ["Automatic", "Manual"] as const;
export type InstallPlanApproval = (typeof INSTALL_PLAN_APPROVALS)[number];

/** Channel names are free-form in OLM, but are DNS-label-like words ("stable", "stable-4.18", "preview"). */
const CHANNEL = /^[a-z0-9]([-a-z0-9._]*[a-z0-9])?$/;

export interface OperatorSubscriptionArgs {
  /** The operator's package name in the catalog, also the Subscription and OperatorGroup name. */
  packageName: string;
  namespace: string;
  channel: string;
  installPlanApproval?: InstallPlanApproval;
  source?: string;
  sourceNamespace?: string;
  /** Pin the version to install first (e.g. `windows-machine-config-operator.v10.17.0`). */
  startingCSV?: string;
  /** `OwnNamespace` (default) targets the operator's namespace; `AllNamespaces` targets every namespace. */
  targetNamespaces?: "OwnNamespace" | "AllNamespaces";
  /** Extra namespace labels, e.g. `openshift.io/cluster-monitoring: "true"` for Red Hat operators. */
  namespaceLabels?: Record<string, string>;
}

export const SUBSCRIPTION_DEFAULTS = {
  installPlanApproval: "Automatic" as InstallPlanApproval,
  source: "redhat-operators",
  sourceNamespace: "openshift-marketplace",
  targetNamespaces: "OwnNamespace" as const,
};

export function operatorNamespace(args: Pick<OperatorSubscriptionArgs, "namespace" | "namespaceLabels">) {
  const labels = args.namespaceLabels ?? {};
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: {
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      name: requireDnsLabel("namespace", args.namespace),
    },
  };
}

export function operatorGroup(
  args: Pick<OperatorSubscriptionArgs, "packageName" | "namespace" | "targetNamespaces">,
) {
  const target = requireOneOf(
    "targetNamespaces",
    args.targetNamespaces ?? SUBSCRIPTION_DEFAULTS.targetNamespaces,
    ["OwnNamespace", "AllNamespaces"] as const,
  );
  return {
    apiVersion: "operators.coreos.com/v1",
    kind: "OperatorGroup",
    metadata: {
      name: requireDnsSubdomain("packageName", args.packageName),
      namespace: requireDnsLabel("namespace", args.namespace),
    },
    // An empty spec is how OLM spells "all namespaces".
    spec: target === "OwnNamespace" ? { targetNamespaces: [args.namespace] } : {},
  };
}

export function subscription(args: OperatorSubscriptionArgs) {
  const packageName = requireDnsSubdomain("packageName", args.packageName);
  const channel = requireNonEmptyString("channel", args.channel);
  if (!CHANNEL.test(channel)) {
    throw new InputError(
      "channel",
      `${JSON.stringify(channel)} is not a channel name: use lower-case letters, digits, '-', '.' or '_' (e.g. "stable")`,
    );
  }
  const startingCSV = args.startingCSV;
  if (startingCSV !== undefined && !startingCSV.startsWith(`${packageName}.`)) {
    throw new InputError(
      "startingCSV",
      `${JSON.stringify(startingCSV)} is not a CSV of package ${packageName}: CSV names look like "${packageName}.v1.2.3"`,
    );
  }
  return {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "Subscription",
    metadata: { name: packageName, namespace: requireDnsLabel("namespace", args.namespace) },
    spec: {
      channel,
      installPlanApproval: requireOneOf(
        "installPlanApproval",
        args.installPlanApproval ?? SUBSCRIPTION_DEFAULTS.installPlanApproval,
        INSTALL_PLAN_APPROVALS,
      ),
      name: packageName,
      source: requireDnsSubdomain("source", args.source ?? SUBSCRIPTION_DEFAULTS.source),
      sourceNamespace: requireDnsLabel(
        "sourceNamespace",
        args.sourceNamespace ?? SUBSCRIPTION_DEFAULTS.sourceNamespace,
      ),
      ...(startingCSV !== undefined ? { startingCSV: requireDnsSubdomain("startingCSV", startingCSV) } : {}),
    },
  };
}
