import { collectErrors, InputError } from "../errors";
import {
  requireDnsLabel,
  requireDnsSubdomain,
  requireLabels,
  requireNonEmptyString,
  requireOneOf,
} from "../validation";
import { requireSubscriptionConfig, SubscriptionConfig } from "./config";

/**
 * OLM objects for installing an operator from a catalog: Namespace, OperatorGroup, Subscription. Field
 * order and values follow the OpenShift docs (installing the Windows Machine Config Operator with the CLI).
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
  targetNamespaces?: (typeof TARGET_NAMESPACES)[number];
  /** Extra namespace labels, e.g. `openshift.io/cluster-monitoring: "true"` for Red Hat operators. */
  namespaceLabels?: Record<string, string>;
  /** How OLM deploys the operator (`spec.config`): node selector, tolerations, resources, env, ... */
  config?: SubscriptionConfig;
}

export const TARGET_NAMESPACES = ["OwnNamespace", "AllNamespaces"] as const;

export const SUBSCRIPTION_DEFAULTS = {
  installPlanApproval: "Automatic" as InstallPlanApproval,
  source: "redhat-operators",
  sourceNamespace: "openshift-marketplace",
  targetNamespaces: "OwnNamespace" as const,
};

export function operatorNamespace(args: Pick<OperatorSubscriptionArgs, "namespace" | "namespaceLabels">) {
  const [name, labels] = collectErrors([
    () => requireDnsLabel("namespace", args.namespace),
    () => requireLabels("namespaceLabels", args.namespaceLabels),
  ]);
  return {
    apiVersion: "v1",
    kind: "Namespace",
    metadata: { ...(Object.keys(labels).length > 0 ? { labels } : {}), name },
  };
}

export function operatorGroup(
  args: Pick<OperatorSubscriptionArgs, "packageName" | "namespace" | "targetNamespaces">,
) {
  const [target, name, namespace] = collectErrors([
    () =>
      requireOneOf("targetNamespaces", args.targetNamespaces ?? SUBSCRIPTION_DEFAULTS.targetNamespaces, [
        "OwnNamespace",
        "AllNamespaces",
      ] as const),
    () => requireDnsSubdomain("packageName", args.packageName),
    () => requireDnsLabel("namespace", args.namespace),
  ]);
  return {
    apiVersion: "operators.coreos.com/v1",
    kind: "OperatorGroup",
    metadata: { name, namespace },
    // An empty spec is how OLM spells "all namespaces".
    spec: target === "OwnNamespace" ? { targetNamespaces: [namespace] } : {},
  };
}

function requireChannel(path: string, value: unknown): string {
  const channel = requireNonEmptyString(path, value);
  if (!CHANNEL.test(channel)) {
    throw new InputError(
      path,
      `${JSON.stringify(channel)} is not a channel name: use lower-case letters, digits, '-', '.' or '_' (e.g. "stable")`,
    );
  }
  return channel;
}

function requireStartingCSV(path: string, value: unknown, packageName: string): string {
  const csv = requireDnsSubdomain(path, value);
  if (!csv.startsWith(`${packageName}.`)) {
    throw new InputError(
      path,
      `${JSON.stringify(csv)} is not a CSV of package ${packageName}: CSV names look like "${packageName}.v1.2.3"`,
    );
  }
  return csv;
}

export function subscription(args: OperatorSubscriptionArgs) {
  // Every field is checked, and every problem reported at once.
  const [packageName, namespace, channel, installPlanApproval, source, sourceNamespace, startingCSV, config] =
    collectErrors([
      () => requireDnsSubdomain("packageName", args.packageName),
      () => requireDnsLabel("namespace", args.namespace),
      () => requireChannel("channel", args.channel),
      () =>
        requireOneOf(
          "installPlanApproval",
          args.installPlanApproval ?? SUBSCRIPTION_DEFAULTS.installPlanApproval,
          INSTALL_PLAN_APPROVALS,
        ),
      () => requireDnsSubdomain("source", args.source ?? SUBSCRIPTION_DEFAULTS.source),
      () => requireDnsLabel("sourceNamespace", args.sourceNamespace ?? SUBSCRIPTION_DEFAULTS.sourceNamespace),
      () =>
        args.startingCSV === undefined
          ? undefined
          : requireStartingCSV("startingCSV", args.startingCSV, args.packageName),
      () => (args.config === undefined ? undefined : requireSubscriptionConfig("config", args.config)),
    ]);
  return {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "Subscription",
    metadata: { name: packageName, namespace },
    spec: {
      channel,
      installPlanApproval,
      name: packageName,
      source,
      sourceNamespace,
      ...(startingCSV !== undefined ? { startingCSV } : {}),
      ...(config !== undefined && Object.keys(config).length > 0 ? { config } : {}),
    },
  };
}
