import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { collectErrors, within } from "../../builders/errors";
import {
  checkAgainstCatalog,
  InstallPlanApproval,
  operatorGroup,
  PackageManifestStatus,
  operatorNamespace,
  subscription,
  SUBSCRIPTION_DEFAULTS,
  SubscriptionConfig,
  TARGET_NAMESPACES,
} from "../../builders/olm";
import { requireDnsLabel, requireDnsSubdomain, requireOneOf } from "../../builders/validation";
import { contentHash, OperatorInstall, OperatorRemoval } from "../../provider/dynamic";
import { adoptOption, kubeOptions, manifestArgs, PATCH_FORCE, withAnnotations } from "../cluster/kube";
import { clusterAccess, Waiting, WaitArgs } from "../cluster/wait";
import { clusterOfThisRun } from "../cluster/preview-run";
import { adoption } from "../cluster/adoption";
import { field, KINDS, kindOfCrd } from "../../provider/waiting/kinds";
import { crdsToRemove } from "../../provider/waiting/waiters";
import { checked, InputChecks, inputPropertyError } from "../errors";
import { child } from "../declared";

export interface OperatorSubscriptionArgs extends WaitArgs {
  /** The operator's package in the catalog; also the Subscription and OperatorGroup name. */
  packageName: string;
  /** Namespace the operator is installed in; default the package name. Names resources, so plain. */
  namespace?: string;
  /** Create the namespace (default), or use one that exists (`openshift-operators`, say). */
  createNamespace?: boolean;
  /** Labels of the namespace created, e.g. `openshift.io/cluster-monitoring: "true"`. */
  namespaceLabels?: pulumi.Input<Record<string, string>>;
  /**
   * Adopt the namespace, OperatorGroup and Subscription made by hand (OperatorHub or the docs' YAML)
   * under the names this component gives them: Pulumi's `import` on each it declares, so the first `up`
   * reads them and applies only what differs. Each must exist: the preview names each one missing and
   * the way out.
   */
  adopt?: boolean;
  /** Create an OperatorGroup (default); turn off when the namespace already has one. */
  createOperatorGroup?: boolean;
  /**
   * `OwnNamespace` (default) or `AllNamespaces`: an install mode the operator supports (many support
   * `AllNamespaces` only), which the preview checks against the catalog.
   */
  targetNamespaces?: "OwnNamespace" | "AllNamespaces";
  /**
   * Update channel of the package, e.g. `stable`; `kubectl get packagemanifest <package> -n
   * openshift-marketplace -o jsonpath='{.status.channels[*].name}'` lists them.
   */
  channel: pulumi.Input<string>;
  /** Default `Automatic`. With `Manual`, only the InstallPlan for `startingCSV` is ever approved. */
  installPlanApproval?: pulumi.Input<InstallPlanApproval>;
  /** Catalog; default `redhat-operators` in `openshift-marketplace`. */
  source?: pulumi.Input<string>;
  /** Namespace of the catalog source; default `openshift-marketplace`. */
  sourceNamespace?: pulumi.Input<string>;
  /** Pin the first version to install. */
  startingCSV?: pulumi.Input<string>;
  /**
   * How OLM deploys the operator (the Subscription's `spec.config`, applied to every Deployment of its
   * CSV): `nodeSelector`, `tolerations`, `resources`, `env`, `envFrom`, `volumes`, `volumeMounts`,
   * `selector`, `affinity`, `annotations`. `config: infra.placement` puts the operator on an
   * `InfraNodePool`'s nodes (its node selector and tolerations; the Subscription is then created once
   * the pool's nodes are ready). The install waits until the operator's Deployments run with it.
   */
  config?: pulumi.Input<SubscriptionConfig>;
  /**
   * On destroy, also delete the CRDs the operator owns and every instance of them (OLM leaves both
   * behind): the instances first, waited for while the operator still runs to honour their finalizers,
   * then the operator, then the CRDs. The preview names the CRDs and counts their instances; refused
   * (at preview when the cluster shows it, else at destroy, before anything is deleted) while a CSV of
   * another Subscription owns one of them. Default false.
   */
  removeCustomResources?: boolean;
  /**
   * Kubernetes provider for the cluster, of the objects and the waiters; default the `provider` or
   * `providers` option's (the component's or a parent's), else the stack's default provider.
   */
  provider?: k8s.Provider;
}

