/**
 * What pulumi-kubernetes awaits after a create or an update before the step is done (await.go,
 * Creation and Update; metadata.ReadyCondition; awaiters.go): nothing when the inputs say
 * `pulumi.com/skipAwait`, the `pulumi.com/waitFor` conditions when given, else the built-in awaiter of
 * the object's kind. Of the kinds the library declares only a service-account-token Secret has one (its
 * data filled in); Namespaces, ConfigMaps, RuntimeClasses and custom resources are ready once written,
 * unless the provider runs with PULUMI_K8S_AWAIT_ALL=true, which awaits kstatus' generic readiness.
 */
import { evaluateJsonPath } from "../../simulator/apiserver/jsonpath";
import type { KubeType } from "../kube";
import type { Props } from "./rpc";

const SKIP_AWAIT_ANNOTATION = "pulumi.com/skipAwait";
const WAIT_FOR_ANNOTATION = "pulumi.com/waitFor";

export interface Readiness {
  /** Whether the object read back is ready. */
  ready(live: Props): boolean;
  /** An awaiter's own limit, shorter than the operation's timeout (the Secret's 5 s). */
  limitSeconds?: number;
}

/**
 * Kinds with a built-in awaiter the harness does not model; none of them is declared by the library.
 * (A ServiceAccount is awaited only on clusters older than Kubernetes 1.24, which OpenShift 4.11+ is not.)
 */
const UNMODELLED = new Set([
  "apps/v1/Deployment",
  "apps/v1/StatefulSet",
  "apps/v1/DaemonSet",
  "batch/v1/Job",
  "v1/Pod",
  "v1/Service",
  "v1/PersistentVolume",
  "v1/PersistentVolumeClaim",
  "v1/ReplicationController",
  "v1/ResourceQuota",
  "networking.k8s.io/v1/Ingress",
]);

/**
 * Kinds whose kstatus rules of their own (cli-utils kstatus/status/core.go, legacyTypes) the harness does
 * not model and no built-in awaiter of pulumi-kubernetes overrides; ConfigMaps, Secrets and CronJobs
 * are always ready there.
 */
const KSTATUS_UNMODELLED = new Set([
  "apps/v1/ReplicaSet",
  "policy/v1/PodDisruptionBudget",
  "apiextensions.k8s.io/v1/CustomResourceDefinition",
]);
const KSTATUS_ALWAYS_READY = new Set(["v1/ConfigMap", "v1/Secret", "batch/v1/CronJob"]);

const annotation = (object: Props, key: string): string | undefined =>
  (object.metadata as { annotations?: Record<string, string> } | undefined)?.annotations?.[key];

const nested = (object: Props, path: string[]): unknown =>
  path.reduce<unknown>((o, k) => (o as Props | undefined)?.[k], object);

/** A status that has not seen the object's generation yet says nothing about it (observedGeneration). */
function current(live: Props, observed: unknown): boolean {
  const generation = nested(live, ["metadata", "generation"]);
  return typeof generation !== "number" || typeof observed !== "number" || observed >= generation;
}

/** `condition=Type` or `condition=Type=Status` as kubectl wait checks it (condition/kubectl.go, checkCondition). */
function conditionReadiness(expression: string): (live: Props) => boolean {
  const body = expression.slice("condition=".length);
  const at = body.indexOf("=");
  const type = at < 0 ? body : body.slice(0, at);
  const status = at < 0 ? "True" : body.slice(at + 1);
  return (live) => {
    const conditions = nested(live, ["status", "conditions"]);
    if (!Array.isArray(conditions)) return false;
    const found = (conditions as Props[]).find(
      (c) => typeof c.type === "string" && c.type.toLowerCase() === type.toLowerCase(),
    );
    if (!found || typeof found.status !== "string") return false;
    const observed = found.observedGeneration ?? nested(live, ["status", "observedGeneration"]);
    return current(live, observed) && found.status.toLowerCase() === status.toLowerCase();
  };
}

/**
 * `jsonpath={.path}` (the path exists) or `jsonpath={.path}=value` (its first value prints as value),
 * as jsonpath.Parse and Parsed.Matches take kubectl's strict syntax.
 */
