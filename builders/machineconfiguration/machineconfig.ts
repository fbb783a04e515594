import { collectEach, collectErrors, InputError } from "../errors";
import {
  requireArray,
  requireBoolean,
  requireDnsLabel,
  requireDnsSubdomain,
  requireNonEmptyString,
  requireOneOf,
  requireUnique,
} from "../validation";
import { MACHINECONFIGURATION_API_VERSION, mergeLabels, ROLE_LABEL } from "./common";
import { decodeBase64, decodeDataUrl, encodeDataUrl } from "./dataurl";
import { requireSshPublicKey } from "./ssh";

/**
 * Ignition spec versions the MCO parses: it reads configs with Ignition's v3_5 ParseCompatibleVersion,
 * which takes every stable 3.x release up to 3.5.0 (openshift/machine-config-operator,
 * pkg/controller/common/helpers.go IgnParseWrapper). 2.x configs are still read for old clusters but have
 * another shape (`filesystem: root`, no `overwrite` default), which this builder does not produce.
 */
export const IGNITION_VERSIONS = ["3.0.0", "3.1.0", "3.2.0", "3.3.0", "3.4.0", "3.5.0"] as const;
export type IgnitionVersion = (typeof IGNITION_VERSIONS)[number];
/** What `oc get mc` shows for OpenShift's own configs, and the spec the OpenShift docs point to. */
export const DEFAULT_IGNITION_VERSION: IgnitionVersion = "3.2.0";

/** ValidateMachineConfig's kernel types; `64k-pages` is for aarch64 only. */
export const KERNEL_TYPES = ["default", "realtime", "64k-pages"] as const;
export type KernelType = (typeof KERNEL_TYPES)[number];

/** The MCO's SupportedExtensions(); older releases know fewer, which their MCO reports on the pool. */
export const RHCOS_EXTENSIONS = [
  "ipsec",
  "kerberos",
  "kernel-devel",
  "sandboxed-containers",
  "sysstat",
  "two-node-ha",
  "usbguard",
] as const;
export type RhcosExtension = (typeof RHCOS_EXTENSIONS)[number];

/** The only directories the MCO supports writing to. */
export const WRITABLE_ROOTS = ["/etc/", "/var/"] as const;

/** Ignition's systemd unit types (validateName in Ignition's config types, without obsolete `.snapshot`). */
export const UNIT_SUFFIXES = [
  ".service",
  ".socket",
  ".device",
  ".mount",
  ".automount",
  ".swap",
  ".target",
  ".path",
  ".timer",
  ".slice",
  ".scope",
] as const;

/** The MCO rejects setuid, setgid and sticky bits (validateIgn3FileModes), so modes stop at 0777. */
export const MAX_FILE_MODE = 0o777;
export const DEFAULT_FILE_MODE = 0o644;

/** File contents: UTF-8 text, base64 bytes, or a `data:` URL used as given. */
export type FileContents = { text: string } | { base64: string } | { source: string };

export interface MachineConfigFile {
  /** Absolute, normalised, under /etc or /var. */
  path: string;
  contents: FileContents;
  /** Octal permission: 0o644 (= 420), "0644" or "644"; at most 0777. Default 0644. */
  mode?: number | string;
  /** Replace a file that exists already; default true (Ignition fails on a differing file otherwise). */
  overwrite?: boolean;
  /** Owner and group by name; the node's defaults (root) when omitted. */
  user?: string;
  group?: string;
}

export interface SystemdDropin {
  /** `<name>.conf`, written to `/etc/systemd/system/<unit>.d/`. */
  name: string;
  contents: string;
}

export interface SystemdUnit {
  /** Unit name with its type suffix, e.g. `chronyd.service`. */
  name: string;
  enabled?: boolean;
  mask?: boolean;
  contents?: string;
  dropins?: SystemdDropin[];
}

export interface MachineConfigArgs {
  /** Object name; MachineConfigs merge in lexical order of their names (e.g. `99-infra-chrony`). */
  name: string;
  /** The pool role the config targets (`worker`, `master` or a custom pool). */
  role: string;
  /** Ignition spec version of the config, `3.0.0` to `3.5.0`; default `3.2.0`, as OpenShift's own configs. */
  ignitionVersion?: string;
  /** Files written on the nodes, under /etc or /var; changing one updates the nodes (most without a reboot). */
  files?: MachineConfigFile[];
  /** systemd units and drop-ins, enabled or masked as given. */
  systemd?: { units?: SystemdUnit[] };
  /** Kernel arguments added to the nodes' boot; a change reboots them. */
  kernelArguments?: string[];
  /** `default`, `realtime`, or `64k-pages` (aarch64 only); a change reboots the nodes. */
  kernelType?: string;
  /** RHCOS extensions to install, e.g. `usbguard`, `kernel-devel`, `sandboxed-containers`. */
  extensions?: string[];
  /** FIPS mode; a day-1 setting: the MCO refuses to change it on a running cluster. */
  fips?: boolean;
  /** Public keys for user `core`, the only user the MCO manages. */
  sshAuthorizedKeys?: string[];
  /** Normally set by the MCO itself in the rendered config; only for deliberate OS image overrides. */
  osImageURL?: string;
  /** Extra labels of the MachineConfig; the role label is always set. */
  labels?: Record<string, string>;
}

