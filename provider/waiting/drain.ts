/**
 * What holds a drain: the pods a drain could not evict, as the kubectl drain helper names them in its
 * error (k8s.io/kubectl/pkg/drain drain.go evictPods: `error when evicting pods/"<name>" -n
 * "<namespace>": <why>`, which the MCO's drain controller writes on the MachineConfigNode's Drained
 * condition), and the PodDisruptionBudgets that refuse their eviction (kubernetes
 * pkg/registry/core/pod/storage/eviction.go: the budget of the pod's namespace selecting it, refusing
 * while it allows no disruption or has not caught up with its spec).
 */
import { LabelSelector, selectorMatches } from "../../primitives/selectors";
import { field, KubeObject, labelsOf } from "./kinds";

export interface BlockedPod {
  namespace: string;
  name: string;
  /** Why the eviction failed, unless only the helper's timeout was reached (a refusal it retried). */
  why?: string;
}

const EVICTION_ERROR = /^error when evicting pods\/"([^"]+)" -n "([^"]+)": (.*)$/s;

/**
 * The pods a drain error names, in its order, each once: one error, or several aggregated as `[a, b]`
 * (apimachinery utilerrors.NewAggregate).
 */
export function blockedPods(error: string): BlockedPod[] {
  const aggregate = /^\[(.*)\]$/s.exec(error);
  const errors = (aggregate ? aggregate[1] : error).split(/, (?=error when evicting pods\/)/);
  const out: BlockedPod[] = [];
  for (const e of errors) {
    const [, name, namespace, why] = EVICTION_ERROR.exec(e) ?? [];
    if (!name || out.some((p) => p.name === name && p.namespace === namespace)) continue;
    out.push({ namespace, name, ...(why.startsWith("global timeout reached: ") ? {} : { why }) });
  }
  return out;
}

/** `<namespace>/<name>`, how a blocked pod is keyed and named. */
export function podKey(pod: { namespace: string; name: string }): string {
  return `${pod.namespace}/${pod.name}`;
}

/**
 * The budgets of the pod's namespace that select it and refuse its eviction now (eviction.go
 * checkAndDecrement: status behind the generation, or no disruption allowed).
 */
export function refusingBudgets(pod: KubeObject, budgets: KubeObject[]): KubeObject[] {
  return budgets.filter(
    (b) =>
      b.metadata.namespace === pod.metadata.namespace &&
      selectorMatches(field<LabelSelector>(b, "spec", "selector"), labelsOf(pod)) &&
      ((field<number>(b, "status", "observedGeneration") ?? 0) < (b.metadata.generation ?? 1) ||
        (field<number>(b, "status", "disruptionsAllowed") ?? 0) === 0),
  );
}

/** `PodDisruptionBudget shop/web needs 2 healthy pods and has 2`, as the eviction's cause counts it. */
function describeBudget(budget: KubeObject): string {
  const name = `PodDisruptionBudget ${budget.metadata.namespace}/${budget.metadata.name}`;
  const desired = field<number>(budget, "status", "desiredHealthy");
  const current = field<number>(budget, "status", "currentHealthy");
  if (desired === undefined || current === undefined || current > desired) return name;
  return `${name} needs ${desired} healthy pod${desired === 1 ? "" : "s"} and has ${current}`;
}

/**
 * `pod shop/web-1: PodDisruptionBudget shop/web needs 1 healthy pod and has 1`: the pod, and what
 * refuses its eviction once its budgets are read (`pod` and `budgets` undefined until then), else why
 * the eviction failed when the error says more than that it timed out.
 */
export function describeBlockedPod(
  blocked: BlockedPod,
  pod: KubeObject | null | undefined,
  budgets: KubeObject[] | undefined,
): string {
  const refusing = pod && budgets ? refusingBudgets(pod, budgets).map(describeBudget) : [];
  const because = refusing.length > 0 ? refusing.join(", ") : blocked.why;
  return `pod ${podKey(blocked)}${because ? `: ${because}` : ""}`;
}
