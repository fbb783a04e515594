import type { LabelSelector } from "../../primitives/selectors";
import { collectEach, collectErrors, InputError } from "../errors";
import { isPlainObject } from "../machineconfiguration/json";
import {
  requireArray,
  requireDnsLabel,
  requireFields,
  requireLabelKey,
  requireLabels,
  requireNonEmptyString,
  requireOneOf,
  TAINT_EFFECTS,
  TaintEffect,
} from "../validation";

/**
 * A Subscription's `spec.config` (operator-framework/api SubscriptionConfig), which OLM applies to every
 * Deployment of the installed CSV (operator-lifecycle-manager overrides/initializer.go, initialize: env,
 * envFrom, volumes and volumeMounts merged by name, tolerations appended when absent, resources and
 * nodeSelector replaced, affinity overridden per part, annotations added where the Deployment has none).
 * The checks are the Subscription CRD's (required fields, types) and those kube-apiserver applies to
 * the pod template OLM then writes, so that what would leave an operator uninstallable is an input error.
 */
export interface SubscriptionToleration {
  key?: string;
  operator?: "Exists" | "Equal";
  value?: string;
  effect?: TaintEffect;
  tolerationSeconds?: number;
}

export interface SubscriptionConfig {
  /** Replaces the node selector of the operator's pods, e.g. an `InfraNodePool`'s `placement.nodeSelector`. */
  nodeSelector?: Record<string, string>;
  /** Added to the operator's pods' tolerations. */
  tolerations?: SubscriptionToleration[];
  /** Replaces every container's resources. */
  resources?: {
    limits?: Record<string, string | number>;
    requests?: Record<string, string | number>;
  };
  /** Set on every container, replacing variables of the same name. */
  env?: Array<{ name: string; value?: string; valueFrom?: Record<string, unknown> }>;
  envFrom?: Array<{
    prefix?: string;
    configMapRef?: { name: string; optional?: boolean };
    secretRef?: { name: string; optional?: boolean };
  }>;
  /** Added to the pods, replacing volumes of the same name. */
  volumes?: Array<{ name: string } & Record<string, unknown>>;
  /** Added to every container, replacing mounts of the same name. */
  volumeMounts?: Array<{
    name: string;
    mountPath: string;
    readOnly?: boolean;
    subPath?: string;
    subPathExpr?: string;
    mountPropagation?: "None" | "HostToContainer" | "Bidirectional";
  }>;
  /** Selects the Deployments of the operator the config applies to (OLM applies it to all of them). */
  selector?: LabelSelector;
  /** Overrides the node affinity, pod affinity and pod anti-affinity of the operator's pods. */
  affinity?: { nodeAffinity?: unknown; podAffinity?: unknown; podAntiAffinity?: unknown };
  /** Added to the Deployments and their pods where they do not set the key already. */
  annotations?: Record<string, string>;
}

export const SUBSCRIPTION_CONFIG_FIELDS = [
  "nodeSelector",
  "tolerations",
  "resources",
  "env",
  "envFrom",
  "volumes",
  "volumeMounts",
  "selector",
  "affinity",
  "annotations",
] as const;

/** A resource quantity as apimachinery's resource.ParseQuantity reads it (`500m`, `1Gi`, `2`, `1e3`). */
const QUANTITY = /^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?\d+)?$/;
/** An environment variable name as kube-apiserver's validation.IsEnvVarName accepts it. */
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
const VOLUME_SOURCES_HINT = "a volume source such as configMap, secret, emptyDir or persistentVolumeClaim";

function requireObject(path: string, value: unknown, what: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw new InputError(path, `must be an object (${what})`);
  return value;
}