/** The args that name the child resources, plain values, all checked at once. */
function namingArgs(args: OperatorSubscriptionArgs): { packageName: string; namespace: string } {
  const [packageName] = collectErrors([
    () => requireDnsSubdomain("packageName", args.packageName),
    () => (args.namespace === undefined ? undefined : requireDnsLabel("namespace", args.namespace)),
    () =>
      args.targetNamespaces === undefined
        ? undefined
        : requireOneOf("targetNamespaces", args.targetNamespaces, TARGET_NAMESPACES),
  ]);
  // Only a valid package name can stand for a namespace not given.
  return { packageName, namespace: requireDnsLabel("namespace", args.namespace ?? packageName) };
}

/** The Input args, once resolved: the Namespace's labels and the Subscription's settings. */
interface ResolvedArgs {
  namespaceLabels?: Record<string, string>;
  channel: string;
  installPlanApproval?: InstallPlanApproval;
  source?: string;
  sourceNamespace?: string;
  startingCSV?: string;
  config?: SubscriptionConfig;
}

function resolvedArgs(args: OperatorSubscriptionArgs): pulumi.Inputs {
  const { namespaceLabels, channel, installPlanApproval, source, sourceNamespace, startingCSV, config } =
    args;
  return { namespaceLabels, channel, installPlanApproval, source, sourceNamespace, startingCSV, config };
}

/** The Namespace and the Subscription of resolved args, every problem of both reported at once. */
function namespaceAndSubscription(packageName: string, namespace: string, values: ResolvedArgs) {
  const { namespaceLabels, ...settings } = values;
  const [ns, sub] = collectErrors([
    () => operatorNamespace({ namespace, namespaceLabels }),
    () => subscription({ packageName, namespace, ...settings }),
  ]);
  return { namespace: ns, subscription: sub };
}

/**
 * OperatorSubscription args that an enclosing component takes at `path` (WindowsNodePool's `operator`),
 * checked among the enclosing component's `checks` so that errors name the path the user wrote. The
 * result is for an OperatorSubscription: its Inputs resolve only once every check of the enclosing
 * component passed, so it never reports them under its own, shorter paths. Undefined when the plain
 * args that name its resources are bad.
 */
export function nestedSubscriptionArgs(
  args: OperatorSubscriptionArgs,
  path: string,
  checks: InputChecks,
): OperatorSubscriptionArgs | undefined {
  const names = checks.now(() => within(path, () => namingArgs(args)), undefined);
  const { packageName, namespace } = names ?? givenNames(args);
  checks.asKnown(
    (values: Record<string, ResolvedArgs>) =>
      within(path, () => namespaceAndSubscription(packageName, namespace, values[path])),
    { [path]: resolvedArgs(args) },
  );
  if (names === undefined) return undefined;
  const valid = checks.valid();
  const after = <T>(value: pulumi.Input<T>) => pulumi.all([valid, value]).apply(([, v]) => v as T);
  const optional = <T>(value: pulumi.Input<T> | undefined) =>
    value === undefined ? undefined : after(value);
  return {
    ...args,
    namespaceLabels: optional(args.namespaceLabels),
    channel: after(args.channel),
    installPlanApproval: optional(args.installPlanApproval),
    source: optional(args.source),
    sourceNamespace: optional(args.sourceNamespace),
    startingCSV: optional(args.startingCSV),
    config: optional(args.config),
  };
}

