/**
 * When MachineSets are ready (their Machines are Nodes that are Ready and carry their Machine's node
 * labels) and, for deletion, when they are gone together with their Machines and those Machines' Nodes.
 */
import { MACHINE_LABELS, nodeRoleLabel } from "../../primitives/openshift";
import { labelSelectorQuery } from "../../primitives/selectors";
import { conditionOf, field, KubeObject, labelsOf } from "./kinds";
import { WaitState } from "./progress";
import { MachineReplacement, planReplacement, ReplacementStep } from "./replacement";

export const MACHINESET_LABEL = MACHINE_LABELS.machineSet;

export interface MachineSetTarget {
  namespace: string;
  machineSets: string[];
  /**
   * Labels every node of these MachineSets carries (the pool's role labels, on every Machine it makes),
   * which narrow the nodes listed beside those of each template.
   */
  nodeLabels?: Record<string, string>;
  /** Replace machines whose provider spec is not their template's, and wait until none is left. */
  replacement?: MachineReplacement;
}

export interface MachineSetObservation {
  machineSets: KubeObject[];
  machines: KubeObject[];
  nodes: KubeObject[];
}

export interface MachineSetStatus {
  name: string;
  replicas: number;
  readyReplicas: number;
  availableReplicas: number;
}

export interface MachineSetResult {
  machineSets: MachineSetStatus[];
  machineCount: number;
  readyMachineCount: number;
  /** Node names, sorted. */
  nodes: string[];
}

export interface MachineSetEvaluation {
  state: WaitState;
  message: string;
  done?: number;
  total?: number;
  result?: MachineSetResult;
  /** While waiting, what the replacement does next (scale, mark, delete): nothing without one. */
  steps?: ReplacementStep[];
}

/** The Machines a MachineSet owns: by controller reference, or by the label the machine-api sets. */
export function machinesOf(machineSet: string, machines: KubeObject[]): KubeObject[] {
  return machines.filter(
    (m) =>
      (m.metadata.ownerReferences ?? []).some((o) => o.kind === "MachineSet" && o.name === machineSet) ||
      labelsOf(m)[MACHINESET_LABEL] === machineSet,
  );
}

/**
 * The label selector of these MachineSets' Machines: the machine-api's MachineSet controller creates
 * each Machine with its template's labels, which its selector must match and which carry this label
 * (machine-api-operator, pkg/controller/machineset/controller.go, `getNewMachine`).
 */
export function machinesSelector(machineSets: string[]): string {
  return `${MACHINESET_LABEL} in (${[...machineSets].sort().join(",")})`;
}

