/**
 * A pool's MachineConfigs merged as the MCO's render controller does (pkg/controller/common/helpers.go
 * `MergeMachineConfigs`, in the order of primitives/render-order.ts: later ones win per file path and
 * unit name), kept per item with the config that set it so that a change can name its source. The
 * configs the MCO generates for KubeletConfigs and ContainerRuntimeConfigs are added as it names,
 * labels and writes them.
 */
import { byName } from "../../primitives/objects";
import { ROLE_LABEL } from "../../primitives/openshift";
import { mergeOrder } from "../../primitives/render-order";
import { stableJson } from "../../primitives/stable-json";
import { ConfigDiff, AlwaysRebootField } from "./rules";

// render.js exported it before it moved to primitives/; the path stays complete for what requires it.
export { stableJson };

/** The parts of a MachineConfig that reach a node. */
export interface MachineConfigLike {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: {
    config?: {
      passwd?: { users?: Array<{ name: string; sshAuthorizedKeys?: string[] }> };
      storage?: { files?: Array<{ path: string }> };
      systemd?: {
        units?: Array<{ name: string; dropins?: Array<{ name: string }> }>;
      };
    };
    kernelArguments?: string[];
    kernelType?: string;
    extensions?: string[];
    fips?: boolean;
    osImageURL?: string;
  };
}

export interface KubeletConfigLike {
  metadata: { name: string };
  spec?: {
    kubeletConfig?: unknown;
    autoSizingReserved?: boolean;
    logLevel?: number;
    tlsSecurityProfile?: unknown;
  };
}

export interface ContainerRuntimeConfigLike {
  metadata: { name: string };
  spec?: { containerRuntimeConfig?: object };
}

/** The KubeletConfigs and ContainerRuntimeConfigs selecting a pool, whose generated configs carry its role. */
export interface GeneratorConfigs {
  kubeletConfigs?: KubeletConfigLike[];
  containerRuntimeConfigs?: ContainerRuntimeConfigLike[];
}

/**
 * What a pool renders from: the MachineConfigs its selector picks, the KubeletConfigs and
 * ContainerRuntimeConfigs selecting it, and those selecting another pool whose role its selector picks
 * (`inherited`: the worker pool's, for a custom pool), whose generated configs it renders too.
 */
export interface PoolConfigs extends GeneratorConfigs {
  machineConfigs: MachineConfigLike[];
  inherited?: Array<GeneratorConfigs & { role: string }>;
}

interface Item {
  value: string;
  source: string;
}

export interface RenderedView {
  files: Map<string, Item>;
  units: Map<string, Item>;
  fields: Map<AlwaysRebootField, Item>;
  sshKeys: Item;
}

const file = (path: string, content: unknown) => ({ path, contents: stableJson(content) });

/**
 * The MachineConfigs the MCO generates: `99-<pool>-generated-kubelet` (pkg/controller/kubelet-config
 * helpers.go: /etc/kubernetes/kubelet.conf, /etc/node-sizing-enabled.env,
 * /etc/systemd/system/kubelet.service.d/20-logging.conf) and `99-<pool>-generated-containerruntime`
 * (pkg/controller/container-runtime-config helpers.go: a crio drop-in per field, storage.conf for
 * overlaySize), each further one of a pool suffixed `-1`, `-2`, ..., labelled with the pool's role.
 */
export function generatedConfigs(pool: string, configs: GeneratorConfigs): MachineConfigLike[] {
  const metadata = (name: string) => ({ name, labels: { [ROLE_LABEL]: pool } });
  const named = (base: string, i: number) => (i === 0 ? base : `${base}-${i}`);
  const sorted = <T extends { metadata: { name: string } }>(xs: T[] | undefined) =>
    [...(xs ?? [])].sort(byName);
  const kubelet = sorted(configs.kubeletConfigs).map((k, i) => {
    const s = k.spec ?? {};
    const files = [
      file("/etc/kubernetes/kubelet.conf", [s.kubeletConfig ?? {}, s.tlsSecurityProfile ?? null]),
    ];
    if (s.autoSizingReserved !== undefined)
      files.push(file("/etc/node-sizing-enabled.env", s.autoSizingReserved));
    if (s.logLevel !== undefined)
      files.push(file("/etc/systemd/system/kubelet.service.d/20-logging.conf", s.logLevel));
    return {
      metadata: metadata(named(`99-${pool}-generated-kubelet`, i)),
      spec: { config: { storage: { files } } },
    };
  });
  const crio = sorted(configs.containerRuntimeConfigs).map((c, i) => {
    const files = Object.entries(c.spec?.containerRuntimeConfig ?? {})
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) =>
        file(
          k === "overlaySize" ? "/etc/containers/storage.conf" : `/etc/crio/crio.conf.d/01-ctrcfg-${k}`,
          v,
        ),
      );
    return {
      metadata: metadata(named(`99-${pool}-generated-containerruntime`, i)),
      spec: { config: { storage: { files } } },
    };
  });
  return [...kubelet, ...crio];
}

