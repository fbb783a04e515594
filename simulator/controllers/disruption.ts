/**
 * PodDisruptionBudgets and the drains that honour them: the disruption controller's status (kubernetes
 * pkg/controller/disruption/disruption.go trySync, getExpectedPodCount, countHealthyPods,
 * updatePdbStatus), the eviction subresource (pkg/registry/core/pod/storage/eviction.go Create,
 * checkAndDecrement) and one pass of a drain's evictions as k8s.io/kubectl/pkg/drain makes them
 * (GetPodsForDeletion with the filters the MCO's drain controller sets: Force, IgnoreAllDaemonSets,
 * DeleteEmptyDirData), which the machine-config daemon's drain calls.
 */
import { annotationsOf, field, Json, jsonEqual } from "../../primitives/objects";
import { LabelSelector, selectorMatches } from "../../primitives/selectors";
import { KubeObject, Store } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { Condition, isKind, K, keyOf, setCondition } from "./util";
import { WorkQueue } from "./workqueue";

const PDB = K.podDisruptionBudget;

const MIRROR_POD = "kubernetes.io/config.mirror";

const isReady = (pod: KubeObject) =>
  (field<Condition[]>(pod, "status", "conditions") ?? []).some(
    (c) => c.type === "Ready" && c.status === "True",
  );

/** intstr.GetScaledValueFromIntOrPercent, rounding up as the disruption controller asks. */
function scaled(value: number | string, total: number): number {
  if (typeof value === "number") return value;
  return Math.ceil((Number.parseInt(value, 10) * total) / 100);
}

function podsOf(store: Pick<Store, "list">, pdb: KubeObject): KubeObject[] {
  const selector = field<LabelSelector>(pdb, "spec", "selector");
  return store
    .list(K.pod.apiVersion, K.pod.kind, { namespace: pdb.metadata.namespace })
    .filter((p) => selectorMatches(selector, p.metadata.labels));
}

/**
 * What the disruption controller writes: a budget given as an integer minAvailable expects the pods it
 * selects; one given as a percentage or as maxUnavailable expects the replicas of their controllers
 * (getExpectedScale; here their ReplicaSets, the only controllers the simulator runs).
 */
export function budgetStatus(store: Pick<Store, "get" | "list">, pdb: KubeObject): Json {
  const pods = podsOf(store, pdb);
  const minAvailable = field<number | string>(pdb, "spec", "minAvailable");
  const maxUnavailable = field<number | string>(pdb, "spec", "maxUnavailable");
  let expected = pods.length;
  if (maxUnavailable !== undefined || typeof minAvailable === "string") {
    const owners = new Map<string, number>();
    for (const p of pods) {
      const ref = (p.metadata.ownerReferences ?? []).find((r) => r.controller && r.kind === "ReplicaSet");
      const rs = ref && store.get(keyOf(K.replicaSet, ref.name, p.metadata.namespace));
      if (rs) owners.set(rs.metadata.uid ?? ref.name, field<number>(rs, "spec", "replicas") ?? 1);
    }
    expected = [...owners.values()].reduce((a, b) => a + b, 0);
  }
  const desiredHealthy =
    maxUnavailable !== undefined
      ? Math.max(0, expected - scaled(maxUnavailable, expected))
      : minAvailable !== undefined
        ? scaled(minAvailable, expected)
        : 0;
  const currentHealthy = pods.filter((p) => isReady(p) && !p.metadata.deletionTimestamp).length;
  return {
    observedGeneration: pdb.metadata.generation ?? 1,
    expectedPods: expected,
    currentHealthy,
    desiredHealthy,
    disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy),
  };
}

/** kubernetes pkg/apis/policy/v1 helpers: DisruptionAllowed True with SufficientPods, else InsufficientPods. */
function withAllowedCondition(status: Json, previous: Condition[], now: Date): Json {
  const allowed = (status.disruptionsAllowed as number) > 0;
  const condition: Condition = {
    type: "DisruptionAllowed",
    status: allowed ? "True" : "False",
    reason: allowed ? "SufficientPods" : "InsufficientPods",
    message: "",
    observedGeneration: status.observedGeneration as number,
  };
  return { ...status, conditions: setCondition(previous, condition, now) };
}

/** The disruption controller: every budget's status, recomputed when a budget or a pod changes. */
export function startDisruptionController(ctx: ControllerContext): StopFn {
  const writer = ctx.writer("kube-controller-manager");
  const queue = new WorkQueue("disruption", ctx.clock, (key) => {
    const [namespace, name] = key.split("/");
    const pdb = ctx.store.get(keyOf(PDB, name, namespace));
    if (!pdb) return;
    const previous = field<Condition[]>(pdb, "status", "conditions") ?? [];
    const next = withAllowedCondition(budgetStatus(ctx.store, pdb), previous, ctx.clock.now());
    if (jsonEqual(next, pdb.status ?? {})) return;
    writer.mutate(keyOf(PDB, name, namespace), (o) => (o.status = next), { subresource: "status" });
  });
  const enqueueNamespace = (namespace: string | undefined) => {
    for (const pdb of ctx.store.list(PDB.apiVersion, PDB.kind, { namespace }))
      queue.add(`${pdb.metadata.namespace}/${pdb.metadata.name}`);
  };
  const unsubscribe = ctx.store.subscribe(({ object }) => {
    if (isKind(object, PDB)) queue.add(`${object.metadata.namespace}/${object.metadata.name}`);
    else if (isKind(object, K.pod)) enqueueNamespace(object.metadata.namespace);
  });
  enqueueNamespace(undefined);
  return unsubscribe;
}