function tolerationProblems(at: string, t: SubscriptionToleration): void {
  requireFields(at, t, ["key", "operator", "value", "effect", "tolerationSeconds"], "toleration");
  const operator = t.operator ?? "Equal";
  collectErrors([
    () =>
      t.key === undefined || t.key === "" ? undefined : requireLabelKey(`${at}.key`, t.key, "taint key"),
    () => requireOneOf(`${at}.operator`, operator, ["Exists", "Equal"] as const),
    () => (t.effect === undefined ? undefined : requireOneOf(`${at}.effect`, t.effect, TAINT_EFFECTS)),
    // apis/core/validation ValidateTolerations: an empty key tolerates everything only with Exists, and
    // Exists takes no value; tolerationSeconds means something only for NoExecute.
    () => {
      if ((t.key === undefined || t.key === "") && operator !== "Exists")
        throw new InputError(
          `${at}.operator`,
          'must be "Exists" when key is empty (it tolerates every taint)',
        );
    },
    () => {
      if (operator === "Exists" && t.value !== undefined && t.value !== "")
        throw new InputError(`${at}.value`, 'must be empty when operator is "Exists"');
    },
    () => {
      if (t.tolerationSeconds !== undefined && t.effect !== "NoExecute")
        throw new InputError(`${at}.tolerationSeconds`, 'applies only to effect "NoExecute"');
    },
  ]);
}

function quantities(path: string, value: unknown): void {
  if (value === undefined) return;
  const map = requireObject(
    path,
    value,
    'resource names to quantities, e.g. { cpu: "100m", memory: "256Mi" }',
  );
  collectEach(Object.entries(map), ([name, quantity]) => {
    if (!QUANTITY.test(String(quantity)) || (typeof quantity !== "string" && typeof quantity !== "number"))
      throw new InputError(
        `${path}["${name}"]`,
        `${JSON.stringify(quantity)} is not a quantity: use e.g. "100m", "0.5", "256Mi" or "1Gi"`,
      );
  });
}

function envProblems(at: string, e: { name: string; value?: string; valueFrom?: unknown }): void {
  requireFields(at, e, ["name", "value", "valueFrom"], "environment variable");
  collectErrors([
    () => {
      if (typeof e.name !== "string" || !ENV_NAME.test(e.name))
        throw new InputError(
          `${at}.name`,
          `${JSON.stringify(e.name)} is not an environment variable name: letters, digits, '_', '-' or '.', not starting with a digit`,
        );
    },
    () => {
      if (e.value !== undefined && e.valueFrom !== undefined)
        throw new InputError(at, "set value or valueFrom, not both");
    },
  ]);
}

function refProblems(at: string, ref: unknown): void {
  if (ref === undefined) return;
  requireFields(at, ref, ["name", "optional"], "reference");
  requireNonEmptyString(`${at}.name`, (ref as { name?: unknown }).name);
}

function volumeProblems(at: string, v: { name: string } & Record<string, unknown>): void {
  requireObject(at, v, "a volume");
  const sources = Object.keys(v).filter((k) => k !== "name");
  collectErrors([
    () => requireDnsLabel(`${at}.name`, v.name),
    () => {
      if (sources.length !== 1)
        throw new InputError(
          at,
          `must have exactly one source, ${VOLUME_SOURCES_HINT}; got ${sources.join(", ") || "none"}`,
        );
    },
  ]);
}

function mountProblems(at: string, m: NonNullable<SubscriptionConfig["volumeMounts"]>[number]): void {
  requireFields(
    at,
    m,
    ["name", "mountPath", "readOnly", "subPath", "subPathExpr", "mountPropagation"],
    "volume mount",
  );
  collectErrors([
    () => requireNonEmptyString(`${at}.name`, m.name),
    () => {
      if (typeof m.mountPath !== "string" || !m.mountPath.startsWith("/"))
        throw new InputError(
          `${at}.mountPath`,
          `must be an absolute path, got ${JSON.stringify(m.mountPath)}`,
        );
    },
    () =>
      m.mountPropagation === undefined
        ? undefined
        : requireOneOf(`${at}.mountPropagation`, m.mountPropagation, [
            "None",
            "HostToContainer",
            "Bidirectional",
          ] as const),
  ]);
}

