/**
 * A pool's node labels and taints on the machines that already run, without replacing or rebooting
 * them, as `rosa edit machinepool --labels/--taints` and hive's MachinePool do. The machine-api copies a
 * MachineSet's template into a Machine only when it creates it (machine-api-operator
 * pkg/controller/machineset/controller.go `createMachine`); its nodelink controller then sets each of
 * a Machine's `spec.metadata.labels` on the Machine's Node and appends each of its `spec.taints` whose
 * key and effect the Node lacks, and never removes either nor changes a taint's value
 * (pkg/controller/nodelink/nodelink_controller.go `ReconcileNodeLink.Reconcile`, `addTaintsToNode`).
 * So the declared labels and taints are written on each running Machine, for nodelink to carry to its
 * Node; what nodelink cannot do (remove a label or a taint, change a taint's value) is written on the
 * Node itself, and only once its Machine no longer carries what is removed (nodelink would put it back).
 *
 * What the stack set is recorded on each Machine (primitives/openshift NODE_LABELS_RECORD), in the
 * patch that writes it, and on the MachineSet's template, so that a Machine created later is born with
 * the record of what it is born with. A removed key leaves the record only once the Node no longer
 * carries it; a label or taint not recorded is someone else's and never touched. Everything is decided
 * from what is observed: nothing is remembered between evaluations.
 */
import {
  formatRecord,
  NODE_LABELS_RECORD,
  NODE_TAINTS_RECORD,
  parseRecord,
  taintId,
} from "../../primitives/openshift";
import { jsonEqual } from "../../primitives/objects";
import { describeTaint, type NodeMetadataChange } from "../../builders/machineset/node-metadata";
import type { Taint } from "../../builders/validation";
import { annotationsOf, field, KubeObject, labelsOf } from "./kinds";
import { machinesOf, nodeOf } from "./machineset";
import { WaitState } from "./progress";

export interface NodeMetadataTarget {
  namespace: string;
  machineSets: string[];
  /** The node labels the pool declares (its MachineSets' `spec.template.spec.metadata.labels`). */
  labels: Record<string, string>;
  /** The taints the pool declares (its MachineSets' `spec.template.spec.taints`). */
  taints: Taint[];
}

export interface NodeMetadataObservation {
  machines: KubeObject[];
  /** The nodes listed: a Machine whose node is not among them waits for it. */
  nodes: KubeObject[];
}

/** A merge patch of one object, carrying the resourceVersion it was decided from. */
export interface ObjectPatch {
  name: string;
  /** Once per object and version: a patch the object has since moved past is decided anew. */
  key: string;
  patch: Record<string, unknown>;
}

/** What one running Machine and its Node still need. */
export interface MachinePlan {
  machine: string;
  node?: string;
  /** Declared labels and taints set on the Machine, removed ones dropped, its record kept. */
  machinePatch?: ObjectPatch;
  /** What nodelink cannot do on the Node: removals, and taint values changed. */
  nodePatch?: ObjectPatch;
  /** What the Node still gets and loses; nothing for a Machine without a Node yet. */
  change: NodeMetadataChange;
}

const sameValue = (a: Taint, b: Taint) => (a.value ?? "") === (b.value ?? "");

/** The taints `current` ends with: declared ones set (another value replaced in place), removed ones dropped. */
function withTaints(
  current: readonly Taint[],
  declared: readonly Taint[],
  removed: readonly string[],
): Taint[] {
  const result = current
    .filter((t) => !removed.includes(taintId(t)))
    .map((t) => declared.find((d) => taintId(d) === taintId(t) && !sameValue(d, t)) ?? t);
  return [...result, ...declared.filter((d) => !current.some((t) => taintId(t) === taintId(d)))];
}

function taintsOf(object: KubeObject | undefined, ...path: string[]): Taint[] {
  return field<Taint[]>(object, ...path) ?? [];
}

