/**
 * MachineConfig semantics shared by the render controller, the daemon and the seed: validation, the
 * lexical merge into a rendered config, its hashed name, reconcilability, and what a change costs a node
 * (reboot or not, which files must be written). Pure functions over plain objects.
 */
import { mergeOrder } from "../../primitives/render-order";
import { stableJson } from "../../primitives/stable-json";
import { Json, field, obj } from "../../primitives/objects";
import { createHash } from "node:crypto";
import { KubeObject } from "../store/types";
import {
  ALWAYS_REBOOT_FIELDS,
  AlwaysRebootField,
  ClusterPolicies,
  ConfigDiff,
  Decision,
  decide,
} from "../../builders/rollout-impact/rules";

export const GENERATED_BY_ANNOTATION = "machineconfiguration.openshift.io/generated-by-controller-version";
export const RELEASE_VERSION_ANNOTATION = "machineconfiguration.openshift.io/release-image-version";
/** What the simulated machine-config-controller reports as its build, like the MCO's git hash. */
export const CONTROLLER_VERSION = "sim-4.17.3-mco";
export const RELEASE_VERSION = "4.17.3";
export const OS_IMAGE_URL =
  "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:5f6c3e5b1c2a7a8e0b4e8b2f0a0d0d57a1b6e4d3c2b1a0f9e8d7c6b5a4f3e2d1";
export const EXTENSIONS_IMAGE =
  "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9";

/** Spec versions the MCO parses (2.2 is converted up); anything else is refused. */
const SUPPORTED_IGNITION = ["2.2", "3.0", "3.1", "3.2", "3.3", "3.4", "3.5"];
const KERNEL_TYPES = ["", "default", "realtime", "64k-pages"];
const SUPPORTED_EXTENSIONS = [
  "two-node-ha",
  "ipsec",
  "usbguard",
  "kerberos",
  "kernel-devel",
  "sandboxed-containers",
  "sysstat",
];

/**
 * Where RHCOS can write: /etc and /var, plus the directories that are symlinks into /var. Everything
 * else lives on the read-only /usr or / and a write there fails on the node.
 */
const WRITABLE_PREFIXES = ["/etc/", "/var/", "/opt/", "/usr/local/", "/home/", "/root/", "/srv/", "/mnt/"];

export interface IgnFile {
  path: string;
  contents?: { source?: string; compression?: string; [k: string]: unknown };
  mode?: number;
  overwrite?: boolean;
  append?: unknown[];
  [k: string]: unknown;
}

export interface IgnUnit {
  name: string;
  contents?: string;
  enabled?: boolean;
  mask?: boolean;
  dropins?: Array<{ name: string; contents?: string }>;
}

export interface IgnUser {
  name: string;
  sshAuthorizedKeys?: string[];
  [k: string]: unknown;
}

export interface IgnConfig {
  ignition: { version: string; [k: string]: unknown };
  passwd?: { users?: IgnUser[]; groups?: unknown[] };
  storage?: {
    files?: IgnFile[];
    directories?: Array<{ path: string; [k: string]: unknown }>;
    links?: Array<{ path: string; [k: string]: unknown }>;
    disks?: unknown[];
    filesystems?: unknown[];
    raid?: unknown[];
  };
  systemd?: { units?: IgnUnit[] };
  kernelArguments?: unknown;
  [k: string]: unknown;
}

export interface MachineConfigSpec {
  config?: IgnConfig;
  kernelArguments?: string[];
  kernelType?: string;
  extensions?: string[];
  fips?: boolean;
  osImageURL?: string;
  baseOSExtensionsContainerImage?: string;
}

export function specOf(mc: KubeObject): MachineConfigSpec {
  return obj(mc.spec) as MachineConfigSpec;
}

/** `data:,<percent-encoded>` as the MCO templates write file contents. */
export function dataUrl(text: string): string {
  return `data:,${encodeURIComponent(text)}`;
}

/** `data:text/plain;charset=utf-8;base64,...` as the MCO's generated configs encode them. */
export function dataUrlBase64(text: string): string {
  return `data:text/plain;charset=utf-8;base64,${Buffer.from(text).toString("base64")}`;
}

