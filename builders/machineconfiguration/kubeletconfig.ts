import { collectErrors, InputError } from "../errors";
import { requireBoolean, requireDnsSubdomain, requireInteger, requireOneOf } from "../validation";
import { LabelSelector, MACHINECONFIGURATION_API_VERSION, poolSelector } from "./common";
import { isPlainObject, requirePlainObject } from "./json";
import { checkKubeletConfiguration } from "./kubelet-fields";
import { KubeletConfiguration } from "../generated/kubelet-configuration";

import { TLS_PROFILE_TYPES, TLS_VERSIONS } from "../generated/enums";

export { TLS_PROFILE_TYPES, TLS_VERSIONS };

/** openshift/api's TLSSecurityProfile: `type` plus the matching (empty, or for Custom filled) section. */
export interface TlsSecurityProfile {
  type: (typeof TLS_PROFILE_TYPES)[number];
  old?: Record<string, never> | null;
  intermediate?: Record<string, never> | null;
  modern?: Record<string, never> | null;
  custom?: { ciphers?: string[]; minTLSVersion?: (typeof TLS_VERSIONS)[number] } | null;
}

export interface KubeletConfigArgs {
  name: string;
  /** Role of the pool to configure; the pool must carry `pools.operator.machineconfiguration.openshift.io/<pool>`. */
  pool: string;
  /**
   * KubeletConfiguration fields (kubelet.config.k8s.io/v1beta1), e.g. `{ maxPods: 500 }`: the MCO merges
   * them over the pool's kubelet configuration. A field the kubelet does not know, a bad value, or a
   * field the MCO manages itself fails at preview.
   */
  kubeletConfig?: KubeletConfiguration;
  /** Let the MCO size system-reserved CPU and memory from each node's capacity. */
  autoSizingReserved?: boolean;
  /** Kubelet verbosity, 1 to 10 (the MCO's range). */
  logLevel?: number;
  /** TLS ciphers and minimum version of the kubelet's server: `Old`, `Intermediate`, `Modern` or `Custom`. */
  tlsSecurityProfile?: TlsSecurityProfile;
}

export interface KubeletConfigManifest {
  apiVersion: typeof MACHINECONFIGURATION_API_VERSION;
  kind: "KubeletConfig";
  metadata: { name: string };
  spec: {
    machineConfigPoolSelector: LabelSelector;
    kubeletConfig?: Record<string, unknown>;
    autoSizingReserved?: boolean;
    logLevel?: number;
    tlsSecurityProfile?: TlsSecurityProfile;
  };
}

function requireKubeletConfiguration(path: string, value: unknown): Record<string, unknown> {
  const config = requirePlainObject(path, value);
  collectErrors([
    () => checkKubeletConfiguration(path, config),
    () => {
      const reservedCgroup = config.systemReservedCgroup;
      if (
        reservedCgroup !== undefined &&
        config.systemCgroups !== undefined &&
        reservedCgroup !== config.systemCgroups
      ) {
        throw new InputError(
          `${path}.systemReservedCgroup`,
          `must equal systemCgroups (${JSON.stringify(config.systemCgroups)}) when both are set, as the MCO requires`,
        );
      }
    },
  ]);
  return structuredClone(config);
}

function requireTlsProfile(path: string, value: unknown): TlsSecurityProfile {
  const profile = requirePlainObject(path, value);
  const type = requireOneOf(`${path}.type`, profile.type, TLS_PROFILE_TYPES);
  const section = type.toLowerCase();
  for (const key of Object.keys(profile)) {
    if (key !== "type" && key !== section) {
      throw new InputError(
        `${path}.${key}`,
        `does not belong to profile type ${type}: give only type and ${section}`,
      );
    }
  }
  const custom = profile.custom;
  if (isPlainObject(custom) && custom.minTLSVersion !== undefined) {
    requireOneOf(`${path}.custom.minTLSVersion`, custom.minTLSVersion, TLS_VERSIONS);
  }
  return structuredClone(profile) as unknown as TlsSecurityProfile;
}

/** A KubeletConfig for the pool of one role; the MCO turns it into a generated MachineConfig for that pool. */
export function kubeletConfig(args: KubeletConfigArgs): KubeletConfigManifest {
  const [name, selector, config, autoSizing, logLevel, tls] = collectErrors([
    () => requireDnsSubdomain("name", args.name),
    () => poolSelector("pool", args.pool),
    () =>
      args.kubeletConfig === undefined
        ? undefined
        : requireKubeletConfiguration("kubeletConfig", args.kubeletConfig),
    () =>
      args.autoSizingReserved === undefined
        ? undefined
        : requireBoolean("autoSizingReserved", args.autoSizingReserved),
    // The MCO refuses levels outside 1 to 10 (validateUserKubeletConfig).
    () => (args.logLevel === undefined ? undefined : requireInteger("logLevel", args.logLevel, 1, 10)),
    () =>
      args.tlsSecurityProfile === undefined
        ? undefined
        : requireTlsProfile("tlsSecurityProfile", args.tlsSecurityProfile),
  ]);
  if (autoSizing && config?.systemReserved !== undefined) {
    throw new InputError(
      "kubeletConfig.systemReserved",
      "cannot be set together with autoSizingReserved: true: set the reservation by hand or let the MCO size it, not both",
    );
  }
  if (config === undefined && autoSizing === undefined && logLevel === undefined && tls === undefined) {
    throw new InputError(
      "kubeletConfig",
      "a KubeletConfig needs kubeletConfig, autoSizingReserved, logLevel or tlsSecurityProfile",
    );
  }
  return {
    apiVersion: MACHINECONFIGURATION_API_VERSION,
    kind: "KubeletConfig",
    metadata: { name },
    spec: {
      machineConfigPoolSelector: selector,
      ...(config === undefined ? {} : { kubeletConfig: config }),
      ...(autoSizing === undefined ? {} : { autoSizingReserved: autoSizing }),
      ...(logLevel === undefined ? {} : { logLevel }),
      ...(tls === undefined ? {} : { tlsSecurityProfile: tls }),
    },
  };
}
