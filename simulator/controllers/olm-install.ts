/**
 * The olm operator's deployment install strategy (operator-lifecycle-manager pkg/controller/install/
 * deployment.go): the CSV's Deployments as OLM writes them (deploymentForSpec: the owner labels, the
 * Subscription's `spec.config` applied by overrides/initializer.go and overrides/inject, the
 * OPERATOR_CONDITION_NAME variable, revisionHistoryLimit 1, the spec hash label) and the check of an
 * install (checkForDeployments with status_viewer.go DeploymentStatus), which decides the CSV's phase.
 */
import { field, Json, jsonEqual, obj } from "../../primitives/objects";
import { stableJson } from "../../primitives/stable-json";
import { KubeObject } from "../store/types";
import { hexHash } from "./util";

export const SPEC_HASH_LABEL = "olm.deployment-spec-hash";

/** ownerutil.AddOwnerLabelsForKind of a CSV. */
export function OLM_OWNER_LABELS(csv: KubeObject): Record<string, string> {
  return {
    "olm.owner": csv.metadata.name,
    "olm.owner.kind": "ClusterServiceVersion",
    "olm.owner.namespace": csv.metadata.namespace ?? "",
  };
}

export function specHash(spec: Json): string {
  return hexHash(stableJson(spec), 20);
}

type Named = { name: string } & Json;

/** inject.mergeEnvVars and friends: items of `added` replace those of the same name, the rest appended. */
function mergeByName(existing: Named[] | undefined, added: Named[] | undefined): Named[] | undefined {
  if (!added || added.length === 0) return existing;
  const out = [...(existing ?? [])].map((e) => added.find((a) => a.name === e.name) ?? e);
  for (const a of added) if (!out.some((e) => e.name === a.name)) out.push(a);
  return out;
}

/** overrides/initializer.go initialize: `config` applied to a Deployment's pod template, in OLM's order. */
export function applySubscriptionConfig(deployment: KubeObject, config: Json | undefined): void {
  const template = obj(obj(deployment.spec).template);
  const pod = obj(template.spec);
  template.spec = pod;
  obj(deployment.spec).template = template;
  const containers = (pod.containers as Json[] | undefined) ?? [];
  const c = config ?? {};
  for (const container of containers) {
    const env = mergeByName(container.env as Named[] | undefined, c.env as Named[] | undefined);
    if (env) container.env = env;
    // mergeEnvFromVars: a source already there (same prefix and references) is not added again.
    const envFrom = [...((container.envFrom as Json[] | undefined) ?? [])];
    for (const from of (c.envFrom as Json[] | undefined) ?? [])
      if (!envFrom.some((e) => jsonEqual(e, from))) envFrom.push(from);
    if (envFrom.length > 0) container.envFrom = envFrom;
    const mounts = mergeByName(
      container.volumeMounts as Named[] | undefined,
      c.volumeMounts as Named[] | undefined,
    );
    if (mounts) container.volumeMounts = mounts;
    if (c.resources) container.resources = structuredClone(c.resources);
  }
  const volumes = mergeByName(pod.volumes as Named[] | undefined, c.volumes as Named[] | undefined);
  if (volumes) pod.volumes = volumes;
  const tolerations = [...((pod.tolerations as Json[] | undefined) ?? [])];
  for (const t of (c.tolerations as Json[] | undefined) ?? [])
    if (!tolerations.some((e) => jsonEqual(e, t))) tolerations.push(t);
  if (tolerations.length > 0) pod.tolerations = tolerations;
  if (c.nodeSelector) pod.nodeSelector = structuredClone(c.nodeSelector);
  // OverrideDeploymentAffinity: each given part replaces the Deployment's, an empty one removes it.
  if (c.affinity) {
    const affinity = { ...obj(pod.affinity) };
    for (const [part, value] of Object.entries(obj(c.affinity))) {
      if (value && Object.keys(value as object).length > 0) affinity[part] = structuredClone(value);
      else delete affinity[part];
    }
    if (Object.keys(affinity).length > 0) pod.affinity = affinity;
    else delete pod.affinity;
  }
  // InjectAnnotationsIntoDeployment: the Deployment's own annotations win.
  if (c.annotations) {
    deployment.metadata.annotations = {
      ...(c.annotations as Record<string, string>),
      ...deployment.metadata.annotations,
    };
    const meta = obj(template.metadata);
    template.metadata = {
      ...meta,
      annotations: { ...(c.annotations as Record<string, string>), ...obj(meta.annotations) },
    };
  }
}

