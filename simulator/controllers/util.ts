import { createHash } from "node:crypto";
import { Condition as BaseCondition, OwnerReference } from "../../primitives/objects";
import { KubeObject, ObjectKey, Store } from "../store/types";

/** The kinds the controllers read and write. */
export const K = {
  namespace: { apiVersion: "v1", kind: "Namespace" },
  node: { apiVersion: "v1", kind: "Node" },
  secret: { apiVersion: "v1", kind: "Secret" },
  configMap: { apiVersion: "v1", kind: "ConfigMap" },
  pod: { apiVersion: "v1", kind: "Pod" },
  serviceAccount: { apiVersion: "v1", kind: "ServiceAccount" },
  deployment: { apiVersion: "apps/v1", kind: "Deployment" },
  replicaSet: { apiVersion: "apps/v1", kind: "ReplicaSet" },
  podDisruptionBudget: { apiVersion: "policy/v1", kind: "PodDisruptionBudget" },
  crd: { apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition" },
  event: { apiVersion: "v1", kind: "Event" },
  machineSet: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet" },
  machine: { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine" },
  pool: { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigPool" },
  machineConfig: { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfig" },
  kubeletConfig: { apiVersion: "machineconfiguration.openshift.io/v1", kind: "KubeletConfig" },
  containerRuntimeConfig: {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "ContainerRuntimeConfig",
  },
  machineConfigNode: { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigNode" },
  machineConfiguration: { apiVersion: "operator.openshift.io/v1", kind: "MachineConfiguration" },
  subscription: { apiVersion: "operators.coreos.com/v1alpha1", kind: "Subscription" },
  operatorGroup: { apiVersion: "operators.coreos.com/v1", kind: "OperatorGroup" },
  installPlan: { apiVersion: "operators.coreos.com/v1alpha1", kind: "InstallPlan" },
  csv: { apiVersion: "operators.coreos.com/v1alpha1", kind: "ClusterServiceVersion" },
  catalogSource: { apiVersion: "operators.coreos.com/v1alpha1", kind: "CatalogSource" },
  infrastructure: { apiVersion: "config.openshift.io/v1", kind: "Infrastructure" },
  clusterVersion: { apiVersion: "config.openshift.io/v1", kind: "ClusterVersion" },
  ingressController: { apiVersion: "operator.openshift.io/v1", kind: "IngressController" },
  imageRegistry: { apiVersion: "imageregistry.operator.openshift.io/v1", kind: "Config" },
} as const;

export type KindRef = { apiVersion: string; kind: string };

export function keyOf(kind: KindRef, name: string, namespace?: string): ObjectKey {
  return { apiVersion: kind.apiVersion, kind: kind.kind, name, namespace };
}

export function objectKey(object: KubeObject): ObjectKey {
  return {
    apiVersion: object.apiVersion,
    kind: object.kind,
    name: object.metadata.name,
    namespace: object.metadata.namespace,
  };
}

/** Group of an apiVersion, "" for core, so events of any served version match. */
export function isKind(object: KubeObject, kind: KindRef): boolean {
  const group = (v: string) => (v.includes("/") ? v.slice(0, v.indexOf("/")) : "");
  return object.kind === kind.kind && group(object.apiVersion) === group(kind.apiVersion);
}

/** Kubernetes timestamps carry whole seconds. */
export function timestamp(date: Date): string {
  return date.toISOString().replace(/\.\d+Z$/, "Z");
}

export function controllerRef(owner: KubeObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name,
    uid: owner.metadata.uid ?? "",
    controller: true,
    blockOwnerDeletion: true,
  };
}

export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  return (object.metadata.ownerReferences ?? []).some((r) => r.controller && r.uid === owner.metadata.uid);
}

// ---- conditions ----

/** A condition the simulator writes: its status is one of the three Kubernetes allows. */
export interface Condition extends BaseCondition {
  status: "True" | "False" | "Unknown";
}

/**
 * Sets a condition as the API helpers do: the transition time moves only when the status flips, so a
 * recomputed but unchanged status is a no-op write.
 */
export function setCondition(conditions: Condition[], next: Condition, now: Date): Condition[] {
  const index = conditions.findIndex((c) => c.type === next.type);
  const previous = index >= 0 ? conditions[index] : undefined;
  const merged: Condition = {
    ...next,
    lastTransitionTime:
      previous && previous.status === next.status && previous.lastTransitionTime
        ? previous.lastTransitionTime
        : timestamp(now),
  };
  const out = [...conditions];
  if (index >= 0) out[index] = merged;
  else out.push(merged);
  return out;
}

// ---- deterministic names ----

/** The alphabet of the API server's generateName suffixes (no vowels, no look-alikes). */
const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** `length` characters of the generateName alphabet, derived from `seed` instead of randomness. */
export function nameSuffix(seed: string, length = 5): string {
  const digest = createHash("sha256").update(seed).digest();
  let out = "";
  for (let i = 0; i < length; i++) out += NAME_ALPHABET[digest[i] % NAME_ALPHABET.length];
  return out;
}

export function hexHash(seed: string, length = 16): string {
  return createHash("sha256").update(seed).digest("hex").slice(0, length);
}

/** Deterministic but unique: the first `<prefix><suffix>` for seeds `seed:0`, `seed:1`... not taken. */
export function uniqueName(prefix: string, seed: string, taken: (name: string) => boolean): string {
  for (let i = 0; ; i++) {
    const name = prefix + nameSuffix(`${seed}:${i}`);
    if (!taken(name)) return name;
  }
}

// ---- events ----

/**
 * Records a core/v1 Event about `involved`, counting repeats of the same reason and message on one
 * object as the event recorder does (one object, `count` incremented).
 */
export function recordEvent(
  store: Store,
  now: Date,
  involved: KubeObject,
  type: "Normal" | "Warning",
  reason: string,
  message: string,
  component: string,
): void {
  const namespace = involved.metadata.namespace ?? "default";
  const name = `${involved.metadata.name}.${hexHash(`${involved.metadata.uid}/${reason}/${message}`)}`;
  const key = keyOf(K.event, name, namespace);
  const ts = timestamp(now);
  const existing = store.get(key);
  if (existing) {
    store.mutate(key, (e) => {
      e.count = ((e.count as number) ?? 1) + 1;
      e.lastTimestamp = ts;
    });
    return;
  }
  store.create({
    apiVersion: "v1",
    kind: "Event",
    metadata: { name, namespace },
    involvedObject: {
      apiVersion: involved.apiVersion,
      kind: involved.kind,
      name: involved.metadata.name,
      namespace: involved.metadata.namespace,
      uid: involved.metadata.uid,
      resourceVersion: involved.metadata.resourceVersion,
    },
    reason,
    message,
    type,
    count: 1,
    firstTimestamp: ts,
    lastTimestamp: ts,
    source: { component },
    reportingComponent: component,
  });
}
