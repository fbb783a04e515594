/**
 * One summary per pool of everything a program declares for it, as `up` then does it together: the
 * render of its MachineConfigs, KubeletConfigs and ContainerRuntimeConfigs (one render, one rollout,
 * whichever component declares each), the replacement of machines whose spec its MachineSets' template
 * no longer has, and the labels and taints its running nodes get. A preview prints one line per pool;
 * ROLLOUT.md has one row per pool.
 */
import { machineLabelsPhrase, MachineSetChange, replacementPace, specsOf } from "../machineset/replacement";
import { DEFAULT_TIMINGS, PoolImpact, RolloutTimings } from "./impact";
import { causeSummary, describeAction, describeCause, formatDuration, plural, renderPhrase } from "./format";

export interface PoolSummary {
  pool: string;
  /** What the pool's render does to its nodes; undefined when unknown (or the pool is new). */
  render?: PoolImpact;
  /** The pool is not in the cluster yet: its nodes boot with its first render. */
  newPool?: boolean;
  /** Its MachineSets whose machines run another spec than their template, or lack its machine labels. */
  machineSets: MachineSetChange[];
  /** What its running nodes' labels and taints become, one phrase each (no drain, no reboot). */
  nodeMetadata: string[];
  /** The pools it rolls out after: it stays paused until they have rolled out. */
  after?: string[];
  /** The pools that roll out after it (a canary's parent). */
  then?: string[];
}

/** The machines a pool replaces: how many, in how many waves at most, and how long. */
export interface ReplacementEstimate {
  machines: number;
  /** Waves of the MachineSet with the most, which replace in parallel. */
  waves: number;
  durationSeconds: number;
}

/**
 * Each MachineSet replaces `surge + unavailable` machines at a time (at least one), all MachineSets at
 * once (provider/waiting/replacement.ts plans each apart); a wave is a new machine becoming a Ready node
 * and the drain of the old one it replaces. Undefined when nothing is replaced.
 */
export function replacementEstimate(
  changes: MachineSetChange[],
  timings: Partial<RolloutTimings> = {},
): ReplacementEstimate | undefined {
  const replaced = changes.filter((c) => c.replacement);
  if (replaced.length === 0) return undefined;
  const t = { ...DEFAULT_TIMINGS, ...timings };
  const waves = Math.max(
    ...replaced.map((c) =>
      Math.ceil(c.machines / Math.max(1, c.replacement!.surge + c.replacement!.unavailable)),
    ),
  );
  return {
    machines: replaced.reduce((n, c) => n + c.machines, 0),
    waves,
    durationSeconds: waves * (t.machineSeconds + t.drainSeconds),
  };
}

const distinct = (xs: string[]) => [...new Set(xs)];

/** How many machines each replacing MachineSet replaces at a time: `1`, or `1 or 2` when they differ. */
function replacementAtATime(changes: MachineSetChange[]): string {
  const each = changes.flatMap((c) =>
    c.replacement ? [Math.max(1, c.replacement.surge + c.replacement.unavailable)] : [],
  );
  return distinct([...each].sort((a, b) => a - b).map(String)).join(" or ");
}

/** `m6i.xlarge`, or `m6i.large, m6i.xlarge` when the MachineSets differ. */
function specs(changes: MachineSetChange[]): { from: string; to: string } {
  const each = changes.map(specsOf);
  return {
    from: distinct(each.flatMap((s) => s.from.split(", "))).join(", "),
    to: distinct(each.map((s) => s.to)).join(", "),
  };
}

/**
 * `3 machines on m6i.xlarge replaced by m6i.2xlarge (1 new first, ... per MachineSet), 3 waves, about 18
 * min`, or `3 machines keep m6i.xlarge; only new machines get m6i.2xlarge (machineReplacement replaces
 * them)`; then the machines that keep their machine labels.
 */
export function machinesPhrase(changes: MachineSetChange[], timings: Partial<RolloutTimings> = {}): string {
  const parts: string[] = [];
  const kept = changes.filter((c) => !c.replacement && c.machines > 0);
  if (kept.length > 0) {
    const n = kept.reduce((sum, c) => sum + c.machines, 0);
    const { from, to } = specs(kept);
    parts.push(
      `${plural(n, "machine")} ${n === 1 ? "keeps" : "keep"} ${from}; only new machines get ${to} (machineReplacement replaces them)`,
    );
  }
  const estimate = replacementEstimate(changes, timings);
  if (estimate) {
    const replaced = changes.filter((c) => c.replacement);
    const { from, to } = specs(replaced);
    const paces = distinct(replaced.map((c) => replacementPace(c.replacement!)));
    const sets = replaced.length > 1 ? ` in each of ${replaced.length} MachineSets` : "";
    const pace =
      paces.length === 1 ? `${paces[0]}${sets}` : `each of ${replaced.length} MachineSets at its own pace`;
    parts.push(
      `${plural(estimate.machines, "machine")} on ${from} replaced by ${to} (${pace}), ` +
        `${plural(estimate.waves, "wave")}, ${formatDuration(estimate.durationSeconds)}`,
    );
  }
  const relabelled = changes.flatMap((c) => (c.machineLabels ? [c.machineLabels] : []));
  if (relabelled.length > 0)
    parts.push(
      machineLabelsPhrase({
        machines: relabelled.reduce((n, l) => n + l.machines, 0),
        labels: distinct(relabelled.flatMap((l) => l.labels)).sort(),
      }),
    );
  return parts.join("; ");
}

