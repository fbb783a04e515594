import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  InstallPlanApproval,
  operatorGroup,
  operatorNamespace,
  subscription,
  SUBSCRIPTION_DEFAULTS,
} from "../../builders/olm";
import { requireDnsLabel, requireDnsSubdomain } from "../../builders/validation";
import { contentHash, OperatorInstall, OperatorRemoval } from "../../provider/dynamic";
import { kubeOptions, manifestArgs } from "../cluster/kube";
import { clusterAccess, WaitArgs } from "../cluster/wait";
import { checked } from "../errors";

export interface OperatorSubscriptionArgs extends WaitArgs {
  /** The operator's package in the catalog; also the Subscription and OperatorGroup name. */
  packageName: string;
  /** Namespace the operator is installed in; default the package name. Names resources, so plain. */
  namespace?: string;
  /** Create the namespace (default), or use one that exists (`openshift-operators`, say). */
  createNamespace?: boolean;
  namespaceLabels?: pulumi.Input<Record<string, string>>;
  /** Create an OperatorGroup (default); turn off when the namespace already has one. */
  createOperatorGroup?: boolean;
  /** `OwnNamespace` (default) or `AllNamespaces`. */
  targetNamespaces?: "OwnNamespace" | "AllNamespaces";
  channel: pulumi.Input<string>;
  /** Default `Automatic`. With `Manual`, only the InstallPlan for `startingCSV` is ever approved. */
  installPlanApproval?: pulumi.Input<InstallPlanApproval>;
  /** Catalog; default `redhat-operators` in `openshift-marketplace`. */
  source?: pulumi.Input<string>;
  sourceNamespace?: pulumi.Input<string>;
  /** Pin the first version to install. */
  startingCSV?: pulumi.Input<string>;
  /** Kubernetes provider for the cluster; default the stack's default provider. */
  provider?: k8s.Provider;
}

/**
 * Any OLM operator: its Namespace, an OperatorGroup and the Subscription, in the order OLM needs them
 * (nothing installs without an OperatorGroup in the namespace).
 */
export class OperatorSubscription extends pulumi.ComponentResource {
  declare public readonly namespace: string;
  declare public readonly packageName: string;
  declare public readonly subscription: k8s.apiextensions.CustomResource;
  /** The Subscription's name, once its inputs are resolved and checked. */
  declare public readonly subscriptionName: pulumi.Output<string>;
  /**
   * What users of the operator depend on: the install waiter (the Subscription with `wait: false`) and
   * the removal, so that on destroy they are gone before the operator is uninstalled.
   */
  declare public readonly ready: pulumi.Resource[];
  /** The CSV the Subscription installed and that reached Succeeded, once waited for. */
  declare public readonly installedCSV: pulumi.Output<string | undefined>;

  /**
   * `propertyPrefix` says where these args sit in an enclosing component's Args (`operator` in
   * WindowsNodePool), so that input errors name the property the user wrote.
   */
  constructor(
    name: string,
    args: OperatorSubscriptionArgs,
    opts: pulumi.ComponentResourceOptions = {},
    propertyPrefix = "",
  ) {
    super("openshift-topology:index:OperatorSubscription", name, {}, opts);
    const packageName = checked(() => requireDnsSubdomain("packageName", args.packageName), propertyPrefix);
    const namespace = checked(
      () => requireDnsLabel("namespace", args.namespace ?? packageName),
      propertyPrefix,
    );
    const kopts = kubeOptions(this, args.provider);
    const before: pulumi.Resource[] = [];

    if (args.createNamespace !== false) {
      const manifest = pulumi
        .output(args.namespaceLabels)
        .apply((namespaceLabels) => operatorNamespace({ namespace, namespaceLabels }));
      before.push(new k8s.core.v1.Namespace(`${name}-namespace`, { metadata: manifest.metadata }, kopts));
    }
    if (args.createOperatorGroup !== false) {
      const group = checked(
        () => operatorGroup({ packageName, namespace, targetNamespaces: args.targetNamespaces }),
        propertyPrefix,
      );
      before.push(
        new k8s.apiextensions.CustomResource(`${name}-operator-group`, group, {
          ...kopts,
          dependsOn: [...before],
        }),
      );
    }
    // The cluster access of the waiter, and of the removal, which exists with `wait: false` too.
    const cluster = clusterAccess(args, this);
    const manifest = pulumi
      .all([
        args.channel,
        args.installPlanApproval,
        args.source,
        args.sourceNamespace,
        args.startingCSV,
        cluster?.check,
      ])
      .apply(([channel, installPlanApproval, source, sourceNamespace, startingCSV]) =>
        checked(
          () =>
            subscription({
              packageName,
              namespace,
              channel,
              installPlanApproval: installPlanApproval ?? SUBSCRIPTION_DEFAULTS.installPlanApproval,
              source,
              sourceNamespace,
              startingCSV,
            }),
          propertyPrefix,
        ),
      );
    this.subscription = new k8s.apiextensions.CustomResource(
      `${name}-subscription`,
      manifestArgs("operators.coreos.com/v1alpha1", "Subscription", manifest, ["metadata", "spec"]),
      { ...kopts, dependsOn: before },
    );
    const waits = args.wait === false ? undefined : cluster;
    // Under Manual approval the waiter approves the pinned CSV's InstallPlan, and only that one.
    const install =
      waits &&
      new OperatorInstall(
        `${name}-install`,
        {
          kubeconfig: waits.kubeconfig,
          namespace,
          subscription: packageName,
          startingCSV:
            args.startingCSV === undefined ? undefined : manifest.apply((m) => m.spec.startingCSV ?? ""),
          contentHash: manifest.apply(contentHash),
        },
        waits.options([this.subscription]),
      );

    // Destroy uninstalls (OLM would leave the CSV running). Pulumi deletes this before the Subscription,
    // and after whatever depends on `ready` (the machines an operator configures).
    const removal =
      cluster &&
      new OperatorRemoval(
        `${name}-removal`,
        { kubeconfig: cluster.kubeconfig, namespace, subscription: packageName },
        cluster.options([this.subscription]),
      );

    this.namespace = namespace;
    this.packageName = packageName;
    this.subscriptionName = manifest.apply((m) => m.metadata.name);
    this.ready = [install ?? this.subscription, ...(removal ? [removal] : [])];
    this.installedCSV = install ? install.installedCSV : pulumi.output(undefined);
    this.registerOutputs({
      namespace,
      packageName,
      subscriptionName: this.subscriptionName,
      installedCSV: this.installedCSV,
    });
  }
}
