import { CustomResourceOptions, dynamic, Input, Output } from "@pulumi/pulumi";
import { DeploymentRecord, impactLine, impactSincePrevious, PoolImpact } from "../../builders/rollout-impact";
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
 * The provider of RolloutBaseline. A component cannot read its own previous state, but a provider's
 * `check` receives the resource's previous inputs beside the new ones: there the impact of the change
 * is computed and logged, and returned among the checked inputs, which a preview reports as the
 * resource's outputs. Nothing touches the cluster: create and update only keep the inputs.
 */
export const rolloutBaselineProvider: dynamic.ResourceProvider = {
  async check(olds: Record<string, unknown>, news: Record<string, unknown>) {
    const previous = olds.pool === undefined ? undefined : (olds as DeploymentRecord);
    const impact = impactSincePrevious(previous, news as DeploymentRecord, UNKNOWN);
    // The program logs the cluster's answer on its component; this adds what only the previous
    // deployment knows: the whole answer without a cluster, the learned timings with one.
    if (impact && (news.clusterImpact === undefined || impact.timingsLearned)) {
      const { log } = require("@pulumi/pulumi") as typeof import("@pulumi/pulumi");
      void log.info(impactLine(impact));
    }
    // Always set, so that a preview knows it: null when there is no answer.
    return { inputs: { ...news, impact: impact ?? null }, failures: [] };
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
 * The last deployed configuration of a component's pool, so that a preview without the cluster can
 * still say what the change does to the nodes (`impact`), against the previous deployment's inputs.
 */

export class RolloutBaseline extends dynamic.Resource {
  /** At preview, the impact of the change; null on a first deployment without a cluster. */
  declare public readonly impact: Output<PoolImpact | null | undefined>;

  constructor(name: string, args: RolloutBaselineArgs, opts?: CustomResourceOptions) {
    super(carried, name, { ...args, impact: undefined }, opts, undefined, "RolloutBaseline");
  }
}
