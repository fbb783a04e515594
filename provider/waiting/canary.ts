/**
 * Canary nodes: named nodes of the worker pool labelled into a custom pool of their own, and returned
 * on release. A node matched by one custom pool and worker is managed by the custom pool
 * (machine-config-operator pkg/controller/common/helpers.go GetPoolsForNode), whose render takes the
 * worker configs and its own (pkg/controller/render/render_controller.go getMachineConfigsForPool, by
 * its machineConfigSelector `role In [worker, <pool>]`). The node controller then hands the node the
 * pool's render; with no config of the pool's own the two renders have the same content, and the
 * daemon finds nothing to do (pkg/daemon/update.go compareMachineConfig: "No changes from ... to ...").
 * The label is written as CANARY_FIELD_MANAGER, and only a label this stack wrote is removed: one that
 * someone else set stays, and so does its node.
 */
import { annotationsOf, field } from "../../primitives/objects";
import {
  CURRENT_CONFIG,
  DESIRED_CONFIG,
  MCD_REASON,
  MCD_STATE,
  nodeRoleLabel,
} from "../../primitives/openshift";
import { converge, Evaluation, Outcome, WaitOptions } from "./converge";
import { KINDS, type KubeObject } from "./kinds";
import { withRetry } from "./retry";
import { byName, ClusterAccess, clientOf, listedByName } from "./waiters";

/** The field manager of the canary labels the library writes. */
export const CANARY_FIELD_MANAGER = "openshift-topology-canary";

export interface CanaryNodesOptions extends WaitOptions, ClusterAccess {
  /** The canary pool, whose node label is `node-role.kubernetes.io/<pool>`. */
  pool: string;
  /** The pool the nodes come from and return to. */
  parent: string;
  /** The nodes that belong in the canary pool. */
  nodes: string[];
  /** The nodes this stack labelled before (its state): those no longer listed return. */
  labelled: string[];
}

export interface CanaryNodesResult {
  /** The nodes whose label this stack wrote, and so removes on release. */
  labelled: string[];
}

/** Where each node must end: in the canary pool, or back in the parent. */
export interface CanaryMoves {
  pool: string;
  parent: string;
  joining: string[];
  returning: string[];
}

/**
 * Done once each node runs the render of the pool it must be in, as its daemon reports it; waiting
 * while the node controller has not handed it that render yet, naming the node's state and reason.
 * A node missing is a failure: the named node is gone.
 */
export function evaluateCanaryMoves(
  moves: CanaryMoves,
  pools: Record<string, KubeObject | undefined>,
  nodes: KubeObject[],
): Evaluation<undefined> {
  const wanted = [
    ...moves.joining.map((node) => ({ node, pool: moves.pool })),
    ...moves.returning.map((node) => ({ node, pool: moves.parent })),
  ];
  const waiting: string[] = [];
  for (const { node: name, pool } of wanted) {
    const node = nodes.find((n) => n.metadata.name === name);
    if (!node) return { state: "failed", message: `node ${name} is gone` };
    const target = field<string>(pools[pool], "spec", "configuration", "name");
    const a = annotationsOf(node);
    if (target === undefined || a[DESIRED_CONFIG] !== target) {
      waiting.push(`${name} not yet handed pool ${pool}'s render${target ? ` ${target}` : ""}`);
    } else if (a[CURRENT_CONFIG] !== target || a[MCD_STATE] !== "Done") {
      const reason = a[MCD_REASON] ? `: ${a[MCD_REASON]}` : "";
      waiting.push(`${name} applying ${target} (${a[MCD_STATE] ?? "no state"}${reason})`);
    }
  }
  const done = wanted.length - waiting.length;
  const which = `${moves.joining.length} into ${moves.pool}, ${moves.returning.length} back to ${moves.parent}`;
  return waiting.length === 0
    ? { state: "done", message: `canary nodes in place (${which})`, done, total: wanted.length }
    : { state: "waiting", message: waiting.join("; "), done, total: wanted.length };
}

/** Writes or removes the canary label of one node, as CANARY_FIELD_MANAGER. */
async function label(options: CanaryNodesOptions, node: string, on: boolean): Promise<void> {
  const client = clientOf(options);
  await withRetry(
    () =>
      client.mergePatch(
        KINDS.node,
        node,
        undefined,
        { metadata: { labels: { [nodeRoleLabel(options.pool)]: on ? "" : null } } },
        options.signal,
        CANARY_FIELD_MANAGER,
      ),
    options,
  );
}

/** Waits until the joining nodes run the canary pool's render and the returning ones the parent's. */
function moved(options: CanaryNodesOptions, moves: CanaryMoves): Promise<Outcome<undefined>> {
  const names = [...moves.joining, ...moves.returning];
  return converge<undefined>({
    ...options,
    client: clientOf(options),
    waiter: `canary pool ${options.pool}`,
    sources: [
      ...byName(KINDS.pool, undefined, [moves.pool, moves.parent]),
      ...byName(KINDS.node, undefined, names),
    ],
    evaluate: (view) => {
      const [pool, parent] = [moves.pool, moves.parent].map(
        (p) => listedByName(view, KINDS.pool, [p])[0] as KubeObject | undefined,
      );
      return evaluateCanaryMoves(
        moves,
        { [moves.pool]: pool, [moves.parent]: parent },
        listedByName(view, KINDS.node, names),
      );
    },
  });
}

/**
 * Labels the listed nodes into the canary pool (a node that carries the label already, set by someone
 * else, is left to them), removes the label it wrote from nodes no longer listed, and waits until
 * each node runs the render of the pool it is now in.
 */
export async function placeCanaryNodes(options: CanaryNodesOptions): Promise<Outcome<CanaryNodesResult>> {
  const client = clientOf(options);
  const key = nodeRoleLabel(options.pool);
  const labelled: string[] = [];
  for (const name of options.nodes) {
    const node = await withRetry(() => client.get(KINDS.node, name), options);
    if (!node) throw new Error(`node ${name} is not in the cluster`);
    const carries = key in (node.metadata.labels ?? {});
    if (!options.labelled.includes(name) && carries) continue;
    // The stack's label, written again when someone removed it.
    if (!carries) await label(options, name, true);
    labelled.push(name);
  }
  const returning = options.labelled.filter((n) => !options.nodes.includes(n));
  for (const name of returning) await label(options, name, false);
  const outcome = await moved(options, {
    pool: options.pool,
    parent: options.parent,
    joining: options.nodes,
    returning,
  });
  return { ...outcome, result: { labelled } };
}

/** Removes the label this stack wrote from its nodes, and waits until they run the parent's render. */
export async function returnCanaryNodes(options: CanaryNodesOptions): Promise<Outcome<undefined>> {
  const client = clientOf(options);
  const present: string[] = [];
  for (const name of options.labelled) {
    // A node gone since has nothing to return.
    if (!(await withRetry(() => client.get(KINDS.node, name), options))) continue;
    await label(options, name, false);
    present.push(name);
  }
  return moved(options, { pool: options.pool, parent: options.parent, joining: [], returning: present });
}
