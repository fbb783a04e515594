/**
 * The workloads OLM installs: the deployment controller (kubernetes pkg/controller/deployment: a
 * ReplicaSet per pod template, named by its pod-template-hash; status observedGeneration, replicas,
 * updatedReplicas, readyReplicas, availableReplicas; conditions Available and Progressing, which turns
 * False with ProgressDeadlineExceeded once `progressDeadlineSeconds` pass without progress,
 * deployment/progress.go syncRolloutStatus), the ReplicaSet controller (a pod per replica), the
 * scheduler (pkg/scheduler: filters NodeUnschedulable, TaintToleration, NodeAffinity in that order; a
 * pod no node fits stays Pending with PodScheduled False, reason Unschedulable and the FitError message)
 * and the kubelet (a bound pod runs and turns Ready after `podStart`). Pods of a deleted node go, and
 * their ReplicaSet makes others.
 */
import { field, Json, jsonEqual, obj } from "../../primitives/objects";
import { stableJson } from "../../primitives/stable-json";
import { KubeObject } from "../store/types";
import { ControllerContext, StopFn } from "./context";
import {
  Condition,
  controllerRef,
  hexHash,
  isControlledBy,
  isKind,
  K,
  keyOf,
  setCondition,
  timestamp,
  uniqueName,
} from "./util";
import { WorkQueue } from "./workqueue";

const DEFAULT_PROGRESS_DEADLINE_SECONDS = 600;

interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
}
interface Taint {
  key: string;
  value?: string;
  effect: string;
}
interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** v1helper.TolerationsTolerateTaint: one toleration matching the taint's key, value and effect. */
export function tolerates(tolerations: readonly Toleration[], taint: Taint): boolean {
  return tolerations.some((t) => {
    if (t.effect && t.effect !== taint.effect) return false;
    if (t.key && t.key !== taint.key) return false;
    if (!t.key && t.operator !== "Exists") return false;
    return t.operator === "Exists" || (t.value ?? "") === (taint.value ?? "");
  });
}

function expressionMatches(e: NodeSelectorRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, e.key);
  const values = e.values ?? [];
  switch (e.operator) {
    case "In":
      return has && values.includes(labels[e.key]);
    case "NotIn":
      return !has || !values.includes(labels[e.key]);
    case "Exists":
      return has;
    case "DoesNotExist":
      return !has;
    case "Gt":
    case "Lt": {
      const [a, b] = [Number(labels[e.key]), Number(values[0])];
      return has && Number.isInteger(a) && Number.isInteger(b) && (e.operator === "Gt" ? a > b : a < b);
    }
    default:
      return false;
  }
}

/** nodeaffinity.GetRequiredNodeAffinity: the nodeSelector and every required term's expressions (terms ORed). */
function affinityMatches(podSpec: Json, labels: Record<string, string>): boolean {
  const selector = (podSpec.nodeSelector as Record<string, string> | undefined) ?? {};
  if (!Object.entries(selector).every(([k, v]) => labels[k] === v)) return false;
  const terms = field<Array<{ matchExpressions?: NodeSelectorRequirement[] }>>(
    podSpec,
    "affinity",
    "nodeAffinity",
    "requiredDuringSchedulingIgnoredDuringExecution",
    "nodeSelectorTerms",
  );
  if (!terms) return true;
  return terms.some((t) => (t.matchExpressions ?? []).every((e) => expressionMatches(e, labels)));
}

/**
 * Why `node` cannot run a pod of `podSpec`, in the scheduler's words, or undefined when it can: the
 * first failing filter of the default profile decides (framework.RunFilterPlugins).
 */
