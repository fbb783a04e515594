/**
 * A canary of the worker pool, as the OpenShift docs roll out a change to a few nodes first: named
 * worker nodes get the label of a custom pool of their own, whose machineConfigSelector takes the
 * worker configs and its own (a `machineConfigPool`), so that a worker change reaches them first. A
 * node matched by worker and one custom pool is the custom pool's; by two custom pools, by none
 * (machine-config-operator pkg/controller/common/helpers.go GetPoolsForNode): so only worker nodes can
 * be canaries, never those of another custom pool.
 */
import { isDnsSubdomain } from "../../primitives/names";
import { LabelSelector, selectorIsEmpty, selectorMatches } from "../../primitives/selectors";
import { InputError } from "../errors";
import { nodeRoleLabel } from "./common";

/** The pool canaries come from and return to. */
export const CANARY_PARENT = "worker";

/** What the cluster says of its nodes and pools, as read at preview. */
export interface CanaryCluster {
  nodes: Array<{ metadata: { name: string; labels?: Record<string, string> } }>;
  pools: Array<{ metadata: { name: string }; spec?: { nodeSelector?: LabelSelector } }>;
  /** Nodes whose canary label the library wrote (its field manager owns it). */
  labelledByUs: string[];
}

/** The problems of the `nodes` input itself: a list of distinct node names, at least one. */
export function canaryNodesProblems(nodes: unknown): InputError[] {
  if (!Array.isArray(nodes) || nodes.length === 0)
    return [
      new InputError(
        "nodes",
        `must list the names of one or more worker nodes, got ${JSON.stringify(nodes)}`,
      ),
    ];
  return nodes.flatMap((node, i) => {
    if (typeof node !== "string" || !isDnsSubdomain(node))
      return [new InputError(`nodes[${i}]`, `must be a node name, got ${JSON.stringify(node)}`)];
    return nodes.indexOf(node) < i ? [new InputError(`nodes[${i}]`, `${node} is listed twice`)] : [];
  });
}

/**
 * The pool that manages a node, as GetPoolsForNode decides (master first, one custom pool over worker,
 * two custom pools none), the canary pool and its label left out: where the node is when not a canary.
 */
export function poolOutsideCanary(
  node: CanaryCluster["nodes"][number],
  pools: CanaryCluster["pools"],
  canary: string,
): string | undefined {
  const labels = { ...(node.metadata.labels ?? {}) };
  delete labels[nodeRoleLabel(canary)];
  const matching = pools
    .filter((p) => p.metadata.name !== canary)
    .filter((p) => !selectorIsEmpty(p.spec?.nodeSelector) && selectorMatches(p.spec?.nodeSelector, labels))
    .map((p) => p.metadata.name);
  const custom = matching.filter((p) => p !== "master" && p !== CANARY_PARENT);
  if (matching.includes("master")) return "master";
  if (custom.length > 1) return undefined;
  return custom[0] ?? (matching.includes(CANARY_PARENT) ? CANARY_PARENT : undefined);
}

/**
 * What the cluster refuses of a canary `name` of `nodes`: a node it lacks or that is not a worker of
 * the worker pool, all of worker's nodes taken (the rest must stay to roll out after them), and a name
 * whose label other nodes already carry (they would join the canary pool too).
 */
export function canaryClusterProblems(name: string, nodes: string[], cluster: CanaryCluster): InputError[] {
  const problems: InputError[] = [];
  const known = new Map(cluster.nodes.map((n) => [n.metadata.name, n]));
  nodes.forEach((node, i) => {
    const live = known.get(node);
    if (!live) {
      problems.push(new InputError(`nodes[${i}]`, `the cluster has no node ${node}`));
      return;
    }
    const pool = poolOutsideCanary(live, cluster.pools, name);
    if (pool !== CANARY_PARENT)
      problems.push(
        new InputError(
          `nodes[${i}]`,
          `${node} is ${pool ? `in pool ${pool}` : "in no pool"}, not ${CANARY_PARENT}: a canary takes worker nodes only (a node in two custom pools is managed by none)`,
        ),
      );
  });
  const workers = cluster.nodes.filter((n) => poolOutsideCanary(n, cluster.pools, name) === CANARY_PARENT);
  if (problems.length === 0 && nodes.length >= workers.length)
    problems.push(
      new InputError(
        "nodes",
        `${nodes.length} of the ${workers.length} nodes of ${CANARY_PARENT}: leave at least one to roll out after the canary`,
      ),
    );
  const others = cluster.nodes
    .filter((n) => nodeRoleLabel(name) in (n.metadata.labels ?? {}))
    .map((n) => n.metadata.name)
    .filter((n) => !nodes.includes(n) && !cluster.labelledByUs.includes(n));
  if (others.length > 0)
    problems.push(
      new InputError(
        "name",
        `nodes ${others.join(", ")} already carry ${nodeRoleLabel(name)}, set by someone else: they would join the canary pool too; choose another name`,
      ),
    );
  return problems;
}
