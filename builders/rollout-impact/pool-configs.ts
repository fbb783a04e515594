/**
 * Which node configuration objects a pool renders, from a set of objects (a cluster's, or a rendering's):
 * MachineConfigs by its machineConfigSelector (primitives/render-order.ts), KubeletConfigs and
 * ContainerRuntimeConfigs by the pool labels they select, and those of the other pools whose role its
 * selector picks (the worker pool's, for a custom pool), whose generated configs it renders too.
 */
import { poolSelectorLabel, ROLE_LABEL } from "../../primitives/openshift";
import { defaultMachineConfigSelector, selectedByPool } from "../../primitives/render-order";
import { LabelSelector, selectorIsEmpty, selectorMatches } from "../../primitives/selectors";
import {
  ContainerRuntimeConfigLike,
  GeneratorConfigs,
  KubeletConfigLike,
  MachineConfigLike,
  PoolConfigs,
} from "./render";

/** The shape of any Kubernetes object here. */
export interface ObjectLike {
  kind?: string;
  metadata?: { name?: string; labels?: Record<string, string>; ownerReferences?: Array<{ kind: string }> };
  spec?: Record<string, unknown>;
}

export { poolSelectorLabel as poolLabel };

/** As the MCO's getPoolsForKubeletConfig: a config without a pool selector applies to no pool. */
function selects(selector: unknown, labels: Record<string, string>): boolean {
  const s = selector as LabelSelector | undefined;
  return !selectorIsEmpty(s) && selectorMatches(s, labels);
}

/** The roles a selector names (with master and worker), the candidates for a pool's inherited roles. */
function rolesNamed(selector: LabelSelector): string[] {
  const named = [
    ...(selector.matchExpressions ?? []).flatMap((e) => e.values ?? []),
    ...Object.values(selector.matchLabels ?? {}),
  ];
  return [...new Set(["master", "worker", ...named])].sort();
}

/**
 * The pool's configuration objects among `objects`. MachineConfigs the MCO generated from a
 * KubeletConfig or ContainerRuntimeConfig (owned by one) are left out: those objects stand for them.
 * Another pool's labels are taken to be its pool label only (`pools.operator...<role>`).
 */
export function poolConfigsFrom(
  pool: string,
  objects: ObjectLike[],
  mcp: ObjectLike | undefined,
): PoolConfigs {
  const selector =
    (mcp?.spec?.machineConfigSelector as LabelSelector | undefined) ?? defaultMachineConfigSelector(pool);
  const generated = (o: ObjectLike) =>
    (o.metadata?.ownerReferences ?? []).some(
      (r) => r.kind === "KubeletConfig" || r.kind === "ContainerRuntimeConfig",
    );
  const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const selecting = (labels: Record<string, string>): GeneratorConfigs => ({
    kubeletConfigs: ofKind("KubeletConfig").filter((m) =>
      selects(m.spec?.machineConfigPoolSelector, labels),
    ) as KubeletConfigLike[],
    containerRuntimeConfigs: ofKind("ContainerRuntimeConfig").filter((m) =>
      selects(m.spec?.machineConfigPoolSelector, labels),
    ) as ContainerRuntimeConfigLike[],
  });
  const mcs = ofKind("MachineConfig").filter((m) => !generated(m)) as MachineConfigLike[];
  const inherited = rolesNamed(selector)
    .filter((role) => role !== pool && selectorMatches(selector, { [ROLE_LABEL]: role }))
    .map((role) => ({ role, ...selecting({ [poolSelectorLabel(role)]: "" }) }))
    .filter((i) => i.kubeletConfigs!.length + i.containerRuntimeConfigs!.length > 0);
  return {
    machineConfigs: selectedByPool(selector, mcs),
    ...selecting({ [poolSelectorLabel(pool)]: "", ...(mcp?.metadata?.labels ?? {}) }),
    ...(inherited.length > 0 ? { inherited } : {}),
  };
}
