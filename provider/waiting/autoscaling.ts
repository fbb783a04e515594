/**
 * When a pool's MachineAutoscalers are in effect: the machine-api has accepted each one (its bounds are
 * the node-group annotations on the target MachineSet and `status.lastTargetRef` names it) and each
 * MachineSet has at least its minimum of Ready machines.
 */
import { AUTOSCALER_ANNOTATIONS } from "../../primitives/openshift";
import { converge, ConvergeOptions, Evaluation, Need, observe, Outcome, View, WaitOptions } from "./converge";
import { field, KINDS, KubeObject, ResourceKind } from "./kinds";
import { isNodeReady, machineFailure, machinesOf, machinesSelector, nodeNames, nodeOf } from "./machineset";
import {
  byName,
  ClusterAccess,
  clientOf,
  listedByName,
  listed,
  listedNodes,
  MACHINE_API_NAMESPACE,
  poolNodes,
} from "./waiters";

export const MACHINE_AUTOSCALER_KIND: ResourceKind = KINDS.machineAutoscaler;
export const MIN_SIZE_ANNOTATION = AUTOSCALER_ANNOTATIONS.minSize;
export const MAX_SIZE_ANNOTATION = AUTOSCALER_ANNOTATIONS.maxSize;

export interface AutoscalerTarget {
  namespace: string;
  /** MachineAutoscaler names; each targets the MachineSet of the same name. */
  autoscalers: string[];
}

export interface AutoscalerObservation {
  autoscalers: KubeObject[];
  machineSets: KubeObject[];
  machines: KubeObject[];
  nodes: KubeObject[];
}

export interface AutoscalerStatus {
  name: string;
  machineSet: string;
  minReplicas: number;
  maxReplicas: number;
  replicas: number;
  readyMachines: number;
}

export interface AutoscalerResult {
  autoscalers: AutoscalerStatus[];
  readyMachineCount: number;
}

export function evaluateAutoscalersReady(
  target: AutoscalerTarget,
  obs: AutoscalerObservation,
): Evaluation<AutoscalerResult> {
  const statuses: AutoscalerStatus[] = [];
  const waits: string[] = [];
  for (const name of target.autoscalers) {
    const ma = obs.autoscalers.find((m) => m.metadata.name === name);
    if (!ma) {
      waits.push(`MachineAutoscaler ${name} does not exist yet`);
      continue;
    }
    const setName = field<string>(ma, "spec", "scaleTargetRef", "name") ?? "";
    const min = field<number>(ma, "spec", "minReplicas") ?? 0;
    const max = field<number>(ma, "spec", "maxReplicas") ?? 0;
    const set = obs.machineSets.find((s) => s.metadata.name === setName);
    if (!set) {
      waits.push(`MachineSet ${setName} of MachineAutoscaler ${name} does not exist yet`);
      continue;
    }
    const machines = machinesOf(setName, obs.machines);
    for (const m of machines) {
      const failure = machineFailure(m);
      if (failure) return { state: "failed", message: `MachineSet ${setName}: ${failure}` };
    }
    const ready = machines.filter((m) => {
      const node = nodeOf(m, obs.nodes);
      return !m.metadata.deletionTimestamp && node !== undefined && isNodeReady(node);
    }).length;
    statuses.push({
      name,
      machineSet: setName,
      minReplicas: min,
      maxReplicas: max,
      replicas: field<number>(set, "spec", "replicas") ?? 0,
      readyMachines: ready,
    });
    const annotations = set.metadata.annotations ?? {};
    if (
      annotations[MIN_SIZE_ANNOTATION] !== String(min) ||
      annotations[MAX_SIZE_ANNOTATION] !== String(max)
    ) {
      waits.push(
        `MachineSet ${setName} does not carry the bounds ${min}-${max} of MachineAutoscaler ${name} yet`,
      );
    } else if (field(ma, "status", "lastTargetRef", "name") !== setName) {
      waits.push(`MachineAutoscaler ${name} has not reported its target ${setName} yet`);
    } else if (ready < min) {
      waits.push(`MachineSet ${setName} has ${ready} of at least ${min} machines Ready`);
    }
  }
  const result = {
    autoscalers: statuses,
    readyMachineCount: statuses.reduce((sum, s) => sum + s.readyMachines, 0),
  };
  const accepted = target.autoscalers.length - waits.length;
  const progress = { done: accepted, total: target.autoscalers.length, result };
  if (waits.length > 0) return { state: "waiting", message: waits.join("; "), ...progress };
  return {
    state: "done",
    message: `MachineAutoscalers ${target.autoscalers.join(", ")} accepted, each MachineSet at or above its minimum`,
    ...progress,
  };
}