export function decodeDataUrl(source: string | undefined): string {
  if (!source) return "";
  const comma = source.indexOf(",");
  if (!source.startsWith("data:") || comma < 0) return "";
  const meta = source.slice(5, comma);
  const data = source.slice(comma + 1);
  return meta.endsWith(";base64") ? Buffer.from(data, "base64").toString() : decodeURIComponent(data);
}

// ---- validation ----

function ignitionMinor(version: unknown): { minor?: string; error?: string } {
  const supported = SUPPORTED_IGNITION.join(",");
  if (typeof version !== "string" || !/^\d+\.\d+\.\d+(-experimental)?$/.test(version)) {
    return {
      error: `parsing Ignition config failed: invalid version. Supported spec versions: ${supported}`,
    };
  }
  const minor = version.split(".").slice(0, 2).join(".");
  if (!SUPPORTED_IGNITION.includes(minor)) {
    return {
      error: `parsing Ignition config failed: unknown version. Supported spec versions: ${supported}`,
    };
  }
  return { minor };
}

/** ValidateMachineConfig: kernelType, Ignition version and content, extensions. Returns the error or undefined. */
export function validateMachineConfig(spec: MachineConfigSpec): string | undefined {
  if (!KERNEL_TYPES.includes(spec.kernelType ?? "")) return `kernelType=${spec.kernelType} is invalid`;
  const config = spec.config;
  if (config === undefined || Object.keys(config).length === 0) return undefined;
  const version = ignitionMinor(field(config, "ignition", "version"));
  if (version.error) return version.error;
  const files = config.storage?.files ?? [];
  for (let i = 0; i < files.length; i++) {
    if (typeof files[i].path !== "string" || !files[i].path.startsWith("/")) {
      return `invalid ignition V3 config found: error at $.storage.files.${i}.path: path not absolute`;
    }
  }
  for (const f of files) {
    if (typeof f.mode === "number" && f.mode > 0o777) {
      return `invalid mode 0${f.mode.toString(8)} for ${f.path}, cannot exceed 0777`;
    }
  }
  const invalid = (spec.extensions ?? []).filter((e) => !SUPPORTED_EXTENSIONS.includes(e));
  if (invalid.length > 0) return `invalid extensions found: [${invalid.join(" ")}]`;
  return undefined;
}

// ---- merge ----

function mergeKeyed<T extends Json>(
  parent: T[] | undefined,
  child: T[] | undefined,
  key: string,
  combine: (a: T, b: T) => T,
): T[] | undefined {
  if (!parent && !child) return undefined;
  const out = [...(parent ?? [])];
  for (const c of child ?? []) {
    const i = out.findIndex((p) => p[key] === c[key]);
    if (i >= 0) out[i] = combine(out[i], c);
    else out.push(c);
  }
  return out;
}

function mergeIgnition(parent: IgnConfig, child: IgnConfig): IgnConfig {
  const out: IgnConfig = structuredClone(parent);
  const files = mergeKeyed(
    parent.storage?.files as Json[] | undefined,
    child.storage?.files as Json[] | undefined,
    "path",
    (a, b) => ({ ...a, ...b, contents: { ...obj(a.contents), ...obj(b.contents) } }),
  );
  const dirs = mergeKeyed(
    parent.storage?.directories as Json[] | undefined,
    child.storage?.directories as Json[] | undefined,
    "path",
    (a, b) => ({ ...a, ...b }),
  );
  const links = mergeKeyed(
    parent.storage?.links as Json[] | undefined,
    child.storage?.links as Json[] | undefined,
    "path",
    (a, b) => ({ ...a, ...b }),
  );
  const storage: Json = { ...obj(parent.storage) };
  if (files) storage.files = files;
  if (dirs) storage.directories = dirs;
  if (links) storage.links = links;
  for (const k of ["disks", "filesystems", "raid"] as const) {
    const list = [...(parent.storage?.[k] ?? []), ...(child.storage?.[k] ?? [])];
    if (list.length > 0) storage[k] = list;
  }
  if (Object.keys(storage).length > 0) out.storage = storage as IgnConfig["storage"];
  const units = mergeKeyed(
    parent.systemd?.units as unknown as Json[] | undefined,
    child.systemd?.units as unknown as Json[] | undefined,
    "name",
    (a, b) => ({
      ...a,
      ...b,
      ...(a.dropins || b.dropins
        ? {
            dropins: mergeKeyed(
              a.dropins as Json[] | undefined,
              b.dropins as Json[] | undefined,
              "name",
              (x, y) => ({ ...x, ...y }),
            ),
          }
        : {}),
    }),
  );
  if (units) out.systemd = { units: units as unknown as IgnUnit[] };
  const users = mergeKeyed(
    parent.passwd?.users as Json[] | undefined,
    child.passwd?.users as Json[] | undefined,
    "name",
    (a, b) => ({
      ...a,
      ...b,
      sshAuthorizedKeys: [
        ...new Set([
          ...((a.sshAuthorizedKeys as string[]) ?? []),
          ...((b.sshAuthorizedKeys as string[]) ?? []),
        ]),
      ],
    }),
  );
  if (users) out.passwd = { ...obj(parent.passwd), users: users as IgnUser[] };
  return out;
}