/**
 * The render's part when machines are replaced at the same time: the MCO updates the old nodes while
 * the replacement deletes them, and the new ones boot with the new render (the machine config server
 * serves the pool's target), so the pool is done once the replacement is, and only the old nodes the
 * MCO reaches first drain and reboot.
 */
function renderBesideReplacement(render: PoolImpact): string {
  if (render.machineCount === 0 || render.paused) return renderPhrase(render);
  return (
    `${render.pending ? "pending" : "new"} render at the same time (${causeSummary(render)}): ` +
    `old nodes ${describeAction(render)} ${render.atATime} at a time until they are replaced ` +
    `(up to ${render.machineCount}), new ones boot with it`
  );
}

/**
 * How long the pool's change takes: the replacement, when machines are replaced (the render then ends
 * with it), else the render's rollout; undefined when no node moves.
 */
export function poolEstimate(
  summary: PoolSummary,
  timings: Partial<RolloutTimings> = {},
): number | undefined {
  const replacement = replacementEstimate(summary.machineSets, timings);
  if (replacement) return replacement.durationSeconds;
  return summary.render?.newRender && summary.render.machineCount > 0
    ? summary.render.durationSeconds
    : undefined;
}

/**
 * `pool infra: <machines>; <render>; <labels and taints>`: one line, every part of it what `up` does.
 * A pool whose render, machines and node metadata all stay says so in a few words.
 */
export function summaryLine(summary: PoolSummary, timings: Partial<RolloutTimings> = {}): string {
  const parts: string[] = [];
  const machines = machinesPhrase(summary.machineSets, timings);
  if (machines) parts.push(machines);
  const render = summary.render;
  if (summary.newPool) parts.push("not in the cluster yet: its nodes boot with its first render");
  else if (render?.newRender)
    parts.push(
      replacementEstimate(summary.machineSets, timings)
        ? renderBesideReplacement(render)
        : renderPhrase(render),
    );
  else if (render && (parts.length > 0 || summary.nodeMetadata.length > 0)) {
    // "nodes unchanged" would be untrue beside what does change them.
    parts.push(renderPhrase(render).replace(/^no new render; nodes unchanged/, "no new render"));
  } else if (render) parts.push(renderPhrase(render));
  parts.push(...summary.nodeMetadata);
  if (summary.after && render?.newRender && render.machineCount > 0)
    parts.push(
      `after ${summary.after.join(" and ")} ${summary.after.length > 1 ? "have" : "has"} rolled out`,
    );
  if (summary.then && render?.newRender && render.machineCount > 0)
    parts.push(`then ${summary.then.join(" and ")}`);
  return `pool ${summary.pool}: ${parts.join("; ")}`;
}

/**
 * How long the MCO's drain controller retries a node's drain before it reports the drain failed
 * (openshift/machine-config-operator pkg/controller/drain/drain_controller.go `DefaultConfig`,
 * DrainTimeoutDuration: an hour, after which it emits DrainFailed and keeps retrying).
 */
export const MCO_DRAIN_TIMEOUT_SECONDS = 3600;

/** The waiters' deadline when the program sets none (provider/dynamic/common.ts DEFAULT_TIMEOUT_SECONDS): 30 minutes. */
export const DEFAULT_DEADLINE_SECONDS = 1800;

/** Twice the estimate, never less than DEFAULT_DEADLINE_SECONDS: what a pool waiter waits when not told. */
export function deadlineFor(estimateSeconds: number | undefined): number {
  return Math.max(DEFAULT_DEADLINE_SECONDS, Math.ceil(2 * (estimateSeconds ?? 0)));
}