function selectorProblems(path: string, selector: LabelSelector): void {
  requireFields(path, selector, ["matchLabels", "matchExpressions"], "label selector");
  collectErrors([
    () => requireLabels(`${path}.matchLabels`, selector.matchLabels),
    () =>
      collectEach(
        requireArray(`${path}.matchExpressions`, selector.matchExpressions, "requirements"),
        (r, i) => {
          const at = `${path}.matchExpressions[${i}]`;
          const operator = requireOneOf(`${at}.operator`, r.operator, [
            "In",
            "NotIn",
            "Exists",
            "DoesNotExist",
          ] as const);
          requireLabelKey(`${at}.key`, r.key);
          const values = r.values ?? [];
          if ((operator === "In" || operator === "NotIn") !== values.length > 0)
            throw new InputError(
              `${at}.values`,
              operator === "In" || operator === "NotIn"
                ? `must not be empty with ${operator}`
                : `must be empty with ${operator}`,
            );
        },
      ),
  ]);
}

/** `config` checked, every problem at once under `path`; the config as given when it is valid. */
export function requireSubscriptionConfig(path: string, config: SubscriptionConfig): SubscriptionConfig {
  requireFields(path, config, SUBSCRIPTION_CONFIG_FIELDS, "subscription config");
  const at = (field: string) => `${path}.${field}`;
  collectErrors([
    () => requireLabels(at("nodeSelector"), config.nodeSelector),
    () =>
      collectEach(requireArray(at("tolerations"), config.tolerations, "tolerations"), (t, i) =>
        tolerationProblems(`${at("tolerations")}[${i}]`, t),
      ),
    () => {
      if (config.resources === undefined) return;
      requireFields(at("resources"), config.resources, ["limits", "requests"], "resource requirements");
      collectErrors([
        () => quantities(`${at("resources")}.limits`, config.resources?.limits),
        () => quantities(`${at("resources")}.requests`, config.resources?.requests),
      ]);
    },
    () =>
      collectEach(requireArray(at("env"), config.env, "environment variables"), (e, i) =>
        envProblems(`${at("env")}[${i}]`, e),
      ),
    () =>
      collectEach(requireArray(at("envFrom"), config.envFrom, "env sources"), (e, i) => {
        const item = `${at("envFrom")}[${i}]`;
        requireFields(item, e, ["prefix", "configMapRef", "secretRef"], "env source");
        collectErrors([
          () => refProblems(`${item}.configMapRef`, e.configMapRef),
          () => refProblems(`${item}.secretRef`, e.secretRef),
        ]);
        if ((e.configMapRef === undefined) === (e.secretRef === undefined))
          throw new InputError(item, "set configMapRef or secretRef (one of them)");
      }),
    () =>
      collectEach(requireArray(at("volumes"), config.volumes, "volumes"), (v, i) =>
        volumeProblems(`${at("volumes")}[${i}]`, v),
      ),
    () =>
      collectEach(requireArray(at("volumeMounts"), config.volumeMounts, "volume mounts"), (m, i) =>
        mountProblems(`${at("volumeMounts")}[${i}]`, m),
      ),
    () => (config.selector === undefined ? undefined : selectorProblems(at("selector"), config.selector)),
    () =>
      config.affinity === undefined
        ? undefined
        : requireFields(
            at("affinity"),
            config.affinity,
            ["nodeAffinity", "podAffinity", "podAntiAffinity"],
            "affinity",
          ),
    () => {
      if (config.annotations === undefined) return;
      collectEach(
        Object.entries(
          requireObject(at("annotations"), config.annotations, "annotation names to string values"),
        ),
        ([key, value]) => {
          requireLabelKey(`${at("annotations")}["${key}"]`, key, "annotation key");
          if (typeof value !== "string")
            throw new InputError(`${at("annotations")}["${key}"]`, "must be a string");
        },
      );
    },
  ]);
  return config;
}
