/**
 * A pool's opt-in replacement of machines whose spec its MachineSets' template no longer has (a new
 * instance type, disk, image or spot setting). The machine-api never changes a machine it has made, so
 * without it a changed template reaches only machines created later.
 */
import { IntOrPercent, percentOf, resolveFenceposts } from "../../primitives/int-or-percent";
import { jsonEqual } from "../../primitives/objects";
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

/** What the machine-api copies from a MachineSet's template into each Machine it creates, and no later. */
export interface MachineTemplate {
  providerSpec: Record<string, unknown>;
  /** The Machine's own labels (`spec.template.metadata.labels`). */
  labels: Record<string, string>;
}

/**
 * A MachineSet whose machines run another provider spec than its template, or lack the machine labels
 * it now gives, as a preview tells it.
 */
export interface MachineSetChange {
  machineSet: string;
  /** Live machines on another spec than the template's; 0 when only machine labels differ. */
  machines: number;
  /** The size (instance type, VM size) they run, and the template's, when that is what differs. */
  size?: { from: string[]; to: string };
  /** The other declared provider spec fields that differ, sorted. */
  fields: string[];
  /** How machineReplacement replaces those machines, per MachineSet; undefined: they keep their spec. */
  replacement?: { surge: number; unavailable: number };
  /**
   * Machines that keep their machine labels, and the template's (`key=value`, sorted) only new machines
   * get: a replacement renews only the machines on another spec, and nothing else writes a Machine's
   * own labels (its node labels and taints reach it: NodeLabelsAndTaints).
   */
  machineLabels?: { machines: number; labels: string[] };
}

const lacksLabels = (template: MachineTemplate, machine: MachineTemplate) =>
  Object.entries(template.labels).some(([k, v]) => machine.labels[k] !== v);

/**
 * The machines of a MachineSet whose spec or machine labels its template no longer has. `template` is
 * what the program declares, `machines` what its live machines have; undefined when every machine has
 * the declared provider spec and labels.
 */
export function machineSetChange(
  machineSet: string,
  template: MachineTemplate,
  machines: ReadonlyArray<MachineTemplate>,
  policy: MachineReplacementPolicy | undefined,
): MachineSetChange | undefined {
  const spec = template.providerSpec;
  const outdated = machines.filter((m) => differsFromDeclared(spec, m.providerSpec));
  // A machine replaced for its spec is made anew from the template, with its labels.
  const unlabelled = machines.filter((m) => lacksLabels(template, m) && !(policy && outdated.includes(m)));
  if (outdated.length === 0 && unlabelled.length === 0) return undefined;
  const old = outdated.map((m) => m.providerSpec);
  const changed = Object.keys(spec)
    .filter((k) => old.some((m) => !jsonEqual(m[k], spec[k])))
    .sort();
  const size = SIZE_FIELDS.find((k) => changed.includes(k));
  const replicas = policy?.replicas?.[machineSet] ?? machines.length;
  const labels = Object.entries(template.labels)
    .filter(([k, v]) => unlabelled.some((m) => m.labels[k] !== v))
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  return {
    machineSet,
    machines: old.length,
    ...(size
      ? { size: { from: [...new Set(old.map((m) => String(m[size])))].sort(), to: String(spec[size]) } }
      : {}),
    fields: changed.filter((k) => k !== size),
    ...(policy && old.length > 0
      ? { replacement: resolveFenceposts(policy.maxSurge, policy.maxUnavailable, replicas) }
      : {}),
    ...(unlabelled.length > 0 ? { machineLabels: { machines: unlabelled.length, labels } } : {}),
  };
}

/** `m6i.xlarge` and `m6i.2xlarge (also rootVolume)`, or `the previous rootVolume` and `the new rootVolume`. */
export function specsOf(change: Pick<MachineSetChange, "size" | "fields">): { from: string; to: string } {
  const also = change.fields.length > 0 ? ` (also ${change.fields.join(", ")})` : "";
  return change.size
    ? { from: change.size.from.join(", "), to: `${change.size.to}${also}` }
    : { from: `the previous ${change.fields.join(", ")}`, to: `the new ${change.fields.join(", ")}` };
}

/** How a replacement proceeds: `1 new first, an old one deleted (drained) as each new one is Ready, none unavailable`. */
export function replacementPace(replacement: { surge: number; unavailable: number }): string {
  const { surge, unavailable } = replacement;
  return surge > 0
    ? `${surge} new first, an old one deleted (drained) as each new one is Ready, ${unavailable === 0 ? "none" : `at most ${unavailable}`} unavailable`
    : `${unavailable} at a time deleted (drained) first, each replaced from the template`;
}

const machineCount = (n: number) => (n === 1 ? "1 machine" : `${n} machines`);

/** `2 machines keep their machine labels; only new machines get tier=gold`. */
export function machineLabelsPhrase(kept: { machines: number; labels: string[] }): string {
  return `${machineCount(kept.machines)} ${kept.machines === 1 ? "keeps its" : "keep their"} machine labels; only new machines get ${kept.labels.join(", ")}`;
}

/**
 * `MachineSet infra-a: 3 machines keep m6i.xlarge; only new machines get m6i.2xlarge (...)`, or how they
 * are replaced, then the machines that keep their machine labels.
 */
export function describeMachineSetChange(change: MachineSetChange): string {
  const parts: string[] = [];
  if (change.machines > 0) {
    const { from, to } = specsOf(change);
    const count = machineCount(change.machines);
    parts.push(
      change.replacement
        ? `${count} on ${from} replaced by machines with ${to}, ${replacementPace(change.replacement)}`
        : `${count} ${change.machines === 1 ? "keeps" : "keep"} ${from}; only new machines get ${to} (machineReplacement replaces them)`,
    );
  }
  if (change.machineLabels) parts.push(machineLabelsPhrase(change.machineLabels));
  return `MachineSet ${change.machineSet}: ${parts.join("; ")}`;
}
