import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { collectErrors, InputError, InputErrors } from "../../builders/errors";
import {
  checkExtensionAgainstCatalog,
  clusterExtension,
  operatorNamespace,
  PackageManifestStatus,
  SUBSCRIPTION_DEFAULTS,
  UPGRADE_CONSTRAINT_POLICIES,
} from "../../builders/olm";
import { requireDnsLabel, requireDnsSubdomain } from "../../builders/validation";
import { child } from "../declared";
import { contentHash, ExtensionInstall, ExtensionRemoval } from "../../provider/dynamic";
import { field, KINDS } from "../../provider/waiting/kinds";
import { kubeOptions, manifestArgs } from "../cluster/kube";
import { clusterOfThisRun } from "../cluster/preview-run";
import { clusterAccess, Waiting, WaitArgs } from "../cluster/wait";
import { checked, InputChecks } from "../errors";

export interface ClusterExtensionArgs extends WaitArgs {
  /** The operator's package in the catalog; also the ClusterExtension's name. */
  packageName: string;
  /** Namespace the extension's namespaced objects go to; default the package name. Names resources, so plain. */
  namespace?: string;
  /** Create the namespace (default), or use one that exists. */
  createNamespace?: boolean;
  /**
   * The ServiceAccount in `namespace` that operator-controller installs the extension as. Default: one
   * named `<packageName>-installer` is created and bound to `installerClusterRole`.
   */
  serviceAccount?: string;
  /**
   * The ClusterRole the created ServiceAccount is bound to; default `cluster-admin`, which can install
   * any bundle. Give a role with the bundle's permissions only (OLM v1 docs: "Deriving minimal
   * ServiceAccount permissions") to grant less.
   */
  installerClusterRole?: string;
  /** Channels the bundle must be in, e.g. `["stable"]`; default any. Checked against the catalog at preview. */
  channels?: pulumi.Input<string[]>;
  /**
   * A version or range (operator-controller's syntax: `1.14.2`, `>=1.14.0, <1.15.0`, `~1.14`,
   * `1.14.x || 1.15.x`); default the latest. Checked against the catalog at preview.
   */
  version?: pulumi.Input<string>;
  /** `CatalogProvided` (default): upgrades follow the catalog's edges; `SelfCertified`: any version in range. */
  upgradeConstraintPolicy?: pulumi.Input<"CatalogProvided" | "SelfCertified">;
  /** Kubernetes provider for the cluster, of the objects and the waiters. */
  provider?: k8s.Provider;
}

interface Resolved {
  channels?: string[];
  version?: string;
  upgradeConstraintPolicy?: (typeof UPGRADE_CONSTRAINT_POLICIES)[number];
}

function manifestOf(packageName: string, namespace: string, serviceAccount: string, values: Resolved) {
  return clusterExtension({ packageName, namespace, serviceAccount, ...values });
}

/** Whether `check` throws no InputError (anything else it throws is thrown on). */
function passes(check: () => unknown): boolean {
  try {
    check();
    return true;
  } catch (e) {
    InputErrors.of(e);
    return false;
  }
}

/**
 * A property the program did not give, checked as its default (`how`): not at all when the package name
 * it derives from is bad, and otherwise named as a default, so that the error says what to give.
 */
function byDefault(
  property: string,
  value: string,
  how: string,
  check: (path: string, value: unknown) => string,
  packageValid: boolean,
): string {
  if (!packageValid) return value;
  try {
    return check(property, value);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError(property, `not given, and its default (${how}) is not valid: ${e.reason}; give one`);
  }
}

/**
 * At preview, the choice of channels and version against the package as the cluster's catalog serves
 * it. OpenShift's `openshift-redhat-operators` ClusterCatalog unpacks the same redhat-operator-index
 * as OLM's `redhat-operators` CatalogSource, whose package server answers one read by name; nothing is
 * checked when the cluster does not answer or does not serve the package (a warning then).
 */
function catalogCheck(
  packageName: string,
  values: pulumi.Output<Resolved>,
  cluster: Waiting,
  parent: pulumi.Resource,
): pulumi.Output<void> {
  return pulumi.all([pulumi.unsecret(cluster.kubeconfig), values]).apply(async ([kubeconfig, chosen]) => {
    const snapshot = clusterOfThisRun(kubeconfig);
    if ((await snapshot.unreachableBecause()) !== undefined) return;
    const namespace = SUBSCRIPTION_DEFAULTS.sourceNamespace;
    const manifest = await snapshot.object(KINDS.packageManifest, packageName, namespace).catch(() => null);
    if (manifest === null) return;
    if (manifest === undefined) {
      pulumi.log.warn(
        `package ${packageName} is not in the cluster's catalogs: the extension resolves only once one serves it`,
        parent,
      );
      return;
    }
    const status =
      field<PackageManifestStatus & { channels?: Array<{ entries?: Array<{ version?: string }> }> }>(
        manifest,
        "status",
      ) ?? {};
    checkExtensionAgainstCatalog(
      {
        catalog: status.catalogSource ?? SUBSCRIPTION_DEFAULTS.source,
        packageName,
        defaultChannel: status.defaultChannel,
        channels: Object.fromEntries(
          (status.channels ?? []).map((c) => [
            c.name,
            ((c.entries ?? []) as Array<{ version?: string }>).map((e) => e.version ?? "").filter(Boolean),
          ]),
        ),
      },
      chosen,
    );
  });
}

