import { collectErrors, InputError } from "../errors";
import { TLS_VERSIONS } from "../generated/enums";
import { KUBELET_CONFIGURATION_FIELDS } from "../generated/kubelet-configuration";
import { closest } from "../../primitives/names";
import { isPlainObject } from "./json";
import { requireQuantity } from "./quantity";

/**
 * KubeletConfiguration (kubelet.config.k8s.io/v1beta1) as the MCO decodes it and the kubelet validates
 * it. The MCO's decoder drops fields it does not know without a word and the kubelet refuses bad values
 * only on the node (which then stays NotReady), so every field is checked here against its type and the
 * range the kubelet's own validation enforces, and fields the MCO refuses are rejected.
 */

type Check = (path: string, value: unknown) => void;

const show = (value: unknown) => JSON.stringify(value) ?? String(value);

function integer(min: number, max = Number.MAX_SAFE_INTEGER, note = ""): Check {
  return (path, value) => {
    if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `of ${min}${note} or more` : `from ${min} to ${max}`;
      throw new InputError(path, `must be a whole number ${range}, got ${show(value)}`);
    }
  };
}

const bool: Check = (path, value) => {
  if (typeof value !== "boolean") throw new InputError(path, `must be true or false, got ${show(value)}`);
};

const text: Check = (path, value) => {
  if (typeof value !== "string") throw new InputError(path, `must be a string, got ${show(value)}`);
};

function oneOf(...allowed: string[]): Check {
  return (path, value) => {
    if (typeof value !== "string" || !allowed.includes(value)) {
      throw new InputError(path, `${show(value)} is not allowed: use one of ${allowed.map(show).join(", ")}`);
    }
  };
}

function listOf(item: Check, what: string): Check {
  return (path, value) => {
    if (!Array.isArray(value)) throw new InputError(path, `must be a list of ${what}, got ${show(value)}`);
    value.forEach((v, i) => item(`${path}[${i}]`, v));
  };
}

function mapOf(item: Check, example: string, keys?: readonly string[]): Check {
  return (path, value) => {
    if (!isPlainObject(value))
      throw new InputError(path, `must be a map, e.g. ${example}, got ${show(value)}`);
    for (const [k, v] of Object.entries(value)) {
      const at = `${path}["${k}"]`;
      if (keys && !keys.includes(k) && !k.startsWith("hugepages-")) {
        throw new InputError(at, `${show(k)} is not known here: use ${keys.map(show).join(", ")}`);
      }
      item(at, v);
    }
  };
}

