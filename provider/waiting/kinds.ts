/**
 * The API resources the waiters read, with the REST path pieces a list or watch needs. Written out
 * rather than discovered, so a wait costs no discovery requests.
 */
import type { KubeObject } from "../../primitives/objects";

// The object helpers live in primitives/; kinds.js keeps exporting them for callers of this path, such
// as providers serialized into deployed stacks.
export {
  annotationsOf,
  conditionOf,
  field,
  labelsOf,
  type Condition,
  type KubeObject,
} from "../../primitives/objects";

export interface ResourceKind {
  /** "" for the core group. */
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
}

function kind(
  group: string,
  version: string,
  kindName: string,
  plural: string,
  namespaced: boolean,
): ResourceKind {
  return { group, version, plural, kind: kindName, namespaced };
}

export const KINDS = {
  node: kind("", "v1", "Node", "nodes", false),
  pod: kind("", "v1", "Pod", "pods", true),
  secret: kind("", "v1", "Secret", "secrets", true),
  namespace: kind("", "v1", "Namespace", "namespaces", false),
  runtimeClass: kind("node.k8s.io", "v1", "RuntimeClass", "runtimeclasses", false),
  machineSet: kind("machine.openshift.io", "v1beta1", "MachineSet", "machinesets", true),
  machine: kind("machine.openshift.io", "v1beta1", "Machine", "machines", true),
  pool: kind("machineconfiguration.openshift.io", "v1", "MachineConfigPool", "machineconfigpools", false),
  machineConfig: kind("machineconfiguration.openshift.io", "v1", "MachineConfig", "machineconfigs", false),
  kubeletConfig: kind("machineconfiguration.openshift.io", "v1", "KubeletConfig", "kubeletconfigs", false),
  machineConfigNode: kind(
    "machineconfiguration.openshift.io",
    "v1",
    "MachineConfigNode",
    "machineconfignodes",
    false,
  ),
  containerRuntimeConfig: kind(
    "machineconfiguration.openshift.io",
    "v1",
    "ContainerRuntimeConfig",
    "containerruntimeconfigs",
    false,
  ),
  machineConfiguration: kind(
    "operator.openshift.io",
    "v1",
    "MachineConfiguration",
    "machineconfigurations",
    false,
  ),
  machineAutoscaler: kind(
    "autoscaling.openshift.io",
    "v1beta1",
    "MachineAutoscaler",
    "machineautoscalers",
    true,
  ),
  machineHealthCheck: kind(
    "machine.openshift.io",
    "v1beta1",
    "MachineHealthCheck",
    "machinehealthchecks",
    true,
  ),
  operatorGroup: kind("operators.coreos.com", "v1", "OperatorGroup", "operatorgroups", true),
  subscription: kind("operators.coreos.com", "v1alpha1", "Subscription", "subscriptions", true),
  installPlan: kind("operators.coreos.com", "v1alpha1", "InstallPlan", "installplans", true),
  csv: kind("operators.coreos.com", "v1alpha1", "ClusterServiceVersion", "clusterserviceversions", true),
  packageManifest: kind("packages.operators.coreos.com", "v1", "PackageManifest", "packagemanifests", true),
  deployment: kind("apps", "v1", "Deployment", "deployments", true),
  podDisruptionBudget: kind("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", true),
  clusterExtension: kind("olm.operatorframework.io", "v1", "ClusterExtension", "clusterextensions", false),
  crd: kind("apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", false),
} as const;

/** `/api/v1/nodes`, `/apis/<group>/<version>/namespaces/<ns>/<plural>[/<name>]`. */
export function resourcePath(resource: ResourceKind, namespace?: string, name?: string): string {
  const base =
    resource.group === "" ? `/api/${resource.version}` : `/apis/${resource.group}/${resource.version}`;
  const ns = resource.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : "";
  return `${base}${ns}/${resource.plural}${name ? `/${encodeURIComponent(name)}` : ""}`;
}

/** `namespace/name`, or `name` for cluster-scoped objects: the key of an object in a cache. */
export function objectKey(object: KubeObject): string {
  return object.metadata.namespace
    ? `${object.metadata.namespace}/${object.metadata.name}`
    : object.metadata.name;
}

/** The kind a CRD defines, at its storage version: what a list of its objects asks for. */
export function kindOfCrd(crd: KubeObject): ResourceKind {
  const spec = (crd as { spec?: Record<string, unknown> }).spec ?? {};
  const names = (spec.names ?? {}) as { kind?: string; plural?: string };
  const versions = (spec.versions ?? []) as Array<{ name: string; storage?: boolean }>;
  const storage = versions.find((v) => v.storage) ?? versions[0];
  return kind(
    String(spec.group ?? ""),
    storage?.name ?? "v1",
    names.kind ?? "",
    names.plural ?? "",
    spec.scope === "Namespaced",
  );
}
