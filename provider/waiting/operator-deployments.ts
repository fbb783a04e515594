/**
 * Whether an installed operator runs as its Subscription declares: every Deployment of the CSV's
 * install strategy carries the Subscription's `spec.config` as OLM applies it (operator-lifecycle-manager
 * overrides/initializer.go: nodeSelector and resources replaced, tolerations, env, envFrom, volumes and
 * volumeMounts added, affinity parts overridden, annotations added where absent) and has rolled out
 * (status_viewer.go DeploymentStatus: spec observed, no outdated replica, all available). A pod the
 * scheduler finds no node for is a problem the scheduler retries (persistence.ts), named with the
 * scheduler's own message; a Deployment past its progress deadline has failed.
 */
import { selectorMatches, type LabelSelector } from "../../primitives/selectors";
import { jsonEqual } from "../../primitives/objects";
import { conditionOf, field, KubeObject } from "./kinds";
import type { Problem } from "./persistence";

export interface DeploymentsEvaluation {
  /** Every Deployment carries the config and is available. */
  ready: boolean;
  /** What is not, deployment by deployment; empty when ready. */
  waiting: string[];
  /** Retried failures seen now (pods no node fits). */
  problems: Problem[];
  /** A final failure: a Deployment past its progress deadline. */
  failure?: string;
  /** The Deployments not available, whose pods tell why. */
  unavailable: KubeObject[];
}

type Json = Record<string, unknown>;

const contains = (have: unknown[] | undefined, want: unknown[] | undefined) =>
  (want ?? []).every((w) => (have ?? []).some((h) => jsonEqual(h, w)));

/** The `config` fields a Deployment's pod template lacks, as OLM would have applied them. */
export function missingConfig(deployment: KubeObject, config: Json | undefined): string[] {
  if (!config) return [];
  const template = field<Json>(deployment, "spec", "template") ?? {};
  const pod = (template.spec as Json | undefined) ?? {};
  const containers = (pod.containers as Json[] | undefined) ?? [];
  const everyContainer = (test: (c: Json) => boolean) => containers.length > 0 && containers.every(test);
  const missing: string[] = [];
  const check = (name: string, given: unknown, holds: () => boolean) => {
    if (given !== undefined && !holds()) missing.push(name);
  };
  check("nodeSelector", config.nodeSelector, () => jsonEqual(pod.nodeSelector ?? {}, config.nodeSelector));
  check("tolerations", config.tolerations, () =>
    contains(pod.tolerations as unknown[], config.tolerations as unknown[]),
  );
  check("resources", config.resources, () =>
    everyContainer((c) => jsonEqual(c.resources ?? {}, config.resources)),
  );
  check("env", config.env, () =>
    everyContainer((c) => contains(c.env as unknown[], config.env as unknown[])),
  );
  check("envFrom", config.envFrom, () =>
    everyContainer((c) => contains(c.envFrom as unknown[], config.envFrom as unknown[])),
  );
  check("volumes", config.volumes, () => contains(pod.volumes as unknown[], config.volumes as unknown[]));
  check("volumeMounts", config.volumeMounts, () =>
    everyContainer((c) => contains(c.volumeMounts as unknown[], config.volumeMounts as unknown[])),
  );
  check("affinity", config.affinity, () =>
    Object.entries(config.affinity as Json).every(([part, value]) => {
      const have = (pod.affinity as Json | undefined)?.[part];
      const empty = !value || Object.keys(value as object).length === 0;
      return empty ? have === undefined : jsonEqual(have, value);
    }),
  );
  check("annotations", config.annotations, () =>
    Object.keys(config.annotations as Json).every(
      (key) => field<string>(template, "metadata", "annotations", key) !== undefined,
    ),
  );
  return missing;
}

/** Why a Deployment is not rolled out yet, or undefined when it is (DeploymentStatus). */
function rolloutPending(deployment: KubeObject): string | undefined {
  const generation = deployment.metadata.generation ?? 1;
  const status = (deployment.status ?? {}) as Json;
  if (((status.observedGeneration as number | undefined) ?? 0) < generation)
    return "its spec is not observed yet";
  const replicas = field<number>(deployment, "spec", "replicas") ?? 1;
  const updated = (status.updatedReplicas as number | undefined) ?? 0;
  const total = (status.replicas as number | undefined) ?? 0;
  const available = (status.availableReplicas as number | undefined) ?? 0;
  if (updated < replicas) return `${updated}/${replicas} updated`;
  if (total > updated) return `${total - updated} outdated replica(s) still running`;
  if (available < replicas) return `${available}/${replicas} available`;
  return undefined;
}

/** The scheduler's message for a pod of `deployment` it finds no node for. */
function unschedulable(deployment: KubeObject, pods: KubeObject[]): string | undefined {
  const selector = field<LabelSelector>(deployment, "spec", "selector");
  const pending = pods.find((p) => {
    const scheduled = conditionOf(p, "PodScheduled");
    return (
      selectorMatches(selector, p.metadata.labels) &&
      scheduled?.status === "False" &&
      scheduled.reason === "Unschedulable"
    );
  });
  return pending && (conditionOf(pending, "PodScheduled")?.message || "no node fits the pod");
}

export function evaluateDeployments(
  names: string[],
  deployments: KubeObject[],
  pods: KubeObject[],
  config: Json | undefined,
): DeploymentsEvaluation {
  const out: DeploymentsEvaluation = { ready: true, waiting: [], problems: [], unavailable: [] };
  for (const name of names) {
    const deployment = deployments.find((d) => d.metadata.name === name);
    const label = `deployment ${name}`;
    if (!deployment) {
      out.waiting.push(`${label} not created yet`);
      continue;
    }
    const missing = missingConfig(deployment, config);
    if (missing.length > 0)
      out.waiting.push(`${label} does not carry the Subscription's ${missing.join(", ")} yet`);
    const pending = rolloutPending(deployment);
    if (pending) {
      out.unavailable.push(deployment);
      const progressing = conditionOf(deployment, "Progressing");
      const why = unschedulable(deployment, pods);
      if (progressing?.reason === "ProgressDeadlineExceeded") {
        out.failure = `${label}: ${pending}: exceeded its progress deadline${why ? `: ${why}` : ""}`;
      } else if (why) {
        out.problems.push({ key: `unschedulable/${name}`, message: `${label}: ${pending}: ${why}` });
      } else out.waiting.push(`${label}: ${pending}`);
    }
  }
  out.ready = out.waiting.length === 0 && out.problems.length === 0 && out.failure === undefined;
  return out;
}