/** A Go duration as metav1.Duration reads it: "10s", "1m30s", "500ms", "0". */
const GO_DURATION = /^[-+]?(0|((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+)$/;
const duration: Check = (path, value) => {
  if (typeof value !== "string" || !GO_DURATION.test(value) || value.startsWith("-")) {
    throw new InputError(
      path,
      `${show(value)} is not a duration: use a string of numbers with units ns, us, ms, s, m or h, e.g. "90s", "5m" or "1h30m"`,
    );
  }
};

/** A non-negative resource quantity such as "500m", "1Gi" or 2. */
const quantity: Check = (path, value) => {
  if (requireQuantity(path, value).value < 0) {
    throw new InputError(path, `must not be negative, got ${show(value)}`);
  }
};

/** A percentage as "10%", from 0% to 100% (the kubelet's eviction and qosReserved values). */
function percentage(path: string, value: unknown): boolean {
  if (typeof value !== "string" || !value.endsWith("%")) return false;
  const number = Number(value.slice(0, -1));
  if (value.length < 2 || !Number.isFinite(number) || number < 0 || number > 100) {
    throw new InputError(path, `${show(value)} is not a percentage from "0%" to "100%"`);
  }
  return true;
}

const quantityOrPercentage: Check = (path, value) => {
  if (percentage(path, value)) return;
  try {
    quantity(path, value);
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    throw new InputError(
      path,
      `${show(value)} is neither a quantity ("100Mi", "1Gi") nor a percentage ("10%")`,
    );
  }
};

/** The signals the kubelet evicts on (pkg/kubelet/eviction/api). */
export const EVICTION_SIGNALS = [
  "memory.available",
  "allocatableMemory.available",
  "nodefs.available",
  "nodefs.inodesFree",
  "imagefs.available",
  "imagefs.inodesFree",
  "containerfs.available",
  "containerfs.inodesFree",
  "pid.available",
] as const;

const RESERVABLE = ["cpu", "memory", "ephemeral-storage", "pid"] as const;

const eviction = (item: Check) => mapOf(item, `{ "memory.available": "500Mi" }`, EVICTION_SIGNALS);
const reserved = mapOf(quantity, `{ cpu: "500m", memory: "1Gi" }`, RESERVABLE);
const stringMap = mapOf(text, `{ "full-pcpus-only": "true" }`);
const port = integer(1, 65535);
const nonNegative = integer(0);

function object(fields: Record<string, Check>): Check {
  return (path, value) => {
    if (!isPlainObject(value)) throw new InputError(path, `must be an object, got ${show(value)}`);
    checkFields(path, value, fields);
  };
}

const taint = object({
  key: text,
  value: text,
  effect: oneOf("NoSchedule", "PreferNoSchedule", "NoExecute"),
});

/**
 * KubeletConfiguration fields the MCO refuses to apply (validateUserKubeletConfig): the node may not come
 * back after a reboot with them changed. A nested field is written as a dotted path.
 */
export const FORBIDDEN_KUBELET_FIELDS = [
  "cgroupDriver",
  "clusterDNS",
  "clusterDomain",
  "featureGates",
  "failSwapOn",
  "staticPodPath",
  "memorySwap.swapBehavior",
] as const;

const forbidden: Check = (path) => {
  throw new InputError(
    path,
    `may not be set: the MCO manages ${FORBIDDEN_KUBELET_FIELDS.join(", ")} itself and rejects a KubeletConfig that sets them`,
  );
};

type TopLevel<F extends string> = F extends `${string}.${string}` ? never : F;

const FORBIDDEN_CHECKS = Object.fromEntries(
  FORBIDDEN_KUBELET_FIELDS.filter((f) => !f.includes(".")).map((f) => [f, forbidden]),
) as Record<TopLevel<(typeof FORBIDDEN_KUBELET_FIELDS)[number]>, Check>;

/**
 * Every KubeletConfiguration field with its check, as the kubelet validates it: the type makes the
 * compiler hold this table to the fields upstream's Go types declare (builders/generated). Fields the
 * MCO forbids are listed in FORBIDDEN_KUBELET_FIELDS.
 */
export const KUBELET_FIELDS: Record<(typeof KUBELET_CONFIGURATION_FIELDS)[number], Check> = {
  ...FORBIDDEN_CHECKS,
  apiVersion: oneOf("kubelet.config.k8s.io/v1beta1"),
  kind: oneOf("KubeletConfiguration"),
  enableServer: bool,
  podLogsDir: text,
  syncFrequency: duration,
  fileCheckFrequency: duration,
  httpCheckFrequency: duration,
  staticPodURL: text,
  staticPodURLHeader: mapOf(listOf(text, "strings"), `{ "X-Header": ["value"] }`),
  address: text,
  port,
  readOnlyPort: integer(0, 65535),
  tlsCertFile: text,
  tlsPrivateKeyFile: text,
  tlsCipherSuites: listOf(text, "cipher suite names"),
  tlsCurvePreferences: listOf(integer(0, 65535), "crypto/tls CurveID numbers, e.g. 29 for X25519"),
  tlsMinVersion: oneOf(...TLS_VERSIONS),
  rotateCertificates: bool,
  serverTLSBootstrap: bool,
  authentication: object({
    x509: object({ clientCAFile: text }),
    webhook: object({ enabled: bool, cacheTTL: duration }),
    anonymous: object({ enabled: bool }),
  }),
  authorization: object({
    mode: oneOf("AlwaysAllow", "Webhook"),
    webhook: object({ cacheAuthorizedTTL: duration, cacheUnauthorizedTTL: duration }),
  }),
  registryPullQPS: nonNegative,
  registryBurst: nonNegative,
  imagePullCredentialsVerificationPolicy: oneOf(
    "NeverVerify",
    "NeverVerifyPreloadedImages",
    "NeverVerifyAllowlistedImages",
    "AlwaysVerify",
  ),
  preloadedImagesVerificationAllowlist: listOf(text, "image names"),
  eventRecordQPS: nonNegative,
  eventBurst: nonNegative,
  enableDebuggingHandlers: bool,
  enableContentionProfiling: bool,
  healthzPort: integer(0, 65535),
  healthzBindAddress: text,
  oomScoreAdj: integer(-1000, 1000),
  streamingConnectionIdleTimeout: duration,
  nodeStatusUpdateFrequency: duration,
  nodeStatusReportFrequency: duration,
  nodeLeaseDurationSeconds: integer(1),
  imageMinimumGCAge: duration,
  imageMaximumGCAge: duration,
  imageGCHighThresholdPercent: integer(0, 100),
  imageGCLowThresholdPercent: integer(0, 100),
  volumeStatsAggPeriod: duration,
  kubeletCgroups: text,
  systemCgroups: text,
  cgroupRoot: text,
  cgroupsPerQOS: bool,
  cpuManagerPolicy: oneOf("none", "static"),
  singleProcessOOMKill: bool,
  cpuManagerPolicyOptions: stringMap,
  cpuManagerReconcilePeriod: duration,
  memoryManagerPolicy: oneOf("None", "Static"),
  topologyManagerPolicy: oneOf("none", "best-effort", "restricted", "single-numa-node"),
  topologyManagerScope: oneOf("container", "pod"),
  topologyManagerPolicyOptions: stringMap,
  qosReserved: mapOf(
    (path, v) => {
      if (!percentage(path, v)) throw new InputError(path, `${show(v)} is not a percentage such as "50%"`);
    },
    `{ memory: "50%" }`,
    ["memory"],
  ),
  runtimeRequestTimeout: duration,
  hairpinMode: oneOf("promiscuous-bridge", "hairpin-veth", "none"),
  maxPods: integer(1),
  podCIDR: text,
  podPidsLimit: integer(-1, Number.MAX_SAFE_INTEGER, " (no limit)"),
  resolvConf: text,
  runOnce: (path, value) => {
    if (value !== false) throw new InputError(path, "runOnce mode is deprecated: leave it unset or false");
  },
  cpuCFSQuota: bool,
  cpuCFSQuotaPeriod: duration,
  nodeStatusMaxImages: integer(-1, Number.MAX_SAFE_INTEGER, " (no limit)"),
  maxOpenFiles: nonNegative,
  contentType: text,
  kubeAPIQPS: nonNegative,
  kubeAPIBurst: nonNegative,
  serializeImagePulls: bool,
  maxParallelImagePulls: integer(1),
  evictionHard: eviction(quantityOrPercentage),
  evictionSoft: eviction(quantityOrPercentage),
  evictionSoftGracePeriod: eviction(duration),
  evictionPressureTransitionPeriod: duration,
  evictionMaxPodGracePeriod: integer(0),
  evictionMinimumReclaim: eviction(quantityOrPercentage),
  mergeDefaultEvictionSettings: bool,
  podsPerCore: nonNegative,
  enableControllerAttachDetach: bool,
  protectKernelDefaults: bool,
  makeIPTablesUtilChains: bool,
  iptablesMasqueradeBit: integer(0, 31),
  iptablesDropBit: integer(0, 31),
  memorySwap: object({ swapBehavior: forbidden }),
  containerLogMaxSize: quantity,
  containerLogMaxFiles: integer(2),
  containerLogMaxWorkers: integer(1),
  containerLogMonitorInterval: duration,
  configMapAndSecretChangeDetectionStrategy: oneOf("Get", "Cache", "Watch"),
  systemReserved: reserved,
  kubeReserved: reserved,
  reservedSystemCPUs: (path, value) => {
    if (typeof value !== "string" || !/^(\d+(-\d+)?)(,\d+(-\d+)?)*$/.test(value)) {
      throw new InputError(path, `${show(value)} is not a CPU list: use e.g. "0-1" or "0,2,4"`);
    }
  },
  showHiddenMetricsForVersion: text,
  systemReservedCgroup: text,
  kubeReservedCgroup: text,
  enforceNodeAllocatable: listOf(
    oneOf(
      "pods",
      "system-reserved",
      "system-reserved-compressible",
      "kube-reserved",
      "kube-reserved-compressible",
      "none",
    ),
    "enforcement keys",
  ),
  allowedUnsafeSysctls: listOf(text, "sysctl names or patterns"),
  volumePluginDir: text,
  providerID: text,
  kernelMemcgNotification: bool,
  logging: object({
    format: oneOf("text", "json"),
    flushFrequency: (path, v) => (typeof v === "number" ? nonNegative(path, v) : duration(path, v)),
    verbosity: integer(0),
    vmodule: listOf(object({ filePattern: text, verbosity: integer(0) }), "{ filePattern, verbosity }"),
    options: object({
      text: object({ infoBufferSize: quantity, splitStream: bool }),
      json: object({ infoBufferSize: quantity, splitStream: bool }),
    }),
  }),
  enableSystemLogHandler: bool,
  enableSystemLogQuery: bool,
  shutdownGracePeriod: duration,
  shutdownGracePeriodCriticalPods: duration,
  shutdownGracePeriodByPodPriority: listOf(
    object({ priority: integer(-2147483648, 2147483647), shutdownGracePeriodSeconds: integer(0) }),
    "{ priority, shutdownGracePeriodSeconds }",
  ),
  crashLoopBackOff: object({ maxContainerRestartPeriod: duration }),
  reservedMemory: listOf(
    object({ numaNode: integer(0), limits: mapOf(quantity, `{ memory: "1Gi" }`) }),
    "{ numaNode, limits }",
  ),
  enableProfilingHandler: bool,
  enableDebugFlagsHandler: bool,
  seccompDefault: bool,
  memoryThrottlingFactor: (path, value) => {
    if (typeof value !== "number" || !(value > 0 && value <= 1)) {
      throw new InputError(path, `must be a number above 0 and at most 1, got ${show(value)}`);
    }
  },
  memoryReservationPolicy: oneOf("None", "TieredReservation"),
  registerWithTaints: listOf(taint, "taints { key, value, effect }"),
  registerNode: bool,
  tracing: object({ endpoint: text, samplingRatePerMillion: integer(0, 1000000) }),
  localStorageCapacityIsolation: bool,
  containerRuntimeEndpoint: text,
  imageServiceEndpoint: text,
  failCgroupV1: bool,
  userNamespaces: object({ idsPerPod: integer(65536) }),
};

function checkFields(path: string, config: Record<string, unknown>, fields: Record<string, Check>): void {
  collectErrors(
    Object.entries(config).map(([field, value]) => () => {
      const at = `${path}.${field}`;
      const check = fields[field];
      if (check) return check(at, value);
      const near = closest(field, Object.keys(fields));
      throw new InputError(
        at,
        near
          ? `is not a KubeletConfiguration field: did you mean ${near}?`
          : `is not a KubeletConfiguration field here: use ${Object.keys(fields).join(", ")}`,
      );
    }),
  );
}

/** Checks the kubelet makes across fields (pkg/kubelet/apis/config/validation and eviction parsing). */
function checkRelations(path: string, config: Record<string, unknown>): void {
  const low = config.imageGCLowThresholdPercent;
  const high = config.imageGCHighThresholdPercent;
  if (typeof low === "number" && low >= (typeof high === "number" ? high : 85)) {
    throw new InputError(
      `${path}.imageGCLowThresholdPercent`,
      `must be less than imageGCHighThresholdPercent (${typeof high === "number" ? high : "85 by default"}), got ${low}`,
    );
  }
  const soft = config.evictionSoft;
  const grace = isPlainObject(config.evictionSoftGracePeriod) ? config.evictionSoftGracePeriod : {};
  if (isPlainObject(soft)) {
    const missing = Object.keys(soft).filter((signal) => grace[signal] === undefined);
    if (missing.length > 0) {
      throw new InputError(
        `${path}.evictionSoftGracePeriod`,
        `needs a grace period for each evictionSoft signal: add ${missing.map((s) => `"${s}": "1m30s"`).join(", ")}`,
      );
    }
  }
  if (config.maxParallelImagePulls !== undefined && config.serializeImagePulls !== false) {
    const pulls = config.maxParallelImagePulls;
    if (typeof pulls === "number" && pulls > 1) {
      throw new InputError(
        `${path}.maxParallelImagePulls`,
        "can be more than 1 only with serializeImagePulls: false",
      );
    }
  }
}

/** Every problem of a KubeletConfiguration at once, each at its own path under `path`. */
export function checkKubeletConfiguration(path: string, config: Record<string, unknown>): void {
  collectErrors([() => checkFields(path, config, KUBELET_FIELDS), () => checkRelations(path, config)]);
}