export function unfitReason(podSpec: Json, node: KubeObject): string | undefined {
  const tolerations = (podSpec.tolerations as Toleration[] | undefined) ?? [];
  if (field(node, "spec", "unschedulable") === true) {
    const unschedulable = { key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" };
    if (!tolerates(tolerations, unschedulable)) return "node(s) were unschedulable";
  }
  const taints = ((field<Taint[]>(node, "spec", "taints") ?? []) as Taint[]).filter(
    (t) => t.effect === "NoSchedule" || t.effect === "NoExecute",
  );
  const ready = (field<Condition[]>(node, "status", "conditions") ?? []).find((c) => c.type === "Ready");
  // The node lifecycle controller taints a node that is not Ready.
  if (ready?.status !== "True") taints.push({ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" });
  const untolerated = taints.find((t) => !tolerates(tolerations, t));
  if (untolerated) return `node(s) had untolerated taint {${untolerated.key}: ${untolerated.value ?? ""}}`;
  if (!affinityMatches(podSpec, node.metadata.labels ?? {}))
    return "node(s) didn't match Pod's node affinity/selector";
  return undefined;
}

/** framework.FitError.Error with the default preemption's postfilter message. */
export function fitErrorMessage(reasons: string[], nodes: number): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  const histogram = [...counts].map(([r, n]) => `${n} ${r}`).sort();
  return `0/${nodes} nodes are available: ${histogram.join(", ")}. preemption: 0/${nodes} nodes are available: ${nodes} Preemption is not helpful for scheduling.`;
}

const podReady = (pod: KubeObject) =>
  (field<Condition[]>(pod, "status", "conditions") ?? []).some(
    (c) => c.type === "Ready" && c.status === "True",
  );

export function startWorkloads(ctx: ControllerContext): StopFn {
  const { clock, delays } = ctx;
  const deployments = ctx.writer("deployment-controller");
  const replicaSets = ctx.writer("replicaset-controller");
  const scheduler = ctx.writer("default-scheduler");
  const kubelet = ctx.writer("kubelet");
  const now = () => timestamp(clock.now());
  const queue = new WorkQueue("workloads", clock, (key) => {
    const [kind, namespace, name] = key.split("/");
    if (kind === "deploy") syncDeployment(namespace, name);
    else if (kind === "rs") syncReplicaSet(namespace, name);
    else if (kind === "pod") syncPod(namespace, name);
  });
  const podsOf = (rs: KubeObject) =>
    ctx.store
      .list(K.pod.apiVersion, K.pod.kind, { namespace: rs.metadata.namespace })
      .filter((p) => isControlledBy(p, rs));

  function syncDeployment(namespace: string, name: string): void {
    const deployment = ctx.store.get(keyOf(K.deployment, name, namespace));
    if (!deployment || deployment.metadata.deletionTimestamp) return;
    const spec = obj(deployment.spec);
    const replicas = (spec.replicas as number | undefined) ?? 1;
    const template = obj(spec.template);
    const hash = hexHash(stableJson(template), 10);
    const owned = ctx.store
      .list(K.replicaSet.apiVersion, K.replicaSet.kind, { namespace })
      .filter((rs) => isControlledBy(rs, deployment));
    let current = owned.find((rs) => field(rs, "metadata", "labels", "pod-template-hash") === hash);
    if (!current) {
      const labels = {
        ...(field<Record<string, string>>(template, "metadata", "labels") ?? {}),
        "pod-template-hash": hash,
      };
      current = replicaSets.create({
        apiVersion: K.replicaSet.apiVersion,
        kind: K.replicaSet.kind,
        metadata: {
          name: `${name}-${hash}`,
          namespace,
          labels,
          ownerReferences: [controllerRef(deployment)],
        },
        spec: {
          replicas,
          selector: {
            matchLabels: {
              ...(field<Json>(spec, "selector", "matchLabels") ?? {}),
              "pod-template-hash": hash,
            },
          },
          template: { ...template, metadata: { ...obj(template.metadata), labels } },
        },
      });
    } else if (field(current, "spec", "replicas") !== replicas) {
      replicaSets.mutate(
        keyOf(K.replicaSet, current.metadata.name, namespace),
        (rs) => (obj(rs.spec).replicas = replicas),
      );
    }
    const pods = owned.flatMap(podsOf);
    const updated = podsOf(current);
    const available = pods.filter(podReady).length;
    const newAvailable = updated.length === replicas && updated.filter(podReady).length === replicas;
    const complete = newAvailable && pods.length === replicas;
    // A rolling update: the old ReplicaSets are scaled down once the new one is available.
    if (newAvailable)
      for (const old of owned.filter((rs) => rs !== current && field(rs, "spec", "replicas") !== 0))
        replicaSets.mutate(
          keyOf(K.replicaSet, old.metadata.name, namespace),
          (rs) => (obj(rs.spec).replicas = 0),
        );
    const status = obj(deployment.status);
    const counts: Json = {
      observedGeneration: deployment.metadata.generation ?? 1,
      replicas: pods.length,
      updatedReplicas: updated.length,
      readyReplicas: available,
      availableReplicas: available,
    };
    const previous = (status.conditions as Condition[] | undefined) ?? [];
    const progressing = previous.find((c) => c.type === "Progressing");
    // Progress is any change of the counts (deployment/progress.go: the condition's lastUpdateTime moves).
    const progressed = !progressing || Object.entries(counts).some(([k, v]) => status[k] !== v);
    const lastUpdate = progressed ? now() : String(progressing.lastUpdateTime ?? now());
    const deadlineMs =
      ((spec.progressDeadlineSeconds as number | undefined) ?? DEFAULT_PROGRESS_DEADLINE_SECONDS) * 1000;
    const rsName = current.metadata.name;
    const next: Condition = complete
      ? {
          type: "Progressing",
          status: "True",
          reason: "NewReplicaSetAvailable",
          message: `ReplicaSet "${rsName}" has successfully progressed.`,
        }
      : !progressed && clock.now().getTime() - Date.parse(lastUpdate) >= deadlineMs
        ? {
            type: "Progressing",
            status: "False",
            reason: "ProgressDeadlineExceeded",
            message: `ReplicaSet "${rsName}" has timed out progressing.`,
          }
        : {
            type: "Progressing",
            status: "True",
            reason: "ReplicaSetUpdated",
            message: `ReplicaSet "${rsName}" is progressing.`,
          };
    const availability =
      available >= replicas
        ? {
            type: "Available",
            status: "True" as const,
            reason: "MinimumReplicasAvailable",
            message: "Deployment has minimum availability.",
          }
        : {
            type: "Available",
            status: "False" as const,
            reason: "MinimumReplicasUnavailable",
            message: "Deployment does not have minimum availability.",
          };
    const conditions = setCondition(setCondition(previous, availability, clock.now()), next, clock.now()).map(
      (c) => (c.type === "Progressing" ? { ...c, lastUpdateTime: lastUpdate } : c),
    );
    const nextStatus: Json = {
      ...counts,
      ...(pods.length - available > 0 ? { unavailableReplicas: pods.length - available } : {}),
      conditions,
    };
    if (!jsonEqual(nextStatus, status))
      deployments.mutate(keyOf(K.deployment, name, namespace), (d) => (d.status = nextStatus), {
        subresource: "status",
      });
    // Look again once the deadline would pass without progress.
    if (next.reason === "ReplicaSetUpdated" && progressed)
      clock.after(deadlineMs, () => queue.add(`deploy/${namespace}/${name}`));
  }

  function syncReplicaSet(namespace: string, name: string): void {
    const rs = ctx.store.get(keyOf(K.replicaSet, name, namespace));
    if (!rs || rs.metadata.deletionTimestamp) return;
    const want = (field<number>(rs, "spec", "replicas") ?? 1) as number;
    const pods = podsOf(rs).filter((p) => !p.metadata.deletionTimestamp);
    for (let i = pods.length; i < want; i++) {
      const template = obj(field<Json>(rs, "spec", "template"));
      replicaSets.create({
        apiVersion: K.pod.apiVersion,
        kind: K.pod.kind,
        metadata: {
          name: uniqueName(
            `${name}-`,
            `${namespace}/${name}/${i}`,
            (n) => !!ctx.store.get(keyOf(K.pod, n, namespace)),
          ),
          namespace,
          labels: field<Record<string, string>>(template, "metadata", "labels") ?? {},
          ...(field(template, "metadata", "annotations")
            ? { annotations: field<Record<string, string>>(template, "metadata", "annotations") }
            : {}),
          ownerReferences: [controllerRef(rs)],
        },
        spec: structuredClone(obj(template.spec)),
        status: { phase: "Pending" },
      });
    }
    // Unscheduled pods go first, as the ReplicaSet controller's ranking deletes them first.
    const surplus = [...pods].sort(
      (a, b) => Number(!!field(a, "spec", "nodeName")) - Number(!!field(b, "spec", "nodeName")),
    );
    for (const pod of surplus.slice(0, Math.max(0, pods.length - want)))
      replicaSets.delete(keyOf(K.pod, pod.metadata.name, namespace));
  }

  function syncPod(namespace: string, name: string): void {
    const pod = ctx.store.get(keyOf(K.pod, name, namespace));
    if (!pod || pod.metadata.deletionTimestamp) return;
    const nodeName = field<string>(pod, "spec", "nodeName");
    if (!nodeName) return schedule(pod);
    if (podReady(pod)) return;
    clock.after(delays.podStart, () => {
      const live = ctx.store.get(keyOf(K.pod, name, namespace));
      if (!live || podReady(live) || !ctx.store.get(keyOf(K.node, nodeName))) return;
      kubelet.mutate(
        keyOf(K.pod, name, namespace),
        (p) => {
          const ts = now();
          p.status = {
            ...obj(p.status),
            phase: "Running",
            startTime: ts,
            conditions: ["PodScheduled", "Initialized", "ContainersReady", "Ready"].map((type) => ({
              type,
              status: "True",
              lastTransitionTime: ts,
            })),
            containerStatuses: ((field<Json[]>(p, "spec", "containers") ?? []) as Json[]).map((c) => ({
              name: c.name,
              image: c.image,
              ready: true,
              started: true,
              restartCount: 0,
              state: { running: { startedAt: ts } },
            })),
          };
        },
        { subresource: "status" },
      );
    });
  }

  function schedule(pod: KubeObject): void {
    const spec = obj(pod.spec);
    const nodes = ctx.store.list(K.node.apiVersion, K.node.kind).filter((n) => !n.metadata.deletionTimestamp);
    const reasons = nodes.map((n) => unfitReason(spec, n));
    const fit = nodes.filter((_, i) => reasons[i] === undefined);
    const key = keyOf(K.pod, pod.metadata.name, pod.metadata.namespace);
    if (fit.length === 0) {
      const message = fitErrorMessage(reasons as string[], nodes.length);
      const cond = { type: "PodScheduled", status: "False" as const, reason: "Unschedulable", message };
      const old = (field<Condition[]>(pod, "status", "conditions") ?? []).find(
        (c) => c.type === "PodScheduled",
      );
      if (old?.message !== message)
        scheduler.mutate(
          key,
          (p) =>
            (p.status = {
              ...obj(p.status),
              phase: "Pending",
              conditions: setCondition([], cond, clock.now()),
            }),
          { subresource: "status" },
        );
      return;
    }
    // The least loaded node that fits, by name among equals: a spread, deterministic.
    const load = (n: KubeObject) =>
      ctx.store
        .list(K.pod.apiVersion, K.pod.kind)
        .filter((p) => field(p, "spec", "nodeName") === n.metadata.name).length;
    const [chosen] = fit
      .map((n) => ({ n, l: load(n) }))
      .sort((a, b) => a.l - b.l || a.n.metadata.name.localeCompare(b.n.metadata.name));
    scheduler.mutate(key, (p) => (obj(p.spec).nodeName = chosen.n.metadata.name));
    scheduler.mutate(
      key,
      (p) =>
        (p.status = {
          ...obj(p.status),
          conditions: [{ type: "PodScheduled", status: "True", lastTransitionTime: now() }],
        }),
      { subresource: "status" },
    );
  }

  const ownerKey = (o: KubeObject, prefix: string) => {
    const ref = (o.metadata.ownerReferences ?? []).find((r) => r.controller);
    return ref ? `${prefix}/${o.metadata.namespace}/${ref.name}` : undefined;
  };
  const pending = () =>
    ctx.store.list(K.pod.apiVersion, K.pod.kind).filter((p) => !field(p, "spec", "nodeName"));
  const unsubscribe = ctx.store.subscribe(({ type, object }) => {
    const ns = object.metadata.namespace;
    if (isKind(object, K.deployment)) queue.add(`deploy/${ns}/${object.metadata.name}`);
    else if (isKind(object, K.replicaSet)) {
      queue.add(`rs/${ns}/${object.metadata.name}`);
      const owner = ownerKey(object, "deploy");
      if (owner) queue.add(owner);
    } else if (isKind(object, K.pod)) {
      if (type !== "DELETED") queue.add(`pod/${ns}/${object.metadata.name}`);
      const owner = ownerKey(object, "rs");
      if (owner) {
        queue.add(owner);
        const rs = ctx.store.get(keyOf(K.replicaSet, owner.split("/")[2], ns));
        const deployment = rs && ownerKey(rs, "deploy");
        if (deployment) queue.add(deployment);
      }
    } else if (isKind(object, K.node)) {
      // The pod garbage collector deletes the pods of a node that is gone; any node change may fit a pending pod.
      if (type === "DELETED")
        for (const p of ctx.store.list(K.pod.apiVersion, K.pod.kind))
          if (field(p, "spec", "nodeName") === object.metadata.name)
            kubelet.delete(keyOf(K.pod, p.metadata.name, p.metadata.namespace));
      for (const p of pending()) queue.add(`pod/${p.metadata.namespace}/${p.metadata.name}`);
    }
  });
  for (const d of ctx.store.list(K.deployment.apiVersion, K.deployment.kind))
    queue.add(`deploy/${d.metadata.namespace}/${d.metadata.name}`);
  return unsubscribe;
}
