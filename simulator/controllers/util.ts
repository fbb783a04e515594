import { createHash } from "node:crypto";
import { KubeObject, ObjectKey, OwnerReference, Store } from "../store/types";

/** The kinds the controllers read and write. */
export const K = {
  namespace: { apiVersion: "v1", kind: "Namespace" },
  node: { apiVersion: "v1", kind: "Node" },
  secret: { apiVersion: "v1", kind: "Secret" },
  configMap: { apiVersion: "v1", kind: "ConfigMap" },
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

export const MACHINE_API_NAMESPACE = "openshift-machine-api";

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

export type Json = Record<string, unknown>;

/** Reads a nested field without a chain of casts. */
export function field<T = unknown>(object: unknown, ...path: Array<string | number>): T | undefined {
  let cur: unknown = object;
  for (const p of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur as T | undefined;
}

export function obj(value: unknown): Json {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : {};
}

export function labelsOf(object: KubeObject): Record<string, string> {
  return object.metadata.labels ?? {};
}

export function annotationsOf(object: KubeObject): Record<string, string> {
  return object.metadata.annotations ?? {};
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

// ---- label selectors (metav1.LabelSelector) ----

export interface LabelSelectorRequirement {
  key: string;
  operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** A nil or empty selector: MCO and OLM treat it as selecting nothing, not everything. */
export function selectorIsEmpty(selector: LabelSelector | undefined | null): boolean {
  return (
    !selector ||
    (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0)
  );
}

export function selectorMatches(
  selector: LabelSelector | undefined | null,
  labels: Record<string, string> | undefined,
): boolean {
  if (!selector) return false;
  const set = labels ?? {};
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (set[k] !== v) return false;
  }
  for (const e of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(set, e.key);
    const values = e.values ?? [];
    const ok = {
      In: has && values.includes(set[e.key]),
      NotIn: !has || !values.includes(set[e.key]),
      Exists: has,
      DoesNotExist: !has,
    }[e.operator];
    if (!ok) return false;
  }
  return true;
}

/** The selector as `metav1.LabelSelectorAsSelector(...).String()` prints it, for messages. */
export function selectorString(selector: LabelSelector | undefined | null): string {
  if (!selector) return "";
  const parts: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) parts.push([k, `${k}=${v}`]);
  for (const e of selector.matchExpressions ?? []) {
    const values = [...(e.values ?? [])].sort().join(",");
    const text = {
      In: `${e.key} in (${values})`,
      NotIn: `${e.key} notin (${values})`,
      Exists: e.key,
      DoesNotExist: `!${e.key}`,
    }[e.operator];
    parts.push([e.key, text]);
  }
  return parts
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, t]) => t)
    .join(",");
}

// ---- conditions ----

export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  [key: string]: unknown;
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

export function getCondition(conditions: unknown, type: string): Condition | undefined {
  return Array.isArray(conditions) ? (conditions as Condition[]).find((c) => c.type === type) : undefined;
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
