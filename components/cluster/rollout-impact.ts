/**
 * At preview, what a change does to a pool's nodes, from what the cluster runs now (read with the
 * kubeconfig): for a node configuration object, the cluster with the object applied; for a pool's own
 * settings, the rollout the pool has pending, which those settings start, hold or pace. One log line
 * on the component (`pool infra: new render; 3 nodes drain and reboot, ...`) and the `rolloutImpact`
 * output.
 */
import * as pulumi from "@pulumi/pulumi";
import {
  impactLine,
  ObjectLike,
  PoolConfigs,
  PoolImpact,
  poolConfigsFrom,
  rolloutImpact,
} from "../../builders/rollout-impact";
import { PoolRollout } from "../../provider/dynamic";
import { RolloutBaseline } from "../../provider/dynamic/rollout-baseline";
import {
  differsFromDeclared,
  machineSpecChange,
  MachineReplacementPolicy,
  MachineTemplate,
} from "../../builders/machineset";
import type { Json } from "../../primitives/objects";
import { field, type KubeObject } from "../../provider/waiting/kinds";
import { machinesOf } from "../../provider/waiting/machineset";
import { ClusterSnapshot, CONFIG_KINDS, readCluster } from "./cluster-snapshot";

/** The settings of a MachineConfigPool that pace or hold its rollouts. */
export interface PoolSettings {
  maxUnavailable?: number | string;
  paused?: boolean;
}

const settingsOf = (m: ObjectLike): PoolSettings => {
  const spec = (m.spec ?? {}) as PoolSettings;
  return { maxUnavailable: spec.maxUnavailable, paused: spec.paused };
};

interface PoolState {
  mcp: KubeObject;
  spec: PoolSettings & { configuration?: { name?: string } };
  status: { machineCount?: number; updatedMachineCount?: number; configuration?: { name?: string } };
  nodeDisruptionPolicy: never;
}

async function readPool(cluster: ClusterSnapshot, pool: string): Promise<PoolState | undefined> {
  const [mcp, mco] = await Promise.all([cluster.pool(pool), cluster.machineConfiguration()]);
  if (!mcp) return undefined;
  return {
    mcp,
    spec: (mcp.spec ?? {}) as PoolState["spec"],
    status: (mcp.status ?? {}) as PoolState["status"],
    nodeDisruptionPolicy: (mco?.spec as { nodeDisruptionPolicy?: never } | undefined)
      ?.nodeDisruptionPolicy as never,
  };
}

/** What a change of type T does to a pool of the cluster. */
type ImpactIn<T> = (cluster: ClusterSnapshot, pool: string, change: T) => Promise<PoolImpact | undefined>;

/** The impact of applying `object` (a MachineConfig, KubeletConfig or ContainerRuntimeConfig) to `pool`. */
async function rolloutImpactIn(
  cluster: ClusterSnapshot,
  pool: string,
  object: ObjectLike,
): Promise<PoolImpact | undefined> {
  const state = await readPool(cluster, pool);
  if (!state) return undefined;
  const lists = await Promise.all(CONFIG_KINDS.map((k) => cluster.objects(k)));
  const now = lists.flat() as ObjectLike[];
  const name = object.metadata?.name;
  const applied = [...now.filter((o) => !(o.kind === object.kind && o.metadata?.name === name)), object];
  return rolloutImpact({
    pool,
    before: poolConfigsFrom(pool, now, state.mcp),
    after: poolConfigsFrom(pool, applied, state.mcp),
    machineCount: Number(state.status.machineCount ?? 0),
    maxUnavailable: state.spec.maxUnavailable,
    paused: state.spec.paused === true,
    nodeDisruptionPolicy: state.nodeDisruptionPolicy,
  });
}

