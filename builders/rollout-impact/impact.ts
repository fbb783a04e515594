/**
 * What a change of a pool's configuration does to its nodes: whether the MCO renders a new config, the
 * action every node takes and why, how many nodes update at a time, the waves and a duration estimate.
 */
import { InputError } from "../errors";
import { percentOf, scaledValue } from "../../primitives/int-or-percent";
import {
  Cause,
  DisruptionAction,
  NodeDisruptionPolicy,
  decide,
  mergeClusterPolicies,
  serviceOf,
} from "./rules";
import { PoolConfigs, diffViews, renderedView, sourceOf } from "./render";

/** Seconds one node spends per step; the defaults are typical of a cloud RHCOS node. */
export interface RolloutTimings {
  /** Writing files and staging the OS update, paid by every node: 30. */
  applySeconds: number;
  /** Cordon and drain (pod eviction): 60. */
  drainSeconds: number;
  /** Reboot until the node is Ready again: 150. */
  rebootSeconds: number;
  /** One service reload (e.g. crio) or `systemctl daemon-reload`: 5. */
  reloadSeconds: number;
  /** One service restart: 15. */
  restartSeconds: number;
  /** A new machine until its node is Ready (provisioning, first boot, joining), when machines are replaced: 300. */
  machineSeconds: number;
}

export const DEFAULT_TIMINGS: RolloutTimings = {
  applySeconds: 30,
  drainSeconds: 60,
  rebootSeconds: 150,
  reloadSeconds: 5,
  restartSeconds: 15,
  machineSeconds: 300,
};

export interface RolloutImpactInput {
  pool: string;
  before: PoolConfigs;
  after: PoolConfigs;
  /** Nodes in the pool. */
  machineCount: number;
  /** The pool's `spec.maxUnavailable`: a whole number or a percentage; default 1. */
  maxUnavailable?: number | string;
  paused?: boolean;
  /** `spec.nodeDisruptionPolicy` of `machineconfigurations.operator.openshift.io/cluster`. */
  nodeDisruptionPolicy?: NodeDisruptionPolicy;
  timings?: Partial<RolloutTimings>;
}

/** The summary of what a node does, from most to least disruptive. */
export type NodeAction = "reboot" | "drain" | "restart" | "reload" | "none";

export interface ImpactCause extends Cause {
  /** The MachineConfig (or generated config) the changed item comes from. */
  source: string;
}

export interface PoolImpact {
  pool: string;
  newRender: boolean;
  /**
   * The rollout is one the pool already has pending (a render its nodes have not all reached) rather
   * than a new render: what a pool's own settings move.
   */
  pending?: boolean;
  /** The per-node drain and reboot times are the ones seen in the pool's last rollout. */
  timingsLearned?: boolean;
  /** What the change was compared with: the cluster, or (no cluster at hand) the previous deployment. */
  against?: "cluster" | "previous deployment";
  /** The change unpauses the pool, which starts whatever rollout it held (unknown without a cluster). */
  unpauses?: boolean;
  paused: boolean;
  action: NodeAction;
  drain: boolean;
  /** The node's post-update steps in order, e.g. `reload crio.service`, `daemon-reload`. */
  steps: string[];
  causes: ImpactCause[];
  machineCount: number;
  /** maxUnavailable resolved against the machine count. */
  atATime: number;
  waves: number;
  perNodeSeconds: number;
  durationSeconds: number;
}

/**
 * pkg/controller/node `maxUnavailable`: intstr scaled against the node count rounding down
 * (`GetScaledValueFromIntOrPercent(..., false)`), and never below 1.
 */
export function resolveMaxUnavailable(value: number | string | undefined, nodes: number): number {
  const v = value ?? 1;
  if (typeof v === "string" && percentOf(v) === undefined)
    throw new InputError("maxUnavailable", `${JSON.stringify(v)} is neither a whole number nor a percentage`);
  // The MCO node controller's maxUnavailable: GetScaledValueFromIntOrPercent rounding down, at least one.
  const n = scaledValue(v, nodes, false);
  if (!Number.isInteger(n) || n < 0)
    throw new InputError(
      "maxUnavailable",
      `${JSON.stringify(v)} is not allowed: use a whole number or a percentage`,
    );
  return Math.max(n, 1);
}

function stepOf(a: DisruptionAction): string | undefined {
  if (a.type === "DaemonReload") return "daemon-reload";
  const service = serviceOf(a);
  if (!service) return undefined;
  return `${a.type === "Restart" ? "restart" : "reload"} ${service}`;
}

export function rolloutImpact(input: RolloutImpactInput): PoolImpact {
  const t = { ...DEFAULT_TIMINGS, ...input.timings };
  const before = renderedView(input.pool, input.before);
  const after = renderedView(input.pool, input.after);
  const diff = diffViews(before, after);
  const newRender = diff.fields.length + diff.files.length + diff.units.length > 0 || diff.sshKeys;
  const atATime = resolveMaxUnavailable(input.maxUnavailable, input.machineCount);
  const paused = input.paused === true;
  const base = { pool: input.pool, paused, machineCount: input.machineCount, atATime };
  if (!newRender) {
    return {
      ...base,
      newRender,
      action: "none",
      drain: false,
      steps: [],
      causes: [],
      waves: 0,
      perNodeSeconds: 0,
      durationSeconds: 0,
    };
  }
  const decision = decide(diff, mergeClusterPolicies(input.nodeDisruptionPolicy));
  const reboot = decision.actions.some((a) => a.type === "Reboot");
  const steps = [...new Set(decision.actions.map(stepOf).filter((s): s is string => s !== undefined))];
  const action: NodeAction = reboot
    ? "reboot"
    : decision.drain
      ? "drain"
      : steps.some((s) => s.startsWith("restart"))
        ? "restart"
        : steps.length > 0
          ? "reload"
          : "none";
  const waves = Math.ceil(input.machineCount / atATime);
  return withTimings(
    {
      ...base,
      newRender,
      action,
      drain: decision.drain,
      steps: reboot ? [] : steps,
      causes: decision.causes.map((c) => ({ ...c, source: sourceOf(c.kind, c.name, before, after) })),
      waves,
      perNodeSeconds: 0,
      durationSeconds: 0,
    },
    t,
  );
}

/** The impact's estimate redone with other per-node timings (e.g. those learned from a rollout). */
export function withTimings(impact: PoolImpact, timings: Partial<RolloutTimings>): PoolImpact {
  if (!impact.newRender) return impact;
  const t = { ...DEFAULT_TIMINGS, ...timings };
  const perNodeSeconds =
    t.applySeconds +
    (impact.drain ? t.drainSeconds : 0) +
    (impact.action === "reboot" ? t.rebootSeconds : 0) +
    impact.steps.reduce((s, x) => s + (x.startsWith("restart") ? t.restartSeconds : t.reloadSeconds), 0);
  return { ...impact, perNodeSeconds, durationSeconds: impact.waves * perNodeSeconds };
}
