import * as semver from "semver";
import { collectEach, collectErrors, InputError } from "../errors";
import { requireDnsLabel, requireDnsSubdomain, requireOneOf } from "../validation";

/**
 * OLM v1's ClusterExtension (operator-framework/operator-controller api/v1, clusterextension_types.go,
 * as OpenShift 4.18 serves it: `serviceAccount` required), checked as its CRD's validations check it
 * (DNS names, at most 256 channels, a version range of at most 64 characters in Masterminds' syntax),
 * and a choice of channels and version checked against the package as a ClusterCatalog serves it.
 */

export const UPGRADE_CONSTRAINT_POLICIES = ["CatalogProvided", "SelfCertified"] as const;

export interface ClusterExtensionArgs {
  /** The ClusterExtension's name; default: the package's name (its own error covers both then). */
  name?: string;
  packageName: string;
  /** Where its namespaced objects go; must exist. */
  namespace: string;
  /** The ServiceAccount in `namespace` the install runs as. */
  serviceAccount: string;
  channels?: string[];
  /** A version or range, as operator-controller reads it: `1.14.2`, `>=1.14.0, <1.15.0`, `~1.14`, `1.14.x || 1.15.x`. */
  version?: string;
  upgradeConstraintPolicy?: (typeof UPGRADE_CONSTRAINT_POLICIES)[number];
}

/** Masterminds/semver's range syntax in node-semver's: comma-separated comparisons are ANDed. */
export function versionRange(version: string): semver.Range | undefined {
  try {
    return new semver.Range(version.replace(/\s*,\s*/g, " "), { loose: true });
  } catch {
    return undefined;
  }
}

function requireVersion(path: string, value: unknown): string {
  if (typeof value !== "string" || value.length > 64 || !versionRange(value))
    throw new InputError(
      path,
      `${JSON.stringify(value)} is not a version or range of at most 64 characters: use e.g. "1.14.2", ">=1.14.0, <1.15.0", "~1.14" or "1.14.x || 1.15.x"`,
    );
  return value;
}

export function clusterExtension(args: ClusterExtensionArgs) {
  const [name, packageName, namespace, serviceAccount, channels, version, policy] = collectErrors([
    () => (args.name === undefined ? args.packageName : requireDnsSubdomain("name", args.name)),
    () => requireDnsSubdomain("packageName", args.packageName),
    () => requireDnsLabel("namespace", args.namespace),
    () => requireDnsSubdomain("serviceAccount", args.serviceAccount),
    () => {
      const list = args.channels ?? [];
      if (list.length > 256) throw new InputError("channels", `at most 256 channels, got ${list.length}`);
      return collectEach(list, (c, i) => requireDnsSubdomain(`channels[${i}]`, c));
    },
    () => (args.version === undefined ? undefined : requireVersion("version", args.version)),
    () =>
      args.upgradeConstraintPolicy === undefined
        ? undefined
        : requireOneOf("upgradeConstraintPolicy", args.upgradeConstraintPolicy, UPGRADE_CONSTRAINT_POLICIES),
  ]);
  return {
    apiVersion: "olm.operatorframework.io/v1",
    kind: "ClusterExtension",
    metadata: { name },
    spec: {
      namespace,
      serviceAccount: { name: serviceAccount },
      source: {
        sourceType: "Catalog",
        catalog: {
          packageName,
          ...(channels.length > 0 ? { channels } : {}),
          ...(version !== undefined ? { version } : {}),
          ...(policy !== undefined ? { upgradeConstraintPolicy: policy } : {}),
        },
      },
    },
  };
}

/** A package as a catalog's file-based content describes it: its channels and their bundles' versions. */
export interface CatalogPackageContent {
  catalog: string;
  packageName: string;
  defaultChannel?: string;
  /** Channel name -> versions of its bundles. */
  channels: Record<string, string[]>;
}

/**
 * Throws an InputError per choice the catalog cannot satisfy, in the resolver's terms: a channel the
 * package lacks, or no bundle of the chosen channels within the version range
 * (operator-controller internal/operator-controller/resolve/catalog.go: "no bundles found for package").
 */
export function checkExtensionAgainstCatalog(
  content: CatalogPackageContent,
  choice: { channels?: string[]; version?: string },
): void {
  const known = Object.keys(content.channels).sort();
  const wanted = choice.channels ?? [];
  collectErrors([
    () =>
      collectEach(wanted, (channel, i) => {
        if (!known.includes(channel))
          throw new InputError(
            `channels[${i}]`,
            `package ${content.packageName} in catalog ${content.catalog} has no channel ${JSON.stringify(channel)}: its channels are ${known.join(", ")}${content.defaultChannel ? ` (default ${content.defaultChannel})` : ""}`,
          );
      }),
    () => {
      if (choice.version === undefined) return;
      const range = versionRange(choice.version);
      const inChannels = (wanted.length > 0 ? wanted.filter((c) => known.includes(c)) : known).flatMap(
        (c) => content.channels[c],
      );
      const versions = [...new Set(inChannels)].sort(semver.compareLoose);
      // No channel of those chosen exists: their errors say it.
      if (versions.length === 0) return;
      if (versions.some((v) => range && semver.satisfies(v, range, { loose: true }))) return;
      throw new InputError(
        "version",
        `no bundle of package ${content.packageName} in catalog ${content.catalog}${wanted.length > 0 ? ` channels ${wanted.join(", ")}` : ""} matches ${JSON.stringify(choice.version)}: its versions are ${versions.join(", ")}`,
      );
    },
  ]);
}
