/** A pool's rollout impact in words: what its render does to its nodes. */
import { ImpactCause, PoolImpact } from "./impact";

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `about 12 min`, `about 40 s`. */
export function formatDuration(seconds: number): string {
  return seconds < 60 ? `about ${seconds} s` : `about ${Math.round(seconds / 60)} min`;
}

/** `drain and reboot`, `reload crio.service`, `drain, then reload crio.service`. */
export function describeAction(impact: PoolImpact): string {
  if (impact.action === "reboot") return "drain and reboot";
  const steps = impact.steps.join(", ");
  if (impact.action === "drain") return steps ? `drain, then ${steps}` : "drain";
  return steps || "apply without disruption";
}

export function describeCause(c: ImpactCause): string {
  const what = c.kind === "sshKeys" ? "SSH keys" : `${c.kind} ${c.name}`;
  return c.source ? `${what} of ${c.source}` : what;
}

/** The first cause (the deciding one when nodes reboot), and how many more. */
export function causeSummary(impact: PoolImpact): string {
  const [first, ...rest] = impact.causes;
  if (!first) return "";
  return `${describeCause(first)}${rest.length ? ` and ${rest.length} more` : ""}`;
}

/**
 * `new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min (file /etc/chrony.conf of
 * 99-infra-chrony)`: what the render does, without the pool's name.
 */
export function renderPhrase(impact: PoolImpact): string {
  if (!impact.newRender) {
    const since = impact.against === "previous deployment" ? " since the previous deployment" : "";
    const held = impact.unpauses
      ? "; unpausing starts any rollout the pool held (unknown without the cluster)"
      : "";
    return `no new render; nodes unchanged${since}${held}`;
  }
  const render = impact.pending ? "pending render" : "new render";
  if (impact.machineCount === 0) {
    // The machine config server gives a joining node the pool's current render: nothing drains.
    return `${render}; no nodes in the pool: nodes that join boot with it (${causeSummary(impact)})`;
  }
  const nodes = plural(impact.machineCount, "node");
  const phrase =
    `${render}; ${nodes} ${describeAction(impact)}, ${impact.atATime} at a time, ` +
    `${plural(impact.waves, "wave")}, ${formatDuration(impact.durationSeconds)}` +
    `${impact.timingsLearned ? " learned from the last rollout" : ""} (${causeSummary(impact)})` +
    `${impact.against === "previous deployment" ? "; against the previous deployment's inputs" : ""}`;
  return impact.paused ? `${phrase}; the pool is paused: the rollout waits for unpausing` : phrase;
}

/**
 * `pool infra: new render; 3 nodes drain and reboot, 1 at a time, 3 waves, about 12 min (file
 * /etc/chrony.conf of 99-infra-chrony)`.
 */
export function impactLine(impact: PoolImpact): string {
  return `pool ${impact.pool}: ${renderPhrase(impact)}`;
}

/** Whether `message` is a preview's line about a pool's nodes (`pool infra: ...`), of `pool` when given. */
export function isPoolLine(message: string, pool?: string): boolean {
  const named = /^pool ([^\s:]+): /.exec(message);
  return named !== null && (pool === undefined || named[1] === pool);
}
