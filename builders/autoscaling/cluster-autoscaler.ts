import { collectErrors, InputError } from "../errors";
import {
  requireArray,
  requireBoolean,
  requireDuration,
  requireFields,
  requireInteger,
  requireNonEmptyString,
  requireNonNegativeInteger,
  requireOneOf,
  requireUnique,
} from "../validation";

export const CLUSTER_AUTOSCALER_API_VERSION = "autoscaling.openshift.io/v1";
/** The machine-api acts on the ClusterAutoscaler named `default` only. */
export const CLUSTER_AUTOSCALER_NAME = "default";
export const EXPANDERS = ["LeastWaste", "Priority", "Random"] as const;
export const ENABLED_DISABLED = ["Enabled", "Disabled"] as const;

type Switch = (typeof ENABLED_DISABLED)[number];

export interface MinMax {
  min: number;
  max: number;
}

/** The ClusterAutoscaler fields users set (openshift/cluster-autoscaler-operator's v1 API). */
export interface ClusterAutoscalerArgs {
  resourceLimits?: {
    maxNodesTotal?: number;
    cores?: MinMax;
    /** GiB. */
    memory?: MinMax;
    gpus?: Array<MinMax & { type: string }>;
  };
  scaleDown?: {
    enabled: boolean;
    delayAfterAdd?: string;
    delayAfterDelete?: string;
    delayAfterFailure?: string;
    unneededTime?: string;
    /** A fraction between 0 and 1 as a string, e.g. "0.5". */
    utilizationThreshold?: string;
    cordonNodeBeforeTerminating?: Switch;
  };
  scaleUp?: { newPodScaleUpDelay?: string };
  balanceSimilarNodeGroups?: boolean;
  balancingIgnoredLabels?: string[];
  ignoreDaemonsetsUtilization?: boolean;
  skipNodesWithLocalStorage?: boolean;
  /** Pods below this priority neither trigger scale-up nor block scale-down. */
  podPriorityThreshold?: number;
  maxPodGracePeriod?: number;
  maxNodeProvisionTime?: string;
  expanders?: Array<(typeof EXPANDERS)[number]>;
  enforceNodeGroupMinSize?: Switch;
  logVerbosity?: number;
  startupTaints?: string[];
}

export interface ClusterAutoscalerManifest {
  apiVersion: typeof CLUSTER_AUTOSCALER_API_VERSION;
  kind: "ClusterAutoscaler";
  metadata: { name: typeof CLUSTER_AUTOSCALER_NAME };
  spec: Record<string, unknown>;
}

const INT32_MAX = 2147483647;

type Limits = NonNullable<ClusterAutoscalerArgs["resourceLimits"]>;
type ScaleDown = NonNullable<ClusterAutoscalerArgs["scaleDown"]>;
type ScaleUp = NonNullable<ClusterAutoscalerArgs["scaleUp"]>;

/** The field names of a type, complete by construction: a field added to the type must be added here. */
const fieldsOf = <T>(fields: Record<keyof T, true>) => Object.keys(fields);

const SPEC_FIELDS = fieldsOf<ClusterAutoscalerArgs>({
  resourceLimits: true,
  scaleDown: true,
  scaleUp: true,
  balanceSimilarNodeGroups: true,
  balancingIgnoredLabels: true,
  ignoreDaemonsetsUtilization: true,
  skipNodesWithLocalStorage: true,
  podPriorityThreshold: true,
  maxPodGracePeriod: true,
  maxNodeProvisionTime: true,
  expanders: true,
  enforceNodeGroupMinSize: true,
  logVerbosity: true,
  startupTaints: true,
});
const LIMITS_FIELDS = fieldsOf<Limits>({ maxNodesTotal: true, cores: true, memory: true, gpus: true });
const MIN_MAX_FIELDS = fieldsOf<MinMax>({ min: true, max: true });
const GPU_FIELDS = fieldsOf<MinMax & { type: string }>({ type: true, min: true, max: true });
const SCALE_DOWN_FIELDS = fieldsOf<ScaleDown>({
  enabled: true,
  delayAfterAdd: true,
  delayAfterDelete: true,
  delayAfterFailure: true,
  unneededTime: true,
  utilizationThreshold: true,
  cordonNodeBeforeTerminating: true,
});
const SCALE_UP_FIELDS = fieldsOf<ScaleUp>({ newPodScaleUpDelay: true });

function minMax(path: string, value: MinMax, lowestMax: number, fields = MIN_MAX_FIELDS): void {
  requireFields(path, value, fields, "limit");
  collectErrors([
    () => requireNonNegativeInteger(`${path}.min`, value.min),
    () => requireInteger(`${path}.max`, value.max, lowestMax, INT32_MAX),
  ]);
  if (value.min > value.max) {
    throw new InputError(`${path}.min`, `${value.min} is more than max (${value.max})`);
  }
}

function optional<T>(value: T | undefined, check: (v: T) => void): () => void {
  return () => {
    if (value !== undefined) check(value);
  };
}