/** An eviction the API server refused, as its Status says it. */
export interface Refusal {
  code: number;
  message: string;
  /** The DisruptionBudget cause, naming the budget. */
  cause?: string;
}

/**
 * POST pods/<name>/eviction (eviction.go Create): a pod that is not running (canIgnorePDB: Succeeded,
 * Failed, Pending) or that no budget selects is deleted; more than one budget is an error; a budget
 * whose status is behind its generation or that allows no disruption refuses with 429; otherwise its
 * disruptionsAllowed goes down by one and the pod is deleted.
 */
export function evict(store: Store, pod: KubeObject): Refusal | undefined {
  const key = keyOf(K.pod, pod.metadata.name, pod.metadata.namespace);
  const phase = field<string>(pod, "status", "phase");
  const budgets =
    phase === "Succeeded" || phase === "Failed" || phase === "Pending"
      ? []
      : store
          .list(PDB.apiVersion, PDB.kind, { namespace: pod.metadata.namespace })
          .filter((b) => selectorMatches(field<LabelSelector>(b, "spec", "selector"), pod.metadata.labels));
  if (budgets.length > 1)
    return {
      code: 500,
      message:
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
    };
  const [budget] = budgets;
  if (budget) {
    const name = budget.metadata.name;
    const refused = "Cannot evict pod as it would violate the pod's disruption budget.";
    if ((field<number>(budget, "status", "observedGeneration") ?? 0) < (budget.metadata.generation ?? 1))
      return {
        code: 429,
        message: refused,
        cause: `The disruption budget ${name} is still being processed by the server.`,
      };
    const allowed = field<number>(budget, "status", "disruptionsAllowed") ?? 0;
    if (allowed === 0) {
      const desired = field<number>(budget, "status", "desiredHealthy") ?? 0;
      const current = field<number>(budget, "status", "currentHealthy") ?? 0;
      return {
        code: 429,
        message: refused,
        cause: `The disruption budget ${name} needs ${desired} healthy pods and has ${current} currently`,
      };
    }
    store.mutate(
      keyOf(PDB, name, budget.metadata.namespace),
      (b) => ((b.status as Json).disruptionsAllowed = allowed - 1),
      { subresource: "status" },
    );
  }
  store.delete(key);
  return undefined;
}

/**
 * The pods a drain of `node` evicts (drain.go GetPodsForDeletion under the MCO's filters): every pod
 * bound to it but mirror pods and those of a DaemonSet.
 */
export function podsToEvict(store: Pick<Store, "list">, node: string): KubeObject[] {
  return store
    .list(K.pod.apiVersion, K.pod.kind)
    .filter(
      (p) =>
        field(p, "spec", "nodeName") === node &&
        !p.metadata.deletionTimestamp &&
        annotationsOf(p)[MIRROR_POD] === undefined &&
        !(p.metadata.ownerReferences ?? []).some((r) => r.controller && r.kind === "DaemonSet"),
    );
}

/** One pass of a drain's evictions: the pods whose eviction was refused, each with the refusal. */
export function evictFrom(store: Store, node: string): Array<{ pod: KubeObject; refusal: Refusal }> {
  const refused: Array<{ pod: KubeObject; refusal: Refusal }> = [];
  for (const pod of podsToEvict(store, node)) {
    const refusal = evict(store, pod);
    if (refusal) refused.push({ pod, refusal });
  }
  return refused;
}

/** A duration as Go prints a time.Duration of whole seconds: `1m30s`, `1h0m0s`. */
export function goDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  const [h, m, sec] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  if (h > 0) return `${h}h${m}m${sec}s`;
  return m > 0 ? `${m}m${sec}s` : `${sec}s`;
}

/**
 * The error a drain attempt returns for the pods it could not evict (drain.go evictPods): a refusal
 * retried until the helper's timeout reports that timeout, any other the API server's message; two or
 * more are aggregated as `[a, b]` (apimachinery's utilerrors.NewAggregate).
 */
export function drainError(refused: Array<{ pod: KubeObject; refusal: Refusal }>, timeoutMs: number): string {
  const errors = refused.map(({ pod, refusal }) => {
    const which = `error when evicting pods/${JSON.stringify(pod.metadata.name)} -n ${JSON.stringify(pod.metadata.namespace)}`;
    return refusal.code === 429
      ? `${which}: global timeout reached: ${goDuration(timeoutMs)}`
      : `${which}: ${refusal.message}`;
  });
  return errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`;
}