/** The patch of an object's resourceVersion with `changes`: a 409 says it moved on since it was read. */
function versioned(kind: string, object: KubeObject, changes: Record<string, unknown>): ObjectPatch {
  const { name, resourceVersion } = object.metadata;
  return {
    name,
    key: `${kind}/${name}/${resourceVersion ?? ""}`,
    patch: { ...changes, metadata: { ...(changes.metadata as object), resourceVersion } },
  };
}

/**
 * What one Machine (not being deleted) and its Node need for the target's labels and taints, given
 * what the Machine records as the stack's. `node` is the Machine's Node when it has one that is not
 * being deleted.
 */
export function planMachine(
  target: NodeMetadataTarget,
  machine: KubeObject,
  node: KubeObject | undefined,
): MachinePlan {
  const declaredTaints = target.taints.map(taintId);
  const annotations = annotationsOf(machine);
  const removedLabels = parseRecord(annotations[NODE_LABELS_RECORD]).filter((k) => !(k in target.labels));
  const removedTaints = parseRecord(annotations[NODE_TAINTS_RECORD]).filter(
    (id) => !declaredTaints.includes(id),
  );
  const machineLabels = field<Record<string, string>>(machine, "spec", "metadata", "labels") ?? {};
  const machineTaints = taintsOf(machine, "spec", "taints");
  const nodeLabels = node ? labelsOf(node) : {};
  const nodeTaints = taintsOf(node, "spec", "taints");
  const onNode = (id: string) => nodeTaints.some((t) => taintId(t) === id);

  // The Machine: declared values set, removed keys dropped, the record naming both until the Node is clean.
  const labelChanges: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(target.labels)) if (machineLabels[k] !== v) labelChanges[k] = v;
  for (const k of removedLabels) if (k in machineLabels) labelChanges[k] = null;
  const taints = withTaints(machineTaints, target.taints, removedTaints);
  const record = {
    [NODE_LABELS_RECORD]: formatRecord([
      ...Object.keys(target.labels),
      ...removedLabels.filter((k) => k in nodeLabels),
    ]),
    [NODE_TAINTS_RECORD]: formatRecord([...declaredTaints, ...removedTaints.filter(onNode)]),
  };
  const recordChanges = Object.fromEntries(
    Object.entries(record)
      .filter(([key, value]) => annotations[key] !== value)
      .map(([key, value]) => [key, value ?? null]),
  );
  const machineChanges = {
    ...(Object.keys(recordChanges).length > 0 ? { metadata: { annotations: recordChanges } } : {}),
    spec: {
      ...(Object.keys(labelChanges).length > 0 ? { metadata: { labels: labelChanges } } : {}),
      ...(jsonEqual(taints, machineTaints) ? {} : { taints: taints.length > 0 ? taints : null }),
    },
  };
  const machineChanged = Object.keys(recordChanges).length > 0 || Object.keys(machineChanges.spec).length > 0;
  const plan: MachinePlan = {
    machine: machine.metadata.name,
    ...(machineChanged ? { machinePatch: versioned("machine", machine, machineChanges) } : {}),
    change: { getLabels: {}, loseLabels: [], getTaints: [], loseTaints: [] },
  };
  if (!node) return plan;

  // The Node: what it gets and loses, and what of it nodelink cannot write.
  const change = plan.change;
  for (const [k, v] of Object.entries(target.labels)) if (nodeLabels[k] !== v) change.getLabels[k] = v;
  change.loseLabels = removedLabels.filter((k) => k in nodeLabels);
  change.getTaints = target.taints.filter(
    (d) => !nodeTaints.some((t) => taintId(t) === taintId(d) && sameValue(t, d)),
  );
  change.loseTaints = nodeTaints.filter(
    (t) =>
      removedTaints.includes(taintId(t)) ||
      target.taints.some((d) => taintId(d) === taintId(t) && !sameValue(t, d)),
  );
  // A removal waits until the Machine no longer carries it; a value is replaced at once (nodelink,
  // which adds a taint only by key and effect, leaves it).
  const unlabel = change.loseLabels.filter((k) => !(k in machineLabels));
  const stillOnMachine = (id: string) => machineTaints.some((t) => taintId(t) === id);
  const nodeTaintsAfter = withTaints(
    nodeTaints,
    target.taints.filter((d) => onNode(taintId(d))),
    removedTaints.filter((id) => !stillOnMachine(id)),
  );
  const nodeChanges = {
    ...(unlabel.length > 0
      ? { metadata: { labels: Object.fromEntries(unlabel.map((k) => [k, null])) } }
      : {}),
    ...(jsonEqual(nodeTaintsAfter, nodeTaints)
      ? {}
      : { spec: { taints: nodeTaintsAfter.length > 0 ? nodeTaintsAfter : null } }),
  };
  plan.node = node.metadata.name;
  if (Object.keys(nodeChanges).length > 0) plan.nodePatch = versioned("node", node, nodeChanges);
  return plan;
}