/** One list (and watch) of nodes: by labels, or one node by name. */
export interface NodeQuery {
  /** Names the source; the same slot asked with other selectors is listed again (a template edited). */
  slot: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/**
 * Labels every node of a role carries whatever its MachineSet: the kubelet's own (`kubernetes.io/os`,
 * `kubernetes.io/arch`) and those the MCO's kubelet unit gives every node of the role
 * (templates/worker/01-worker-kubelet kubelet.service `--node-labels=node-role.kubernetes.io/worker,
 * node.openshift.io/os_id=...`, the master's and arbiter's likewise). A Windows MachineSet's template
 * sets only the worker role, for one.
 */
// An array, not a Set: Pulumi's closure serialization, which carries the waiters to the dynamic-provider
// host, does not rebuild a Set's entries.
const ROLE_WIDE_LABELS = [
  "kubernetes.io/os",
  "kubernetes.io/arch",
  "node.openshift.io/os_id",
  ...["worker", "master", "control-plane", "arbiter"].map(nodeRoleLabel),
];

/** The node labels a Machine declares, which the nodelink controller copies onto its Node. */
export function machineNodeLabels(machine: KubeObject): Record<string, string> {
  return field<Record<string, string>>(machine, "spec", "metadata", "labels") ?? {};
}

/**
 * What to ask the API server for to see these MachineSets' nodes and no others. The machine-api's
 * nodelink controller puts each Machine's node labels on its node (machine-api-operator,
 * pkg/controller/nodelink/nodelink_controller.go, `ReconcileNodeLink.Reconcile` copies `machine.Spec.Labels`),
 * and a Machine has its template's labels as they were when the MachineSet created it
 * (pkg/controller/machineset/controller.go `createMachine`), so a MachineSet whose template sets a label
 * of its own that each of its `machines` also declares (with the target's) has its nodes listed by
 * those labels, one list per distinct set: a label added to the template since reaches running nodes
 * only once written on their Machines. The nodes of one whose template sets none, or only labels every
 * node of a role carries (`ROLE_WIDE_LABELS`: they would list every worker), are asked for by name
 * (`nodeNames`: its Machines' `status.nodeRef`), as are those of a MachineSet not seen (gone before a
 * deletion's wait began).
 */
export function nodeQueries(
  target: MachineSetTarget,
  machineSets: KubeObject[],
  nodeNames: Record<string, string[]>,
  machines: KubeObject[] = [],
): NodeQuery[] {
  const queries: NodeQuery[] = [];
  for (const name of target.machineSets) {
    const set = machineSets.find((m) => m.metadata.name === name);
    const made = machinesOf(name, machines);
    const template = field<Record<string, string>>(set, "spec", "template", "spec", "metadata", "labels");
    const labels = set && {
      ...Object.fromEntries(
        Object.entries(template ?? {}).filter(([k, v]) => made.every((m) => machineNodeLabels(m)[k] === v)),
      ),
      ...target.nodeLabels,
    };
    const own = labels && Object.keys(labels).some((key) => !ROLE_WIDE_LABELS.includes(key));
    const labelSelector = own ? labelSelectorQuery({ matchLabels: labels }) : undefined;
    if (labelSelector === undefined) {
      queries.push(...(nodeNames[name] ?? []).map(nodeByName));
    } else if (!queries.some((q) => q.labelSelector === labelSelector)) {
      queries.push({ slot: `nodes/${name}`, labelSelector });
    }
  }
  return queries;
}

/** One node by name: field selectors on nodes know metadata.name, which names one object at most. */
export function nodeByName(node: string): NodeQuery {
  return { slot: `node/${node}`, fieldSelector: `metadata.name=${node}` };
}

/** The names of the nodes of each MachineSet's Machines, by MachineSet. */
export function nodeNames(machineSets: string[], machines: KubeObject[]): Record<string, string[]> {
  return Object.fromEntries(
    machineSets.map((name) => [
      name,
      machinesOf(name, machines)
        .map((m) => field<string>(m, "status", "nodeRef", "name"))
        .filter((node): node is string => !!node),
    ]),
  );
}

export function nodeOf(machine: KubeObject, nodes: KubeObject[]): KubeObject | undefined {
  const name = field<string>(machine, "status", "nodeRef", "name");
  return name ? nodes.find((n) => n.metadata.name === name) : undefined;
}

export function isNodeReady(node: KubeObject): boolean {
  return conditionOf(node, "Ready")?.status === "True";
}

/** A failed Machine with the reason the machine-api gives. */
export function machineFailure(machine: KubeObject): string | undefined {
  if (field(machine, "status", "phase") !== "Failed") return undefined;
  const reason = field<string>(machine, "status", "errorReason");
  const message = field<string>(machine, "status", "errorMessage");
  return `Machine ${machine.metadata.name} failed${reason ? ` (${reason})` : ""}: ${message ?? "no message"}`;
}

/**
 * Why a deleted machine is not drained yet, as the machine-api's drain controller records it
 * (machine-api-operator pkg/controller/machine/drain_controller.go, Reconcile: `Drained` False with
 * the drain's error, retried with backoff; `Drainable` False while a pre-drain hook holds it).
 */
function drainBlocked(machine: KubeObject): string | undefined {
  if (!machine.metadata.deletionTimestamp) return undefined;
  for (const type of ["Drainable", "Drained"]) {
    const condition = conditionOf(machine, type);
    if (condition?.status === "False") {
      return `Machine ${machine.metadata.name} is not drained: ${condition.message ?? condition.reason ?? type}`;
    }
  }
  return undefined;
}

/**
 * `serves` tells a node that serves workloads, which a replacement waits for before it deletes an old
 * machine: Ready by default; a Windows node only once WMCO has configured it (windows.ts nodeServes).
 */
export function evaluateMachineSetsReady(
  target: MachineSetTarget,
  obs: MachineSetObservation,
  serves: (node: KubeObject) => boolean = isNodeReady,
): MachineSetEvaluation {
  const label = `MachineSets ${target.machineSets.join(", ")}`;
  const statuses: MachineSetStatus[] = [];
  const nodeNames: string[] = [];
  const waits: string[] = [];
  const steps: ReplacementStep[] = [];
  let desiredTotal = 0;
  let readyTotal = 0;
  for (const name of target.machineSets) {
    const ms = obs.machineSets.find((m) => m.metadata.name === name);
    if (!ms) {
      waits.push(`MachineSet ${name} does not exist yet`);
      continue;
    }
    const machines = machinesOf(name, obs.machines);
    const ready = (m: KubeObject) => {
      const node = nodeOf(m, obs.nodes);
      return !!node && serves(node);
    };
    const plan = target.replacement && planReplacement(ms, machines, ready, target.replacement);
    if (plan?.scaledByOthers) return { state: "failed", message: plan.scaledByOthers };
    const errorReason = field<string>(ms, "status", "errorReason");
    const errorMessage = field<string>(ms, "status", "errorMessage");
    if (errorReason || errorMessage) {
      return {
        state: "failed",
        message:
          `MachineSet ${name} failed${errorReason ? ` (${errorReason})` : ""}: ${errorMessage ?? ""}`.trim(),
      };
    }
    // While replacing, a surge raises replicas above what the pool declares, which it ends with.
    const desired = plan?.replicas ?? field<number>(ms, "spec", "replicas") ?? 1;
    const status = {
      name,
      replicas: field<number>(ms, "status", "replicas") ?? 0,
      readyReplicas: field<number>(ms, "status", "readyReplicas") ?? 0,
      availableReplicas: field<number>(ms, "status", "availableReplicas") ?? 0,
    };
    statuses.push(status);
    desiredTotal += desired;
    for (const m of machines) {
      const failure = machineFailure(m);
      const left = plan?.outdated.length
        ? `; ${plan.outdated.length} machines still run the previous spec (${plan.outdated.join(", ")})`
        : "";
      if (failure) return { state: "failed", message: `MachineSet ${name}: ${failure}${left}` };
    }
    steps.push(...(plan?.steps ?? []));
    // A machine whose drain the machine-api keeps retrying (a PodDisruptionBudget, a pre-drain hook)
    // holds the replacement: said first, so that a deadline names it.
    const blocked = plan ? machines.map(drainBlocked).filter((b): b is string => b !== undefined) : [];
    waits.unshift(...blocked.map((b) => `MachineSet ${name}: ${b}`));
    if (plan && plan.outdated.length > 0) {
      waits.push(
        `MachineSet ${name}: ${plan.outdated.length} of ${desired} machines run the previous spec (${plan.outdated.join(", ")}); ${plan.waiting ?? describeSteps(plan.steps)}`,
      );
    } else if (plan && plan.steps.length > 0) {
      // The surge left after the last old machine went (deleted by someone else) is still to scale
      // back, whatever the status says: the machine-api computes it from the machines it had before
      // acting on the replicas (machine-api-operator controller.go `reconcile`: syncReplicas, then
      // calculateStatus over the same filteredMachines).
      waits.push(`MachineSet ${name}: ${describeSteps(plan.steps)}`);
    }
    const live = machines.filter((m) => !m.metadata.deletionTimestamp);
    let readyHere = 0;
    for (const m of live) {
      const node = nodeOf(m, obs.nodes);
      if (!node || !isNodeReady(node)) continue;
      const labels = labelsOf(node);
      // What nodelink writes: the Machine's own node labels. A label added to the template since the
      // Machine was made reaches the node only once written on the Machine (node-metadata.ts).
      const missing = Object.entries(machineNodeLabels(m)).filter(([k, v]) => labels[k] !== v);
      if (missing.length > 0) {
        waits.push(
          `node ${node.metadata.name} lacks label ${missing.map(([k, v]) => `${k}=${v}`).join(", ")}`,
        );
        continue;
      }
      readyHere++;
      nodeNames.push(node.metadata.name);
    }
    readyTotal += Math.min(plan ? plan.current : readyHere, desired);
    if (field(ms, "status", "observedGeneration") !== ms.metadata.generation) {
      waits.push(
        `MachineSet ${name}: the machine-api has not observed generation ${ms.metadata.generation} yet`,
      );
    } else if (
      status.readyReplicas !== desired ||
      status.availableReplicas !== desired ||
      status.replicas !== desired
    ) {
      waits.push(
        `MachineSet ${name}: ${status.readyReplicas}/${desired} ready, ${status.availableReplicas} available`,
      );
    } else if (live.length !== desired || machines.length !== live.length) {
      waits.push(
        `MachineSet ${name}: ${live.length} machines for ${desired} replicas, ${machines.length - live.length} deleting`,
      );
    } else if (readyHere !== desired) {
      waits.push(`MachineSet ${name}: ${readyHere}/${desired} nodes ready`);
    }
  }
  const result: MachineSetResult = {
    machineSets: statuses,
    machineCount: desiredTotal,
    readyMachineCount: readyTotal,
    nodes: nodeNames.sort(),
  };
  const summary = `${label}: ${readyTotal}/${desiredTotal} nodes ready`;
  if (waits.length === 0)
    return { state: "done", message: summary, done: readyTotal, total: desiredTotal, result };
  return {
    state: "waiting",
    message: `${summary} (${waits[0]})`,
    done: readyTotal,
    total: desiredTotal,
    result,
    steps,
  };
}

function describeSteps(steps: ReplacementStep[]): string {
  return steps
    .map((s) =>
      s.type === "scale"
        ? `scaling from ${s.from} to ${s.replicas}`
        : s.type === "mark"
          ? `marking ${s.machine} for deletion`
          : `deleting ${s.machine}`,
    )
    .join(", ");
}

export interface MachineSetDeletionObservation extends MachineSetObservation {
  /** Nodes that belonged to Machines of these MachineSets at any point of the wait, with their MachineSet. */
  knownNodes: Record<string, string>;
}

/**
 * Done when the MachineSets being deleted are gone with their Machines and those Machines' Nodes. A
 * MachineSet that exists and is not being deleted is not awaited: Pulumi deletes a MachineSet before
 * its removal guard, so one still there was kept (the guard alone was removed, e.g. with `wait: false`)
 * and waiting for it would only run into the deadline.
 */
export function evaluateMachineSetsDeleted(
  target: MachineSetTarget,
  obs: MachineSetDeletionObservation,
): MachineSetEvaluation {
  const label = `deletion of MachineSets ${target.machineSets.join(", ")}`;
  const present = obs.machineSets.filter((m) => target.machineSets.includes(m.metadata.name));
  const kept = present.filter((m) => !m.metadata.deletionTimestamp).map((m) => m.metadata.name);
  const awaited = target.machineSets.filter((name) => !kept.includes(name));
  const sets = present.map((m) => m.metadata.name).filter((name) => awaited.includes(name));
  const machines = awaited.flatMap((name) => machinesOf(name, obs.machines)).map((m) => m.metadata.name);
  const nodes = obs.nodes
    .map((n) => n.metadata.name)
    .filter((name) => awaited.includes(obs.knownNodes[name]));
  const remaining = sets.length + machines.length + nodes.length;
  const result: MachineSetResult = {
    machineSets: [],
    machineCount: machines.length,
    readyMachineCount: 0,
    nodes: nodes.sort(),
  };
  const keptNote = kept.length ? ` (${kept.join(", ")} not being deleted: left as they are)` : "";
  if (remaining === 0) return { state: "done", message: `${label}: gone${keptNote}`, result };
  const parts = [
    ...(sets.length ? [`MachineSets ${sets.join(", ")}`] : []),
    ...(machines.length ? [`Machines ${machines.sort().join(", ")}`] : []),
    ...(nodes.length ? [`Nodes ${nodes.join(", ")}`] : []),
  ];
  return { state: "waiting", message: `${label}: waiting for ${parts.join("; ")} to go${keptNote}`, result };
}