/** Drops undefined fields and sorts keys, so the manifest carries only what the user set, in one order. */
function defined(fields: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

/** The cluster-wide ClusterAutoscaler `default`, every mistake reported at once. */
export function clusterAutoscaler(args: ClusterAutoscalerArgs = {}): ClusterAutoscalerManifest {
  // Not an object: nothing else can be read from it.
  if (typeof args !== "object" || args === null) requireFields("", args, SPEC_FIELDS, "ClusterAutoscaler");
  const limits = args.resourceLimits;
  const down = args.scaleDown;
  collectErrors([
    // A field the manifest does not carry would vanish without a word.
    () => requireFields("", args, SPEC_FIELDS, "ClusterAutoscaler"),
    optional(limits, (v) => requireFields("resourceLimits", v, LIMITS_FIELDS, "resourceLimits")),
    optional(down, (v) => requireFields("scaleDown", v, SCALE_DOWN_FIELDS, "scaleDown")),
    optional(args.scaleUp, (v) => requireFields("scaleUp", v, SCALE_UP_FIELDS, "scaleUp")),
    optional(limits?.maxNodesTotal, (v) => requireNonNegativeInteger("resourceLimits.maxNodesTotal", v)),
    optional(limits?.cores, (v) => minMax("resourceLimits.cores", v, 0)),
    optional(limits?.memory, (v) => minMax("resourceLimits.memory", v, 0)),
    optional(limits?.gpus, (gpus) => {
      requireArray("resourceLimits.gpus", gpus, "{ type, min, max }");
      collectErrors(
        gpus.map((g, i) => () => {
          requireNonEmptyString(`resourceLimits.gpus[${i}].type`, g.type);
          minMax(`resourceLimits.gpus[${i}]`, g, 1, GPU_FIELDS);
        }),
      );
      requireUnique("resourceLimits.gpus", gpus, (g) => g.type, "GPU type", ".type");
    }),
    optional(down, (d) => requireBoolean("scaleDown.enabled", d.enabled)),
    ...(["delayAfterAdd", "delayAfterDelete", "delayAfterFailure", "unneededTime"] as const).map((k) =>
      optional(down?.[k], (v) => requireDuration(`scaleDown.${k}`, v)),
    ),
    optional(down?.utilizationThreshold, (v) => {
      const n = Number(v);
      if (typeof v !== "string" || !/^0\.[0-9]+$/.test(v) || n <= 0) {
        throw new InputError(
          "scaleDown.utilizationThreshold",
          `${JSON.stringify(v)} is not a fraction between 0 and 1 written as a string, e.g. "0.5"`,
        );
      }
    }),
    optional(down?.cordonNodeBeforeTerminating, (v) =>
      requireOneOf("scaleDown.cordonNodeBeforeTerminating", v, ENABLED_DISABLED),
    ),
    optional(args.scaleUp?.newPodScaleUpDelay, (v) => requireDuration("scaleUp.newPodScaleUpDelay", v)),
    optional(args.balanceSimilarNodeGroups, (v) => requireBoolean("balanceSimilarNodeGroups", v)),
    optional(args.ignoreDaemonsetsUtilization, (v) => requireBoolean("ignoreDaemonsetsUtilization", v)),
    optional(args.skipNodesWithLocalStorage, (v) => requireBoolean("skipNodesWithLocalStorage", v)),
    optional(args.podPriorityThreshold, (v) =>
      requireInteger("podPriorityThreshold", v, -INT32_MAX - 1, INT32_MAX),
    ),
    optional(args.maxPodGracePeriod, (v) => requireInteger("maxPodGracePeriod", v, 0, INT32_MAX)),
    optional(args.maxNodeProvisionTime, (v) => requireDuration("maxNodeProvisionTime", v)),
    optional(args.expanders, (list) => {
      requireArray("expanders", list, "expander names");
      list.forEach((e, i) => requireOneOf(`expanders[${i}]`, e, EXPANDERS));
      requireUnique("expanders", list, (e) => e, "expander");
    }),
    optional(args.enforceNodeGroupMinSize, (v) =>
      requireOneOf("enforceNodeGroupMinSize", v, ENABLED_DISABLED),
    ),
    optional(args.logVerbosity, (v) => requireInteger("logVerbosity", v, 0, INT32_MAX)),
    optional(args.balancingIgnoredLabels, (list) =>
      requireArray("balancingIgnoredLabels", list, "label keys").forEach((l, i) =>
        requireNonEmptyString(`balancingIgnoredLabels[${i}]`, l),
      ),
    ),
    optional(args.startupTaints, (list) => {
      requireArray("startupTaints", list, "taint keys").forEach((t, i) =>
        requireNonEmptyString(`startupTaints[${i}]`, t),
      );
      requireUnique("startupTaints", list, (t) => t, "taint");
    }),
  ]);
  return {
    apiVersion: CLUSTER_AUTOSCALER_API_VERSION,
    kind: "ClusterAutoscaler",
    metadata: { name: CLUSTER_AUTOSCALER_NAME },
    spec: defined({
      balanceSimilarNodeGroups: args.balanceSimilarNodeGroups,
      balancingIgnoredLabels: args.balancingIgnoredLabels && [...args.balancingIgnoredLabels],
      enforceNodeGroupMinSize: args.enforceNodeGroupMinSize,
      expanders: args.expanders && [...args.expanders],
      ignoreDaemonsetsUtilization: args.ignoreDaemonsetsUtilization,
      logVerbosity: args.logVerbosity,
      maxNodeProvisionTime: args.maxNodeProvisionTime,
      maxPodGracePeriod: args.maxPodGracePeriod,
      podPriorityThreshold: args.podPriorityThreshold,
      resourceLimits:
        limits &&
        defined({
          cores: limits.cores && { max: limits.cores.max, min: limits.cores.min },
          gpus: limits.gpus?.map((g) => ({ max: g.max, min: g.min, type: g.type })),
          maxNodesTotal: limits.maxNodesTotal,
          memory: limits.memory && { max: limits.memory.max, min: limits.memory.min },
        }),
      scaleDown: down && defined(down),
      scaleUp: args.scaleUp && defined(args.scaleUp),
      skipNodesWithLocalStorage: args.skipNodesWithLocalStorage,
      startupTaints: args.startupTaints && [...args.startupTaints],
    }),
  };
}
