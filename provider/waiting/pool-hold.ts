/**
 * Ordered rollouts: a pool that rolls out after others is paused before its new configuration is
 * applied and unpaused once they have converged. The MCO renders a paused pool's configuration and
 * keeps its status, but hands no node a new desiredConfig (machine-config-operator
 * pkg/controller/node/node_controller.go syncMachineConfigPool: `if pool.Spec.Paused { return
 * ctrl.syncStatusOnly(pool) }`), so its nodes move only once it is unpaused. The pause is written as
 * HOLD_FIELD_MANAGER, so that a pool someone paused by hand is told apart and left as they left it.
 */
import { createApiClient } from "./api";
import { KINDS, field, type KubeObject } from "./kinds";
import { withRetry } from "./retry";

/** The field manager of the pauses the library writes. */
export const HOLD_FIELD_MANAGER = "openshift-topology-rollout-order";

/** The manager whose managedFields entry owns `spec.paused`. */
function pausedBy(pool: KubeObject): string | undefined {
  const entries = (pool.metadata.managedFields ?? []) as Array<{ manager?: string; fieldsV1?: unknown }>;
  return entries.find((e) => field(e.fieldsV1, "f:spec", "f:paused") !== undefined)?.manager;
}

export interface PoolHoldOptions {
  kubeconfig: string;
  pool: string;
  /** The pools it rolls out after, for what it says. */
  after: string[];
  timeoutMs: number;
}

/** What holding or releasing a pool did, for the log. */
export interface HoldOutcome {
  /** The pool is paused by someone else: left as it is. */
  byHand: boolean;
  line: string;
}

const unpause = (pool: string) => `oc patch mcp ${pool} --type merge -p '{"spec":{"paused":false}}'`;

/**
 * Pauses `pool` before its new configuration is applied, unless it is paused already: by the library
 * (an earlier step of the same up) it stays so, by hand it is left as it is. A pool the cluster lacks
 * has no nodes to hold.
 */
export async function holdPool(options: PoolHoldOptions): Promise<HoldOutcome> {
  const { pool, after } = options;
  const client = createApiClient(options.kubeconfig);
  const live = await withRetry(() => client.get(KINDS.pool, pool), options);
  if (!live) return { byHand: false, line: `pool ${pool} is not in the cluster yet: nothing to hold` };
  const until = `until ${after.join(", ")} ${after.length > 1 ? "have" : "has"} rolled out`;
  if (field<boolean>(live, "spec", "paused") === true) {
    const by = pausedBy(live);
    if (by === HOLD_FIELD_MANAGER) return { byHand: false, line: `pool ${pool} stays paused ${until}` };
    return pausedByHand(pool, by);
  }
  await setPaused(client, pool, true, options);
  return {
    byHand: false,
    line: `paused pool ${pool} ${until}; should one fail, ${pool} stays paused: fix it and run up again, or ${unpause(pool)}`,
  };
}

/**
 * Unpauses `pool` once the pools it rolls out after have converged, when the library paused it; a pool
 * paused by hand stays paused.
 */
export async function releasePool(options: PoolHoldOptions): Promise<HoldOutcome> {
  const { pool, after } = options;
  const client = createApiClient(options.kubeconfig);
  const live = await withRetry(() => client.get(KINDS.pool, pool), options);
  if (!live || field<boolean>(live, "spec", "paused") !== true)
    return { byHand: false, line: `pool ${pool} rolls out: ${after.join(", ")} rolled out` };
  const by = pausedBy(live);
  if (by !== HOLD_FIELD_MANAGER) return pausedByHand(pool, by);
  await setPaused(client, pool, false, options);
  return { byHand: false, line: `unpaused pool ${pool}: ${after.join(", ")} rolled out` };
}

/** A pool someone else paused: left as they left it, and how to let it roll out. */
function pausedByHand(pool: string, by: string | undefined): HoldOutcome {
  return {
    byHand: true,
    line: `pool ${pool} is paused by ${by ?? "someone else"}: left paused; its rollout waits for ${unpause(pool)}`,
  };
}

/** Sets the pool's `spec.paused` as the hold's field manager, whose name later tells who paused it. */
function setPaused(
  client: ReturnType<typeof createApiClient>,
  pool: string,
  paused: boolean,
  options: PoolHoldOptions,
): Promise<unknown> {
  return withRetry(
    () => client.mergePatch(KINDS.pool, pool, undefined, { spec: { paused } }, undefined, HOLD_FIELD_MANAGER),
    options,
  );
}
