/**
 * A pool's opt-in replacement of machines whose spec its MachineSets' template no longer has (a new
 * instance type, disk, image or spot setting). The machine-api never changes a machine it has made, so
 * without it a changed template reaches only machines created later.
 */
import { IntOrPercent, percentOf, resolveFenceposts } from "../../primitives/int-or-percent";
import { jsonEqual } from "../../primitives/objects";
import { DEFAULT_TIMINGS } from "../rollout-impact/impact";
import { formatDuration } from "../rollout-impact/format";
import { collectErrors, InputError } from "../errors";
import { requireFields, requireNonNegativeInteger, requireOneOf } from "../validation";

export interface MachineReplacementArgs {
  /** `rolling`: new machines first, old ones deleted (and drained) as the new ones are Ready. */
  strategy: "rolling";
  /**
   * Machines each MachineSet may have above its replicas while replacing: a number, or a percentage of
   * the replicas rounded up (`"25%"`); default 1 (0 when autoscaled).
   */
  maxSurge?: number | string;
  /**
   * Machines each MachineSet may have unready below its replicas while replacing: a number, or a
   * percentage of the replicas rounded down (`"25%"`); default 0 (1 when autoscaled).
   */
  maxUnavailable?: number | string;
}

/** The counts the waiter works with, per MachineSet, percentages resolved against each one's replicas. */
export interface MachineReplacementPolicy {
  maxSurge: IntOrPercent;
  maxUnavailable: IntOrPercent;
  /** The replicas declared per MachineSet, which percentages are of; none when autoscaled (its machines). */
  replicas?: Record<string, number>;
}

/**
 * A count or a percentage, as the Deployment's validation accepts one (kubernetes
 * pkg/apis/apps/validation `ValidatePositiveIntOrPercent`, `IsNotMoreThan100Percent` for maxUnavailable).
 */
function requireCountOrPercent(path: string, value: unknown, atMost100: boolean): IntOrPercent {
  if (typeof value !== "string") return requireNonNegativeInteger(path, value);
  const percent = percentOf(value);
  if (percent === undefined)
    throw new InputError(
      path,
      `${JSON.stringify(value)} is neither a whole number nor a percentage: use a number of machines such as 1, or a percentage of the MachineSet's replicas such as "25%"`,
    );
  if (atMost100 && percent > 100)
    throw new InputError(path, `${value} is more than 100% of the MachineSet's replicas`);
  return value;
}

/** 0 or 0%: what the Deployment's validation calls zero (`getIntOrPercentValue(...) == 0`). */
const isZero = (value: IntOrPercent | undefined) =>
  value === 0 || (value !== undefined && percentOf(value) === 0);

const STRATEGIES = ["rolling"] as const;

/**
 * Checks the policy and fills in its defaults. An autoscaled pool's replicas belong to the cluster
 * autoscaler, which writes them itself (and removes machines by the same delete annotation): a surge
 * would be a count the autoscaler did not choose and may take back, so an autoscaled pool replaces by
 * deleting old machines, `maxUnavailable` at a time, and the autoscaler may add machines meanwhile.
 * The pool's waiter does the replacing, so a pool that does not wait cannot have one.
 */
export function requireMachineReplacement(
  value: MachineReplacementArgs,
  autoscaled: boolean,
  waits = true,
): MachineReplacementPolicy {
  requireFields("", value, ["strategy", "maxSurge", "maxUnavailable"], "machineReplacement");
  if (!waits)
    throw new InputError("", "the pool's waiter replaces the machines, and wait is false: leave wait on");
  const [, maxSurge, maxUnavailable] = collectErrors([
    () => requireOneOf("strategy", value.strategy, STRATEGIES),
    () =>
      value.maxSurge === undefined ? undefined : requireCountOrPercent("maxSurge", value.maxSurge, false),
    () =>
      value.maxUnavailable === undefined
        ? undefined
        : requireCountOrPercent("maxUnavailable", value.maxUnavailable, true),
  ]) as [unknown, IntOrPercent | undefined, IntOrPercent | undefined];
  if (autoscaled) {
    if (maxSurge !== undefined && !isZero(maxSurge))
      throw new InputError(
        "maxSurge",
        "an autoscaled pool's replicas belong to the cluster autoscaler, so its machines are replaced by deleting old ones, maxUnavailable at a time (default 1): leave maxSurge out or 0",
      );
    if (isZero(maxUnavailable))
      throw new InputError(
        "maxUnavailable",
        "an autoscaled pool cannot surge, so 0 replaces nothing: use 1 or more (the default is 1)",
      );
    return { maxSurge: 0, maxUnavailable: maxUnavailable ?? 1 };
  }
  const policy = { maxSurge: maxSurge ?? 1, maxUnavailable: maxUnavailable ?? 0 };
  if (isZero(policy.maxSurge) && isZero(policy.maxUnavailable))
    throw new InputError(
      "maxUnavailable",
      "with maxSurge 0, 0 replaces nothing: allow a surge, or machines to be unavailable",
    );
  return policy;
}

/**
 * Whether a provider spec in the cluster differs from the one the program declares, in the fields it
 * declares: the API server's defaults are on old and new machines alike.
 */
