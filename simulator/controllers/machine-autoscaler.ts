/**
 * cluster-autoscaler-operator and cluster-autoscaler: a MachineAutoscaler puts its bounds on the
 * target MachineSet as the node-group annotations and reports `status.lastTargetRef`; deleting it
 * takes the annotations away first (its finalizer). The autoscaler itself runs only while a
 * ClusterAutoscaler `default` exists, and moves autoscaled MachineSets' replicas within their bounds
 * when pods are pending or nodes idle (`MachineFaults.pendingPods` / `idleNodes`).
 */
import { byName, field, obj } from "../../primitives/objects";
import { MACHINE_API_NAMESPACE } from "../../primitives/openshift";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import { ScalingRequest } from "./machine-faults";
import { WorkQueue } from "./workqueue";
import { K, KindRef, isKind, keyOf } from "./util";

export const MACHINE_AUTOSCALER: KindRef = {
  apiVersion: "autoscaling.openshift.io/v1beta1",
  kind: "MachineAutoscaler",
};
export const CLUSTER_AUTOSCALER: KindRef = {
  apiVersion: "autoscaling.openshift.io/v1",
  kind: "ClusterAutoscaler",
};
export const MIN_SIZE = "machine.openshift.io/cluster-api-autoscaler-node-group-min-size";
export const MAX_SIZE = "machine.openshift.io/cluster-api-autoscaler-node-group-max-size";
/** Which MachineAutoscaler owns the target's annotations. */
const OWNER = "autoscaling.openshift.io/machineautoscaler";
const FINALIZER = "machinetarget.autoscaling.openshift.io";

interface Group {
  set: KubeObject;
  min: number;
  max: number;
  replicas: number;
}