/**
 * The impact of a pool's own settings. They render nothing (pkg/controller/render reads only the
 * pool's selectors), so their nodes move only for a rollout the pool has pending: the nodes not yet
 * updated, from the config the pool last completed (`status.configuration`) to its target
 * (`spec.configuration`). The node controller updates `maxUnavailable` of them at a time and none
 * while the pool is paused, so declaring those settings paces, holds or starts that rollout.
 */
async function poolImpactIn(
  cluster: ClusterSnapshot,
  pool: string,
  settings: PoolSettings & { selection?: PoolSelection },
): Promise<PoolImpact | undefined> {
  const state = await readPool(cluster, pool);
  if (!state) return undefined;
  const reselected = settings.selection && selectionChanges(state.mcp, settings.selection);
  if (reselected) return reselectionImpact(cluster, pool, state, reselected, settings);
  const machineCount = Number(state.status.machineCount ?? 0);
  const waiting = machineCount - Number(state.status.updatedMachineCount ?? machineCount);
  const target = state.spec.configuration?.name;
  const current = state.status.configuration?.name;
  const pending = waiting > 0 && target !== undefined && current !== undefined && target !== current;
  const rendered = async (name: string): Promise<PoolConfigs> => {
    const mc = await cluster.machineConfig(name);
    return {
      machineConfigs: mc ? [mc as unknown as PoolConfigs["machineConfigs"][number]] : [],
      kubeletConfigs: [],
      containerRuntimeConfigs: [],
    };
  };
  const nothing: PoolConfigs = { machineConfigs: [], kubeletConfigs: [], containerRuntimeConfigs: [] };
  const [before, after] = pending
    ? await Promise.all([rendered(current), rendered(target)])
    : [nothing, nothing];
  const impact = rolloutImpact({
    pool,
    before,
    after,
    machineCount: pending ? waiting : machineCount,
    // A setting the program leaves out is the cluster's (a pool paused by hand stays paused): said so.
    maxUnavailable: settings.maxUnavailable ?? state.spec.maxUnavailable,
    paused: (settings.paused ?? state.spec.paused) === true,
    nodeDisruptionPolicy: state.nodeDisruptionPolicy,
  });
  return pending ? { ...impact, pending: true } : impact;
}

/** What of a pool decides which node configuration it renders: its MachineConfig selector and its labels. */
interface PoolSelection {
  machineConfigSelector?: unknown;
  labels?: Record<string, string>;
}

/**
 * The pool as it is once the declared selection is applied (an adopted pool made by hand): the selector
 * is the stack's, labels are added to the ones others set. Undefined when that selects the same.
 */
function selectionChanges(mcp: KubeObject, declared: PoolSelection): KubeObject | undefined {
  const spec = (mcp.spec ?? {}) as { machineConfigSelector?: unknown };
  const labels = { ...(mcp.metadata.labels ?? {}), ...(declared.labels ?? {}) };
  const sameSelector =
    JSON.stringify(spec.machineConfigSelector) === JSON.stringify(declared.machineConfigSelector);
  if (sameSelector && JSON.stringify(labels) === JSON.stringify(mcp.metadata.labels ?? {})) return undefined;
  return {
    ...mcp,
    metadata: { ...mcp.metadata, labels },
    spec: { ...spec, machineConfigSelector: declared.machineConfigSelector ?? spec.machineConfigSelector },
  };
}

/** The render a pool's new selection makes (pkg/controller/render: the configs its selectors pick). */
async function reselectionImpact(
  cluster: ClusterSnapshot,
  pool: string,
  state: PoolState,
  reselected: KubeObject,
  settings: PoolSettings,
): Promise<PoolImpact> {
  const lists = await Promise.all(CONFIG_KINDS.map((k) => cluster.objects(k)));
  const now = lists.flat() as ObjectLike[];
  return rolloutImpact({
    pool,
    before: poolConfigsFrom(pool, now, state.mcp),
    after: poolConfigsFrom(pool, now, reselected),
    machineCount: Number(state.status.machineCount ?? 0),
    maxUnavailable: settings.maxUnavailable ?? state.spec.maxUnavailable,
    paused: (settings.paused ?? state.spec.paused) === true,
    nodeDisruptionPolicy: state.nodeDisruptionPolicy,
  });
}

