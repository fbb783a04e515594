/**
 * Per-node phases of a pool rollout from MachineConfigNodes (machineconfiguration.openshift.io/v1, one
 * per node, named as the node; as the docs check "the status of machine config nodes"). Clusters
 * without them fall back to the daemon's node annotations (pool.ts).
 */
import { byName } from "../../primitives/objects";
import type { SourceSpec, View } from "./converge";
import { Condition, field, KINDS, KubeObject } from "./kinds";
import { BlockedPod, blockedPods, podKey } from "./drain";
import { Problem } from "./persistence";

/**
 * Up to this many nodes, a pool wait reads each node's MachineConfigNode by name (a list and a watch
 * each: MachineConfigNodes carry no label of their pool, and a custom resource's field selectors know
 * only metadata.name); beyond, it lists and watches all of the cluster's MachineConfigNodes at once, as
 * a large pool is most of its cluster. The cutoff is where the two cost the same on a 1,000-node
 * cluster (`npm run bench:wait`, docs/contributing.md).
 */
export const MACHINE_CONFIG_NODES_BY_NAME_UP_TO = 8;

/** The key of the source of all the cluster's MachineConfigNodes; by name, `MachineConfigNode/<node>`. */
const ALL_MACHINE_CONFIG_NODES = "MachineConfigNodes";
const BY_NAME = `${KINDS.machineConfigNode.kind}/`;

/**
 * The sources that read the MachineConfigNodes of the pool's `nodes`: all of the cluster's in one list
 * and watch when `all`, else each node's by name, a first node's alone until its answer came, so that a
 * cluster without MachineConfigNodes (answering 404: `servedOrNull`) is asked once.
 */
export function machineConfigNodeSources(nodes: string[], view: View, all: boolean): SourceSpec[] {
  const resource = KINDS.machineConfigNode;
  if (all) return [{ name: ALL_MACHINE_CONFIG_NODES, resource, servedOrNull: true }];
  const probed = Object.keys(view.sources).some((k) => k.startsWith(BY_NAME));
  return nodes.slice(0, probed ? undefined : 1).map((name) => ({
    name: `${BY_NAME}${name}`,
    resource,
    fieldSelector: `metadata.name=${name}`,
    servedOrNull: true,
  }));
}

/**
 * The MachineConfigNodes of the pool's `nodes` (each named as its node, upgrade_monitor.go
 * GenerateAndApplyMachineConfigNodes), in their order: undefined until read, null once the cluster
 * answered that it does not serve them.
 */
export function machineConfigNodesOf(
  view: View,
  nodes: KubeObject[] | undefined,
): KubeObject[] | null | undefined {
  // Only these sources are `servedOrNull`: a null in the view is one of them answering 404.
  if (Object.values(view.sources).some((objects) => objects === null)) return null;
  if (!nodes) return undefined;
  const all = view.sources[ALL_MACHINE_CONFIG_NODES];
  if (all) {
    const named = new Map(all.map((m) => [m.metadata.name, m]));
    return nodes.flatMap((n) => named.get(n.metadata.name) ?? []);
  }
  const listed = nodes.map((n) => view.sources[`${BY_NAME}${n.metadata.name}`]);
  if (listed.some((objects) => objects === undefined)) return undefined;
  return (listed as KubeObject[][]).flat();
}

const conditionsOf = (mcn: KubeObject) => field<Condition[]>(mcn, "status", "conditions") ?? [];
const statusOf = (mcn: KubeObject, type: string) => conditionsOf(mcn).find((c) => c.type === type)?.status;

export function poolOfMachineConfigNode(mcn: KubeObject): string | undefined {
  return field<string>(mcn, "spec", "pool", "name");
}

/** Updated to `target`: the daemon reports the node Updated and runs the target config. */
export function isUpdatedTo(mcn: KubeObject, target: string): boolean {
  return statusOf(mcn, "Updated") === "True" && field(mcn, "status", "configVersion", "current") === target;
}

/**
 * The node's phase in words, from the most advanced condition the daemon reports: draining, rebooting,
 * reloading services, ... or waiting when it has not started on the target.
 */
