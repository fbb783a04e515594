/**
 * The impact of a change when no cluster is at hand: the objects (or pool settings) a component
 * declared at its previous deployment against what it declares now, with the machine count and the
 * per-node timings its pool's waiter saw then. A cluster's answer, when there is one, wins; the
 * learned timings then only refine its estimate.
 */
import { DEFAULT_TIMINGS, PoolImpact, RolloutTimings, rolloutImpact, withTimings } from "./impact";
import { ObjectLike, poolConfigsFrom } from "./pool-configs";

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