/** `1h30m`, `90s`: a deadline as `waitTimeouts` writes one. */
function asDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h ? `${h}h` : ""}${m ? `${m}m` : ""}${s || (!h && !m) ? `${s}s` : ""}`;
}

/**
 * Why a configured deadline (`waitTimeouts`, the longer of create and update, in seconds) is too short
 * for the pool's change, or undefined: shorter than its estimate, or, for a render that drains nodes,
 * than the MCO's drain timeout (a drain a PodDisruptionBudget holds would end the wait before the MCO
 * reports it).
 */
export function deadlineProblem(
  summary: PoolSummary,
  deadlineSeconds: number | undefined,
): string | undefined {
  if (deadlineSeconds === undefined) return undefined;
  const render = summary.render;
  // A paused pool's rollout waits for unpausing: its waiter says so at once, whatever the deadline.
  const estimate = render?.paused
    ? replacementEstimate(summary.machineSets)?.durationSeconds
    : poolEstimate(summary);
  const drains = render?.newRender === true && render.drain && render.machineCount > 0 && !render.paused;
  const than = [
    ...(estimate !== undefined && deadlineSeconds < estimate
      ? [`this change's estimate (${formatDuration(estimate)})`]
      : []),
    ...(drains && deadlineSeconds < MCO_DRAIN_TIMEOUT_SECONDS
      ? ["the MCO's drain timeout (1h, after which it reports a drain a PodDisruptionBudget holds)"]
      : []),
  ];
  if (than.length === 0) return undefined;
  return `waitTimeouts (${asDuration(deadlineSeconds)}) is shorter than ${than.join(" and ")}: up can fail while the rollout goes on; give more, or leave it out (the default is twice the estimate, 30m at least)`;
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** One Markdown table of all pools (a row each), then the rule per changed item. */
export function summaryMarkdown(summaries: PoolSummary[], timings: Partial<RolloutTimings> = {}): string {
  const rows = summaries.map((s) => {
    const i = s.render;
    const renders = i?.newRender === true;
    const replacement = replacementEstimate(s.machineSets, timings);
    const estimate = poolEstimate(s, timings);
    // The pace and waves of what the estimate counts: a replacement, when machines are replaced (the
    // render's old nodes go with it), else the render's.
    const atATime = replacement
      ? `${replacementAtATime(s.machineSets)} per MachineSet`
      : i
        ? String(i.atATime)
        : "-";
    return [
      s.pool,
      i ? String(i.machineCount) : "-",
      renders ? "yes" : "no",
      renders
        ? `${describeAction(i!)}${replacement ? " until replaced; new ones boot with it" : ""}`
        : "none",
      atATime,
      String(replacement?.waves ?? (renders ? i!.waves : 0)),
      estimate === undefined ? "-" : formatDuration(estimate),
      s.machineSets.length > 0 ? machinesPhrase(s.machineSets, timings) : "none",
      s.nodeMetadata.length > 0 ? s.nodeMetadata.join("; ") : "none",
      i?.paused ? "yes (waits for unpausing)" : "no",
      (i && causeSummary(i)) || "-",
    ]
      .map(cell)
      .join(" | ");
  });
  const lines = [
    "| Pool | Nodes | New render | Each node | At a time | Waves | Estimate | Machines | Labels and taints | Paused | Cause |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ...rows.map((r) => `| ${r} |`),
  ];
  const detail = summaries.flatMap((s) =>
    (s.render?.causes ?? []).map((c) => `- ${s.pool}: ${cell(describeCause(c))}: ${cell(c.rule)}`),
  );
  return (
    [...lines, ...(detail.length ? ["", "Changes and the MCO rule that decides:", "", ...detail] : [])].join(
      "\n",
    ) + "\n"
  );
}

/** The table of render impacts alone (see summaryMarkdown). */
export function impactMarkdown(impacts: PoolImpact[]): string {
  return summaryMarkdown(
    impacts.map((render) => ({ pool: render.pool, render, machineSets: [], nodeMetadata: [] })),
  );
}

/**
 * What the canary's nodes do as they join it and, on destroy, as they return to their pool: nothing
 * while the two pools render the same configuration (the daemon finds no change), else the canary's
 * rollout phrase.
 */
export function canaryPhrases(
  canary: { parent: string; joining: string[]; returning: string[] },
  move: { join: PoolImpact; back: PoolImpact; leave: PoolImpact } | undefined,
): string[] {
  const nodes = (names: string[]) => `${names.length === 1 ? "node" : "nodes"} ${names.join(", ")}`;
  const what = (impact: PoolImpact | undefined) =>
    !impact
      ? `rollout unknown: the cluster has no pool ${canary.parent}`
      : impact.newRender
        ? describeAction(impact)
        : `the same configuration as ${canary.parent} (no drain, no reboot)`;
  return [
    ...(canary.joining.length > 0
      ? [
          `${nodes(canary.joining)} ${canary.joining.length === 1 ? "joins" : "join"} from ${canary.parent}: ${what(move?.join)}`,
        ]
      : []),
    ...(canary.returning.length > 0
      ? [
          `${nodes(canary.returning)} ${canary.returning.length === 1 ? "returns" : "return"} to ${canary.parent}: ${what(move?.back)}`,
        ]
      : []),
    // Said when nodes join, and while returning them would roll out (the canary has configs of its own).
    ...(canary.joining.length > 0 || move?.leave.newRender
      ? [`destroy returns its nodes to ${canary.parent}: ${what(move?.leave)}`]
      : []),
  ];
}