export function phaseOf(mcn: KubeObject): string {
  const is = (type: string, status: string) => statusOf(mcn, type) === status;
  if (is("NodeDegraded", "True")) return "degraded";
  if (is("Resumed", "True") || is("UpdateComplete", "True")) return "resuming";
  if (is("RebootedNode", "Unknown")) return "rebooting";
  if (is("UpdatePostActionComplete", "Unknown")) return "reloading services";
  if (is("UpdatePostActionComplete", "True")) return "completing";
  if (is("Drained", "Unknown")) return "draining";
  if (is("UpdateExecuted", "Unknown") || is("UpdateExecuted", "True")) return "applying files and OS";
  if (is("UpdatePrepared", "True") || is("UpdatePrepared", "Unknown")) return "preparing";
  return "waiting";
}

/** A progress line names at most this many nodes; the others are counted by phase. */
export const PHASES_NAMED = 10;

/** The nodes not yet on `target`, by name. */
function behindOf(mcns: KubeObject[], target: string): KubeObject[] {
  return mcns.filter((m) => !isUpdatedTo(m, target)).sort(byName);
}

/**
 * The error of the drain controller's last failed attempt on the node while its drain goes on
 * (drain_controller.go drainNode: Drained Unknown, "Error: Node Drain has not succeeded. Error is:
 * <error> The drain will not be complete until ..."), else undefined.
 */
export function drainErrorOf(mcn: KubeObject): string | undefined {
  const drained = conditionsOf(mcn).find((c) => c.type === "Drained" && c.status === "Unknown");
  return /^Error: Node Drain has not succeeded\. Error is: (.*) The drain will not be complete until /s.exec(
    drained?.message ?? "",
  )?.[1];
}

/** The pods that hold the drains of the nodes a progress line names (`describeNodePhases`). */
export function drainBlockedPods(mcns: KubeObject[], target: string): BlockedPod[] {
  return behindOf(mcns, target)
    .slice(0, PHASES_NAMED)
    .filter((m) => phaseOf(m) === "draining")
    .flatMap((m) => blockedPods(drainErrorOf(m) ?? ""));
}

/**
 * `ip-10-0-1-2 draining, ip-10-0-1-3 waiting`: the nodes of the pool not yet on `target`, the first
 * `PHASES_NAMED` by name, the rest counted by phase (`and 990 more: 90 draining, 900 waiting`), so that
 * a 1,000-node pool's line stays a line. A named node whose drain failed says which pods hold it
 * (`ip-10-0-1-2 draining (cannot evict pod shop/web-1: ...)`), each as `describePod` tells it.
 */
export function describeNodePhases(
  mcns: KubeObject[],
  target: string,
  describePod: (pod: BlockedPod) => string = (p) => `pod ${podKey(p)}`,
): string {
  const behind = behindOf(mcns, target);
  const named = behind.slice(0, PHASES_NAMED).map((m) => {
    const phase = phaseOf(m);
    const pods = phase === "draining" ? blockedPods(drainErrorOf(m) ?? "") : [];
    const blocked = pods.length > 0 ? ` (cannot evict ${pods.map(describePod).join("; ")})` : "";
    return `${m.metadata.name} ${phase}${blocked}`;
  });
  const rest = behind.slice(PHASES_NAMED);
  if (rest.length === 0) return named.join(", ");
  const counts: Record<string, number> = {};
  for (const m of rest) counts[phaseOf(m)] = (counts[phaseOf(m)] ?? 0) + 1;
  // Phases in the order they first appear among the rest, which is in name order.
  const byPhase = Object.entries(counts).map(([phase, count]) => `${count} ${phase}`);
  return `${named.join(", ")} and ${rest.length} more: ${byPhase.join(", ")}`;
}

/** Failures on the target, and those nodes carry from an older config while their daemon works. */
export interface OnTarget {
  failing: Problem[];
  /** Each node still carrying the failure it had when the wait first saw it, in words. */
  inherited: string[];
}

/** NodeDegraded while it is True, else undefined. */
function degradedCondition(mcn: KubeObject): Condition | undefined {
  return conditionsOf(mcn).find((c) => c.type === "NodeDegraded" && c.status === "True");
}