/** An impact from a reading of its own (a preview shares one reading among its components). */
const readingAlone =
  <T>(impactIn: ImpactIn<T>) =>
  (kubeconfig: string, pool: string, change: T) =>
    impactIn(readCluster(kubeconfig), pool, change);

/** The impact of applying a MachineConfig, KubeletConfig or ContainerRuntimeConfig to a pool. */
export const clusterRolloutImpact = readingAlone(rolloutImpactIn);
/** The impact of a pool's own settings (see poolImpactIn). */
export const clusterPoolImpact = readingAlone(poolImpactIn);

/** No monitor: outside any program run. */
const NO_RUN = {};
/**
 * The cluster as this program run reads it, per kubeconfig. A run has its own monitor (the Automation
 * API runs several programs in one process), so each run reads the cluster as it is now.
 */
const snapshots = new WeakMap<object, Map<string, ClusterSnapshot>>();

/**
 * The pools this program run declares (an InfraNodePool or MachineConfigPool component), known when a
 * node configuration's preview asks: the cluster is read first, by when the program has constructed its
 * components.
 */
const declaredPools = new WeakMap<object, Set<string>>();

function poolsOfThisRun(): Set<string> {
  const run = pulumi.runtime.getMonitor() ?? NO_RUN;
  let pools = declaredPools.get(run);
  if (!pools) declaredPools.set(run, (pools = new Set()));
  return pools;
}

export function clusterOfThisRun(kubeconfig: string): ClusterSnapshot {
  const run = pulumi.runtime.getMonitor() ?? NO_RUN;
  let ofRun = snapshots.get(run);
  if (!ofRun) snapshots.set(run, (ofRun = new Map()));
  let cluster = ofRun.get(kubeconfig);
  if (!cluster) ofRun.set(kubeconfig, (cluster = readCluster(kubeconfig)));
  return cluster;
}

/**
 * Logs and returns the impact at preview; undefined on `up` (the change may already be applied) and
 * without a kubeconfig. A cluster that cannot be read gives a warning, never a failed preview.
 */
function previewImpact<T>(
  parent: pulumi.Resource,
  kubeconfig: pulumi.Output<string> | undefined,
  pool: pulumi.Input<string>,
  change: pulumi.Output<T>,
  impactOf: ImpactIn<T>,
  /** Names the node configuration object, which waits for its pool; absent for the pool itself. */
  waitsForPool?: pulumi.Output<string>,
): pulumi.Output<PoolImpact | undefined> {
  if (!pulumi.runtime.isDryRun() || !kubeconfig) return pulumi.output(undefined);
  return pulumi
    .all([pulumi.unsecret(kubeconfig), pool, change, waitsForPool])
    .apply(async ([config, poolName, declared, waiter]) => {
      // Asked once per kubeconfig and run: without it every pool and node configuration of a preview
      // would wait out its own request timeouts against a cluster that is down or behind a closed VPN.
      const cluster = clusterOfThisRun(config);
      const down = await cluster.unreachableBecause();
      if (down !== undefined) {
        pulumi.log.warn(
          `pool ${poolName}: rollout impact unknown: the cluster does not answer: ${down}`,
          parent,
        );
        return undefined;
      }
      try {
        const impact = await impactOf(cluster, poolName, declared as T);
        if (!impact && waiter && !poolsOfThisRun().has(poolName)) {
          // The MCO would answer "does not match any MachineConfigPools", and `up` fail on it.
          pulumi.log.warn(
            `pool ${poolName}: neither in the cluster nor declared in this program (by an InfraNodePool or MachineConfigPool): ${waiter} selects no pool unless something else creates it; check the pool's name`,
            parent,
          );
          return undefined;
        }
        pulumi.log.info(
          impact
            ? impactLine(impact)
            : `pool ${poolName}: not in the cluster yet: its nodes boot with its first render`,
          parent,
        );
        return impact;
      } catch (e) {
        pulumi.log.warn(`pool ${poolName}: rollout impact unknown: ${(e as Error).message}`, parent);
        return undefined;
      }
    });
}

