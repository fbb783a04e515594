/**
 * At preview, what the node configuration a program declares for a pool does to its nodes, from what
 * the cluster runs now: the cluster with every declared object applied at once (one render, one
 * rollout, as `up` makes it, whichever component declares each), under the pool's declared settings,
 * which also start, hold or pace a rollout the pool has pending; and which machines of the pool's
 * MachineSets run another spec than their template. pool-summary.ts folds both into one line per pool.
 */
import {
  NodeDisruptionPolicy,
  ObjectLike,
  PoolConfigs,
  PoolImpact,
  poolConfigsFrom,
  rolloutImpact,
} from "../../builders/rollout-impact";
import {
  differsFromDeclared,
  machineSetChange,
  MachineReplacementPolicy,
  MachineSetChange,
  MachineTemplate,
} from "../../builders/machineset";
import { withDeclaredPolicies } from "../../builders/machineconfiguration/node-disruption-policy";
import type { Json } from "../../primitives/objects";
import { field, type KubeObject } from "../../provider/waiting/kinds";
import { machinesOf } from "../../provider/waiting/machineset";
import { ClusterSnapshot, CONFIG_KINDS, readCluster } from "./cluster-snapshot";

/** The settings of a MachineConfigPool that pace or hold its rollouts. */
export interface PoolSettings {
  maxUnavailable?: number | string;
  paused?: boolean;
}

/** What of a pool decides which node configuration it renders: its MachineConfig selector and its labels. */
export interface PoolSelection {
  machineConfigSelector?: unknown;
  labels?: Record<string, string>;
}

/** A pool's own settings and selection, from the MachineConfigPool manifest its component declares. */
export function declaredPool(manifest: ObjectLike): PoolSettings & { selection: PoolSelection } {
  const spec = (manifest.spec ?? {}) as PoolSettings & { machineConfigSelector?: unknown };
  return {
    ...settingsOf(manifest),
    // With the selection, a pool adopted from one made by hand says whether the stack's selectors re-render it.
    selection: { machineConfigSelector: spec.machineConfigSelector, labels: manifest.metadata?.labels },
  };
}

export const settingsOf = (m: ObjectLike): PoolSettings => {
  const spec = (m.spec ?? {}) as PoolSettings;
  return { maxUnavailable: spec.maxUnavailable, paused: spec.paused };
};

/** What a program declares that a pool's render depends on. */
export interface DeclaredForRender {
  /** The MachineConfigs, KubeletConfigs and ContainerRuntimeConfigs it declares for the pool, with their kind. */
  objects: ObjectLike[];
  /** The pool's own settings and selection, when the program declares the pool. */
  settings?: PoolSettings & { selection?: PoolSelection };
  /** The node disruption policies the program declares that the pool's rollout follows, in order. */
  policies?: NodeDisruptionPolicy[];
  /** Nodes the pool gains (returning from a canary) less those it loses (joining one) on `up`. */
  nodesMoving?: number;
}

interface PoolState {
  mcp: KubeObject;
  spec: PoolSettings & { configuration?: { name?: string } };
  status: { machineCount?: number; updatedMachineCount?: number; configuration?: { name?: string } };
  nodeDisruptionPolicy: NodeDisruptionPolicy;
}

/** The pool, and the cluster's node disruption policies with the declared ones in place. */
async function readPool(
  cluster: ClusterSnapshot,
  pool: string,
  declared: NodeDisruptionPolicy[],
): Promise<PoolState | undefined> {
  const [mcp, mco] = await Promise.all([cluster.pool(pool), cluster.machineConfiguration()]);
  if (!mcp) return undefined;
  const live = field<NodeDisruptionPolicy>(mco, "spec", "nodeDisruptionPolicy");
  return {
    mcp,
    spec: (mcp.spec ?? {}) as PoolState["spec"],
    status: (mcp.status ?? {}) as PoolState["status"],
    nodeDisruptionPolicy: withDeclaredPolicies(live, declared),
  };
}