function newestVersion(configs: MachineConfigSpec[]): string {
  const versions = configs
    .map((c) => c.config?.ignition?.version)
    .filter((v): v is string => typeof v === "string" && !v.startsWith("2."));
  const sorted = versions.sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  return sorted[sorted.length - 1] ?? "3.2.0";
}

/**
 * MergeMachineConfigs, in its order (primitives/render-order.ts: worker-role configs first, then the
 * rest, each by name). The first is the base; the others are merged into it. Kernel arguments and extensions concatenate, FIPS and a non-default
 * kernelType stick, the last user-set osImageURL wins.
 */
export function mergeMachineConfigs(configs: KubeObject[]): MachineConfigSpec {
  const ordered = mergeOrder(configs);
  const specs = ordered.map(specOf);
  let ign: IgnConfig = { ignition: { version: newestVersion(specs) } };
  for (const spec of specs) {
    if (spec.config && Object.keys(spec.config).length > 0) ign = mergeIgnition(ign, spec.config);
  }
  ign.ignition = { ...ign.ignition, version: newestVersion(specs) };
  for (const f of ign.storage?.files ?? []) if (f.overwrite === undefined) f.overwrite = true;

  let kernelType = "default";
  let osImageURL = OS_IMAGE_URL;
  let extensionsImage = EXTENSIONS_IMAGE;
  for (let i = 0; i < ordered.length; i++) {
    const spec = specs[i];
    if (spec.kernelType === "realtime" || spec.kernelType === "64k-pages") kernelType = spec.kernelType;
    const generated = Boolean(ordered[i].metadata.annotations?.[GENERATED_BY_ANNOTATION]);
    if (!generated && spec.osImageURL) osImageURL = spec.osImageURL;
    if (!generated && spec.baseOSExtensionsContainerImage)
      extensionsImage = spec.baseOSExtensionsContainerImage;
  }
  return {
    baseOSExtensionsContainerImage: extensionsImage,
    config: ign,
    extensions: specs.flatMap((s) => s.extensions ?? []),
    fips: specs.some((s) => s.fips === true),
    kernelArguments: specs.flatMap((s) => s.kernelArguments ?? []),
    kernelType,
    osImageURL,
  };
}

/** `rendered-<pool>-<md5>`: the MCO hashes the salted, serialized merged spec with MD5. */
export function renderedName(pool: string, spec: MachineConfigSpec): string {
  const digest = createHash("md5")
    .update("openshift-simulator-render-salt")
    .update(stableJson(spec))
    .digest("hex");
  return `rendered-${pool}-${digest}`;
}

// ---- reconcilability and node impact ----

function usersProblem(users: IgnUser[] | undefined): string | undefined {
  for (const u of users ?? []) {
    const { name, sshAuthorizedKeys, passwordHash, ...rest } = u;
    const valid =
      name === "core" &&
      ((sshAuthorizedKeys ?? []).length > 0 || passwordHash !== undefined) &&
      Object.keys(rest).length === 0;
    if (!valid) {
      return "invalid passwd change(s): ignition passwd user section contains unsupported changes: user must be core and have 1 or more sshKeys";
    }
  }
  return undefined;
}

