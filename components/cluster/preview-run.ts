/**
 * What one program run's preview shares: the cluster, read once per kubeconfig, and the pools the run
 * declares with everything its components say of each (pool-summary.ts). A run has its own monitor
 * (the Automation API runs several programs in one process), so each run reads the cluster as it is
 * now and summarizes its own pools; this is the one place that keeps state per run.
 */
import * as pulumi from "@pulumi/pulumi";
import { ClusterSnapshot, readCluster } from "./cluster-snapshot";

export interface PreviewRun {
  /** The cluster as this run reads it, per kubeconfig. */
  readonly clusters: Map<string, ClusterSnapshot>;
  /**
   * The pools this run declares (an InfraNodePool or MachineConfigPool component), known when a node
   * configuration's preview asks: the cluster is read first, by when the program has constructed its
   * components.
   */
  readonly declaredPools: Set<string>;
  /**
   * The patches of the NodeDisruptionPolicy components the run declares, in order: what the node
   * configuration declared after each depends on, at preview and `up`.
   */
  readonly policies: pulumi.Output<pulumi.Resource>[];
  /** The pools the run declares to roll out after others (rollout-order.ts), with those others. */
  readonly rolloutOrder: Map<string, string[]>;
  /** The pool waiters and pauses of the run's node configuration, by pool (rollout-order.ts). */
  readonly rollouts: Array<{
    pool: pulumi.Output<string>;
    waiter?: pulumi.Output<pulumi.Resource>;
    pauses: pulumi.Output<Array<{ pool: string; resource: pulumi.Resource }>>;
    /** The waiters of the object on the canary pools of its pool, which inherit it. */
    followers?: pulumi.Output<Array<{ pool: string; resource: pulumi.Resource }>>;
  }>;
  /** The canary pools the run declares (CanaryPool), with the pool each takes its nodes from. */
  readonly canaries: Map<string, string>;
  /** The pools the run declares by a plain name (NodePool, MachineConfigPool), with the component's. */
  readonly poolNames: Map<string, string>;
  /** Per-run state of other modules, each under its own key (pool-summary.ts). */
  readonly parts: Map<symbol, unknown>;
}

/** No monitor: outside any program run. */
const NO_RUN = {};
const runs = new WeakMap<object, PreviewRun>();

export function thisRun(): PreviewRun {
  const monitor = pulumi.runtime.getMonitor() ?? NO_RUN;
  let run = runs.get(monitor);
  if (!run)
    runs.set(
      monitor,
      (run = {
        clusters: new Map(),
        declaredPools: new Set(),
        policies: [],
        rolloutOrder: new Map(),
        rollouts: [],
        canaries: new Map(),
        poolNames: new Map(),
        parts: new Map(),
      }),
    );
  return run;
}

/** This run's part under `key`, made on first use. */
export function partOfThisRun<T>(key: symbol, make: () => T): T {
  const { parts } = thisRun();
  if (!parts.has(key)) parts.set(key, make());
  return parts.get(key) as T;
}

/** Who answers a run's cluster reads instead of the cluster its kubeconfig names, by the run's monitor. */
const answering = new WeakMap<object, (kubeconfig: string) => ClusterSnapshot>();

/**
 * Answers the cluster reads of the program run under `monitor` (Pulumi's mocks) with `reads` instead
 * of the cluster each kubeconfig names: a unit test's fixtures (testing/), or a capture that records
 * what the program reads (harness/capture.ts).
 */
export function answerClusterReads(monitor: object, reads: (kubeconfig: string) => ClusterSnapshot): void {
  answering.set(monitor, reads);
}

export function clusterOfThisRun(kubeconfig: string): ClusterSnapshot {
  const { clusters } = thisRun();
  let cluster = clusters.get(kubeconfig);
  const read = answering.get(pulumi.runtime.getMonitor() ?? NO_RUN) ?? readCluster;
  if (!cluster) clusters.set(kubeconfig, (cluster = read(kubeconfig)));
  return cluster;
}
