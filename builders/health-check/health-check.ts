import { collectErrors, InputError } from "../errors";
import { MACHINE_SET_API_VERSION } from "../machineset/machineset";
import { MACHINE_API_NAMESPACE, MACHINE_LABELS } from "../machineset/naming";
import {
  requireArray,
  requireDnsSubdomain,
  requireDuration,
  requireNonEmptyString,
  requireUnique,
} from "../validation";

export interface UnhealthyCondition {
  /** A node condition type, e.g. `Ready` or a node-problem-detector condition. */
  type: string;
  /** `False`, `Unknown` (or `True` for problem conditions). */
  status: string;
  /** How long the condition must hold before the machine is remediated, e.g. "300s". */
  timeout: string;
}

/** A pool's health check; every field has OpenShift's documented default. */
export interface HealthCheckOptions {
  /**
   * The MachineHealthCheck's name; default `<infraID>-<role>`. Give the name of one made by hand to
   * adopt it.
   */
  name?: string;
  unhealthyConditions?: UnhealthyCondition[];
  /** Remediation stops while more machines than this (a count or "N%") are unhealthy. */
  maxUnhealthy?: number | string;
  /** A machine whose node has not joined after this long is remediated ("0" disables the check). */
  nodeStartupTimeout?: string;
}

/** The values of OpenShift's documented example: NotReady or unreachable for five minutes, 40%, 10m. */
export const HEALTH_CHECK_DEFAULTS = {
  unhealthyConditions: [
    { type: "Ready", status: "False", timeout: "300s" },
    { type: "Ready", status: "Unknown", timeout: "300s" },
  ],
  maxUnhealthy: "40%",
  nodeStartupTimeout: "10m",
} as const;

/** Machine roles whose machines OpenShift will not let a MachineHealthCheck remediate. */
const UNSUPPORTED_ROLES: Record<string, string> = {
  master:
    "control plane machines are not remediated by a MachineHealthCheck (the ControlPlaneMachineSet replaces them)",
};

export interface MachineHealthCheckArgs extends HealthCheckOptions {
  name: string;
  infrastructureId: string;
  /** The machine role of the pool; refused for roles OpenShift does not remediate. */
  machineRole: string;
  /** The pool's MachineSets: the check selects exactly their machines. */
  machineSetNames: readonly string[];
}

export interface MachineHealthCheckManifest {
  apiVersion: typeof MACHINE_SET_API_VERSION;
  kind: "MachineHealthCheck";
  metadata: { name: string; namespace: string };
  spec: {
    maxUnhealthy: number | string;
    nodeStartupTimeout: string;
    selector: {
      matchExpressions: Array<{ key: string; operator: "In"; values: string[] }>;
      matchLabels: Record<string, string>;
    };
    unhealthyConditions: UnhealthyCondition[];
  };
}

function requireMaxUnhealthy(path: string, value: unknown): number | string {
  const ok =
    (typeof value === "number" && Number.isInteger(value) && value >= 0) ||
    (typeof value === "string" && /^((100|[0-9]{1,2})%|[0-9]+)$/.test(value));
  if (!ok) {
    throw new InputError(
      path,
      `${JSON.stringify(value)} is not allowed: use a whole number of machines (0 or more) or a percentage from "0%" to "100%"`,
    );
  }
  return value as number | string;
}

function requireConditions(path: string, conditions: readonly UnhealthyCondition[]): void {
  requireArray(path, conditions, "{ type, status, timeout }");
  if (conditions.length === 0) {
    throw new InputError(
      path,
      "at least one condition is required (the default is Ready False/Unknown for 300s)",
    );
  }
  collectErrors(
    conditions.map(
      (c, i) => () =>
        collectErrors([
          () => requireNonEmptyString(`${path}[${i}].type`, c.type),
          () => requireNonEmptyString(`${path}[${i}].status`, c.status),
          () => requireDuration(`${path}[${i}].timeout`, c.timeout),
        ]),
    ),
  );
  requireUnique(path, conditions, (c) => `${c.type}=${c.status}`, "condition");
}

/** Throws when OpenShift does not remediate machines of this role. */
export function requireHealthCheckSupported(path: string, machineRole: string): void {
  const why = UNSUPPORTED_ROLES[machineRole];
  if (why) throw new InputError(path, `not supported for ${machineRole} machines: ${why}`);
}

/**
 * A MachineHealthCheck that selects exactly the machines of the given MachineSets (by the
 * `cluster-api-machineset` label the MachineSets put on their machines), never the installer's workers
 * that share the pool's role label.
 */
export function machineHealthCheck(args: MachineHealthCheckArgs): MachineHealthCheckManifest {
  const name = requireDnsSubdomain("name", args.name);
  const infraId = requireNonEmptyString("infrastructureId", args.infrastructureId);
  requireHealthCheckSupported("healthCheck", args.machineRole);
  if (args.machineSetNames.length === 0) {
    throw new InputError("machineSetNames", "a health check needs at least one MachineSet to watch");
  }
  const conditions = args.unhealthyConditions ?? HEALTH_CHECK_DEFAULTS.unhealthyConditions;
  const maxUnhealthy = args.maxUnhealthy ?? HEALTH_CHECK_DEFAULTS.maxUnhealthy;
  const startup = args.nodeStartupTimeout ?? HEALTH_CHECK_DEFAULTS.nodeStartupTimeout;
  collectErrors([
    () => requireConditions("unhealthyConditions", conditions),
    () => requireMaxUnhealthy("maxUnhealthy", maxUnhealthy),
    () => {
      if (startup !== "0") requireDuration("nodeStartupTimeout", startup);
    },
  ]);
  return {
    apiVersion: MACHINE_SET_API_VERSION,
    kind: "MachineHealthCheck",
    metadata: { name, namespace: MACHINE_API_NAMESPACE },
    spec: {
      maxUnhealthy,
      nodeStartupTimeout: startup,
      selector: {
        matchExpressions: [
          { key: MACHINE_LABELS.machineSet, operator: "In", values: [...args.machineSetNames].sort() },
        ],
        matchLabels: { [MACHINE_LABELS.cluster]: infraId },
      },
      unhealthyConditions: conditions.map((c) => ({ type: c.type, status: c.status, timeout: c.timeout })),
    },
  };
}