export interface IgnitionFile {
  path: string;
  contents: { source: string };
  mode: number;
  overwrite: boolean;
  user?: { name: string };
  group?: { name: string };
}

export interface IgnitionUnit {
  name: string;
  enabled?: boolean;
  mask?: boolean;
  contents?: string;
  dropins?: SystemdDropin[];
}

export interface IgnitionConfig {
  ignition: { version: IgnitionVersion };
  passwd?: { users: { name: "core"; sshAuthorizedKeys: string[] }[] };
  storage?: { files: IgnitionFile[] };
  systemd?: { units: IgnitionUnit[] };
}

export interface MachineConfigManifest {
  apiVersion: typeof MACHINECONFIGURATION_API_VERSION;
  kind: "MachineConfig";
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    config: IgnitionConfig;
    kernelArguments?: string[];
    kernelType?: KernelType;
    extensions?: RhcosExtension[];
    fips?: boolean;
    osImageURL?: string;
  };
}

function requirePath(path: string, value: unknown): string {
  const p = requireNonEmptyString(path, value);
  if (!WRITABLE_ROOTS.some((root) => p.startsWith(root) && p.length > root.length)) {
    throw new InputError(
      path,
      `${JSON.stringify(p)} is not allowed: the MCO only writes files under ${WRITABLE_ROOTS.map((r) => r.slice(0, -1)).join(" and ")} (an absolute path such as "/etc/chrony.conf")`,
    );
  }
  if (
    p.endsWith("/") ||
    p.split("/").some((seg, i) => i > 0 && (seg === "" || seg === "." || seg === ".."))
  ) {
    throw new InputError(
      path,
      `${JSON.stringify(p)} is not a normalised file path: use an absolute path without '//', '.', '..' or a trailing '/'`,
    );
  }
  return p;
}

const OCTAL = /^0?[0-7]{1,4}$/;

/** An octal permission as a number (0o644) or an octal string ("0644", "644"), as the decimal Ignition wants. */
export function parseFileMode(path: string, value: unknown): number {
  const mode =
    typeof value === "number" && Number.isInteger(value)
      ? value
      : typeof value === "string" && OCTAL.test(value)
        ? parseInt(value, 8)
        : undefined;
  if (mode === undefined || mode < 0 || mode > MAX_FILE_MODE) {
    // A number is shown in octal too: 644 written in decimal is 0o1204, which says what went wrong.
    const shown =
      typeof mode === "number" && typeof value === "number"
        ? `${value} (octal 0o${mode.toString(8)})`
        : JSON.stringify(value);
    throw new InputError(
      path,
      `${shown} is not an allowed file mode: use an octal permission from 0 to 0777 such as 0o644 or "0644" (the MCO rejects setuid, setgid and sticky bits)`,
    );
  }
  return mode;
}

function fileSource(path: string, contents: FileContents): string {
  const kinds = contents && typeof contents === "object" ? Object.keys(contents) : [];
  const allowed = "give exactly one of { text }, { base64 } or { source }";
  if (kinds.length !== 1) throw new InputError(path, allowed);
  if ("text" in contents) {
    if (typeof contents.text !== "string")
      throw new InputError(`${path}.text`, "must be a string (UTF-8 text)");
    return encodeDataUrl(contents.text);
  }
  if ("base64" in contents) {
    const bytes = typeof contents.base64 === "string" ? decodeBase64(contents.base64) : undefined;
    if (!bytes) throw new InputError(`${path}.base64`, "must be standard base64 with '=' padding");
    return encodeDataUrl(bytes);
  }
  if ("source" in contents) {
    const source: unknown = contents.source;
    const decoded = typeof source === "string" ? decodeDataUrl(source) : { error: "it is not a string" };
    if ("error" in decoded) {
      throw new InputError(
        `${path}.source`,
        `must be an RFC 2397 data: URL ("data:,..." or "data:;base64,...") but ${decoded.error}; remote http(s) sources are not allowed because the machine-config-daemon does not fetch them`,
      );
    }
    return source as string;
  }
  throw new InputError(path, allowed);
}

