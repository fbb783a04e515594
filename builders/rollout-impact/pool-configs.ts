/**
 * Which node configuration objects a pool renders, from a set of objects (a cluster's, or a rendering's):
 * MachineConfigs by the roles its machineConfigSelector names, KubeletConfigs and ContainerRuntimeConfigs
 * by the pool labels they select.
 */
import { poolSelectorLabel, ROLE_LABEL } from "../../primitives/openshift";
import { LabelSelector, selectorIsEmpty, selectorMatches } from "../../primitives/selectors";
import { ContainerRuntimeConfigLike, KubeletConfigLike, MachineConfigLike, PoolConfigs } from "./render";

/** The shape of any Kubernetes object here. */
export interface ObjectLike {
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string>; ownerReferences?: Array<{ kind: string }> };
  spec?: Record<string, unknown>;
}

export { poolSelectorLabel as poolLabel };

/** The roles whose MachineConfigs a pool renders: its selector's values, else its own role (plus worker for a custom pool). */
export function rolesOfPool(pool: string, mcp: ObjectLike | undefined): string[] {
  const selector = mcp?.spec?.machineConfigSelector as
    { matchExpressions?: Array<{ values?: string[] }>; matchLabels?: Record<string, string> } | undefined;
  const values = selector?.matchExpressions?.flatMap((e) => e.values ?? []);
  if (values?.length) return values;
  if (selector?.matchLabels?.[ROLE_LABEL]) return [selector.matchLabels[ROLE_LABEL]];
  return pool === "master" || pool === "worker" ? [pool] : ["worker", pool];
}

/** As the MCO's getPoolsForKubeletConfig: a config without a pool selector applies to no pool. */
function selects(selector: unknown, labels: Record<string, string>): boolean {
  const s = selector as LabelSelector | undefined;
  return !selectorIsEmpty(s) && selectorMatches(s, labels);
}

/**
 * The pool's configuration objects among `objects`. MachineConfigs the MCO generated from a
 * KubeletConfig or ContainerRuntimeConfig (owned by one) are left out: those objects stand for them.
 */
export function poolConfigsFrom(
  pool: string,
  objects: ObjectLike[],
  mcp: ObjectLike | undefined,
): PoolConfigs {
  const roles = rolesOfPool(pool, mcp);
  const labels = { [poolSelectorLabel(pool)]: "", ...(mcp?.metadata?.labels ?? {}) };
  const generated = (o: ObjectLike) =>
    (o.metadata?.ownerReferences ?? []).some(
      (r) => r.kind === "KubeletConfig" || r.kind === "ContainerRuntimeConfig",
    );
  const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
  return {
    machineConfigs: ofKind("MachineConfig").filter(
      (m) => roles.includes(m.metadata?.labels?.[ROLE_LABEL] ?? "") && !generated(m),
    ) as MachineConfigLike[],
    kubeletConfigs: ofKind("KubeletConfig").filter((m) =>
      selects(m.spec?.machineConfigPoolSelector, labels),
    ) as KubeletConfigLike[],
    containerRuntimeConfigs: ofKind("ContainerRuntimeConfig").filter((m) =>
      selects(m.spec?.machineConfigPoolSelector, labels),
    ) as ContainerRuntimeConfigLike[],
  };
}
