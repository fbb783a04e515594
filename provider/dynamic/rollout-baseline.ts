import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import {
  deadlineSincePrevious,
  DeploymentRecord,
  impactLine,
  impactSincePrevious,
  PoolImpact,
  WaiterPlan,
} from "../../builders/rollout-impact";
import type { NodeTimings } from "../waiting/machineconfignode";
import { changedInputs, UNKNOWN } from "./common";
import { carriedProvider } from "./schema";
import * as self from "./rollout-baseline";

/**
 * What the component declares, which alone makes a baseline change. It also keeps what its waiter last
 * observed (the machine count and learned timings), which rides along with the next declared change: a
 * `pulumi refresh` that reads a new machine count must not plan an update of its own. The cluster's
 * answer and the impact are per preview.
 */
const DECLARED = ["pool", "objects", "settings"];

/**
 * The impact of `declared` after the `previous` deployment, logged when the program had no cluster's
 * answer: with one, the program's line for the pool says it all (components/cluster/pool-summary.ts),
 * and the learned timings only refine the `impact` output.
 */
function impactSince(
  previous: DeploymentRecord | undefined,
  declared: Record<string, unknown>,
): PoolImpact | undefined {
  const impact = impactSincePrevious(previous, declared as DeploymentRecord, UNKNOWN);
  if (impact && declared.clusterImpact === undefined) {
    const { log } = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
    void log.info(impactLine(impact));
  }
  return impact;
}

/**
 * The provider of RolloutBaseline. A component cannot read its own previous state, but a provider's
 * `check` receives the resource's previous inputs beside the new ones: there the impact of the change
 * is computed and logged, and returned among the checked inputs, which a preview reports as the
 * resource's outputs. Nothing touches the cluster: create and update only keep the inputs.
 */
export const rolloutBaselineProvider: dynamic.ResourceProvider = {
  async check(olds: Record<string, unknown>, news: Record<string, unknown>) {
    const previous = olds.pool === undefined ? undefined : (olds as DeploymentRecord);
    // Always set, so that a preview knows it: null when there is no answer.
    return { inputs: { ...news, impact: impactSince(previous, news) ?? null }, failures: [] };
  },
  async diff(_id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
    return {
      changes: changedInputs(olds, news, DECLARED).length > 0,
      replaces: [],
      deleteBeforeReplace: false,
    };
  },
  async create(inputs: Record<string, unknown>) {
    return { id: `rollout-baseline/${String(inputs.pool)}`, outs: inputs };
  },
  async update(_id: string, _olds: Record<string, unknown>, news: Record<string, unknown>) {
    return { outs: news };
  },
};

/**
 * The previous deployment's record in a pool waiter's state (its echoed inputs and its outputs), or
 * undefined when that state holds none (a stack deployed before the waiter kept it).
 */
function recordIn(state: Record<string, unknown>): DeploymentRecord | undefined {
  if (state.objects === undefined && state.settings === undefined) return undefined;
  const { pool, objects, settings, machineCount, learnedTimings } = state as DeploymentRecord;
  return { pool, objects, settings, machineCount, learnedTimings };
}

/** The inputs with a deadline: the program's (`waitTimeouts`), else the one derived from the change's estimate. */
function withDeadline(inputs: Record<string, unknown>, derived: number): Record<string, unknown> {
  return inputs.timeoutSeconds !== undefined ? inputs : { ...inputs, timeoutSeconds: derived };
}

/** The outputs without a derived deadline: kept, it would read as a change of the program's at the next diff. */
function withoutDerived(
  outs: Record<string, unknown>,
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  if (inputs.timeoutSeconds !== undefined) return outs;
  const { timeoutSeconds: _derived, ...rest } = outs;
  return rest;
}

/** The inputs a waiter's own provider compares and echoes: the cluster's answer is per preview. */
function declaredOnly(inputs: Record<string, unknown>): Record<string, unknown> {
  const { clusterImpact: _perPreview, ...declared } = inputs;
  return declared;
}

/**
 * A pool waiter that keeps its component's rollout record (the `objects` or `settings` it declares)
 * in its own state, beside the machine count and learned timings it observes, instead of a
 * RolloutBaseline of its own. Pulumi's Check sees only a resource's previous inputs, and those
 * observations are the waiter's outputs, so the impact is computed where the provider sees the previous
 * outputs: at diff, which a preview runs, it is logged; at create and update it is kept as the
 * `impact` output.
 */
export function keepingRolloutRecord(provider: dynamic.ResourceProvider): dynamic.ResourceProvider {
  return {
    ...provider,
    async diff(id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
      impactSince(recordIn(olds), news);
      return provider.diff!(id, olds, declaredOnly(news));
    },
    async create(inputs: Record<string, unknown>) {
      // A first deployment has nothing to compare with: its deadline is the waiters' default.
      const created = await provider.create(declaredOnly(inputs));
      return { ...created, outs: { ...created.outs, impact: null } };
    },
    async update(id: string, olds: Record<string, unknown>, news: Record<string, unknown>) {
      const previous = recordIn(olds);
      const deadline = deadlineSincePrevious(previous, news as DeploymentRecord & WaiterPlan, UNKNOWN);
      const updated = await provider.update!(id, olds, withDeadline(declaredOnly(news), deadline));
      // Logged at the preview's diff; here only kept.
      const impact = impactSincePrevious(previous, news as DeploymentRecord, UNKNOWN);
      return { ...updated, outs: { ...withoutDerived(updated.outs, news), impact: impact ?? null } };
    },
  };
}

export interface RolloutBaselineArgs {
  pool: Input<string>;
  /** The node configuration objects the component declares. */
  objects?: Input<unknown[]>;
  /** A pool component's `maxUnavailable` and `paused`. */
  settings?: Input<{ maxUnavailable?: number | string; paused?: boolean }>;
  /** The pool's machine count as its waiter last saw it. */
  machineCount?: Input<number | undefined>;
  /** Per-node timings its waiter saw in the pool's last rollout. */
  learnedTimings?: Input<NodeTimings | null | undefined>;
  /** The impact read from the cluster at preview, when it could be: the cluster wins. */
  clusterImpact?: Input<PoolImpact | undefined>;
}

/** What each RolloutBaseline carries (see `carriedProvider`). */
const carried = carriedProvider(rolloutBaselineProvider, () => self.rolloutBaselineProvider);

/**
 * The last deployed configuration of a component that does not wait (`wait: false`), so that a
 * preview without the cluster can still say what the change does to the nodes (`impact`), against the
 * previous deployment's inputs. A component that waits keeps it in its pool waiter instead
 * (`keepingRolloutRecord`).
 */
export class RolloutBaseline extends dynamic.Resource {
  /** At preview, the impact of the change; null on a first deployment without a cluster. */
  declare public readonly impact: Output<PoolImpact | null | undefined>;

  constructor(name: string, args: RolloutBaselineArgs, opts?: CustomResourceOptions) {
    super(carried, name, { ...args, impact: undefined }, opts, undefined, "RolloutBaseline");
  }
}