/**
 * What the pool's render does once every declared object is applied and its declared selection (an
 * adopted pool made by hand) is the pool's: undefined when the cluster has no such pool. A setting the
 * program leaves out is the cluster's (a pool paused by hand stays paused). When nothing renders anew,
 * a pool the program declares moves nodes only for a rollout it has pending (pendingImpact).
 */
export async function renderImpactIn(
  cluster: ClusterSnapshot,
  pool: string,
  declared: DeclaredForRender,
): Promise<PoolImpact | undefined> {
  const state = await readPool(cluster, pool, declared.policies ?? []);
  if (!state) return undefined;
  const settings = declared.settings ?? {};
  const selected = settings.selection ? withSelection(state.mcp, settings.selection) : state.mcp;
  const now = (await Promise.all(CONFIG_KINDS.map((k) => cluster.objects(k)))).flat() as ObjectLike[];
  const same = (a: ObjectLike, b: ObjectLike) => a.kind === b.kind && a.metadata?.name === b.metadata?.name;
  const applied = [...now.filter((o) => !declared.objects.some((d) => same(d, o))), ...declared.objects];
  const pace = {
    maxUnavailable: settings.maxUnavailable ?? state.spec.maxUnavailable,
    paused: (settings.paused ?? state.spec.paused) === true,
    nodeDisruptionPolicy: state.nodeDisruptionPolicy,
  };
  const impact = rolloutImpact({
    pool,
    before: poolConfigsFrom(pool, now, state.mcp),
    after: poolConfigsFrom(pool, applied, selected),
    machineCount: Math.max(0, Number(state.status.machineCount ?? 0) + (declared.nodesMoving ?? 0)),
    ...pace,
  });
  if (impact.newRender || !declared.settings) return impact;
  return (await pendingImpact(cluster, pool, state, pace)) ?? impact;
}

/** What the canary's nodes do: joining it, returning on `up`, and returning on destroy. */
export interface CanaryMove {
  join: PoolImpact;
  back: PoolImpact;
  leave: PoolImpact;
}

/**
 * What the nodes moving from pool `from` into pool `to` (a canary) do, and back: each node goes from
 * one pool's render to the other's, made of the same configs but those the canary selects of its own
 * role (pkg/controller/render/render_controller.go getMachineConfigsForPool), once every declared
 * object is applied. Undefined when the cluster has no pool `from`.
 */
export async function canaryMoveIn(
  cluster: ClusterSnapshot,
  move: { from: string; to: string; manifest: ObjectLike | undefined; nodes: number },
  declared: DeclaredForRender,
): Promise<CanaryMove | undefined> {
  const state = await readPool(cluster, move.from, declared.policies ?? []);
  if (!state) return undefined;
  const now = (await Promise.all(CONFIG_KINDS.map((k) => cluster.objects(k)))).flat() as ObjectLike[];
  const same = (a: ObjectLike, b: ObjectLike) => a.kind === b.kind && a.metadata?.name === b.metadata?.name;
  const applied = [...now.filter((o) => !declared.objects.some((d) => same(d, o))), ...declared.objects];
  const live = await cluster.pool(move.to);
  const impact = (pool: string, before: PoolConfigs, after: PoolConfigs) =>
    rolloutImpact({
      pool,
      before,
      after,
      machineCount: move.nodes,
      nodeDisruptionPolicy: state.nodeDisruptionPolicy,
    });
  const parent = {
    now: poolConfigsFrom(move.from, now, state.mcp),
    then: poolConfigsFrom(move.from, applied, state.mcp),
  };
  const canary = {
    now: poolConfigsFrom(move.to, now, live ?? move.manifest),
    then: poolConfigsFrom(move.to, applied, move.manifest),
  };
  // A joining node runs its pool's render of today; a returning one the canary's.
  return {
    join: impact(move.to, parent.now, canary.then),
    back: impact(move.from, canary.now, parent.then),
    leave: impact(move.from, canary.then, parent.then),
  };
}