/**
 * An operator installed through OLM v1 (OpenShift 4.18 and later): its Namespace, the ServiceAccount it
 * installs as (bound to a ClusterRole), and the ClusterExtension; `up` returns once operator-controller
 * reports it installed, and destroy waits until it has uninstalled it (its finalizers).
 */
export class ClusterExtension extends pulumi.ComponentResource {
  /** The namespace of the extension's namespaced objects. */
  declare public readonly namespace: string;
  /** The ClusterExtension. */
  declare public readonly extension: pulumi.Output<k8s.apiextensions.CustomResource>;
  /** The installed bundle, once waited for. */
  declare public readonly installedBundle: pulumi.Output<string | undefined>;
  /** Its version, once waited for. */
  declare public readonly installedVersion: pulumi.Output<string | undefined>;

  constructor(name: string, args: ClusterExtensionArgs, opts: pulumi.ComponentResourceOptions = {}) {
    super("openshift-topology:index:ClusterExtension", name, {}, opts);
    const checks = new InputChecks(`ClusterExtension "${name}"`);
    const given = args.namespace ?? args.packageName;
    const { packageName, namespace, serviceAccount } = checks.now(
      () => {
        // A default made of a bad package name is not named again: the package name's error says it.
        const packageValid = passes(() => requireDnsSubdomain("packageName", args.packageName));
        const [pkg, ns, sa] = collectErrors([
          () => requireDnsSubdomain("packageName", args.packageName),
          () =>
            args.namespace !== undefined
              ? requireDnsLabel("namespace", args.namespace)
              : byDefault("namespace", given, "the package name", requireDnsLabel, packageValid),
          () =>
            args.serviceAccount !== undefined
              ? requireDnsSubdomain("serviceAccount", args.serviceAccount)
              : byDefault(
                  "serviceAccount",
                  `${args.packageName}-installer`,
                  "<packageName>-installer",
                  requireDnsSubdomain,
                  packageValid,
                ),
        ]);
        return { packageName: pkg, namespace: ns, serviceAccount: sa };
      },
      // Stand-ins for what the program did not give: what is wrong with them is said above, once.
      {
        packageName: args.packageName,
        namespace: args.namespace ?? "stand-in",
        serviceAccount: args.serviceAccount ?? "stand-in",
      },
    );
    const resolved = {
      channels: args.channels,
      version: args.version,
      upgradeConstraintPolicy: args.upgradeConstraintPolicy,
    };
    checks.asKnown(
      (values: Resolved) => manifestOf(packageName, namespace, serviceAccount, values),
      resolved,
    );
    const kopts = kubeOptions(this, args.provider);
    const cluster = checks.now(() => clusterAccess(args, this), undefined);
    if (cluster) checks.add(cluster.check);
    if (cluster && pulumi.runtime.isDryRun())
      checks.add(
        catalogCheck(packageName, pulumi.output(resolved) as pulumi.Output<Resolved>, cluster, this),
      );
    const valid = checks.valid();
    const manifest = pulumi
      .all([valid, resolved])
      .apply(([, values]) =>
        checked(() => manifestOf(packageName, namespace, serviceAccount, values as Resolved)),
      );

    // Each declared once what it takes has settled: bad input declares nothing and leaves nothing pending.
    const before: pulumi.Output<pulumi.Resource>[] = [];
    if (args.createNamespace !== false)
      before.push(
        child(
          k8s.core.v1.Namespace,
          `${name}-namespace`,
          { metadata: valid.apply(() => operatorNamespace({ namespace }).metadata) },
          kopts,
        ),
      );
    if (args.serviceAccount === undefined) {
      const account = child(
        k8s.core.v1.ServiceAccount,
        `${name}-installer`,
        { metadata: { name: serviceAccount, namespace } },
        { ...kopts, dependsOn: [...before] },
      );
      before.push(
        account,
        child(
          k8s.rbac.v1.ClusterRoleBinding,
          `${name}-installer`,
          {
            metadata: { name: `${packageName}-installer` },
            roleRef: {
              apiGroup: "rbac.authorization.k8s.io",
              kind: "ClusterRole",
              name: args.installerClusterRole ?? "cluster-admin",
            },
            subjects: [{ kind: "ServiceAccount", name: serviceAccount, namespace }],
          },
          { ...kopts, dependsOn: [account] },
        ),
      );
    }
    // Created after the ServiceAccount and its binding, deleted before them: uninstalling needs them.
    this.extension = child(
      k8s.apiextensions.CustomResource,
      `${name}-extension`,
      manifestArgs("olm.operatorframework.io/v1", "ClusterExtension", manifest, ["metadata", "spec"]),
      { ...kopts, dependsOn: before },
    );
    const removal =
      cluster &&
      child(
        ExtensionRemoval,
        `${name}-removal`,
        { ...cluster.watching([this.extension]), extension: valid.apply(() => packageName) },
        cluster.options([this.extension]),
      );
    const waits = args.wait === false ? undefined : cluster;
    const install =
      waits &&
      child(
        ExtensionInstall,
        `${name}-install`,
        {
          ...waits.watching([this.extension]),
          extension: packageName,
          contentHash: manifest.apply(contentHash),
        },
        waits.options([this.extension, ...(removal ? [removal] : [])]),
      );
    this.namespace = namespace;
    this.installedBundle = install ? install.apply((i) => i.bundle) : pulumi.output(undefined);
    this.installedVersion = install ? install.apply((i) => i.version) : pulumi.output(undefined);
    this.registerOutputs({
      namespace,
      installedBundle: this.installedBundle,
      installedVersion: this.installedVersion,
    });
  }
}