export function differsFromDeclared(
  declared: Record<string, unknown>,
  spec: Record<string, unknown>,
): boolean {
  return Object.keys(declared).some((k) => !jsonEqual(spec[k], declared[k]));
}

/** The provider spec fields that name a machine's size, which users recognise machines by. */
const SIZE_FIELDS = ["instanceType", "vmSize"];

/**
 * Seconds a new machine takes to be a Ready node, typical of a cloud RHCOS machine: the instance
 * created, the first boot's Ignition and its reboot into the pool's OS image, the kubelet joining.
 */
export const MACHINE_BOOT_SECONDS = 360;
/** Seconds to drain a node before its machine goes (the rollout impact's default drain). */
export const MACHINE_DRAIN_SECONDS = DEFAULT_TIMINGS.drainSeconds;

/** What the machine-api copies from a MachineSet's template into each Machine it creates, and no later. */
export interface MachineTemplate {
  providerSpec: Record<string, unknown>;
  /** The Machine's own labels (`spec.template.metadata.labels`). */
  labels: Record<string, string>;
}

const lacksLabels = (template: MachineTemplate, machine: MachineTemplate) =>
  Object.entries(template.labels).some(([k, v]) => machine.labels[k] !== v);

/**
 * The waves of a replacement of `old` machines, `surge` new and `unavailable` old ones at a time, each
 * a new machine booted and an old one drained; MachineSets are replaced side by side.
 */
export function replacementEstimate(
  old: number,
  surge: number,
  unavailable: number,
): { waves: number; seconds: number } {
  const waves = Math.ceil(old / Math.max(1, surge + unavailable));
  return { waves, seconds: waves * (MACHINE_BOOT_SECONDS + MACHINE_DRAIN_SECONDS) };
}

/**
 * What a preview says of a MachineSet whose template no longer matches some of its machines: which
 * machines keep what, and what replacing them does (with the waves and a time estimate). `template` is
 * what the program declares, `machines` what its live machines have; undefined when every machine has
 * the declared provider spec and labels. A replacement replaces machines on another provider spec; one
 * that differs only by its labels keeps them (its labels are the machine-api's to read, nothing drains).
 */
export function machineSpecChange(
  machineSet: string,
  template: MachineTemplate,
  machines: ReadonlyArray<MachineTemplate>,
  policy: MachineReplacementPolicy | undefined,
): string | undefined {
  const spec = template.providerSpec;
  const differs = (m: Record<string, unknown>, k: string) => !jsonEqual(m[k], spec[k]);
  const outdated = machines.filter((m) => differsFromDeclared(spec, m.providerSpec));
  const unlabelled = machines.filter((m) => lacksLabels(template, m) && !(policy && outdated.includes(m)));
  const lines: string[] = [];
  if (outdated.length > 0) {
    const old = outdated.map((m) => m.providerSpec);
    const changed = Object.keys(spec)
      .filter((k) => old.some((m) => differs(m, k)))
      .sort();
    const size = SIZE_FIELDS.find((k) => changed.includes(k));
    const others = changed.filter((k) => k !== size);
    const sizes = size ? [...new Set(old.map((m) => String(m[size])))].sort().join(", ") : undefined;
    const also = others.length > 0 ? ` (also ${others.join(", ")})` : "";
    const oldSpec = sizes ?? `the previous ${others.join(", ")}`;
    const newSpec = size ? `${String(spec[size])}${also}` : `the new ${others.join(", ")}`;
    const count = machineCount(old.length);
    if (!policy) {
      lines.push(
        `${count} ${old.length === 1 ? "keeps" : "keep"} ${oldSpec}; only new machines get ${newSpec} (machineReplacement replaces them)`,
      );
    } else {
      const replicas = policy.replicas?.[machineSet] ?? machines.length;
      const { surge, unavailable } = resolveFenceposts(policy.maxSurge, policy.maxUnavailable, replicas);
      const pace =
        surge > 0
          ? `${surge} new first, an old one deleted (drained) as each new one is Ready, ${unavailable === 0 ? "none" : `at most ${unavailable}`} unavailable`
          : `${unavailable} at a time deleted (drained) first, each replaced from the template`;
      const { waves, seconds } = replacementEstimate(old.length, surge, unavailable);
      lines.push(
        `${count} on ${oldSpec} replaced by machines with ${newSpec}, ${pace}; ${waves === 1 ? "1 wave" : `${waves} waves`}, ${formatDuration(seconds)}`,
      );
    }
  }
  if (unlabelled.length > 0) {
    const labels = Object.entries(template.labels)
      .filter(([k, v]) => unlabelled.some((m) => m.labels[k] !== v))
      .map(([k, v]) => `${k}=${v}`)
      .sort();
    lines.push(
      `${machineCount(unlabelled.length)} ${unlabelled.length === 1 ? "keeps its" : "keep their"} machine labels; only new machines get ${labels.join(", ")}`,
    );
  }
  return lines.length > 0 ? `MachineSet ${machineSet}: ${lines.join("; ")}` : undefined;
}

const machineCount = (n: number) => (n === 1 ? "1 machine" : `${n} machines`);
