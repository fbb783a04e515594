import { poolSelectorLabel } from "../../primitives/openshift";
import type { LabelSelector } from "../../primitives/selectors";
import { InputError } from "../errors";
import { requireDnsLabel, requireLabels } from "../validation";

export const MACHINECONFIGURATION_API_VERSION = "machineconfiguration.openshift.io/v1";

export { nodeRoleLabel, poolSelectorLabel, ROLE_LABEL } from "../../primitives/openshift";
export type { LabelSelector } from "../../primitives/selectors";

/** The selector KubeletConfig and ContainerRuntimeConfig use to target the pool of one role. */
export function poolSelector(path: string, role: unknown): LabelSelector {
  return { matchLabels: { [poolSelectorLabel(requireDnsLabel(path, role))]: "" } };
}

/**
 * User labels plus the ones a builder owns, keys sorted so that the manifest does not depend on the order
 * the user wrote them in. A user label may not take over an owned key: the builder would silently lose it.
 */
export function mergeLabels(
  path: string,
  labels: Record<string, string> | undefined,
  owned: Record<string, string>,
  ownedBy: string,
): Record<string, string> {
  const extra = requireLabels(path, labels);
  for (const key of Object.keys(extra)) {
    if (key in owned && extra[key] !== owned[key]) {
      throw new InputError(
        `${path}["${key}"]`,
        `${JSON.stringify(key)} is set by \`${ownedBy}\` to ${JSON.stringify(owned[key])}: leave it out of labels`,
      );
    }
  }
  const all: Record<string, string> = { ...extra, ...owned };
  return Object.fromEntries(
    Object.keys(all)
      .sort()
      .map((k) => [k, all[k]]),
  );
}
