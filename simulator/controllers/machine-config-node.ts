/**
 * MachineConfigNodes (machineconfiguration.openshift.io/v1), one per pool-managed node and named as the
 * node, as the daemon writes them (pkg/upgrademonitor GenerateAndApplyMachineConfigNodes): every
 * condition type exists from the start ("NotYetOccurred"), the update's phases follow each other
 * (seed 003, "checking the status of machine config nodes": one primary phase True at a time,
 * UpdateComplete and Resumed together at the end), secondary phases (Cordoned, Drained,
 * AppliedFilesAndOS, RebootedNode, Uncordoned) accumulate, and Updated=True resets the rest.
 */
import { obj } from "../../primitives/objects";
import { KubeObject, Store } from "../store/types";
import { Condition, K, keyOf, setCondition } from "./util";

export const MCN_PRIMARY = [
  "UpdatePrepared",
  "UpdateExecuted",
  "UpdatePostActionComplete",
  "UpdateComplete",
  "Resumed",
] as const;
/** The condition types of the v1 API without the ImageModeStatusReporting gate, in the MCO's order. */
export const MCN_CONDITIONS = [
  ...MCN_PRIMARY,
  "Drained",
  "AppliedFilesAndOS",
  "Cordoned",
  "RebootedNode",
  "Updated",
  "Uncordoned",
  "NodeDegraded",
] as const;
export type McnCondition = (typeof MCN_CONDITIONS)[number];

export interface McnChange {
  type: McnCondition;
  status: "True" | "False" | "Unknown";
  message: string;
  reason?: string;
}

const notYet = (type: string): Condition => ({
  type,
  status: "False",
  reason: "NotYetOccurred",
  message: `This node has not yet entered the ${type} phase`,
});

/**
 * Creates the node's MachineConfigNode when missing (owned by the node, so it goes with it), and names
 * the node's pool in it when the node moved to another (the operator applies each node's MachineConfigNode
 * with its primary pool on every sync: pkg/operator/sync.go syncMachineConfigNodes).
 */
export function ensureMachineConfigNode(
  store: Store,
  node: KubeObject,
  pool: string,
  current: string,
  now: Date,
) {
  const name = node.metadata.name;
  const existing = store.get(keyOf(K.machineConfigNode, name));
  if (existing) {
    if ((obj(existing.spec).pool as { name?: string } | undefined)?.name !== pool)
      store.mutate(keyOf(K.machineConfigNode, name), (m) => {
        m.spec = { ...obj(m.spec), pool: { name: pool } };
      });
    return;
  }
  const created = store.create({
    apiVersion: K.machineConfigNode.apiVersion,
    kind: K.machineConfigNode.kind,
    metadata: {
      name,
      ownerReferences: [{ apiVersion: "v1", kind: "Node", name, uid: node.metadata.uid ?? "" }],
    },
    spec: { node: { name }, pool: { name: pool }, configVersion: { desired: current } },
  });
  store.mutate(
    keyOf(K.machineConfigNode, created.metadata.name),
    (m) => {
      let conditions = MCN_CONDITIONS.map(notYet).map((c) => setCondition([], c, now)[0]);
      conditions = setCondition(
        conditions,
        { type: "Updated", status: "True", reason: "Updated", message: `Node ${name} Updated` },
        now,
      );
      m.status = { observedGeneration: 1, configVersion: { current, desired: current }, conditions };
    },
    { subresource: "status" },
  );
}

/**
 * Reports a step of the update. A primary condition turning True or Unknown turns the other primary
 * ones False (Resumed keeps UpdateComplete); Updated=True turns every other condition False.
 */
export function reportMachineConfigNode(
  store: Store,
  name: string,
  changes: McnChange[],
  now: Date,
  configVersion: { desired?: string; current?: string } = {},
): void {
  const key = keyOf(K.machineConfigNode, name);
  if (configVersion.desired && store.get(key)) {
    store.mutate(key, (m) => {
      m.spec = { ...obj(m.spec), configVersion: { desired: configVersion.desired } };
    });
  }
  store.mutate(
    key,
    (m) => {
      const status = obj(m.status);
      let conditions = [...((status.conditions as Condition[] | undefined) ?? [])];
      const reset = (keep: (t: string) => boolean) => {
        for (const c of conditions)
          if (!keep(c.type) && c.status !== "False")
            conditions = setCondition(conditions, { ...c, status: "False" }, now);
      };
      for (const ch of changes) {
        const primary = (MCN_PRIMARY as readonly string[]).includes(ch.type);
        if (ch.type === "Updated" && ch.status === "True") reset((t) => t === "Updated");
        else if (primary && ch.status !== "False")
          reset(
            (t) =>
              !(MCN_PRIMARY as readonly string[]).includes(t) ||
              t === ch.type ||
              (ch.type === "Resumed" && t === "UpdateComplete"),
          );
        conditions = setCondition(
          conditions,
          { type: ch.type, status: ch.status, reason: ch.reason ?? ch.type, message: ch.message },
          now,
        );
      }
      const version = obj(status.configVersion);
      m.status = {
        ...status,
        observedGeneration: m.metadata.generation ?? 1,
        configVersion: {
          ...version,
          ...(configVersion.desired ? { desired: configVersion.desired } : {}),
          ...(configVersion.current ? { current: configVersion.current } : {}),
        },
        conditions,
      };
    },
    { subresource: "status" },
  );
}
