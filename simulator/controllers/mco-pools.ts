/**
 * Pool membership and pool status as the machine-config-controller computes them (pkg/helpers
 * GetPoolsForNode, node_controller calculateStatus, GetMachinesByState); pure, so the seed writes the
 * same status the controller would.
 */
import {
  CURRENT_CONFIG,
  DESIRED_CONFIG,
  DESIRED_DRAIN,
  LAST_APPLIED_DRAIN,
  MCD_REASON,
  MCD_STATE,
} from "../../primitives/openshift";
import { annotationsOf, field, getCondition, labelsOf, obj } from "../../primitives/objects";
import { LabelSelector, selectorIsEmpty, selectorMatches } from "../../primitives/selectors";
import { KubeObject } from "../store/types";
import { Condition, setCondition } from "./util";

export { DESIRED_DRAIN, LAST_APPLIED_DRAIN };
export const CONTROL_PLANE_TOPOLOGY = "machineconfiguration.openshift.io/controlPlaneTopology";

export function isWindowsNode(node: KubeObject): boolean {
  return labelsOf(node)["kubernetes.io/os"] === "windows";
}

export interface NodePools {
  /** The pool the node is managed by, first; then the other pools it matches (worker for a custom one). */
  pools: KubeObject[];
  /** Why the node is managed by no pool although pools select it. */
  error?: string;
}

/**
 * The pools of a node: master wins over everything, one custom pool wins over worker, two custom pools
 * make the node unmanageable, Windows nodes are never managed.
 */
export function poolsForNode(node: KubeObject, allPools: KubeObject[]): NodePools {
  if (isWindowsNode(node)) return { pools: [] };
  const matching = allPools.filter((p) => {
    const sel = field<LabelSelector>(p, "spec", "nodeSelector");
    return !selectorIsEmpty(sel) && selectorMatches(sel, labelsOf(node));
  });
  const master = matching.find((p) => p.metadata.name === "master");
  const worker = matching.find((p) => p.metadata.name === "worker");
  const custom = matching.filter((p) => p.metadata.name !== "master" && p.metadata.name !== "worker");
  if (custom.length > 1) {
    return {
      pools: [],
      error: `node ${node.metadata.name} belongs to ${custom.length} custom roles, cannot proceed with this Node`,
    };
  }
  if (custom.length === 1) {
    return { pools: [master ?? custom[0], ...(worker ? [worker] : [])] };
  }
  if (master) return { pools: [master] };
  return { pools: worker ? [worker] : [] };
}

export function primaryPool(node: KubeObject, allPools: KubeObject[]): KubeObject | undefined {
  return poolsForNode(node, allPools).pools[0];
}

export function nodesForPool(pool: KubeObject, nodes: KubeObject[], allPools: KubeObject[]): KubeObject[] {
  return nodes.filter((n) => primaryPool(n, allPools)?.metadata.name === pool.metadata.name);
}

/** CheckNodeReady: Ready, no disk pressure or network problem, and schedulable. */
export function isNodeReady(node: KubeObject): boolean {
  const conditions = (field<Condition[]>(node, "status", "conditions") ?? []) as Condition[];
  for (const c of conditions) {
    if (c.type === "Ready" && c.status !== "True") return false;
    if (c.type === "DiskPressure" && c.status !== "False") return false;
    if (c.type === "NetworkUnavailable" && c.status !== "False") return false;
  }
  return field(node, "spec", "unschedulable") !== true;
}

export function mcdState(node: KubeObject): string | undefined {
  return annotationsOf(node)[MCD_STATE];
}

/** IsNodeDone: current == desired and the daemon says Done. */
export function isNodeDone(node: KubeObject): boolean {
  const a = annotationsOf(node);
  return !!a[CURRENT_CONFIG] && a[CURRENT_CONFIG] === a[DESIRED_CONFIG] && a[MCD_STATE] === "Done";
}

