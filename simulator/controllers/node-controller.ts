/**
 * The MCO node controller: decides which nodes of a pool move to the pool's target rendered config
 * (at most `maxUnavailable` unavailable at once, in zone order then oldest first, nothing while the pool
 * is paused) by setting their `desiredConfig` annotation, and writes the pool status from its nodes.
 * Pools are independent: each is reconciled on its own key.
 */
import { annotationsOf, byName, field, obj } from "../../primitives/objects";
import { DESIRED_CONFIG } from "../../primitives/openshift";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import {
  computePoolStatus,
  isNodeFailing,
  isNodeReady,
  isUnavailable,
  nodesForPool,
  poolTarget,
} from "./mco-pools";
import { WorkQueue } from "./workqueue";
import { K, isKind, keyOf } from "./util";

const ZONE_LABEL = "topology.kubernetes.io/zone";

/** maxUnavailable as an int or a percentage of the pool's nodes, rounded down, at least 1. */
export function maxUnavailable(pool: KubeObject, nodeCount: number): number {
  const raw = field<number | string>(pool, "spec", "maxUnavailable") ?? 1;
  let value: number;
  if (typeof raw === "number") value = raw;
  else if (/^\d+%$/.test(raw)) value = Math.floor((nodeCount * parseInt(raw, 10)) / 100);
  else value = parseInt(raw, 10) || 1;
  return Math.max(1, value);
}

/** Zone order (nodes without a zone last), then oldest first, so HA workloads lose one zone at a time. */
function updateOrder(a: KubeObject, b: KubeObject): number {
  const za = a.metadata.labels?.[ZONE_LABEL];
  const zb = b.metadata.labels?.[ZONE_LABEL];
  if (za !== zb) {
    if (za === undefined) return 1;
    if (zb === undefined) return -1;
    return za < zb ? -1 : 1;
  }
  const ca = a.metadata.creationTimestamp ?? "";
  const cb = b.metadata.creationTimestamp ?? "";
  if (ca !== cb) return ca < cb ? -1 : 1;
  return byName(a, b);
}

export function startNodeController(ctx: ControllerContext): StopFn {
  const { clock } = ctx;
  const store = ctx.writer("machine-config-controller");
  const queue = new WorkQueue("node-controller", clock, sync);

  function sync(poolName: string): void {
    const pool = store.get(keyOf(K.pool, poolName));
    if (!pool) return;
    const target = poolTarget(pool);
    if (!target) return;
    const allPools = store.list(K.pool.apiVersion, K.pool.kind);
    let members = nodesForPool(pool, store.list("v1", "Node"), allPools);
    const paused = field<boolean>(pool, "spec", "paused") === true;
    if (!paused && !pool.metadata.deletionTimestamp) {
      const max = maxUnavailable(pool, members.length);
      const unavailable = members.filter(isUnavailable).length;
      if (unavailable < max) {
        let capacity = max - unavailable;
        let failingThisConfig = 0;
        const candidates: KubeObject[] = [];
        for (const node of members) {
          if (annotationsOf(node)[DESIRED_CONFIG] === target) {
            if (isNodeFailing(node)) failingThisConfig++;
            continue;
          }
          if (!isNodeReady(node)) continue;
          candidates.push(node);
        }
        // Nodes failing to reach the target count against availability: if the failure is transient
        // it must not let more nodes start at once when it clears.
        capacity -= failingThisConfig;
        for (const node of candidates.sort(updateOrder).slice(0, Math.max(0, capacity))) {
          // node_controller.go updateCandidateNode: the MachineConfigNode's spec names the target first
          // (UpdateMachineConfigNodeSpecDesiredAnnotations), then the node's annotation.
          const mcn = keyOf(K.machineConfigNode, node.metadata.name);
          if (store.get(mcn))
            store.mutate(mcn, (m) => {
              m.spec = { ...obj(m.spec), configVersion: { desired: target } };
            });
          store.mutate(keyOf(K.node, node.metadata.name), (n) => {
            n.metadata.annotations = { ...(n.metadata.annotations ?? {}), [DESIRED_CONFIG]: target };
          });
        }
        members = nodesForPool(pool, store.list("v1", "Node"), allPools);
      }
    }
    store.mutate(
      keyOf(K.pool, poolName),
      (p) => {
        p.status = computePoolStatus(p, members, clock.now());
      },
      { subresource: "status" },
    );
  }

  const syncAll = () => {
    for (const p of store.list(K.pool.apiVersion, K.pool.kind)) queue.add(p.metadata.name);
  };
  const unsubscribe = store.subscribe(({ object }) => {
    if (isKind(object, K.node) || isKind(object, K.pool)) syncAll();
  });
  syncAll();
  return unsubscribe;
}