function jsonPathReadiness(expression: string): (live: Props) => boolean {
  const raw = expression.slice("jsonpath=".length);
  const parts = raw.replaceAll("==", "\u0000").split("=");
  if (parts.length > 2) throw new Error(`format should be {.path}=value or {.path}, got "${raw}"`);
  const path = parts[0].replaceAll("\u0000", "==");
  const value = parts[1]?.replaceAll("\u0000", "==");
  if (value === "") throw new Error(`${path}= requires a value`);
  if (!/^\{\s*.*?\s*\}$/.test(path)) throw new Error(`${path} should be wrapped in brackets { ... }`);
  return (live) => {
    if (!current(live, nested(live, ["status", "observedGeneration"]))) return false;
    const [first] = evaluateJsonPath(live, path);
    if (first === undefined) return false;
    if (value === undefined) return true;
    if (typeof first === "object" && first !== null)
      throw new Error(`"${path}" has a non-primitive value (${JSON.stringify(first)})`);
    return String(first) === value;
  };
}

const conditionsOf = (live: Props): Props[] => {
  const conditions = nested(live, ["status", "conditions"]);
  return Array.isArray(conditions) ? (conditions as Props[]) : [];
};

/**
 * kstatus' Current status, which PULUMI_K8S_AWAIT_ALL awaits (metadata.ReadyCondition, condition.Ready;
 * kstatus status.Compute): not being deleted, its generation observed when the status says which,
 * neither Reconciling nor Stalled, then ready by its kind's rule or, for other kinds, unless a Ready
 * condition says False or Unknown (checkGenericProperties, checkGeneration, checkReadyCondition).
 */
function kstatusCurrent(gvk: string): (live: Props) => boolean {
  return (live) => {
    if (nested(live, ["metadata", "deletionTimestamp"])) return false;
    const generation = nested(live, ["metadata", "generation"]);
    const observed = nested(live, ["status", "observedGeneration"]);
    if (typeof generation === "number" && typeof observed === "number" && observed !== generation)
      return false;
    const conditions = conditionsOf(live);
    const holds = (type: string) => conditions.some((c) => c.type === type && c.status === "True");
    if (holds("Reconciling") || holds("Stalled")) return false;
    if (KSTATUS_ALWAYS_READY.has(gvk)) return true;
    const ready = conditions.find((c) => c.type === "Ready");
    return ready?.status !== "False" && ready?.status !== "Unknown";
  };
}

/**
 * What to await of `object` (inputs with the name the create or update used) after it was written, or
 * undefined when nothing is; `awaitAll` is the provider's PULUMI_K8S_AWAIT_ALL. Throws when the
 * `waitFor` annotation is malformed, or for a kind whose built-in awaiter (or kstatus rule, with
 * `awaitAll`) the harness does not model.
 */
export function readinessOf(type: KubeType, object: Props, awaitAll = false): Readiness | undefined {
  if (annotation(object, SKIP_AWAIT_ANNOTATION) === "true") return undefined;
  const waitFor = annotation(object, WAIT_FOR_ANNOTATION);
  if (waitFor !== undefined && waitFor !== "") {
    let expressions: string[];
    try {
      expressions = JSON.parse(waitFor) as string[];
      if (!Array.isArray(expressions)) expressions = [waitFor];
    } catch {
      expressions = [waitFor];
    }
    if (expressions.length === 0) throw new Error("at least one condition must be specified");
    const checks = expressions.map((e) => {
      if (e.startsWith("jsonpath=")) return jsonPathReadiness(e);
      if (e.startsWith("condition=")) return conditionReadiness(e);
      throw new Error(`expected a "jsonpath=" or "condition=" prefix, got "${e}"`);
    });
    return { ready: (live) => checks.every((check) => check(live)) };
  }
  const gvk = `${type.apiVersion}/${type.kind}`;
  if (UNMODELLED.has(gvk)) {
    throw new Error(
      `the harness does not await a ${type.kind} as pulumi-kubernetes does (awaiters.go); annotate it ${SKIP_AWAIT_ANNOTATION} or ${WAIT_FOR_ANNOTATION}`,
    );
  }
  if (gvk === "v1/Secret" && object.type === "kubernetes.io/service-account-token") {
    // untilCoreV1SecretInitialized: the token controller fills its data in.
    return {
      ready: (live) => Object.keys((live.data as Props | undefined) ?? {}).length > 0,
      limitSeconds: 5,
    };
  }
  if (!awaitAll) return undefined;
  if (KSTATUS_UNMODELLED.has(gvk)) {
    throw new Error(
      `the harness does not compute kstatus for a ${type.kind} (PULUMI_K8S_AWAIT_ALL); annotate it ${SKIP_AWAIT_ANNOTATION} or ${WAIT_FOR_ANNOTATION}`,
    );
  }
  return { ready: kstatusCurrent(gvk) };
}
