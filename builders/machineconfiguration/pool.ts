import { collectErrors, InputError } from "../errors";
import { requireBoolean, requireDnsLabel, requireLabels } from "../validation";
import {
  LabelSelector,
  MACHINECONFIGURATION_API_VERSION,
  mergeLabels,
  nodeRoleLabel,
  poolSelectorLabel,
  ROLE_LABEL,
} from "./common";

/** Pools every cluster already has; a custom pool may not take their names. */
export const BUILT_IN_POOLS = ["master", "worker"] as const;

export interface MachineConfigPoolArgs {
  /** The pool's name and role: nodes labelled `node-role.kubernetes.io/<name>` join it. */
  name: string;
  /**
   * How many nodes may update at once: a whole number of 1 or more, or a percentage from "1%" to "100%".
   * Omitted: the MCO's default of 1. To stop updates use `paused`, not 0.
   */
  maxUnavailable?: number | string;
  /**
   * Holds rollouts of new configuration to the pool. Omitted: not declared, so a pool paused by hand
   * for maintenance stays paused (the MCO's default is false); declared, `up` takes it back.
   */
  paused?: boolean;
  /**
   * Adds `pools.operator.machineconfiguration.openshift.io/<name>: ""`, the label KubeletConfigs and
   * ContainerRuntimeConfigs select pools by (as the OpenShift docs do); default true.
   */
  selectableByRole?: boolean;
  /** More labels for the pool object. */
  labels?: Record<string, string>;
}

export interface MachineConfigPoolManifest {
  apiVersion: typeof MACHINECONFIGURATION_API_VERSION;
  kind: "MachineConfigPool";
  metadata: { name: string; labels?: Record<string, string> };
  spec: {
    machineConfigSelector: LabelSelector;
    nodeSelector: LabelSelector;
    maxUnavailable?: number | string;
    paused?: boolean;
  };
}

const PERCENT = /^([1-9][0-9]{0,2})%$/;

function requireMaxUnavailable(path: string, value: unknown): number | string {
  const percent = typeof value === "string" ? PERCENT.exec(value) : null;
  const ok =
    (typeof value === "number" && Number.isInteger(value) && value >= 1) ||
    (percent !== null && Number(percent[1]) <= 100);
  if (!ok) {
    throw new InputError(
      path,
      `${JSON.stringify(value)} is not allowed: use a whole number of 1 or more, or a percentage from "1%" to "100%" (0 does not stop updates: use paused)`,
    );
  }
  return value as number | string;
}

function requireCustomPoolName(path: string, value: unknown): string {
  const role = requireDnsLabel(path, value);
  if ((BUILT_IN_POOLS as readonly string[]).includes(role)) {
    throw new InputError(
      path,
      `"${role}" is a pool every cluster already has: a custom pool needs another DNS label (e.g. "infra"), not ${BUILT_IN_POOLS.map((p) => `"${p}"`).join(" or ")}`,
    );
  }
  return role;
}

/**
 * A custom MachineConfigPool for one node role. It selects MachineConfigs of role `worker` and of its own
 * role, because the MCO supports custom pools only when they inherit the worker configuration; the values
 * are listed worker first, as in the OpenShift docs.
 */
export function machineConfigPool(args: MachineConfigPoolArgs): MachineConfigPoolManifest {
  // Every field is checked, and every problem reported at once.
  const [role, selectable, maxUnavailable, paused] = collectErrors([
    () => requireCustomPoolName("name", args.name),
    () => args.selectableByRole === undefined || requireBoolean("selectableByRole", args.selectableByRole),
    () =>
      args.maxUnavailable === undefined
        ? undefined
        : requireMaxUnavailable("maxUnavailable", args.maxUnavailable),
    () => (args.paused === undefined ? undefined : requireBoolean("paused", args.paused)),
    () => requireLabels("labels", args.labels),
  ]);
  // Once each label is valid, one may still clash with the label the pool sets itself.
  const labels = mergeLabels(
    "labels",
    args.labels,
    selectable ? { [poolSelectorLabel(role)]: "" } : {},
    "name",
  );

  return {
    apiVersion: MACHINECONFIGURATION_API_VERSION,
    kind: "MachineConfigPool",
    metadata: Object.keys(labels).length > 0 ? { name: role, labels } : { name: role },
    spec: {
      machineConfigSelector: {
        matchExpressions: [{ key: ROLE_LABEL, operator: "In", values: ["worker", role] }],
      },
      nodeSelector: { matchLabels: { [nodeRoleLabel(role)]: "" } },
      ...(maxUnavailable === undefined ? {} : { maxUnavailable }),
      ...(paused === undefined ? {} : { paused }),
    },
  };
}