export interface AutoscalerOptions extends WaitOptions, ClusterAccess {
  autoscalers: string[];
  /** Default `openshift-machine-api`. */
  namespace?: string;
}

/**
 * Only the wait's objects are listed and watched, so that a large cluster costs the wait what a small
 * one does: the MachineAutoscalers by name, then the MachineSets they target by name (as a client-go
 * user reads one object: a field selector on `metadata.name`), then, once every one is seen, their
 * Machines and nodes (`machinesSelector`, `poolNodes`).
 */
function poolSources(target: AutoscalerTarget, view: View) {
  const autoscalers = listedByName(view, MACHINE_AUTOSCALER_KIND, target.autoscalers);
  const targets = target.autoscalers.map((name) => {
    const ma = autoscalers.find((m) => m.metadata.name === name);
    return ma && field<string>(ma, "spec", "scaleTargetRef", "name");
  });
  const names = [...new Set(targets.filter((name): name is string => !!name))];
  const { namespace } = target;
  const machineSets = listedByName(view, KINDS.machineSet, names);
  const machines = view.sources.machines ?? [];
  const needs: Need[] = byName(KINDS.machineSet, namespace, names).map((source) => ({
    type: "source",
    source,
  }));
  const seen = names.filter((name) => machineSets.some((m) => m.metadata.name === name));
  if (names.length === targets.length && seen.length === names.length) {
    const labelSelector = machinesSelector(names);
    needs.push(
      { type: "source", source: { name: "machines", resource: KINDS.machine, namespace, labelSelector } },
      ...poolNodes({ namespace, machineSets: names }, machineSets, nodeNames(names, machines), machines),
    );
  }
  return { autoscalers, machineSets, machines, needs };
}

function autoscalersReady(options: AutoscalerOptions): ConvergeOptions<AutoscalerResult> {
  const target = { namespace: options.namespace ?? MACHINE_API_NAMESPACE, autoscalers: options.autoscalers };
  const waiter = `MachineAutoscalers ${target.namespace}/${target.autoscalers.join(",")}`;
  return {
    ...options,
    client: clientOf(options),
    waiter,
    sources: byName(MACHINE_AUTOSCALER_KIND, target.namespace, target.autoscalers),
    evaluate(view) {
      const { needs, ...observed } = poolSources(target, view);
      // Nothing is judged on sources not listed yet: a MachineSet unread is not a missing one, and a
      // failed Machine is seen only once the Machines are.
      if (!listed(view, needs))
        return { state: "waiting", message: `${waiter}: reading MachineSets, Machines and nodes`, needs };
      const evaluation = evaluateAutoscalersReady(target, { ...observed, nodes: listedNodes(view) });
      return { ...evaluation, needs };
    },
  };
}

/** Waits until the MachineAutoscalers are accepted and their MachineSets have their minimum Ready. */
export function waitForAutoscalersReady(options: AutoscalerOptions): Promise<Outcome<AutoscalerResult>> {
  return converge(autoscalersReady(options));
}

export function observeAutoscalers(options: AutoscalerOptions): Promise<Evaluation<AutoscalerResult>> {
  return observe(autoscalersReady(options));
}
