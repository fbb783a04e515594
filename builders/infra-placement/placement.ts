import { stringify } from "yaml";
import { collectErrors, InputError, InputErrors } from "../errors";
import { isPlainObject, requirePlainObject } from "../machineconfiguration/json";
import { requireDnsLabel, requireInteger, requireTaints, Taint } from "../validation";

/**
 * Moving OpenShift's infrastructure workloads (router, registry, monitoring) onto a pool: each needs the
 * pool's node selector and a toleration for every taint the pool carries (as OpenShift documents moving the router, registry and monitoring onto infra nodes). The
 * builders below return only the fields the library owns, for server-side-apply patches that leave the
 * rest of each object to its operator.
 */

export interface Toleration {
  key: string;
  operator: "Exists" | "Equal";
  value?: string;
  effect: Taint["effect"];
}

export interface NodePlacement {
  nodeSelector: Record<string, string>;
  tolerations: Toleration[];
}

/** The node selector and tolerations that place a workload on the nodes of pool `role`. */
export function placementFor(role: string, taints: readonly Taint[] = []): NodePlacement {
  const [, checkedTaints] = collectErrors([
    () => requireDnsLabel("role", role),
    () => requireTaints("taints", taints),
  ]);
  return {
    nodeSelector: { [`node-role.kubernetes.io/${role}`]: "" },
    tolerations: checkedTaints.map((t) =>
      t.value === undefined
        ? { effect: t.effect, key: t.key, operator: "Exists" as const }
        : { effect: t.effect, key: t.key, operator: "Equal" as const, value: t.value },
    ),
  };
}

/**
 * The router's replica count. The IngressController's `spec.replicas` is an int32 the operator copies
 * into the router Deployment: a negative count degrades the operator, and 0 takes every route of the
 * cluster (console, OAuth) offline.
 */
export function requireIngressReplicas(path: string, value: unknown): number {
  return requireInteger(path, value, 1, 2 ** 31 - 1);
}

/** The default IngressController's `spec.nodePlacement` (and optionally its replica count). */
export function ingressControllerPlacementPatch(placement: NodePlacement, replicas?: number) {
  if (replicas !== undefined) requireIngressReplicas("replicas", replicas);
  return {
    apiVersion: "operator.openshift.io/v1",
    kind: "IngressController",
    metadata: { name: "default", namespace: "openshift-ingress-operator" },
    spec: {
      nodePlacement: {
        nodeSelector: { matchLabels: placement.nodeSelector },
        ...(placement.tolerations.length > 0 ? { tolerations: placement.tolerations } : {}),
      },
      ...(replicas !== undefined ? { replicas } : {}),
    },
  };
}

/** The cluster image registry's `spec.nodeSelector` and `spec.tolerations`. */
export function imageRegistryPlacementPatch(placement: NodePlacement) {
  return {
    apiVersion: "imageregistry.operator.openshift.io/v1",
    kind: "Config",
    metadata: { name: "cluster" },
    spec: {
      nodeSelector: placement.nodeSelector,
      ...(placement.tolerations.length > 0 ? { tolerations: placement.tolerations } : {}),
    },
  };
}

/**
 * The monitoring stack's components that accept a nodeSelector and tolerations in
 * `cluster-monitoring-config` (openshift-monitoring). Node-local agents (node-exporter) stay everywhere.
 */
export const MONITORING_COMPONENTS = [
  "alertmanagerMain",
  "kubeStateMetrics",
  "metricsServer",
  "monitoringPlugin",
  "openshiftStateMetrics",
  "prometheusK8s",
  "prometheusOperator",
  "telemeterClient",
  "thanosQuerier",
] as const;

/**
 * The `cluster-monitoring-config` ConfigMap's `config.yaml`, placing every movable component on the
 * pool. `extra` is merged per component (e.g. retention for prometheusK8s), so users keep one source.
 */
export function monitoringConfigYaml(placement: NodePlacement, extra: Record<string, unknown> = {}): string {
  const given = requireMonitoringConfig("config", extra);
  const placed = (name: string) => (MONITORING_COMPONENTS as readonly string[]).includes(name);
  const components = [...new Set([...MONITORING_COMPONENTS, ...Object.keys(given)])].sort();
  const config = Object.fromEntries(
    components.map((name) => [
      name,
      placed(name)
        ? {
            ...((given[name] as Record<string, unknown> | undefined) ?? {}),
            nodeSelector: placement.nodeSelector,
            ...(placement.tolerations.length > 0 ? { tolerations: placement.tolerations } : {}),
          }
        : given[name],
    ]),
  );
  // Every component shares one placement object: spell it out each time instead of YAML anchors, which
  // read badly in a review diff.
  return stringify(config, { sortMapEntries: true, lineWidth: 0, aliasDuplicateObjects: false });
}

/**
 * Settings merged into `config.yaml`: an object of cluster-monitoring-config keys. A component the pool
 * places takes an object whose placement the pool owns; any other key is written as given, so nothing
 * the user gives is dropped.
 */
export function requireMonitoringConfig(path: string, value: unknown): Record<string, unknown> {
  const config = requirePlainObject(path, value);
  // Every component checked, and every problem reported at once.
  collectErrors(
    MONITORING_COMPONENTS.filter((name) => config[name] !== undefined).map((name) => () => {
      const settings = config[name];
      if (!isPlainObject(settings)) {
        throw new InputError(
          `${path}.${name}`,
          `must be an object of ${name} settings (e.g. { retention: "15d" } for prometheusK8s), got ${JSON.stringify(settings)}`,
        );
      }
      InputErrors.throwIfAny(
        ["nodeSelector", "tolerations"]
          .filter((owned) => settings[owned] !== undefined)
          .map(
            (owned) =>
              new InputError(
                `${path}.${name}.${owned}`,
                "is set by the pool's placement: remove it, or give the pool the taints and labels you want",
              ),
          ),
      );
    }),
  );
  return config;
}

export function monitoringConfigMapPatch(placement: NodePlacement, extra?: Record<string, unknown>) {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "cluster-monitoring-config", namespace: "openshift-monitoring" },
    data: { "config.yaml": monitoringConfigYaml(placement, extra) },
  };
}
