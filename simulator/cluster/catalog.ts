/**
 * The content of the simulated catalog images: packages, channels and the upgrade graph (each entry
 * `replaces` the previous one, head last), the data OLM's resolver walks.
 */

export type InstallModeType = "OwnNamespace" | "SingleNamespace" | "MultiNamespace" | "AllNamespaces";

export interface BundleEntry {
  /** CSV name, `<package>.v<version>`. */
  name: string;
  version: string;
  replaces?: string;
  displayName: string;
  installModes: InstallModeType[];
}

export interface CatalogPackage {
  defaultChannel: string;
  /** The namespace the operator's bundle suggests (`operatorframework.io/suggested-namespace`). */
  suggestedNamespace: string;
  /** Channel name -> entries, oldest first; the last one is the channel head. */
  channels: Record<string, BundleEntry[]>;
}

export interface CatalogContent {
  displayName: string;
  publisher: string;
  image: string;
  packages: Record<string, CatalogPackage>;
}

const OWN_OR_SINGLE: InstallModeType[] = ["OwnNamespace", "SingleNamespace"];
const OWN_SINGLE_OR_ALL: InstallModeType[] = ["OwnNamespace", "SingleNamespace", "AllNamespaces"];
const ALL: InstallModeType[] = ["AllNamespaces"];

function chain(
  pkg: string,
  displayName: string,
  versions: string[],
  installModes: InstallModeType[],
): BundleEntry[] {
  return versions.map((version, i) => ({
    name: `${pkg}.v${version}`,
    version,
    ...(i > 0 ? { replaces: `${pkg}.v${versions[i - 1]}` } : {}),
    displayName,
    installModes,
  }));
}

/**
 * Catalogs by CatalogSource name (all in openshift-marketplace). Package names, channels, default
 * channels, display names, install modes and suggested namespaces are those of redhat-operator-index
 * v4.17; each channel holds a few of its versions.
 */
export const CATALOGS: Record<string, CatalogContent> = {
  "redhat-operators": {
    displayName: "Red Hat Operators",
    publisher: "Red Hat",
    image: "registry.redhat.io/redhat/redhat-operator-index:v4.17",
    packages: {
      "windows-machine-config-operator": {
        defaultChannel: "stable",
        suggestedNamespace: "openshift-windows-machine-config-operator",
        channels: {
          stable: chain(
            "windows-machine-config-operator",
            "Windows Machine Config Operator",
            ["10.16.1", "10.17.0"],
            OWN_OR_SINGLE,
          ),
        },
      },
      "cluster-logging": {
        defaultChannel: "stable-6.1",
        suggestedNamespace: "openshift-logging",
        channels: {
          "stable-6.0": chain(
            "cluster-logging",
            "Red Hat OpenShift Logging",
            ["6.0.0", "6.0.1", "6.0.2"],
            OWN_SINGLE_OR_ALL,
          ),
          "stable-6.1": chain(
            "cluster-logging",
            "Red Hat OpenShift Logging",
            ["6.1.0", "6.1.1"],
            OWN_SINGLE_OR_ALL,
          ),
        },
      },
      "loki-operator": {
        defaultChannel: "stable-6.1",
        suggestedNamespace: "openshift-operators-redhat",
        channels: {
          "stable-6.0": chain("loki-operator", "Loki Operator", ["6.0.0", "6.0.1", "6.0.2"], ALL),
          "stable-6.1": chain("loki-operator", "Loki Operator", ["6.1.0", "6.1.1"], ALL),
        },
      },
      "local-storage-operator": {
        defaultChannel: "stable",
        suggestedNamespace: "openshift-local-storage",
        channels: {
          stable: chain(
            "local-storage-operator",
            "Local Storage",
            ["4.17.0-202410241236", "4.17.0-202411190033"],
            OWN_OR_SINGLE,
          ),
        },
      },
      "openshift-gitops-operator": {
        defaultChannel: "latest",
        suggestedNamespace: "openshift-gitops-operator",
        channels: {
          "gitops-1.14": chain(
            "openshift-gitops-operator",
            "Red Hat OpenShift GitOps",
            ["1.14.0", "1.14.1"],
            ALL,
          ),
          latest: chain(
            "openshift-gitops-operator",
            "Red Hat OpenShift GitOps",
            ["1.14.0", "1.14.1", "1.14.2"],
            ALL,
          ),
        },
      },
    },
  },
};

export const MARKETPLACE_NAMESPACE = "openshift-marketplace";

export interface Resolved {
  entry?: BundleEntry;
  /** The resolver's wording when nothing satisfies the subscription. */
  error?: string;
}

/** Looks a subscription's package, channel and optional starting CSV up in a catalog. */
export function lookupBundle(
  catalog: CatalogContent | undefined,
  subscription: {
    name: string;
    source: string;
    sourceNamespace: string;
    pkg: string;
    channel?: string;
    startingCSV?: string;
  },
): Resolved {
  const { name, source, sourceNamespace, pkg, startingCSV } = subscription;
  if (!catalog) {
    return {
      error: `no operators found from catalog ${source} in namespace ${sourceNamespace} referenced by subscription ${name}`,
    };
  }
  const p = catalog.packages[pkg];
  if (!p)
    return {
      error: `no operators found in package ${pkg} in the catalog referenced by subscription ${name}`,
    };
  const channel = subscription.channel || p.defaultChannel;
  const entries = p.channels[channel];
  if (!entries) {
    return {
      error: `no operators found in channel ${channel} of package ${pkg} in the catalog referenced by subscription ${name}`,
    };
  }
  if (startingCSV) {
    const entry = entries.find((e) => e.name === startingCSV);
    if (!entry) {
      return {
        error: `no operators found with name ${startingCSV} in channel ${channel} of package ${pkg} in the catalog referenced by subscription ${name}`,
      };
    }
    return { entry };
  }
  return { entry: entries[entries.length - 1] };
}

/** The entry of the channel that replaces `current`, i.e. the next upgrade, if any. */
export function successorOf(
  catalog: CatalogContent | undefined,
  pkg: string,
  channel: string,
  current: string,
): BundleEntry | undefined {
  const p = catalog?.packages[pkg];
  const entries = p?.channels[channel || p.defaultChannel] ?? [];
  return entries.find((e) => e.replaces === current);
}