/**
 * The rollout a pool has pending: its settings render nothing (pkg/controller/render reads only the
 * pool's selectors), so their nodes move only for the nodes not yet updated, from the config the pool
 * last completed (`status.configuration`) to its target (`spec.configuration`). The node controller
 * updates `maxUnavailable` of them at a time and none while the pool is paused, so declaring those
 * settings paces, holds or starts that rollout. Undefined when none is pending.
 */
async function pendingImpact(
  cluster: ClusterSnapshot,
  pool: string,
  state: PoolState,
  pace: { maxUnavailable?: number | string; paused: boolean; nodeDisruptionPolicy: NodeDisruptionPolicy },
): Promise<PoolImpact | undefined> {
  const machineCount = Number(state.status.machineCount ?? 0);
  const waiting = machineCount - Number(state.status.updatedMachineCount ?? machineCount);
  const target = state.spec.configuration?.name;
  const current = state.status.configuration?.name;
  if (!(waiting > 0 && target !== undefined && current !== undefined && target !== current)) return undefined;
  const rendered = async (name: string): Promise<PoolConfigs> => {
    const mc = await cluster.machineConfig(name);
    return { machineConfigs: mc ? [mc as unknown as PoolConfigs["machineConfigs"][number]] : [] };
  };
  const [before, after] = await Promise.all([rendered(current), rendered(target)]);
  return { ...rolloutImpact({ pool, before, after, machineCount: waiting, ...pace }), pending: true };
}

/**
 * The pool as it is once the declared selection is applied (an adopted pool made by hand): the selector
 * is the stack's, labels are added to the ones others set.
 */
function withSelection(mcp: KubeObject, declared: PoolSelection): KubeObject {
  const spec = (mcp.spec ?? {}) as { machineConfigSelector?: unknown };
  return {
    ...mcp,
    metadata: { ...mcp.metadata, labels: { ...(mcp.metadata.labels ?? {}), ...(declared.labels ?? {}) } },
    spec: { ...spec, machineConfigSelector: declared.machineConfigSelector ?? spec.machineConfigSelector },
  };
}

/** A MachineSet as the program declares it: its name and what its template gives each Machine. */
export interface DeclaredMachineSet extends MachineTemplate {
  name: string;
}

/**
 * The MachineSets whose machines run another spec, or lack the machine labels, than the one declared:
 * the machine-api applies a template only to machines it creates (node labels and taints reach running
 * machines: NodeLabelsAndTaints). The MachineSets are listed once per preview; a pool's Machines are
 * read only when it changes its template or replaces (a template changed by an earlier up may have left
 * machines to replace). A MachineSet the cluster lacks has no machines yet.
 */
export async function machineSetChangesIn(
  cluster: ClusterSnapshot,
  sets: DeclaredMachineSet[],
  policy: MachineReplacementPolicy | undefined,
): Promise<MachineSetChange[]> {
  const live = await cluster.machineSets();
  const asked = sets.filter((set) => {
    const now = live.find((m) => m.metadata.name === set.name);
    const template = field<Json>(now, "spec", "template");
    const spec = field<Record<string, unknown>>(template, "spec", "providerSpec", "value");
    const labels = field<Record<string, string>>(template, "metadata", "labels") ?? {};
    return (
      now &&
      (policy ||
        differsFromDeclared(set.providerSpec, spec ?? {}) ||
        Object.entries(set.labels).some(([k, v]) => labels[k] !== v))
    );
  });
  if (asked.length === 0) return [];
  const machines = await cluster.machines(asked.map((s) => s.name));
  return asked.flatMap((set) => {
    const made = machinesOf(set.name, machines)
      .filter((m) => !m.metadata.deletionTimestamp)
      .map((m) => ({
        providerSpec: field<Record<string, unknown>>(m, "spec", "providerSpec", "value") ?? {},
        labels: m.metadata.labels ?? {},
      }));
    return machineSetChange(set.name, set, made, policy) ?? [];
  });
}

/** The render impact of a pool's own settings and selection, from a reading of its own. */
export const clusterPoolImpact = (
  kubeconfig: string,
  pool: string,
  settings: PoolSettings & { selection?: PoolSelection },
) => renderImpactIn(readCluster(kubeconfig), pool, { objects: [], settings });