export function startMachineAutoscaler(ctx: ControllerContext): StopFn {
  const { clock } = ctx;
  // cluster-autoscaler-operator's machine-autoscaler-controller writes under its binary's user agent;
  // the cluster autoscaler scales node groups under its own, through their scale subresource (its
  // clusterapi provider's SetSize).
  const store = ctx.writer("cluster-autoscaler-operator");
  const autoscaler = ctx.writer("cluster-autoscaler", "scale");
  const queue = new WorkQueue("machine-autoscaler", clock, (key) => sync(key));

  function targetKey(ma: KubeObject) {
    const name = field<string>(ma, "spec", "scaleTargetRef", "name");
    const kind = field<string>(ma, "spec", "scaleTargetRef", "kind");
    return name && kind === "MachineSet" ? keyOf(K.machineSet, name, ma.metadata.namespace) : undefined;
  }

  function sync(name: string): void {
    const key = keyOf(MACHINE_AUTOSCALER, name, MACHINE_API_NAMESPACE);
    const ma = store.get(key);
    if (!ma) return;
    const owner = `${ma.metadata.namespace}/${name}`;
    const target = targetKey(ma);
    const set = target && store.get(target);
    if (ma.metadata.deletionTimestamp) {
      if (set && set.metadata.annotations?.[OWNER] === owner) {
        store.mutate(target, (o) => {
          const annotations = { ...(o.metadata.annotations ?? {}) };
          for (const a of [MIN_SIZE, MAX_SIZE, OWNER]) delete annotations[a];
          o.metadata.annotations = annotations;
        });
      }
      store.mutate(key, (o) => {
        o.metadata.finalizers = (o.metadata.finalizers ?? []).filter((f) => f !== FINALIZER);
      });
      return;
    }
    if (!(ma.metadata.finalizers ?? []).includes(FINALIZER)) {
      store.mutate(key, (o) => {
        o.metadata.finalizers = [...(o.metadata.finalizers ?? []), FINALIZER];
      });
      return;
    }
    if (!target || !set || set.metadata.deletionTimestamp) return;
    const want = {
      [MIN_SIZE]: String(field<number>(ma, "spec", "minReplicas") ?? 0),
      [MAX_SIZE]: String(field<number>(ma, "spec", "maxReplicas") ?? 0),
      [OWNER]: owner,
    };
    const have = set.metadata.annotations ?? {};
    if (Object.entries(want).some(([k, v]) => have[k] !== v)) {
      store.mutate(target, (o) => {
        o.metadata.annotations = { ...(o.metadata.annotations ?? {}), ...want };
      });
    }
    const ref = { apiVersion: K.machineSet.apiVersion, kind: "MachineSet", name: set.metadata.name };
    if (JSON.stringify(field(ma, "status", "lastTargetRef")) !== JSON.stringify(ref)) {
      store.mutate(key, (o) => void (o.status = { ...obj(o.status), lastTargetRef: ref }), {
        subresource: "status",
      });
    }
  }

  function groups(): Group[] {
    return store
      .list(K.machineSet.apiVersion, K.machineSet.kind, { namespace: MACHINE_API_NAMESPACE })
      .filter((s) => !s.metadata.deletionTimestamp && s.metadata.annotations?.[MAX_SIZE] !== undefined)
      .map((set) => ({
        set,
        min: Number(set.metadata.annotations?.[MIN_SIZE] ?? 0),
        max: Number(set.metadata.annotations?.[MAX_SIZE]),
        replicas: field<number>(set, "spec", "replicas") ?? 0,
      }))
      .sort((a, b) => byName(a.set, b.set));
  }

  /** Scales node groups as the autoscaler would, one node at a time; throws when nothing can scale. */
  function scale(request: ScalingRequest): void {
    const ca = store.get(keyOf(CLUSTER_AUTOSCALER, "default"));
    if (!ca) {
      throw new Error(
        'no ClusterAutoscaler "default": the cluster autoscaler is not running, nothing scales',
      );
    }
    const all = groups();
    const balance = field<boolean>(ca, "spec", "balanceSimilarNodeGroups") === true;
    const maxNodes = field<number>(ca, "spec", "resourceLimits", "maxNodesTotal");
    let nodes = store.list("v1", "Node").length;
    for (let i = 0; i < request.nodes; i++) {
      const up = request.kind === "pendingPods";
      if (up && maxNodes !== undefined && nodes >= maxNodes) break;
      const candidates = all.filter((g) => (up ? g.replicas < g.max : g.replicas > g.min));
      if (candidates.length === 0) break;
      // Balancing spreads over similar groups (fewest first); otherwise the first group takes them all.
      const pick = balance
        ? candidates.reduce((a, b) => ((up ? b.replicas < a.replicas : b.replicas > a.replicas) ? b : a))
        : candidates[0];
      pick.replicas += up ? 1 : -1;
      nodes += up ? 1 : -1;
    }
    const changed = all.filter((g) => g.replicas !== field<number>(g.set, "spec", "replicas"));
    if (changed.length === 0) {
      throw new Error(
        `no autoscaled MachineSet can ${request.kind === "pendingPods" ? "grow (all at their maximum or the cluster at maxNodesTotal)" : "shrink (all at their minimum)"}`,
      );
    }
    for (const g of changed) {
      autoscaler.mutate(keyOf(K.machineSet, g.set.metadata.name, MACHINE_API_NAMESPACE), (o) => {
        o.spec = { ...obj(o.spec), replicas: g.replicas };
      });
    }
  }

  const stopRequests = ctx.machineFaults.onScalingRequest(scale);
  const unsubscribe = store.subscribe(({ object }) => {
    if (isKind(object, MACHINE_AUTOSCALER)) queue.add(object.metadata.name);
    else if (isKind(object, K.machineSet)) {
      for (const ma of store.list(MACHINE_AUTOSCALER.apiVersion, MACHINE_AUTOSCALER.kind)) {
        if (field(ma, "spec", "scaleTargetRef", "name") === object.metadata.name) queue.add(ma.metadata.name);
      }
    }
  });
  for (const ma of store.list(MACHINE_AUTOSCALER.apiVersion, MACHINE_AUTOSCALER.kind)) {
    queue.add(ma.metadata.name);
  }
  return () => {
    stopRequests();
    unsubscribe();
  };
}
