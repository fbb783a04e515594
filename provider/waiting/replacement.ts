/**
 * Replacing a MachineSet's machines whose spec its template no longer has. The machine-api copies the
 * template into a Machine only when it creates one (machine-api-operator,
 * pkg/controller/machineset/controller.go, `createMachine`), so a new instance type, disk or image
 * reaches existing machines only by replacing them. This decides, from what is observed and nothing
 * remembered, the next steps through the machine-api: raise replicas by the surge (the MachineSet
 * creates machines from the current template), mark an old machine with the delete annotation once
 * enough machines are Ready, then either delete it (the MachineSet replaces a deleted Machine:
 * `shouldExcludeMachine` leaves out machines being deleted) or, at the end, scale down, which deletes the
 * marked machine before any other (`getMachinesToDeletePrioritized`). The machine controller drains
 * each node before its instance goes.
 */
import { IntOrPercent, resolveFenceposts } from "../../primitives/int-or-percent";
import { DELETE_MACHINE_ANNOTATION } from "../../primitives/openshift";
import { byName, jsonEqual } from "../../primitives/objects";
import { field, KubeObject } from "./kinds";

export { DELETE_MACHINE_ANNOTATION };

export interface MachineReplacement {
  /**
   * Machines above the declared replicas while replacing (a percentage of them rounds up); 0 with an
   * autoscaled MachineSet.
   */
  maxSurge: IntOrPercent;
  /** Machines below the declared replicas that may be unready while replacing (a percentage rounds down). */
  maxUnavailable: IntOrPercent;
  /**
   * The replicas the pool declares, per MachineSet. A MachineSet left out is autoscaled: the cluster
   * autoscaler owns its replicas, so they are never written and its machines are replaced by deleting
   * (maxUnavailable at a time); the autoscaler's count is the one kept.
   */
  replicas?: Record<string, number>;
}

export type ReplacementStep =
  | { type: "scale"; machineSet: string; from: number; replicas: number; key: string }
  | { type: "mark"; machine: string }
  | { type: "delete"; machine: string };

export interface ReplacementPlan {
  /** The replicas the MachineSet ends with. */
  replicas: number;
  /** Live machines whose provider spec is not the template's, sorted. */
  outdated: string[];
  /** Machines of the current template that are Ready nodes. */
  current: number;
  steps: ReplacementStep[];
  /** Why nothing more is done now, when outdated machines remain. */
  waiting?: string;
  /** Replicas someone else set while replacing, which the replacement's steps would undo: a failure. */
  scaledByOthers?: string;
}

/** Whether the Machine was created from another provider spec than its MachineSet's template now has. */
export function isOutdated(machine: KubeObject, machineSet: KubeObject): boolean {
  return !jsonEqual(
    field(machine, "spec", "providerSpec", "value"),
    field(machineSet, "spec", "template", "spec", "providerSpec", "value"),
  );
}

export function isMarked(machine: KubeObject): boolean {
  return !!machine.metadata.annotations?.[DELETE_MACHINE_ANNOTATION];
}

/**
 * The next steps for one MachineSet, given its machines (owned, deleting ones included) and whether
 * each machine's node is Ready. Availability never drops below the declared replicas less
 * `maxUnavailable`: a Ready machine is marked only while the other Ready machines are enough, and
 * machines that are not Ready (old ones that never came up) are marked at once, as they serve nothing.
 */
export function planReplacement(
  machineSet: KubeObject,
  machines: KubeObject[],
  ready: (machine: KubeObject) => boolean,
  policy: MachineReplacement,
): ReplacementPlan {
  const name = machineSet.metadata.name;
  const spec = field<number>(machineSet, "spec", "replicas") ?? 1;
  const declared = policy.replicas?.[name];
  const base = declared ?? spec;
  const allowed = resolveFenceposts(
    declared === undefined ? 0 : policy.maxSurge,
    policy.maxUnavailable,
    base,
  );
  const surge = allowed.surge;
  const live = machines.filter((m) => !m.metadata.deletionTimestamp).sort(byName);
  const old = live.filter((m) => isOutdated(m, machineSet));
  // Only this replacement moves the declared replicas, and only up to the surge: a count outside that is
  // someone else's (an `oc scale`). The Deployment controller tells its own scaling from others' the
  // same way, by the desired and maximum replicas it records (kubernetes pkg/controller/deployment/util,
  // SetReplicasAnnotations), and takes back a ReplicaSet scaled by hand as the owner of its replicas;
  // an `up` is no loop that may fight a person, so it stops and names the count instead (docs/day-two.md).
  // An autoscaled MachineSet's base is its own count and it has no surge: never someone else's.
  if (spec < base || spec > base + surge) {
    const during = surge > 0 ? `, ${base + surge} with the replacement's surge` : "";
    return {
      replicas: base,
      outdated: old.map((m) => m.metadata.name),
      current: 0,
      steps: [],
      scaledByOthers: `MachineSet ${name} was scaled to ${spec} replicas by someone else during the machine replacement (the pool declares ${base}${during}); the replacement stops rather than scale it back: declare the replicas you want in the program, or scale it back (oc scale machineset ${name} -n ${machineSet.metadata.namespace} --replicas=${base}), and run up again`,
    };
  }
  const marked = old.filter(isMarked);
  const unmarked = old.filter((m) => !isMarked(m));
  const current = live.filter((m) => !isOutdated(m, machineSet) && ready(m)).length;
  const readyKept = live.filter((m) => !marked.includes(m) && ready(m)).length;
  const headroom = Math.max(0, readyKept - (base - allowed.unavailable));
  const chosen = [
    ...unmarked.filter((m) => !ready(m)),
    ...unmarked.filter((m) => ready(m)).slice(0, headroom),
  ];
  const kept = unmarked.filter((m) => !chosen.includes(m)).map((m) => m.metadata.name);
  const target = base + Math.min(surge, kept.length);
  const steps: ReplacementStep[] = chosen.map((m) => ({ type: "mark", machine: m.metadata.name }));
  // Scaling down deletes marked machines first only once they carry the mark; scaling up waits for nothing.
  const scale = target > spec || (target < spec && chosen.length === 0);
  if (scale) {
    const key = `scale/${name}/${spec}-${target}/${kept.join(",")}`;
    steps.push({ type: "scale", machineSet: name, from: spec, replicas: target, key });
  }
  // With replicas where they stay, a marked machine is deleted and the MachineSet creates its
  // replacement; once it has seen a scale down, the machines that scale down deletes are already going.
  const settled =
    target === spec && field(machineSet, "status", "observedGeneration") === machineSet.metadata.generation;
  if (settled) for (const m of marked) steps.push({ type: "delete", machine: m.metadata.name });
  const outdated = old.map((m) => m.metadata.name);
  const plan = { replicas: base, outdated, current, steps };
  if (outdated.length === 0 || steps.length > 0) return plan;
  const unavailable = base - readyKept;
  return {
    ...plan,
    waiting:
      marked.length > 0
        ? `waiting for MachineSet ${name} to settle before deleting ${marked.map((m) => m.metadata.name).join(", ")}`
        : `waiting for new machines to be Ready (${readyKept} Ready, ${unavailable} unavailable of ${allowed.unavailable} allowed)`,
  };
}