/** The NodeDegraded message of each degraded MachineConfigNode, by name (pool.ts `Inherited`). */
export function degradedMessages(mcns: KubeObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of mcns) {
    const degraded = degradedCondition(m);
    if (degraded) out[m.metadata.name] = degraded.message ?? "";
  }
  return out;
}

/**
 * Nodes degraded while they are handed `target` (`spec.configVersion.desired`, which the node controller
 * sets: node_controller.go updateCandidateNode), each as `node <name> (<condition type of its phase>):
 * <that condition's message>`. NodeDegraded is written only at the end of an update attempt (update.go
 * update, deferred reportMachineNodeDegradeStatus), so one the daemon reports working on the target
 * with (`status.configVersion.desired`) and that this wait saw before it did, or at its first look
 * (`inherited`), is an older config's, unless it names the target; one the daemon repeats word for
 * word without reporting any
 * phase of the target (an unchanged condition is not written: upgrade_monitor.go
 * GenerateAndApplyMachineConfigNodes, isParentConditionChanged) is the target's. The daemon retries
 * (persistence.ts) and each retry reports its phases again, so the phases say nothing of progress: the
 * key is the NodeDegraded message and the config versions, which stand still while it fails alike.
 */
export function failingMachineConfigNodes(
  mcns: KubeObject[],
  target: string,
  inherited: Record<string, string> = {},
): OnTarget {
  const out: OnTarget = { failing: [], inherited: [] };
  const onTarget = mcns
    .filter((m) => field<string>(m, "spec", "configVersion", "desired") === target)
    .flatMap((m) => {
      const condition = degradedCondition(m);
      return condition ? [{ m, condition }] : [];
    })
    .sort((a, b) => byName(a.m, b.m));
  for (const { m, condition } of onTarget) {
    // The phase the attempt stopped in, else NodeDegraded itself when no phase is in progress.
    const phase = conditionsOf(m).find((c) => c.status === "Unknown") ?? condition;
    const message = `node ${m.metadata.name} (${phase.type}): ${phase.message || "no reason given"}`;
    const degraded = condition.message ?? "";
    const applying =
      field(m, "status", "configVersion", "desired") === target && inherited[m.metadata.name] === degraded;
    if (applying && !degraded.includes(target)) {
      out.inherited.push(message);
      continue;
    }
    const reported = JSON.stringify([field(m, "status", "configVersion"), degraded]);
    out.failing.push({ key: `node/${m.metadata.name}@${target}:${reported}`, message });
  }
  return out;
}

/** Seconds one node spent in the disruptive steps of its update, as far as its conditions tell. */
export interface NodeTimings {
  drainSeconds?: number;
  rebootSeconds?: number;
}

/**
 * From the transition times of the phases a node has passed in its current update (they accumulate
 * until Updated=True resets them, so they are read while the pool rolls out): the drain from Cordoned
 * to Drained, the reboot from AppliedFilesAndOS (the daemon reboots right after) to RebootedNode.
 */
export function observedNodeTimings(mcn: KubeObject): NodeTimings {
  const at = (type: string) => {
    const c = conditionsOf(mcn).find((x) => x.type === type && x.status === "True");
    return c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN;
  };
  const span = (from: string, to: string) => {
    const seconds = (at(to) - at(from)) / 1000;
    return Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds) : undefined;
  };
  const timings: NodeTimings = {};
  const drain = span("Cordoned", "Drained");
  const reboot = span("AppliedFilesAndOS", "RebootedNode");
  if (drain !== undefined) timings.drainSeconds = drain;
  if (reboot !== undefined) timings.rebootSeconds = reboot;
  return timings;
}

/** The mean of each step over the nodes seen taking it; undefined when no node was seen in one. */
export function meanNodeTimings(observed: NodeTimings[]): NodeTimings | undefined {
  const mean = (key: keyof NodeTimings) => {
    const values = observed.map((t) => t[key]).filter((v): v is number => v !== undefined);
    return values.length ? Math.round(values.reduce((a, b) => a + b, 0) / values.length) : undefined;
  };
  const timings: NodeTimings = {};
  const drain = mean("drainSeconds");
  const reboot = mean("rebootSeconds");
  if (drain !== undefined) timings.drainSeconds = drain;
  if (reboot !== undefined) timings.rebootSeconds = reboot;
  return Object.keys(timings).length ? timings : undefined;
}
