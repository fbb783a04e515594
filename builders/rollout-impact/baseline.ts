/**
 * The impact of a change when no cluster is at hand: the objects (or pool settings) a component
 * declared at its previous deployment against what it declares now, with the machine count and the
 * per-node timings its pool's waiter saw then. A cluster's answer, when there is one, wins; the
 * learned timings then only refine its estimate.
 */
import { resolveFenceposts } from "../../primitives/int-or-percent";
import type { MachineReplacementPolicy } from "../machineset/replacement";
import { DEFAULT_TIMINGS, PoolImpact, RolloutTimings, rolloutImpact, withTimings } from "./impact";
import { ObjectLike, poolConfigsFrom } from "./pool-configs";
import { deadlineFor, replacementEstimate } from "./summary";

/** What a component records at each deployment (and declares at the next). */
export interface DeploymentRecord {
  pool?: string;
  /** Its node configuration objects (MachineConfig, KubeletConfig, ContainerRuntimeConfig). */
  objects?: ObjectLike[];
  /** A pool component's own settings. */
  settings?: { maxUnavailable?: number | string; paused?: boolean };
  /** Nodes in the pool when its waiter last saw it. */
  machineCount?: number;
  /** Per-node seconds the pool's waiter saw in its last rollout. */
  learnedTimings?: Partial<Pick<RolloutTimings, "drainSeconds" | "rebootSeconds">> | null;
  /** The impact the program read from the cluster at preview, when it could. */
  clusterImpact?: PoolImpact;
}

const isKnown = <T>(value: T | undefined, unknown: string): value is T =>
  value !== undefined && value !== null && value !== unknown && !JSON.stringify(value).includes(unknown);

/**
 * The impact of `declared` after `previous`; undefined without a cluster's answer or a previous
 * deployment, or while what is declared is not known yet. `unknown` is the marker of a value a
 * preview does not know.
 */
export function impactSincePrevious(
  previous: DeploymentRecord | undefined,
  declared: DeploymentRecord,
  unknown: string,
): PoolImpact | undefined {
  const learned = previous?.learnedTimings;
  const timings = learned && Object.keys(learned).length > 0 ? learned : undefined;
  const retimed = (impact: PoolImpact) =>
    timings && impact.newRender ? { ...withTimings(impact, timings), timingsLearned: true } : impact;
  if (isKnown(declared.clusterImpact, unknown)) return retimed(declared.clusterImpact);
  const pool = declared.pool;
  if (!previous || !isKnown(pool, unknown) || previous.pool !== pool) return undefined;
  if (!isKnown(declared.objects ?? [], unknown) || !isKnown(declared.settings ?? {}, unknown))
    return undefined;
  const settings = declared.settings ?? {};
  const impact = rolloutImpact({
    pool,
    before: poolConfigsFrom(pool, previous.objects ?? [], undefined),
    after: poolConfigsFrom(pool, declared.objects ?? [], undefined),
    machineCount: typeof previous.machineCount === "number" ? previous.machineCount : 0,
    maxUnavailable: settings.maxUnavailable,
    paused: settings.paused === true,
    timings: { ...DEFAULT_TIMINGS, ...timings },
  });
  const unpauses = previous.settings?.paused === true && settings.paused !== true;
  return {
    ...impact,
    ...(unpauses ? { unpauses } : {}),
    against: "previous deployment",
    ...(timings && impact.newRender ? { timingsLearned: true } : {}),
  };
}

/** What else a pool waiter is given that its change's duration depends on. */
export interface WaiterPlan {
  /** The pool's MachineSets, whose machines it replaces with `machineReplacement`. */
  machineSets?: string[];
  machineReplacement?: MachineReplacementPolicy;
}

/**
 * The deadline of a pool waiter that is given none (deadlineFor): twice the change's estimate by the
 * previous deployment's record, which is known when the waiter updates, before it looks at the cluster:
 * the render's rollout, or with `machineReplacement` every machine of its MachineSets replaced if that
 * takes longer (both run at once; it cannot tell yet which machines are old, so it counts them all).
 */
export function deadlineSincePrevious(
  previous: DeploymentRecord | undefined,
  declared: DeploymentRecord & WaiterPlan,
  unknown: string,
): number {
  const render = impactSincePrevious(previous, { ...declared, clusterImpact: undefined }, unknown);
  const rollout = render?.newRender ? render.durationSeconds : 0;
  const policy = declared.machineReplacement;
  const sets = declared.machineSets ?? [];
  if (!policy) return deadlineFor(rollout);
  const machines = (set: string) =>
    policy.replicas?.[set] ?? Math.ceil((previous?.machineCount ?? 0) / sets.length);
  const replaced = replacementEstimate(
    sets.map((machineSet) => ({
      machineSet,
      machines: machines(machineSet),
      fields: [],
      replacement: resolveFenceposts(policy.maxSurge, policy.maxUnavailable, machines(machineSet)),
    })),
    previous?.learnedTimings ?? {},
  );
  return deadlineFor(Math.max(rollout, replaced?.durationSeconds ?? 0));
}
