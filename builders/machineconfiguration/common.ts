import { InputError } from "../errors";
import { requireDnsLabel, requireLabels } from "../validation";

export const MACHINECONFIGURATION_API_VERSION = "machineconfiguration.openshift.io/v1";

/** The label that ties a MachineConfig to the pools whose machineConfigSelector names its role. */
export const ROLE_LABEL = "machineconfiguration.openshift.io/role";

/** The label a pool carries so that KubeletConfigs and ContainerRuntimeConfigs can select it by role. */
export const poolSelectorLabel = (role: string): string =>
  `pools.operator.machineconfiguration.openshift.io/${role}`;

/** The node label a pool's nodeSelector matches. */
export const nodeRoleLabel = (role: string): string => `node-role.kubernetes.io/${role}`;

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: {
    key: string;
    operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
    values?: string[];
  }[];
}

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
