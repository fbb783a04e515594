import { collectErrors, InputError } from "../errors";
import { SUBSCRIPTION_DEFAULTS, TARGET_NAMESPACES } from "./subscription";

/**
 * A subscription checked against its package as the catalog serves it (the PackageManifest's `status`,
 * what `kubectl get packagemanifest <package> -n openshift-marketplace -o yaml` shows), so that what OLM
 * would refuse only once the objects exist is an input error at preview instead of a wait.
 */

/** The part of a PackageManifest's `status` a subscription is checked against. */
export interface PackageManifestStatus {
  catalogSource?: string;
  catalogSourceNamespace?: string;
  defaultChannel?: string;
  channels?: Array<{
    name: string;
    currentCSV?: string;
    currentCSVDesc?: { installModes?: Array<{ type: string; supported: boolean }> };
    entries?: Array<{ name: string }>;
  }>;
}

export interface CatalogChoice {
  packageName: string;
  channel: string;
  targetNamespaces?: (typeof TARGET_NAMESPACES)[number];
  startingCSV?: string;
}

/**
 * Throws an InputError per choice the package's catalog entry cannot satisfy: a channel the package does
 * not have (OLM's resolver: `no operators found in channel ... of package ...`), a target its channel's
 * head does not support (operator-framework/api InstallModeSet.Supports, which makes OLM fail the CSV
 * with UnsupportedOperatorGroup), a `startingCSV` that is no entry of the channel.
 */
export function checkAgainstCatalog(manifest: PackageManifestStatus, choice: CatalogChoice): void {
  const catalog = `catalog ${manifest.catalogSource ?? SUBSCRIPTION_DEFAULTS.source}`;
  const channels = manifest.channels ?? [];
  const channel = channels.find((c) => c.name === choice.channel);
  if (!channel) {
    const names = channels.map((c) => c.name).join(", ");
    const byDefault = manifest.defaultChannel ? ` (default ${manifest.defaultChannel})` : "";
    throw new InputError(
      "channel",
      `package ${choice.packageName} in ${catalog} has no channel ${JSON.stringify(choice.channel)}: its channels are ${names}${byDefault}`,
    );
  }
  const head = channel.currentCSV ?? choice.channel;
  collectErrors([
    () => {
      const modes = channel.currentCSVDesc?.installModes;
      const target = choice.targetNamespaces ?? SUBSCRIPTION_DEFAULTS.targetNamespaces;
      if (modes === undefined || modes.some((m) => m.type === target && m.supported)) return;
      const supported = modes.filter((m) => m.supported).map((m) => m.type);
      const usable = TARGET_NAMESPACES.filter((t) => supported.includes(t));
      const given = choice.targetNamespaces === undefined ? " (the default)" : "";
      throw new InputError(
        "targetNamespaces",
        `${target}${given} is not an install mode of ${head} (channel ${choice.channel}), which supports ${supported.join(", ") || "none"}${usable.length > 0 ? `: use ${usable.map((t) => JSON.stringify(t)).join(" or ")}` : ""}`,
      );
    },
    () => {
      const entries = channel.entries;
      if (choice.startingCSV === undefined || entries === undefined) return;
      if (entries.some((e) => e.name === choice.startingCSV)) return;
      throw new InputError(
        "startingCSV",
        `${choice.startingCSV} is not in channel ${choice.channel} of package ${choice.packageName} in ${catalog}: its entries are ${entries.map((e) => e.name).join(", ")}`,
      );
    },
  ]);
}
