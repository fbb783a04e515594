/**
 * Counts given as a whole number or a percentage, resolved as Kubernetes resolves them: the waiter
 * that replaces machines and the preview that describes it read the same numbers.
 */

/** A count of machines: a whole number, or a percentage of the MachineSet's replicas (`"25%"`). */
export type IntOrPercent = number | string;

const PERCENT = /^(\d+)%$/;

/** The percentage in `value`, or undefined when it is not one (`"25%"` -> 25). */
export function percentOf(value: IntOrPercent): number | undefined {
  const m = typeof value === "string" ? PERCENT.exec(value) : null;
  return m ? Number(m[1]) : undefined;
}

/**
 * k8s.io/apimachinery pkg/util/intstr `GetScaledValueFromIntOrPercent`: a number as it is, a percentage
 * of `total` rounded up or down.
 */
export function scaledValue(value: IntOrPercent, total: number, roundUp: boolean): number {
  const percent = percentOf(value);
  if (percent === undefined) return value as number;
  const exact = (percent * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/**
 * kubernetes pkg/controller/deployment/util/deployment_util.go `ResolveFenceposts` (cluster-api's
 * MachineDeployment `mdutil.ResolveFenceposts` alike): the surge rounds up and the unavailable rounds
 * down, so a percentage never blocks progress by rounding to nothing on both; when both come to 0,
 * one machine may be unavailable.
 */
export function resolveFenceposts(
  maxSurge: IntOrPercent,
  maxUnavailable: IntOrPercent,
  desired: number,
): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge, desired, true);
  const unavailable = scaledValue(maxUnavailable, desired, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}