/** The names as given, for checking the other args while the names themselves are bad. */
function givenNames(args: OperatorSubscriptionArgs): { packageName: string; namespace: string } {
  return { packageName: args.packageName, namespace: args.namespace ?? args.packageName };
}

/**
 * At preview, the package as its catalog serves it (one PackageManifest read by name): a channel it does
 * not have, a target its channel's head does not support or a `startingCSV` not in the channel is an
 * input error now, where OLM would report it only after `up` created the objects (and the install
 * waiter fail once the failure persisted past OLM's retries). A package the catalog does not serve is
 * a warning (the stack may create the catalog); nothing is checked when the cluster does not answer or
 * refuses the read.
 */
function catalogCheck(
  args: OperatorSubscriptionArgs,
  packageName: string,
  cluster: Waiting,
  parent: pulumi.Resource,
): pulumi.Output<void> {
  const { channel, source, sourceNamespace, startingCSV } = args;
  return pulumi
    .all([pulumi.unsecret(cluster.kubeconfig), channel, source, sourceNamespace, startingCSV])
    .apply(async ([kubeconfig, channelName, sourceName, catalogNamespace, starting]) => {
      const catalog = sourceName ?? SUBSCRIPTION_DEFAULTS.source;
      const namespace = catalogNamespace ?? SUBSCRIPTION_DEFAULTS.sourceNamespace;
      const snapshot = clusterOfThisRun(kubeconfig);
      if ((await snapshot.unreachableBecause()) !== undefined) return;
      // A read refused (RBAC without packagemanifests, say) checks nothing; only a 404 says "not there".
      const manifest = await snapshot.object(KINDS.packageManifest, packageName, namespace).catch(() => null);
      if (manifest === null) return;
      if (manifest === undefined) {
        pulumi.log.warn(
          `package ${packageName} is not in the catalogs of namespace ${namespace} (kubectl get packagemanifests -n ${namespace} lists them): the Subscription resolves only once catalog ${catalog} serves it`,
          parent,
        );
        return;
      }
      const status = field<PackageManifestStatus>(manifest, "status") ?? {};
      // The package server answers a name with one catalog's package: another catalog's tells nothing.
      if (status.catalogSource !== catalog) return;
      checkAgainstCatalog(status, {
        packageName,
        channel: channelName,
        targetNamespaces: args.targetNamespaces,
        startingCSV: starting,
      });
    });
}

/**
 * At preview, with `removeCustomResources`: what destroy will delete (each CRD the installed CSV owns,
 * with the count of its instances), logged on the component, or an input error when a CSV of another
 * Subscription owns one of them. Nothing is said of a cluster that does not answer.
 */
function crdRemovalPreview(
  packageName: string,
  namespace: string,
  cluster: Waiting,
  parent: pulumi.Resource,
): pulumi.Output<void> {
  return pulumi.unsecret(cluster.kubeconfig).apply(async (kubeconfig) => {
    const snapshot = clusterOfThisRun(kubeconfig);
    if ((await snapshot.unreachableBecause()) !== undefined) return;
    const read = async () => {
      const sub = await snapshot.object(KINDS.subscription, packageName, namespace);
      const installed = field<string>(sub, "status", "installedCSV");
      const csv = installed ? await snapshot.object(KINDS.csv, installed, namespace) : undefined;
      if (!csv) return undefined;
      const { crds, refused } = crdsToRemove([csv], await snapshot.objects(KINDS.csv));
      const counts = await Promise.all(
        crds.map(async (name) => {
          const crd = await snapshot.object(KINDS.crd, name);
          const instances = crd ? (await snapshot.objects(kindOfCrd(crd))).length : 0;
          return `CRD ${name} (${instances} instance${instances === 1 ? "" : "s"})`;
        }),
      );
      return { csv: csv.metadata.name, counts, refused };
    };
    // A read refused (RBAC) says nothing; only what the cluster shows is promised.
    const found = await read().catch(() => null);
    if (found === null) return;
    if (found === undefined) {
      pulumi.log.info(
        `removeCustomResources: destroy deletes the CRDs the installed CSV owns and their instances (none installed yet)`,
        parent,
      );
      return;
    }
    if (found.refused.length > 0)
      throw inputPropertyError(
        "removeCustomResources",
        `${found.refused.join("; ")}: deleting it would break that operator; uninstall it first or leave removeCustomResources off`,
      );
    pulumi.log.info(
      `removeCustomResources: destroy deletes ${found.counts.join(", ") || "no CRD"} of ${found.csv}, instances first`,
      parent,
    );
  });
}