/** At preview, the impact of applying a node configuration object to its pool. */
export function previewRolloutImpact(
  parent: pulumi.Resource,
  kubeconfig: pulumi.Output<string> | undefined,
  pool: pulumi.Input<string>,
  object: pulumi.Output<ObjectLike>,
  kind?: string,
): pulumi.Output<PoolImpact | undefined> {
  const waiter = object.apply((o) => `${o.kind ?? kind ?? "object"} ${o.metadata?.name ?? ""}`.trim());
  return previewImpact(parent, kubeconfig, pool, object, rolloutImpactIn, waiter);
}

/** At preview, the impact of a pool's declared `maxUnavailable` and `paused` (from its manifest). */
export function previewPoolImpact(
  parent: pulumi.Resource,
  kubeconfig: pulumi.Output<string> | undefined,
  pool: pulumi.Input<string>,
  manifest: pulumi.Output<ObjectLike>,
): pulumi.Output<PoolImpact | undefined> {
  // With the selection, a pool adopted from one made by hand says whether the stack's selectors re-render it.
  const declared = manifest.apply((m) => ({
    ...settingsOf(m),
    selection: {
      machineConfigSelector: (m.spec as { machineConfigSelector?: unknown } | undefined)
        ?.machineConfigSelector,
      labels: m.metadata?.labels,
    },
  }));
  return previewImpact(parent, kubeconfig, pool, declared, poolImpactIn);
}

/** A MachineSet as the program declares it: its name and what its template gives each Machine. */
export interface DeclaredMachineSet extends MachineTemplate {
  name: string;
}

/**
 * At preview, what a changed template does to the MachineSets' machines: the machine-api applies it
 * only to machines it creates, so each MachineSet with machines on another provider spec or without
 * its machine labels gets a line saying which keep what (`3 machines keep m6i.xlarge; only new
 * machines get m6i.2xlarge`) or, with a replacement policy, how they are replaced and about how long
 * it takes. (Node labels and taints reach running machines: node-labels.ts.) Read with the preview's
 * shared connection (the MachineSets once, a pool's Machines only when it changes its template or
 * replaces); undefined on `up` and without a kubeconfig, and empty when every machine has its
 * template's spec.
 */
export function previewMachineSpecChanges(
  parent: pulumi.Resource,
  kubeconfig: pulumi.Output<string> | undefined,
  machineSets: pulumi.Output<DeclaredMachineSet[]>,
  policy: pulumi.Output<MachineReplacementPolicy> | undefined,
): pulumi.Output<string[] | undefined> {
  if (!pulumi.runtime.isDryRun() || !kubeconfig) return pulumi.output(undefined);
  return pulumi
    .all([pulumi.unsecret(kubeconfig), machineSets, policy])
    .apply(async ([config, sets, replacement]) => {
      const cluster = clusterOfThisRun(config);
      const down = await cluster.unreachableBecause();
      if (down !== undefined) {
        pulumi.log.warn(`machine specs unknown: the cluster does not answer: ${down}`, parent);
        return undefined;
      }
      try {
        // Machines are read for the MachineSets whose template changes, or all with a policy (a
        // template changed by an earlier up may have left machines to replace).
        const live = await cluster.machineSets();
        const asked = sets.filter((set) => {
          const now = live.find((m) => m.metadata.name === set.name);
          const template = field<Json>(now, "spec", "template");
          const spec = field<Record<string, unknown>>(template, "spec", "providerSpec", "value");
          const labels = field<Record<string, string>>(template, "metadata", "labels") ?? {};
          return (
            now &&
            (replacement ||
              differsFromDeclared(set.providerSpec, spec ?? {}) ||
              Object.entries(set.labels).some(([k, v]) => labels[k] !== v))
          );
        });
        if (asked.length === 0) return [];
        const machines = await cluster.machines(asked.map((s) => s.name));
        const lines = asked.flatMap((set) => {
          const made = machinesOf(set.name, machines)
            .filter((m) => !m.metadata.deletionTimestamp)
            .map((m) => ({
              providerSpec: field<Record<string, unknown>>(m, "spec", "providerSpec", "value") ?? {},
              labels: m.metadata.labels ?? {},
            }));
          return machineSpecChange(set.name, set, made, replacement) ?? [];
        });
        for (const line of lines) pulumi.log.info(line, parent);
        return lines;
      } catch (e) {
        pulumi.log.warn(`machine specs unknown: ${(e as Error).message}`, parent);
        return undefined;
      }
    });
}