export interface NodeMetadataResult {
  machineCount: number;
  /** The nodes that carry the declared labels and taints and none the stack removed, sorted. */
  nodes: string[];
}

export interface NodeMetadataEvaluation {
  state: WaitState;
  message: string;
  done: number;
  total: number;
  result: NodeMetadataResult;
  /** The patches to send now. */
  machinePatches: ObjectPatch[];
  nodePatches: ObjectPatch[];
}

/**
 * Why a planned Machine is not done yet, or undefined when it is. What a node loses is always a patch
 * of the Machine (while it carries it) or of the node; what it gets and the Machine carries is
 * nodelink's to copy.
 */
function pending(plan: MachinePlan): string | undefined {
  const on = plan.node ? `node ${plan.node}` : `Machine ${plan.machine}`;
  if (plan.machinePatch) return `${on}: writing labels, taints and their record on Machine ${plan.machine}`;
  if (plan.nodePatch) return `${on}: removing what the pool no longer declares`;
  const missing = [
    ...Object.entries(plan.change.getLabels).map(([k, v]) => `label ${k}=${v}`),
    ...plan.change.getTaints.map((t) => `taint ${describeTaint(t)}`),
  ];
  if (missing.length === 0) return undefined;
  return `${on}: waiting for the machine-api's nodelink controller to copy ${missing.join(", ")} from Machine ${plan.machine}`;
}

/**
 * Done when every running Machine of the MachineSets and its Node carry the declared labels and
 * taints, none the stack recorded and no longer declares, and a record of exactly the declared ones.
 * A Machine being deleted is left alone; one whose Node is not listed yet waits for it.
 */
export function evaluateNodeMetadata(
  target: NodeMetadataTarget,
  obs: NodeMetadataObservation,
): NodeMetadataEvaluation {
  const waits: string[] = [];
  const machinePatches: ObjectPatch[] = [];
  const nodePatches: ObjectPatch[] = [];
  const carrying: string[] = [];
  let total = 0;
  for (const name of target.machineSets) {
    for (const machine of machinesOf(name, obs.machines)) {
      if (machine.metadata.deletionTimestamp) continue;
      total++;
      const nodeName = field<string>(machine, "status", "nodeRef", "name");
      const node = nodeOf(machine, obs.nodes);
      if (nodeName && !node) {
        waits.push(`node ${nodeName} of Machine ${machine.metadata.name} is not listed yet`);
        continue;
      }
      const plan = planMachine(target, machine, node?.metadata.deletionTimestamp ? undefined : node);
      if (plan.machinePatch) machinePatches.push(plan.machinePatch);
      if (plan.nodePatch) nodePatches.push(plan.nodePatch);
      const why = pending(plan);
      if (why) waits.push(why);
      else if (plan.node) carrying.push(plan.node);
    }
  }
  const done = total - waits.length;
  const result = { machineCount: total, nodes: carrying.sort() };
  const summary = `node labels and taints of MachineSets ${target.machineSets.join(", ")}: ${done}/${total} machines carry them`;
  const evaluation = { done, total, result, machinePatches, nodePatches };
  if (waits.length === 0) return { ...evaluation, state: "done", message: summary };
  return { ...evaluation, state: "waiting", message: `${summary} (${waits[0]})` };
}