/**
 * Any OLM operator: its Namespace, an OperatorGroup and the Subscription, in the order OLM needs them
 * (nothing installs without an OperatorGroup in the namespace).
 */
export class OperatorSubscription extends pulumi.ComponentResource {
  /** The namespace the operator is installed in. */
  declare public readonly namespace: string;
  /** The operator's package in the catalog. */
  declare public readonly packageName: string;
  /** The OLM Subscription, declared once its inputs are checked. */
  declare public readonly subscription: pulumi.Output<k8s.apiextensions.CustomResource>;
  /** The Subscription's name, once its inputs are resolved and checked. */
  declare public readonly subscriptionName: pulumi.Output<string>;
  /**
   * What users of the operator depend on: the install waiter (the Subscription with `wait: false`) and
   * the removal, so that on destroy they are gone before the operator is uninstalled.
   */
  declare public readonly ready: pulumi.Output<pulumi.Resource[]>;
  /** The CSV the Subscription installed and that reached Succeeded, once waited for. */
  declare public readonly installedCSV: pulumi.Output<string | undefined>;
  /**
   * What the operator's custom resources depend on: created once the installed CSV owns its CRDs and
   * the API server serves them (Established, the kind listed), so that
   * `new k8s.apiextensions.CustomResource(..., { dependsOn: [sub.crdsReady] })` works in the same `up`
   * on a fresh cluster. With `wait: false` it is the Subscription, which guarantees nothing.
   */
  declare public readonly crdsReady: pulumi.Output<pulumi.Resource>;
  /** The CRDs the installed CSV owns, each served, once waited for (empty without waiting). */
  declare public readonly crds: pulumi.Output<string[]>;

