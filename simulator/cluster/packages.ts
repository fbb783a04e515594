/**
 * The package server: PackageManifests computed from the CatalogSources in the store and the content of
 * their catalogs, as operator-lifecycle-manager's package server derives them (pkg/package-server/provider,
 * RegistryProvider.List and newPackageManifest), so that `kubectl get packagemanifests` shows what a user
 * can subscribe to.
 */
import type { ComputedObjects } from "../apiserver/target";
import { field } from "../../primitives/objects";
import { KubeObject, Store } from "../store/types";
import { CatalogPackage, CATALOGS, MARKETPLACE_NAMESPACE } from "./catalog";

const CATALOG_SOURCE = { apiVersion: "operators.coreos.com/v1alpha1", kind: "CatalogSource" };

function packageManifest(catalogSource: KubeObject, name: string, pkg: CatalogPackage): KubeObject {
  const source = catalogSource.metadata.name;
  const namespace = catalogSource.metadata.namespace ?? "";
  const publisher = field<string>(catalogSource, "spec", "publisher") ?? "";
  // newPackageManifest sorts the channels by name and takes the provider from the default channel's head.
  const channels = Object.keys(pkg.channels)
    .sort()
    .map((channel) => {
      const entries = pkg.channels[channel];
      const head = entries[entries.length - 1];
      return {
        name: channel,
        currentCSV: head.name,
        currentCSVDesc: {
          displayName: head.displayName,
          version: head.version,
          provider: { name: publisher },
          annotations: { "operatorframework.io/suggested-namespace": pkg.suggestedNamespace },
          installModes: (["OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"] as const).map(
            (type) => ({ type, supported: head.installModes.includes(type) }),
          ),
        },
        entries: [...entries].reverse().map((e) => ({ name: e.name, version: e.version })),
      };
    });
  return {
    apiVersion: "packages.operators.coreos.com/v1",
    kind: "PackageManifest",
    metadata: {
      name,
      namespace,
      creationTimestamp: catalogSource.metadata.creationTimestamp,
      labels: {
        ...catalogSource.metadata.labels,
        catalog: source,
        "catalog-namespace": namespace,
        provider: publisher,
        "provider-url": "",
        "operatorframework.io/arch.amd64": "supported",
        "operatorframework.io/os.linux": "supported",
      },
    },
    spec: {},
    status: {
      catalogSource: source,
      catalogSourceDisplayName: field<string>(catalogSource, "spec", "displayName") ?? "",
      catalogSourcePublisher: publisher,
      catalogSourceNamespace: namespace,
      provider: { name: publisher },
      packageName: name,
      channels,
      defaultChannel: pkg.defaultChannel,
    },
  };
}

/**
 * The PackageManifests visible in a namespace: those of its own catalogs and of the global catalog
 * namespace (openshift-marketplace), each reported in the namespace asked for; all of them, in their
 * catalogs' namespaces, when no namespace is given.
 */
export function packageManifests(store: Store): ComputedObjects {
  return (namespace) => {
    const namespaces =
      namespace === undefined ? [undefined] : [...new Set([namespace, MARKETPLACE_NAMESPACE])];
    return namespaces.flatMap((ns) =>
      store.list(CATALOG_SOURCE.apiVersion, CATALOG_SOURCE.kind, { namespace: ns }).flatMap((catalogSource) =>
        Object.entries(CATALOGS[catalogSource.metadata.name]?.packages ?? {})
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, pkg]) => {
            const manifest = packageManifest(catalogSource, name, pkg);
            if (namespace !== undefined) manifest.metadata.namespace = namespace;
            return manifest;
          }),
      ),
    );
  };
}