const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;

function requireAccountName(path: string, value: unknown): { name: string } {
  if (typeof value !== "string" || !USER_NAME.test(value)) {
    throw new InputError(
      path,
      `${JSON.stringify(value)} is not a user or group name: use up to 32 lower-case letters, digits, '_' or '-', starting with a letter or '_'`,
    );
  }
  return { name: value };
}

function ignitionFile(path: string, file: MachineConfigFile): IgnitionFile {
  if (!file || typeof file !== "object")
    throw new InputError(path, "must be an object with path and contents");
  const [filePath, source, mode, overwrite, user, group] = collectErrors([
    () => requirePath(`${path}.path`, file.path),
    () => fileSource(`${path}.contents`, file.contents),
    () => (file.mode === undefined ? DEFAULT_FILE_MODE : parseFileMode(`${path}.mode`, file.mode)),
    () => (file.overwrite === undefined ? true : requireBoolean(`${path}.overwrite`, file.overwrite)),
    () => (file.user === undefined ? undefined : requireAccountName(`${path}.user`, file.user)),
    () => (file.group === undefined ? undefined : requireAccountName(`${path}.group`, file.group)),
  ]);
  return {
    path: filePath,
    contents: { source },
    mode,
    overwrite,
    ...(user === undefined ? {} : { user }),
    ...(group === undefined ? {} : { group }),
  };
}

const UNIT_NAME = /^[A-Za-z0-9:_.\\@-]+$/;

function requireUnitName(path: string, value: unknown): string {
  const name = requireNonEmptyString(path, value);
  if (!UNIT_NAME.test(name) || !UNIT_SUFFIXES.some((s) => name.endsWith(s) && name.length > s.length)) {
    throw new InputError(
      path,
      `${JSON.stringify(name)} is not a systemd unit name: use letters, digits and ':_.\\@-' ending in one of ${UNIT_SUFFIXES.join(" ")}`,
    );
  }
  return name;
}

function requireDropin(path: string, dropin: SystemdDropin): SystemdDropin {
  const name = requireNonEmptyString(`${path}.name`, dropin?.name);
  if (!name.endsWith(".conf") || name.length === ".conf".length || name.includes("/")) {
    throw new InputError(
      `${path}.name`,
      `${JSON.stringify(name)} is not a drop-in name: use a file name ending in .conf, e.g. "10-override.conf"`,
    );
  }
  if (typeof dropin.contents !== "string") {
    throw new InputError(`${path}.contents`, "must be a string (the drop-in's unit file text)");
  }
  return { name, contents: dropin.contents };
}

function ignitionUnit(path: string, unit: SystemdUnit): IgnitionUnit {
  const name = requireUnitName(`${path}.name`, unit?.name);
  const enabled = unit.enabled === undefined ? undefined : requireBoolean(`${path}.enabled`, unit.enabled);
  const mask = unit.mask === undefined ? undefined : requireBoolean(`${path}.mask`, unit.mask);
  if (mask && enabled) {
    throw new InputError(`${path}.enabled`, "a masked unit cannot be enabled: set enabled or mask, not both");
  }
  if (unit.contents !== undefined && typeof unit.contents !== "string") {
    throw new InputError(`${path}.contents`, "must be a string (the unit file text)");
  }
  const dropins = collectEach(
    requireArray(`${path}.dropins`, unit.dropins, "drop-ins { name, contents }"),
    (d, i) => requireDropin(`${path}.dropins[${i}]`, d),
  );
  requireUnique(`${path}.dropins`, dropins, (d) => d.name, "drop-in", ".name");
  if (enabled === undefined && mask === undefined && unit.contents === undefined && dropins.length === 0) {
    throw new InputError(path, "does nothing: give contents, dropins, enabled or mask");
  }
  return {
    name,
    ...(enabled === undefined ? {} : { enabled }),
    ...(mask === undefined ? {} : { mask }),
    ...(unit.contents === undefined ? {} : { contents: unit.contents }),
    ...(dropins.length === 0 ? {} : { dropins }),
  };
}

function requireStrings(path: string, values: readonly string[] | undefined, what: string): string[] {
  const list = collectEach(requireArray(path, values, what), (v, i) => {
    const s = requireNonEmptyString(`${path}[${i}]`, v);
    if (s !== s.trim())
      throw new InputError(`${path}[${i}]`, `must not start or end with spaces, got ${JSON.stringify(s)}`);
    return s;
  });
  requireUnique(path, list, (s) => s, what);
  return list;
}