  constructor(name: string, args: OperatorSubscriptionArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("openshift-topology:index:OperatorSubscription", name, {}, opts);
    const checks = new InputChecks(`OperatorSubscription "${name}"`);
    const { packageName, namespace } = checks.now(() => namingArgs(args), givenNames(args));
    const kopts = kubeOptions(this, args.provider);
    // The cluster access of the waiter, and of the removal, which exists with `wait: false` too.
    const cluster = checks.now(() => clusterAccess(args, this), undefined);
    if (cluster) checks.add(cluster.check);
    checks.asKnown(
      (values: ResolvedArgs) => namespaceAndSubscription(packageName, namespace, values),
      resolvedArgs(args),
    );
    // Adopting, each object must be there: a second OperatorGroup beside one OperatorHub made under
    // another name makes OLM refuse the namespace (TooManyOperatorGroups), so none is created instead.
    const adopting = adoption(args, cluster, this);
    if (adopting) {
      const held = [
        ...(args.createNamespace === false
          ? []
          : [
              {
                kind: KINDS.namespace,
                name: namespace,
                wayOut: "nothing of the operator is installed: leave adopt off",
              },
            ]),
        ...(args.createOperatorGroup === false
          ? []
          : [
              {
                kind: KINDS.operatorGroup,
                name: packageName,
                namespace,
                wayOut:
                  "createOperatorGroup: false keeps the namespace's own, which OperatorHub names otherwise",
              },
            ]),
        {
          kind: KINDS.subscription,
          name: packageName,
          namespace,
          wayOut:
            "leave adopt off, with createNamespace: false and createOperatorGroup: false for those that exist",
        },
      ];
      checks.add(adopting.kubeconfig.apply((config) => adopting.requireHeld(config, held)));
    }
    if (cluster && pulumi.runtime.isDryRun()) checks.add(catalogCheck(args, packageName, cluster, this));
    if (cluster && pulumi.runtime.isDryRun() && args.removeCustomResources === true)
      checks.add(crdRemovalPreview(packageName, namespace, cluster, this));
    const valid = checks.valid();
    const objects = pulumi
      .all([valid, resolvedArgs(args)])
      .apply(([, values]) =>
        checked(() => namespaceAndSubscription(packageName, namespace, values as ResolvedArgs)),
      );
    const manifest = objects.subscription;
    const before: pulumi.Output<pulumi.Resource>[] = [];

    if (args.createNamespace !== false) {
      before.push(
        child(
          k8s.core.v1.Namespace,
          `${name}-namespace`,
          { metadata: objects.namespace.apply((n) => withAnnotations(n, PATCH_FORCE).metadata) },
          { ...kopts, ...adoptOption(args.adopt, namespace) },
        ),
      );
    }
    if (args.createOperatorGroup !== false) {
      const group = valid.apply(() =>
        checked(() => operatorGroup({ packageName, namespace, targetNamespaces: args.targetNamespaces })),
      );
      before.push(
        child(
          k8s.apiextensions.CustomResource,
          `${name}-operator-group`,
          manifestArgs("operators.coreos.com/v1", "OperatorGroup", group, ["metadata", "spec"]),
          {
            ...kopts,
            ...adoptOption(args.adopt, packageName, namespace),
            dependsOn: [...before],
          },
        ),
      );
    }
    this.subscription = child(
      k8s.apiextensions.CustomResource,
      `${name}-subscription`,
      manifestArgs("operators.coreos.com/v1alpha1", "Subscription", manifest, ["metadata", "spec"]),
      { ...kopts, ...adoptOption(args.adopt, packageName, namespace), dependsOn: before },
    );
    // Destroy uninstalls (OLM would leave the CSV running). Pulumi deletes this before the Subscription,
    // and after whatever depends on `ready` (the machines an operator configures).
    const removal =
      cluster &&
      child(
        OperatorRemoval,
        `${name}-removal`,
        {
          ...cluster.watching([this.subscription]),
          namespace: valid.apply(() => namespace),
          subscription: packageName,
          customResources: args.removeCustomResources === true ? true : undefined,
        },
        cluster.options([this.subscription]),
      );

    const waits = args.wait === false ? undefined : cluster;
    // Under Manual approval the waiter approves the pinned CSV's InstallPlan, and only that one.
    const install =
      waits &&
      child(
        OperatorInstall,
        `${name}-install`,
        {
          ...waits.watching([this.subscription]),
          namespace,
          subscription: packageName,
          startingCSV:
            args.startingCSV === undefined ? undefined : manifest.apply((m) => m.spec.startingCSV ?? ""),
          contentHash: manifest.apply(contentHash),
        },
        // After the removal, so that destroy deletes it (and the custom resources depending on it) first.
        waits.options([this.subscription, ...(removal ? [removal] : [])]),
      );

    this.namespace = namespace;
    this.packageName = packageName;
    this.subscriptionName = manifest.apply((m) => m.metadata.name);
    const ready: pulumi.Output<pulumi.Resource>[] = [
      install ?? this.subscription,
      ...(removal ? [removal] : []),
    ];
    this.ready = pulumi.all(ready);
    this.installedCSV = install ? install.apply((i) => i.installedCSV) : pulumi.output(undefined);
    this.crdsReady = install ?? this.subscription;
    this.crds = install ? install.apply((i) => i.crds) : pulumi.output([]);
    this.registerOutputs({
      namespace,
      packageName,
      subscriptionName: this.subscriptionName,
      installedCSV: this.installedCSV,
      crds: this.crds,
    });
  }
}