/** What a component declares for its pool. */
export interface DeclaredForPool {
  kubeconfig: pulumi.Output<string> | undefined;
  pool: pulumi.Input<string>;
  /** `MachineConfigPool` for the pool's own settings, else the kind of the node configuration object. */
  kind: string;
  manifest: pulumi.Output<ObjectLike>;
}

/** What a pool or node configuration component keeps for the next preview's rollout impact. */
export interface RolloutRecord {
  /** The pool waiter's inputs that keep it: what the component declares, and the cluster's answer now. */
  inputs: {
    objects?: pulumi.Output<ObjectLike[]>;
    settings?: pulumi.Output<PoolSettings>;
    clusterImpact: pulumi.Output<PoolImpact | undefined>;
  };
  /**
   * The component's `rolloutImpact`: at preview the cluster's answer, else what the waiter keeping the
   * record computed against the previous deployment; without a waiter (`wait: false`) a RolloutBaseline
   * keeps the record instead.
   */
  impact(rollout: PoolRollout | undefined): pulumi.Output<PoolImpact | undefined>;
}

/**
 * The rollout record of a pool or node configuration component: at preview, what the cluster says
 * (logged on the component), and this deployment's declared inputs, which the pool's waiter keeps with
 * the machine count and per-node timings it observes, so that the next preview can answer without a
 * cluster and refine a cluster's estimate with the timings of the last rollout.
 */
export function rolloutRecord(
  parent: pulumi.Resource,
  name: string,
  declared: DeclaredForPool,
): RolloutRecord {
  const { kubeconfig, pool, kind, manifest } = declared;
  const ownSettings = kind === "MachineConfigPool";
  if (ownSettings) {
    const declaredIn = poolsOfThisRun();
    pulumi.output(pool).apply((p) => declaredIn.add(p));
  }
  const clusterImpact = ownSettings
    ? previewPoolImpact(parent, kubeconfig, pool, manifest)
    : previewRolloutImpact(parent, kubeconfig, pool, manifest, kind);
  const inputs = ownSettings
    ? { settings: manifest.apply(settingsOf), clusterImpact }
    : { objects: manifest.apply((m) => [{ ...m, kind }]), clusterImpact };
  return {
    inputs,
    impact(rollout) {
      // The cluster's answer needs no waiter: it stays known at a preview that updates the waiter.
      if (rollout)
        return clusterImpact.apply((c) =>
          c ? pulumi.output(c) : rollout.impact.apply((i) => i ?? undefined),
        ) as pulumi.Output<PoolImpact | undefined>;
      // Nothing waits for the pool, so nothing else keeps the record: the baseline's check returns the
      // cluster's answer when there is one.
      const baseline = new RolloutBaseline(`${name}-rollout-baseline`, { pool, ...inputs }, { parent });
      return baseline.impact.apply((impact) => impact ?? undefined);
    },
  };
}