export function renderedView(pool: string, configs: PoolConfigs): RenderedView {
  const all = mergeOrder([
    ...configs.machineConfigs,
    ...generatedConfigs(pool, configs),
    ...(configs.inherited ?? []).flatMap((other) => generatedConfigs(other.role, other)),
  ]);
  const view: RenderedView = {
    files: new Map(),
    units: new Map(),
    fields: new Map(),
    sshKeys: { value: "[]", source: "" },
  };
  const kargs: string[] = [];
  const extensions: string[] = [];
  const keys: string[] = [];
  const units = new Map<
    string,
    { unit: Record<string, unknown>; dropins: Map<string, unknown>; source: string }
  >();
  const set = (f: AlwaysRebootField, value: unknown, source: string) =>
    view.fields.set(f, { value: stableJson(value), source });
  for (const mc of all) {
    const name = mc.metadata.name;
    const spec = mc.spec ?? {};
    for (const f of spec.config?.storage?.files ?? [])
      view.files.set(f.path, { value: stableJson(f), source: name });
    for (const u of spec.config?.systemd?.units ?? []) {
      const prev = units.get(u.name) ?? { unit: {}, dropins: new Map(), source: name };
      const { dropins, ...rest } = u;
      for (const d of dropins ?? []) prev.dropins.set(d.name, d);
      units.set(u.name, { unit: { ...prev.unit, ...rest }, dropins: prev.dropins, source: name });
    }
    for (const u of spec.config?.passwd?.users ?? [])
      if (u.name === "core" && u.sshAuthorizedKeys?.length) {
        keys.push(...u.sshAuthorizedKeys);
        view.sshKeys = { value: stableJson(keys), source: name };
      }
    if (spec.kernelArguments?.length) {
      kargs.push(...spec.kernelArguments);
      set("kernelArguments", kargs, name);
    }
    if (spec.extensions?.length) {
      extensions.push(...spec.extensions);
      set("extensions", extensions, name);
    }
    if (spec.kernelType && spec.kernelType !== "default") set("kernelType", spec.kernelType, name);
    if (spec.fips) set("fips", true, name);
    if (spec.osImageURL) set("osImageURL", spec.osImageURL, name);
  }
  for (const [n, u] of units)
    view.units.set(n, {
      value: stableJson({ ...u.unit, dropins: Object.fromEntries(u.dropins) }),
      source: u.source,
    });
  return view;
}

function changedKeys<K>(a: Map<K, Item>, b: Map<K, Item>): K[] {
  return [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k)?.value !== b.get(k)?.value);
}

/** `newMachineConfigDiff` plus the file and unit diffs the daemon computes next to it. */
export function diffViews(before: RenderedView, after: RenderedView): ConfigDiff {
  return {
    fields: changedKeys(before.fields, after.fields).sort(),
    files: changedKeys(before.files, after.files).sort(),
    units: changedKeys(before.units, after.units).sort(),
    sshKeys: before.sshKeys.value !== after.sshKeys.value,
  };
}

/** The MachineConfig an item comes from: the one setting it after the change, else the one that had it. */
export function sourceOf(
  kind: "field" | "file" | "unit" | "sshKeys",
  name: string,
  before: RenderedView,
  after: RenderedView,
): string {
  const pick = (v: RenderedView) =>
    kind === "file"
      ? v.files.get(name)?.source
      : kind === "unit"
        ? v.units.get(name)?.source
        : kind === "field"
          ? v.fields.get(name as AlwaysRebootField)?.source
          : v.sshKeys.source || undefined;
  return pick(after) ?? pick(before) ?? "";
}
