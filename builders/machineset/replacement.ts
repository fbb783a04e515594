/**
 * A pool's opt-in replacement of machines whose spec its MachineSets' template no longer has (a new
 * instance type, disk, image or spot setting). The machine-api never changes a machine it has made, so
 * without it a changed template reaches only machines created later.
 */
import { collectErrors, InputError } from "../errors";
import { requireFields, requireNonNegativeInteger, requireOneOf } from "../validation";

export interface MachineReplacementArgs {
  /** `rolling`: new machines first, old ones deleted (and drained) as the new ones are Ready. */
  strategy: "rolling";
  /** Machines each MachineSet may have above its replicas while replacing; default 1 (0 when autoscaled). */
  maxSurge?: number;
  /** Machines each MachineSet may have unready below its replicas while replacing; default 0 (1 when autoscaled). */
  maxUnavailable?: number;
}

/** The counts the waiter works with, per MachineSet. */
export interface MachineReplacementPolicy {
  maxSurge: number;
  maxUnavailable: number;
}

const STRATEGIES = ["rolling"] as const;

/**
 * Checks the policy and fills in its defaults. An autoscaled pool's replicas belong to the cluster
 * autoscaler, which writes them itself (and removes machines by the same delete annotation): a surge
 * would be a count the autoscaler did not choose and may take back, so an autoscaled pool replaces by
 * deleting old machines, `maxUnavailable` at a time, and the autoscaler may add machines meanwhile.
 */
export function requireMachineReplacement(
  value: MachineReplacementArgs,
  autoscaled: boolean,
): MachineReplacementPolicy {
  requireFields("", value, ["strategy", "maxSurge", "maxUnavailable"], "machineReplacement");
  const [, maxSurge, maxUnavailable] = collectErrors([
    () => requireOneOf("strategy", value.strategy, STRATEGIES),
    () => (value.maxSurge === undefined ? undefined : requireNonNegativeInteger("maxSurge", value.maxSurge)),
    () =>
      value.maxUnavailable === undefined
        ? undefined
        : requireNonNegativeInteger("maxUnavailable", value.maxUnavailable),
  ]);
  if (autoscaled) {
    if (maxSurge)
      throw new InputError(
        "maxSurge",
        "an autoscaled pool's replicas belong to the cluster autoscaler, so its machines are replaced by deleting old ones, maxUnavailable at a time (default 1): leave maxSurge out or 0",
      );
    if (maxUnavailable === 0)
      throw new InputError(
        "maxUnavailable",
        "an autoscaled pool cannot surge, so 0 replaces nothing: use 1 or more (the default is 1)",
      );
    return { maxSurge: 0, maxUnavailable: maxUnavailable ?? 1 };
  }
  const policy = { maxSurge: maxSurge ?? 1, maxUnavailable: maxUnavailable ?? 0 };
  if (policy.maxSurge === 0 && policy.maxUnavailable === 0)
    throw new InputError(
      "maxUnavailable",
      "with maxSurge 0, 0 replaces nothing: allow a surge, or machines to be unavailable",
    );
  return policy;
}