/** deploymentForSpec: one Deployment of the CSV's install strategy, the Subscription's config applied. */
export function deploymentFor(
  csv: KubeObject,
  strategy: { name: string; spec: Json; label?: Record<string, string> },
  config: Json | undefined,
): KubeObject {
  const spec = structuredClone(strategy.spec);
  const template = obj(spec.template);
  const meta = obj(template.metadata);
  // The CSV's annotations become the pod template's (templateAnnotations).
  template.metadata = { ...meta, annotations: { ...obj(meta.annotations), ...csv.metadata.annotations } };
  spec.template = template;
  const deployment: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name: strategy.name,
      namespace: csv.metadata.namespace,
      labels: { ...strategy.label, "olm.managed": "true", ...OLM_OWNER_LABELS(csv) },
      ownerReferences: [
        {
          apiVersion: csv.apiVersion,
          kind: csv.kind,
          name: csv.metadata.name,
          uid: csv.metadata.uid ?? "",
          controller: false,
          blockOwnerDeletion: false,
        },
      ],
    },
    spec,
  };
  applySubscriptionConfig(deployment, config);
  for (const container of (obj(template.spec).containers as Json[] | undefined) ?? []) {
    container.env = mergeByName(container.env as Named[] | undefined, [
      { name: "OPERATOR_CONDITION_NAME", value: csv.metadata.name },
    ]);
  }
  spec.revisionHistoryLimit = 1;
  deployment.metadata.labels![SPEC_HASH_LABEL] = specHash(spec);
  return deployment;
}

export type InstallCheck =
  | { state: "installed" }
  /** StrategyErrReasonWaiting or ComponentMissing: keep installing. */
  | { state: "waiting"; message: string }
  /** StrategyErrDeploymentUpdated: install again. */
  | { state: "outdated"; message: string }
  /** StrategyErrReasonTimeout, unrecoverable. */
  | { state: "timeout"; message: string };

/** status_viewer.go DeploymentStatus: a message and whether the rollout is done, or an error. */
export function deploymentStatus(deployment: KubeObject): { done: boolean; message: string; error?: string } {
  const name = deployment.metadata.name;
  const status = obj(deployment.status);
  const conditions =
    (status.conditions as Array<{ type: string; status: string; reason?: string; message?: string }>) ?? [];
  if ((deployment.metadata.generation ?? 1) > ((status.observedGeneration as number | undefined) ?? 0))
    return { done: false, message: `waiting for spec update of deployment "${name}" to be observed...` };
  if (conditions.find((c) => c.type === "Progressing")?.reason === "ProgressDeadlineExceeded")
    return { done: false, message: "", error: `deployment "${name}" exceeded its progress deadline` };
  const replicas = (status.replicas as number | undefined) ?? 0;
  const updated = (status.updatedReplicas as number | undefined) ?? 0;
  if (replicas > updated)
    return {
      done: false,
      message: `deployment "${name}" waiting for ${replicas - updated} outdated replica(s) to be terminated`,
    };
  const available = conditions.find((c) => c.type === "Available");
  if (available?.status !== "True")
    return {
      done: false,
      message: `deployment "${name}" not available: ${available ? available.message : 'missing condition "Available"'}`,
    };
  return { done: true, message: `deployment "${name}" is up-to-date and available` };
}

/** checkForDeployments: the install of `strategies` against the CSV's Deployments as they are. */
export function checkInstall(
  csv: KubeObject,
  strategies: Array<{ name: string; spec: Json; label?: Record<string, string> }>,
  existing: KubeObject[],
  config: Json | undefined,
): InstallCheck {
  for (const strategy of strategies) {
    const deployment = existing.find((d) => d.metadata.name === strategy.name);
    if (!deployment) return { state: "waiting", message: `missing deployment with name=${strategy.name}` };
    const status = deploymentStatus(deployment);
    if (status.error)
      return {
        state: "timeout",
        message: `deployment ${strategy.name} not ready before timeout: ${status.error}`,
      };
    if (!status.done)
      return {
        state: "waiting",
        message: `waiting for deployment ${strategy.name} to become ready: ${status.message}`,
      };
    const hash = field<string>(deployment, "metadata", "labels", SPEC_HASH_LABEL);
    const wanted = field<string>(deploymentFor(csv, strategy, config), "metadata", "labels", SPEC_HASH_LABEL);
    if (hash !== wanted)
      return {
        state: "outdated",
        message: `deployment changed old hash=${hash ?? ""}, new hash=${wanted ?? ""}`,
      };
  }
  return { state: "installed" };
}
