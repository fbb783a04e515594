/**
 * Which MachineConfigs a pool renders and in which order the MCO merges them: the one model the
 * preview's prediction (builders/rollout-impact), the pool waiter (provider/waiting/pool.ts) and the
 * simulator's render controller share.
 *
 * openshift/machine-config-operator:
 * - pkg/controller/render/render_controller.go `getMachineConfigsForPool` (and `syncMachineConfigPool`):
 *   the configs whose labels the pool's `machineConfigSelector` matches; an empty or missing selector
 *   matches none.
 * - pkg/controller/common/helpers.go `MergeMachineConfigs`: the configs labelled with the worker role
 *   first, then all others, each group in lexical order of names (`sort.SliceStable` by Name); the
 *   first is the base and each later one is merged over it, so a custom pool's own configs win over the
 *   worker configs it inherits (99-infra-generated-kubelet over 99-worker-generated-kubelet).
 */
import { ROLE_LABEL } from "./openshift";
import { LabelSelector, selectorIsEmpty, selectorMatches } from "./selectors";

interface Named {
  metadata: { name: string; labels?: Record<string, string> };
}

/** Go's string `<` on names: byte order, which for the DNS names of MachineConfigs is code unit order. */
const byName = (a: Named, b: Named) =>
  a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;

const isWorker = (c: Named) => c.metadata.labels?.[ROLE_LABEL] === "worker";

/** `configs` in the order `MergeMachineConfigs` merges them: worker-role ones by name, then the rest by name. */
export function mergeOrder<T extends Named>(configs: readonly T[]): T[] {
  return [...configs.filter(isWorker).sort(byName), ...configs.filter((c) => !isWorker(c)).sort(byName)];
}

/** The configs a pool with this `machineConfigSelector` renders (`getMachineConfigsForPool`). */
export function selectedByPool<T extends Named>(
  selector: LabelSelector | undefined | null,
  configs: readonly T[],
): T[] {
  if (selectorIsEmpty(selector)) return [];
  return configs.filter((c) => selectorMatches(selector!, c.metadata.labels ?? {}));
}

/**
 * The `machineConfigSelector` of a pool the cluster does not show: `master` and `worker` select their
 * own role (the installer's pools), a custom pool its own role and `worker`, as OpenShift documents
 * custom pools and the library's MachineConfigPool declares them.
 */
export function defaultMachineConfigSelector(pool: string): LabelSelector {
  if (pool === "master" || pool === "worker") return { matchLabels: { [ROLE_LABEL]: pool } };
  return { matchExpressions: [{ key: ROLE_LABEL, operator: "In", values: ["worker", pool] }] };
}