/** IsNodeMCDFailing: the daemon gave up on a desired config it has not reached. */
export function isNodeFailing(node: KubeObject): boolean {
  const a = annotationsOf(node);
  if (a[CURRENT_CONFIG] === a[DESIRED_CONFIG]) return false;
  return a[MCD_STATE] === "Degraded" || a[MCD_STATE] === "Unreconcilable";
}

/** IsUnavailableForUpdate: not ready, or the daemon is (or may soon be) working on it. */
export function isUnavailable(node: KubeObject): boolean {
  if (!isNodeReady(node)) return true;
  if (isNodeDone(node)) return false;
  return !isNodeFailing(node);
}

export function poolTarget(pool: KubeObject): string {
  return field<string>(pool, "spec", "configuration", "name") ?? "";
}

/** The pool status the node controller writes, from the pool and the nodes it manages. */
export function computePoolStatus(pool: KubeObject, nodes: KubeObject[], now: Date): Record<string, unknown> {
  const target = poolTarget(pool);
  const old = obj(pool.status);
  const updated = nodes.filter((n) => isNodeDone(n) && annotationsOf(n)[DESIRED_CONFIG] === target);
  const ready = updated.filter(isNodeReady);
  const unavailable = nodes.filter(isUnavailable);
  const degraded = nodes.filter((n) => mcdState(n) === "Degraded" || mcdState(n) === "Unreconcilable");
  const total = nodes.length;

  let conditions = [...((old.conditions as Condition[] | undefined) ?? [])];
  let configuration = old.configuration ?? { name: "", source: [] };
  const line = `MachineConfig ${target}`;
  const allUpdated = updated.length === total && ready.length === total && unavailable.length === 0;
  if (allUpdated) {
    conditions = setCondition(
      conditions,
      { type: "Updated", status: "True", reason: "", message: `All nodes are updated with ${line}` },
      now,
    );
    conditions = setCondition(
      conditions,
      { type: "Updating", status: "False", reason: "", message: "" },
      now,
    );
    configuration = structuredClone(obj(pool.spec).configuration ?? { name: "", source: [] });
  } else {
    conditions = setCondition(conditions, { type: "Updated", status: "False", reason: "", message: "" }, now);
    const paused = field<boolean>(pool, "spec", "paused") === true;
    conditions = setCondition(
      conditions,
      paused
        ? {
            type: "Updating",
            status: "False",
            reason: "",
            message: `Pool is paused; will not update to ${line}`,
          }
        : { type: "Updating", status: "True", reason: "", message: `All nodes are updating to ${line}` },
      now,
    );
  }
  let nodeDegradedMessage = "";
  if (degraded.length > 0) {
    nodeDegradedMessage = degraded
      .map(
        (n) => `Node ${n.metadata.name} is reporting: ${JSON.stringify(annotationsOf(n)[MCD_REASON] ?? "")}`,
      )
      .join(", ");
    conditions = setCondition(
      conditions,
      {
        type: "NodeDegraded",
        status: "True",
        reason: `${degraded.length} nodes are reporting degraded status on sync`,
        message: nodeDegradedMessage,
      },
      now,
    );
  } else {
    conditions = setCondition(
      conditions,
      { type: "NodeDegraded", status: "False", reason: "", message: "" },
      now,
    );
  }
  const renderDegraded = getCondition(conditions, "RenderDegraded")?.status === "True";
  if (!getCondition(conditions, "RenderDegraded")) {
    conditions = setCondition(
      conditions,
      { type: "RenderDegraded", status: "False", reason: "", message: "" },
      now,
    );
  }
  conditions = setCondition(
    conditions,
    degraded.length > 0 || renderDegraded
      ? { type: "Degraded", status: "True", reason: "", message: nodeDegradedMessage }
      : { type: "Degraded", status: "False", reason: "", message: "" },
    now,
  );
  return {
    ...old,
    observedGeneration: pool.metadata.generation ?? 1,
    machineCount: total,
    updatedMachineCount: updated.length,
    readyMachineCount: ready.length,
    unavailableMachineCount: unavailable.length,
    degradedMachineCount: degraded.length,
    configuration,
    conditions,
  };
}
