/**
 * A pool's node labels and taints as its running nodes receive them. The machine-api copies a
 * MachineSet's template only into the Machines it creates; the pool's waiter writes the declared labels
 * and taints on the running Machines, whose nodelink controller copies them to their Nodes, and removes
 * from Machines and Nodes those the stack recorded and no longer declares (the waiting core's
 * `provider/waiting/node-metadata.ts` decides what each node gets and loses). Here: the record a
 * MachineSet's template carries, the infra taints, and what a preview says of the nodes' changes, summed
 * per pool (said in the pool's summary line). No node drains or reboots for them.
 */
import {
  formatRecord,
  NODE_LABELS_RECORD,
  NODE_TAINTS_RECORD,
  nodeRoleLabel,
  taintId,
} from "../../primitives/openshift";
import { Taint } from "../validation";

/**
 * The taints that keep user workloads off infra nodes, as OpenShift documents them (creating
 * infrastructure machine sets): `node-role.kubernetes.io/<role>=reserved` with NoSchedule and NoExecute.
 */
export function infraTaints(role: string): Taint[] {
  return [
    { key: nodeRoleLabel(role), value: "reserved", effect: "NoSchedule" },
    { key: nodeRoleLabel(role), value: "reserved", effect: "NoExecute" },
  ];
}

/** The infra taints of the `infra` role: what an InfraNodePool's `taints` default to. */
export const INFRA_TAINTS: readonly Taint[] = infraTaints("infra");

/**
 * The annotations that record a template's node labels and taints (primitives/openshift
 * NODE_LABELS_RECORD): the machine-api copies them into each Machine it creates with the rest of the
 * template's metadata (machine-api-operator pkg/controller/machineset/controller.go `createMachine`).
 */
export function nodeMetadataRecord(
  labels: Record<string, string>,
  taints: readonly Taint[],
): { annotations?: Record<string, string> } {
  const recorded = {
    [NODE_LABELS_RECORD]: formatRecord(Object.keys(labels)),
    [NODE_TAINTS_RECORD]: formatRecord(taints.map(taintId)),
  };
  const annotations = Object.fromEntries(
    Object.entries(recorded).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return Object.keys(annotations).length > 0 ? { annotations } : {};
}

/** What one running node gets and loses of its pool's declared labels and taints. */
export interface NodeMetadataChange {
  /** Labels the node gets, or whose value changes. */
  getLabels: Record<string, string>;
  /** Label keys the stack recorded and no longer declares, which the node carries. */
  loseLabels: string[];
  /** Taints the node gets; a taint whose value changes is got with its new value and lost with the old. */
  getTaints: Taint[];
  loseTaints: Taint[];
}

/** One label or taint gained or lost, and by how many nodes. */
export interface NodeMetadataItem {
  change: "get" | "lose";
  kind: "label" | "taint";
  /** `key=value` for a label got, `key` for one lost, `key=value:Effect` (or `key:Effect`) for a taint. */
  what: string;
  nodes: number;
}

/**
 * What a pool's declared labels and taints do to its running nodes: the contribution of the pool's
 * node labels and taints to what a preview says of the pool. Nothing drains or reboots.
 */
export interface NodeMetadataImpact {
  pool: string;
  /** Nodes that get or lose anything. */
  nodes: number;
  /** Labels first, then taints, each got before lost, each in key order. */
  items: NodeMetadataItem[];
  /** NoExecute taints the nodes get: pods that do not tolerate them are evicted at once. */
  evicting: string[];
}

/** `key=value:Effect`, or `key:Effect` for a taint without value. */
export function describeTaint(taint: Taint): string {
  return `${taint.key}${taint.value ? `=${taint.value}` : ""}:${taint.effect}`;
}

/** How many of the changes carry each entry `entries` gives them, in the entries' code unit order. */
function counted(changes: readonly NodeMetadataChange[], entries: (c: NodeMetadataChange) => string[]) {
  const counts = new Map<string, number>();
  for (const change of changes) {
    for (const what of new Set(entries(change))) counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  return [...counts.keys()].sort().map((what) => [what, counts.get(what)!] as const);
}

/** The pool's summary of its nodes' changes; undefined when no node changes. */
export function nodeMetadataImpact(
  pool: string,
  changes: readonly NodeMetadataChange[],
): NodeMetadataImpact | undefined {
  const changing = changes.filter(
    (c) =>
      Object.keys(c.getLabels).length + c.loseLabels.length + c.getTaints.length + c.loseTaints.length > 0,
  );
  if (changing.length === 0) return undefined;
  const items = (
    change: NodeMetadataItem["change"],
    kind: NodeMetadataItem["kind"],
    entries: (c: NodeMetadataChange) => string[],
  ): NodeMetadataItem[] => counted(changing, entries).map(([what, nodes]) => ({ change, kind, what, nodes }));
  return {
    pool,
    nodes: changing.length,
    items: [
      ...items("get", "label", (c) => Object.entries(c.getLabels).map(([k, v]) => `${k}=${v}`)),
      ...items("lose", "label", (c) => c.loseLabels),
      ...items("get", "taint", (c) => c.getTaints.map(describeTaint)),
      ...items("lose", "taint", (c) => c.loseTaints.map(describeTaint)),
    ],
    evicting: counted(changing, (c) =>
      c.getTaints.filter((t) => t.effect === "NoExecute").map((t) => taintId(t)),
    ).map(([id]) => id),
  };
}

const nodeCount = (n: number) => (n === 1 ? "1 node" : `${n} nodes`);

/**
 * `3 nodes get taint example.com/dedicated=logging:NoSchedule; 3 nodes lose label team (no drain, no
 * reboot)`, with the pods a NoExecute taint evicts: the pool's part in its summary line.
 */
export function nodeMetadataPhrase(impact: NodeMetadataImpact): string {
  const changes = impact.items
    .map((i) => `${nodeCount(i.nodes)} ${i.change}${i.nodes === 1 ? "s" : ""} ${i.kind} ${i.what}`)
    .join("; ");
  const evicts =
    impact.evicting.length > 0
      ? `; pods that do not tolerate ${impact.evicting.join(", ")} are evicted from them`
      : "";
  return `${changes} (no drain, no reboot${evicts})`;
}
