import { collectErrors, InputError, InputErrors } from "../errors";
import { OCI_RUNTIMES } from "../generated/enums";
import { requireDnsSubdomain, requireOneOf } from "../validation";
import { LabelSelector, MACHINECONFIGURATION_API_VERSION, poolSelector } from "./common";
import { isPlainObject } from "./json";
import { requireQuantity } from "./quantity";

/**
 * CRI-O log levels the MCO accepts (validateUserContainerRuntimeConfig). The CRD's description lists all but
 * `trace`, which the MCO takes as well.
 */
export const CRIO_LOG_LEVELS = ["fatal", "panic", "error", "warn", "info", "debug", "trace"] as const;
/** The CRD's enum for defaultRuntime. */
export { OCI_RUNTIMES };
/** The MCO's limits: pidsLimit 0 (CRI-O's default) or at least 20; a positive logSizeMax above 8192 bytes. */
export const MIN_PIDS_LIMIT = 20;
export const MIN_LOG_SIZE = 8192;

export interface ContainerRuntimeSettings {
  /** Maximum processes per container: 0 for CRI-O's default, else at least 20. */
  pidsLimit?: number;
  /** CRI-O's log level, e.g. `info` (its default) or `debug`. */
  logLevel?: (typeof CRIO_LOG_LEVELS)[number];
  /** Maximum container log size as a quantity ("50Mi"); negative for no limit, else above 8192 bytes. */
  logSizeMax?: number | string;
  /** Maximum size of a container's writable layer, a non-negative quantity ("10G"). */
  overlaySize?: number | string;
  /** The OCI runtime containers run with: `crun` or `runc`. */
  defaultRuntime?: (typeof OCI_RUNTIMES)[number];
}

export interface ContainerRuntimeConfigArgs {
  name: string;
  /** Role of the pool to configure; the pool must carry `pools.operator.machineconfiguration.openshift.io/<pool>`. */
  pool: string;
  /** CRI-O settings for the pool's nodes: log level and size, PIDs limit, overlay size, default runtime. */
  containerRuntimeConfig: ContainerRuntimeSettings;
}

export interface ContainerRuntimeConfigManifest {
  apiVersion: typeof MACHINECONFIGURATION_API_VERSION;
  kind: "ContainerRuntimeConfig";
  metadata: { name: string };
  spec: { machineConfigPoolSelector: LabelSelector; containerRuntimeConfig: ContainerRuntimeSettings };
}

const FIELDS = ["pidsLimit", "logLevel", "logSizeMax", "overlaySize", "defaultRuntime"] as const;

/** One check per field, in the order the fields are emitted. */
const CHECKS: Record<(typeof FIELDS)[number], (path: string, value: unknown) => number | string> = {
  pidsLimit(path, value) {
    if (typeof value !== "number" || !Number.isInteger(value) || (value !== 0 && value < MIN_PIDS_LIMIT)) {
      throw new InputError(
        path,
        `must be a whole number, 0 (CRI-O's default) or at least ${MIN_PIDS_LIMIT}, got ${JSON.stringify(value)}`,
      );
    }
    return value;
  },
  logLevel: (path, value) => requireOneOf(path, value, CRIO_LOG_LEVELS),
  logSizeMax(path, value) {
    const size = requireQuantity(path, value);
    if (size.value > 0 && size.value <= MIN_LOG_SIZE) {
      throw new InputError(
        path,
        `must be more than ${MIN_LOG_SIZE} bytes (e.g. "50Mi"), or negative for no limit`,
      );
    }
    return size.quantity;
  },
  overlaySize(path, value) {
    const size = requireQuantity(path, value);
    if (size.value < 0)
      throw new InputError(path, `must be 0 or more (e.g. "10G"), got ${JSON.stringify(value)}`);
    return size.quantity;
  },
  defaultRuntime: (path, value) => requireOneOf(path, value, OCI_RUNTIMES),
};

/** A ContainerRuntimeConfig (CRI-O settings) for the pool of one role. */
export function containerRuntimeConfig(args: ContainerRuntimeConfigArgs): ContainerRuntimeConfigManifest {
  // Every field is checked, and every problem reported at once.
  const [name, selector, settings] = collectErrors([
    () => requireDnsSubdomain("name", args.name),
    () => poolSelector("pool", args.pool),
    () => requireSettings("containerRuntimeConfig", args.containerRuntimeConfig),
  ]);
  return {
    apiVersion: MACHINECONFIGURATION_API_VERSION,
    kind: "ContainerRuntimeConfig",
    metadata: { name },
    spec: { machineConfigPoolSelector: selector, containerRuntimeConfig: settings },
  };
}

function requireSettings(path: string, given: unknown): ContainerRuntimeSettings {
  if (!isPlainObject(given)) {
    throw new InputError(path, `must be an object with some of ${FIELDS.join(", ")}`);
  }
  const unsupported = Object.keys(given)
    .filter((key) => !(FIELDS as readonly string[]).includes(key))
    .map((key) => new InputError(`${path}.${key}`, `is not supported: use ${FIELDS.join(", ")}`));
  const fields = FIELDS.filter((f) => given[f] !== undefined);
  const [, ...values] = collectErrors([
    () => InputErrors.throwIfAny(unsupported),
    ...fields.map((f) => () => CHECKS[f](`${path}.${f}`, given[f])),
  ]);
  if (fields.length === 0) throw new InputError(path, `set at least one of ${FIELDS.join(", ")}`);
  return Object.fromEntries(fields.map((f, i) => [f, values[i]])) as ContainerRuntimeSettings;
}
