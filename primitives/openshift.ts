/** Well-known OpenShift names: namespaces, labels and annotations its operators read and write. */

/** Where the machine-api keeps MachineSets, Machines, MachineAutoscalers and MachineHealthChecks. */
export const MACHINE_API_NAMESPACE = "openshift-machine-api";

/** The label that ties a MachineConfig to the pools whose machineConfigSelector names its role. */
export const ROLE_LABEL = "machineconfiguration.openshift.io/role";

/** The label a pool carries so that KubeletConfigs and ContainerRuntimeConfigs can select it by role. */
export const poolSelectorLabel = (role: string): string =>
  `pools.operator.machineconfiguration.openshift.io/${role}`;

/** The node label a pool's nodeSelector matches. */
export const nodeRoleLabel = (role: string): string => `node-role.kubernetes.io/${role}`;

/** The machine-config daemon's node annotations. */
export const CURRENT_CONFIG = "machineconfiguration.openshift.io/currentConfig";
export const DESIRED_CONFIG = "machineconfiguration.openshift.io/desiredConfig";
export const MCD_STATE = "machineconfiguration.openshift.io/state";
export const MCD_REASON = "machineconfiguration.openshift.io/reason";
/**
 * The pool a rendered config belongs to: the render controller names it `rendered-<pool>-<hash>`
 * (pkg/controller/render getMachineConfigHashedName, the hash an md5 in hex); undefined for another name.
 */
export function poolOfRenderedConfig(name: string | undefined): string | undefined {
  return /^rendered-(.+)-[0-9a-f]{32}$/.exec(name ?? "")?.[1];
}
/** The drain the daemon asks of the drain controller, and the last one that controller completed. */
export const DESIRED_DRAIN = "machineconfiguration.openshift.io/desiredDrain";
export const LAST_APPLIED_DRAIN = "machineconfiguration.openshift.io/lastAppliedDrain";

/** machine-api label keys, as the installer writes them. */
export const MACHINE_LABELS = {
  cluster: "machine.openshift.io/cluster-api-cluster",
  machineSet: "machine.openshift.io/cluster-api-machineset",
  role: "machine.openshift.io/cluster-api-machine-role",
  type: "machine.openshift.io/cluster-api-machine-type",
  osId: "machine.openshift.io/os-id",
} as const;

/**
 * Marks a Machine its MachineSet deletes first when it scales down, whatever the delete policy
 * (machine-api-operator, pkg/controller/machineset/delete_policy.go, `DeleteNodeAnnotation`); the
 * cluster autoscaler marks the machines it removes the same way.
 */
export const DELETE_MACHINE_ANNOTATION = "machine.openshift.io/delete-machine";

/** The annotations the machine-api (cluster-autoscaler-operator) writes on an autoscaled MachineSet. */
export const AUTOSCALER_ANNOTATIONS = {
  minSize: "machine.openshift.io/cluster-api-autoscaler-node-group-min-size",
  maxSize: "machine.openshift.io/cluster-api-autoscaler-node-group-max-size",
} as const;

/**
 * OLM's component label on what it installs for an operator (decorators `ComponentLabelKey`): the
 * Operator's name `<package>.<namespace>`, cut to the 63 characters a label name may have; a '.', '-' or
 * '_' the cut leaves at the end would make the key invalid, so it goes too.
 */
export function operatorComponentLabel(pkg: string, namespace: string): string {
  return `operators.coreos.com/${`${pkg}.${namespace}`.slice(0, 63).replace(/[-._]+$/, "")}`;
}

/**
 * The node labels and taints a stack declared for a Machine's node, recorded on the Machine in the
 * patch that writes them, and on its MachineSet's template, so that a Machine the MachineSet creates
 * later is born with the record of what it is born with: label keys, and taints as `key:Effect`, each
 * list sorted and comma-separated (neither a label key nor a taint key holds a comma or a colon). A
 * label or taint is removed from a Machine and its Node only when recorded here, so that those others
 * set are never touched (as managed-node-metadata-operator, ROSA's, records the labels it sets on a Node
 * in `managed.openshift.com/customlabels`).
 */
export const NODE_LABELS_RECORD = "openshift-topology.io/node-labels";
export const NODE_TAINTS_RECORD = "openshift-topology.io/node-taints";

/** A record's value: the entries sorted, without repeats; undefined for none (no annotation). */
export function formatRecord(entries: readonly string[]): string | undefined {
  const sorted = [...new Set(entries)].sort();
  return sorted.length > 0 ? sorted.join(",") : undefined;
}

/** A record's entries; none for an absent or empty annotation. */
export function parseRecord(value: string | undefined): string[] {
  return (value ?? "").split(",").filter((entry) => entry !== "");
}

/** A taint as a record names it: key and effect, which identify a taint on a node. */
export const taintId = (taint: { key: string; effect: string }): string => `${taint.key}:${taint.effect}`;
