/**
 * Where the program runs when it runs in a pod of the cluster it changes (the Pulumi Kubernetes
 * Operator's workspace, a CI pod on the cluster): its pod, its node and that node's pool, so that a
 * preview can say when a change drains the runner's own node (docs/in-cluster.md).
 */
import { CURRENT_CONFIG, DESIRED_CONFIG, poolOfRenderedConfig } from "../../primitives/openshift";
import { clusterServer, inClusterKubeconfig } from "../../provider/dynamic/credentials";
import { KINDS } from "../../provider/waiting/kinds";
import type { ClusterSnapshot } from "./cluster-snapshot";

export interface RunnerPlace {
  /** `namespace/name` of the runner's pod, when it was read to find the node. */
  pod?: string;
  node: string;
  /** The pool the node is in: the one its daemon's desired (else current) rendered config is of. */
  pool?: string;
}

/**
 * The runner's place, when the program runs in a pod whose service account reaches the API server the
 * kubeconfig does: the node from $NODE_NAME (the downward API's `spec.nodeName`), else from its own
 * Pod, named by $POD_NAME, else $HOSTNAME (a pod's hostname is its name), in $POD_NAMESPACE, else the
 * service account's namespace. Undefined outside such a pod, and when the node cannot be told (a
 * service account that may not read its Pod); without a pool when the MCO does not manage the node.
 */
export async function runnerPlace(
  cluster: ClusterSnapshot,
  kubeconfig: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunnerPlace | undefined> {
  const pod = inClusterKubeconfig(env);
  if (!pod?.text || clusterServer(pod.text) !== clusterServer(kubeconfig)) return undefined;
  try {
    let node = env.NODE_NAME || undefined;
    let named: string | undefined;
    if (!node) {
      const name = env.POD_NAME || env.HOSTNAME;
      const namespace = env.POD_NAMESPACE || namespaceOf(pod.text);
      if (!name || !namespace) return undefined;
      named = `${namespace}/${name}`;
      const own = await cluster.object(KINDS.pod, name, namespace);
      node = (own?.spec as { nodeName?: string } | undefined)?.nodeName;
    }
    if (!node) return undefined;
    const annotations = (await cluster.object(KINDS.node, node))?.metadata.annotations ?? {};
    const pool = poolOfRenderedConfig(annotations[DESIRED_CONFIG] ?? annotations[CURRENT_CONFIG]);
    return { ...(named ? { pod: named } : {}), node, ...(pool ? { pool } : {}) };
  } catch {
    return undefined;
  }
}

/** The namespace of the in-cluster kubeconfig's context (the service account's). */
function namespaceOf(text: string): string | undefined {
  const { parse } = require("yaml") as typeof import("yaml");
  const contexts = (parse(text) as { contexts?: Array<{ context?: { namespace?: string } }> }).contexts;
  return contexts?.[0]?.context?.namespace;
}

/** What a preview says when the change drains the runner's node: once per pool and run. */
export function runnerDrainedWarning(pool: string, place: RunnerPlace): string {
  const where = place.pod ? `in pod ${place.pod} on node ${place.node}` : `on node ${place.node}`;
  return (
    `pool ${pool}: this program runs ${where}, which this change drains: the runner can be ` +
    `evicted during up, which then stops with the stack locked and the rollout unwatched; run it on ` +
    `nodes of a pool the change does not drain (docs/in-cluster.md)`
  );
}