/** isConfigReconcilable: the changes the daemon can make in place; undefined when all are. */
export function reconcileProblem(oldSpec: MachineConfigSpec, newSpec: MachineConfigSpec): string | undefined {
  const o = oldSpec.config ?? ({ ignition: { version: "3.2.0" } } as IgnConfig);
  const n = newSpec.config ?? ({ ignition: { version: "3.2.0" } } as IgnConfig);
  if (stableJson(o.passwd) !== stableJson(n.passwd)) {
    const problem = usersProblem(n.passwd?.users);
    if (problem) return problem;
    if (stableJson(o.passwd?.groups) !== stableJson(n.passwd?.groups)) {
      return "invalid passwd change(s): ignition Passwd Groups section contains changes";
    }
  }
  if (stableJson(o.kernelArguments) !== stableJson(n.kernelArguments)) {
    return "ignition kargs section contains changes";
  }
  for (const k of ["disks", "filesystems", "raid", "directories"] as const) {
    if (stableJson(o.storage?.[k]) !== stableJson(n.storage?.[k])) {
      return `ignition ${k} section contains changes`;
    }
  }
  if (stableJson(o.storage?.links) !== stableJson(n.storage?.links) && (n.storage?.links ?? []).length > 0) {
    return "ignition links section contains changes";
  }
  for (const f of n.storage?.files ?? []) {
    if (Array.isArray(f.append) && f.append.length > 0) return `ignition file ${f.path} includes append`;
  }
  if (Boolean(oldSpec.fips) !== Boolean(newSpec.fips)) {
    return "detected change to FIPS flag; refusing to modify FIPS on a running cluster";
  }
  return undefined;
}

export interface NodeImpact extends Decision {
  diff: ConfigDiff;
  reboot: boolean;
}

/**
 * What moving a node from one rendered config to another costs: the daemon's diff of the two rendered
 * configs (newMachineConfigDiff, CalculateConfigFileDiffs, GetChangedConfigUnitsByType), computed here
 * from the simulator's own renders, then decided by the MCO's rules table (the one home of those rules,
 * builders/rollout-impact/rules.ts) under the cluster's node disruption policies. A node without a
 * current config (first boot) always reboots.
 */
export function nodeImpact(
  oldSpec: MachineConfigSpec | undefined,
  newSpec: MachineConfigSpec,
  policies: ClusterPolicies,
): NodeImpact {
  const changed = <T>(key: (x: T) => string, a: T[], b: T[]) => {
    const before = new Map(a.map((x) => [key(x), stableJson(x)]));
    const after = new Map(b.map((x) => [key(x), stableJson(x)]));
    return [...new Set([...before.keys(), ...after.keys()])]
      .filter((k) => before.get(k) !== after.get(k))
      .sort();
  };
  const files = (s: MachineConfigSpec | undefined) => s?.config?.storage?.files ?? [];
  const units = (s: MachineConfigSpec | undefined) => s?.config?.systemd?.units ?? [];
  const fieldValue: Record<AlwaysRebootField, (s: MachineConfigSpec | undefined) => unknown> = {
    osImageURL: (s) => s?.osImageURL ?? "",
    kernelArguments: (s) => s?.kernelArguments ?? [],
    fips: (s) => Boolean(s?.fips),
    kernelType: (s) => s?.kernelType || "default",
    extensions: (s) => s?.extensions ?? [],
  };
  const diff: ConfigDiff = {
    fields: oldSpec
      ? ALWAYS_REBOOT_FIELDS.filter(
          (f) => stableJson(fieldValue[f](oldSpec)) !== stableJson(fieldValue[f](newSpec)),
        )
      : ["osImageURL"],
    files: changed((f: IgnFile) => f.path, files(oldSpec), files(newSpec)),
    units: changed((u: IgnUnit) => u.name, units(oldSpec), units(newSpec)),
    sshKeys: stableJson(oldSpec?.config?.passwd ?? {}) !== stableJson(newSpec.config?.passwd ?? {}),
  };
  const decision = decide(diff, policies);
  return { ...decision, diff, reboot: decision.actions.some((a) => a.type === "Reboot") };
}

/** The error the daemon hits writing `path`, or undefined when RHCOS can write there. */
export function writeProblem(path: string): string | undefined {
  if (WRITABLE_PREFIXES.some((p) => path.startsWith(p))) return undefined;
  const dir = path.slice(0, path.lastIndexOf("/")) || "/";
  return `failed to create directory "${dir}": mkdir ${dir}: read-only file system`;
}

export function filePaths(spec: MachineConfigSpec): string[] {
  return (spec.config?.storage?.files ?? []).map((f) => f.path);
}