/**
 * A MachineConfig for one pool role: Ignition files, systemd units and drop-ins, SSH keys for `core`, plus
 * the MCO's own fields. Only the Ignition sections the MCO can apply on a running node are offered (it
 * refuses disks, filesystems, raid, directories, links, file appends and users other than core).
 *
 * Never put secrets here: the machine config server hands configs to anything that can reach it on the node
 * network, so a MachineConfig is readable far beyond the cluster's RBAC.
 */
export function machineConfig(args: MachineConfigArgs): MachineConfigManifest {
  // Every field is checked, and every problem reported at once.
  const [name, role, version, files, units, keys, kernelArguments, kernelType, extensions, fips, osImageURL] =
    collectErrors([
      () => {
        const name = requireDnsSubdomain("name", args.name);
        if (name.startsWith("rendered-")) {
          throw new InputError(
            "name",
            `${JSON.stringify(name)} is not allowed: names starting with "rendered-" belong to the MCO's merged configs`,
          );
        }
        return name;
      },
      () => requireDnsLabel("role", args.role),
      () =>
        requireOneOf("ignitionVersion", args.ignitionVersion ?? DEFAULT_IGNITION_VERSION, IGNITION_VERSIONS),
      () => {
        const files = collectEach(
          requireArray("files", args.files, "files { path, contents, mode }"),
          (f, i) => ignitionFile(`files[${i}]`, f),
        );
        requireUnique("files", files, (f) => f.path, "path", ".path");
        return files;
      },
      () => {
        const units = collectEach(
          requireArray("systemd.units", args.systemd?.units, "systemd units { name, ... }"),
          (u, i) => ignitionUnit(`systemd.units[${i}]`, u),
        );
        requireUnique("systemd.units", units, (u) => u.name, "unit", ".name");
        return units;
      },
      () => {
        const keys = collectEach(
          requireArray("sshAuthorizedKeys", args.sshAuthorizedKeys, "SSH public key lines"),
          (k, i) => requireSshPublicKey(`sshAuthorizedKeys[${i}]`, k),
        );
        // The same key with another comment is still the same key.
        requireUnique(
          "sshAuthorizedKeys",
          keys,
          (k) => k.split(/\s+/).slice(0, 2).join(" "),
          "SSH public key",
        );
        return keys;
      },
      () => requireStrings("kernelArguments", args.kernelArguments, "kernel argument"),
      () =>
        args.kernelType === undefined ? undefined : requireOneOf("kernelType", args.kernelType, KERNEL_TYPES),
      () => {
        const extensions = collectEach(
          requireArray("extensions", args.extensions, "extension names"),
          (e, i) => requireOneOf(`extensions[${i}]`, e, RHCOS_EXTENSIONS),
        );
        requireUnique("extensions", extensions, (e) => e, "extension");
        return extensions;
      },
      () => (args.fips === undefined ? undefined : requireBoolean("fips", args.fips)),
      () => (args.osImageURL === undefined ? undefined : requireImageRef("osImageURL", args.osImageURL)),
    ]);
  const labels = mergeLabels("labels", args.labels, { [ROLE_LABEL]: role }, "role");

  const config: IgnitionConfig = {
    ignition: { version },
    ...(keys.length === 0 ? {} : { passwd: { users: [{ name: "core" as const, sshAuthorizedKeys: keys }] } }),
    ...(files.length === 0 ? {} : { storage: { files } }),
    ...(units.length === 0 ? {} : { systemd: { units } }),
  };
  return {
    apiVersion: MACHINECONFIGURATION_API_VERSION,
    kind: "MachineConfig",
    metadata: { name, labels },
    spec: {
      config,
      ...(kernelArguments.length === 0 ? {} : { kernelArguments }),
      ...(kernelType === undefined ? {} : { kernelType }),
      ...(extensions.length === 0 ? {} : { extensions }),
      ...(fips === undefined ? {} : { fips }),
      ...(osImageURL === undefined ? {} : { osImageURL }),
    },
  };
}

function requireImageRef(path: string, value: unknown): string {
  const ref = requireNonEmptyString(path, value);
  if (/\s/.test(ref) || !/^[a-z0-9.-]+(:[0-9]+)?\/[^@:]+([:@].+)?$/.test(ref)) {
    throw new InputError(
      path,
      `${JSON.stringify(ref)} is not an image reference: use registry/repository@sha256:<digest> (or :<tag>)`,
    );
  }
  return ref;
}
