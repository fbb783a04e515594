import { AWSResourceReference, ProviderSpec, SecretReference } from "./provider-spec";

export interface ZoneSpec {
  /** AWS availability zone (`us-east-2a`) or Azure zone number (`"1"`). */
  zone: string;
  /** AWS: subnet id or reference; Azure: subnet name. Default: the installer's per-zone subnet. */
  subnet?: string | AWSResourceReference;
  /** Overrides the installer-style name of this zone's MachineSet. */
  machineSetName?: string;
}

/** Where one MachineSet's machines go, beside the pool's options. */
export interface ZonePlacement {
  infrastructureId: string;
  /** AWS region or Azure location. */
  region: string;
  /** `""` for a MachineSet without a zone (an Azure region without zones). */
  zone: string;
  subnet?: string | AWSResourceReference;
  /**
   * The installer's worker MachineSet the pool copies from (its image, and the network references the
   * user does not give), when one was read.
   */
  worker?: WorkerMachineSet;
}

/** An installer worker MachineSet as read from the cluster: its name, zone and provider spec. */
export interface WorkerMachineSet {
  name: string;
  /** The zone the worker MachineSet places its machines in (`""`: none). */
  zone: string;
  providerSpec: Record<string, unknown>;
}

/**
 * Everything that differs between clouds for a pool's MachineSets, as the installer's per-platform
 * MachineSet generators and hive's machinepool actuators split it. A cloud is one such module and one
 * entry in the platform table (`platforms.ts`); nothing else names a cloud. `Options` is what a user sets
 * on that cloud's machines (the pool spec's property named after the platform).
 */
export interface MachineSetPlatformModule<Options extends object> {
  /** `status.platformStatus.type` of the cluster's Infrastructure object on this cloud (`AWS`). */
  infrastructureType: string;
  /** The installer's MachineSet name for `role` in `zone` (`""`: a MachineSet without a zone). */
  machineSetName(infrastructureId: string, role: string, region: string, zone: string): string;
  /**
   * Throws at `path` when `zone` cannot belong to `region`: by its name, and with `byTable` by the
   * cloud's table of regions and zones (with cloudLookups the cloud itself is asked instead).
   */
  checkZone(path: string, zone: string, region: string, byTable: boolean): void;
  /** The zones of a pool that lists none; throws at `path` where the region needs them listed. */
  zonesWhenNoneListed(path: string, region: string): ZoneSpec[];
  /** `options` with `image` (given, or copied from a worker MachineSet); throws at `path` when it is not this cloud's. */
  withImage(path: string, image: unknown, options: object): Options;
  /** The image of an existing MachineSet's provider spec, undefined when it has none. */
  imageOf(providerSpec: Record<string, unknown> | undefined): unknown;
  /** Where `imageOf` reads, for messages (`ami.id`). */
  imageField: string;
  /** The zone an existing MachineSet's provider spec places machines in (`""`: none). */
  zoneOf(providerSpec: Record<string, unknown>): string;
  /** The provider spec of one zone; errors name paths within `Options` (or `subnet` for the zone's). */
  providerSpec(options: Options, placement: ZonePlacement): ProviderSpec;
  /**
   * Where the network references of a zone's machines come from when `options` give none (the
   * worker MachineSet, or the installer's naming): what the preview says.
   */
  networkSource(options: Options, placement: ZonePlacement): string;
  /** The provider spec fields networkSource speaks of. */
  networkFields: readonly string[];
  /** How Windows machines differ on this cloud (WMCO's documented MachineSets). */
  windows: {
    /** The pool's name segment when the user gives none. */
    defaultRole: string;
    /** Longest MachineSet name, when the cloud limits the VM names derived from it. */
    maxNameLength?: number;
    /** The MachineSet name of a zone, when not the installer's. */
    machineSetName?(role: string, zone: string): string;
    /** `options` for Windows machines booting with WMCO's user data. */
    options(options: Options, userDataSecret: SecretReference): Options;
  };
}

/**
 * `fields` grouped by where each came from, for the preview (`subnet from ...; security groups from
 * ...`); fields the user gave (no source) are left out, and all of them given says so.
 */
export function describeSources(fields: ReadonlyArray<[string, string | undefined]>): string {
  const bySource = new Map<string, string[]>();
  for (const [field, source] of fields) {
    if (source !== undefined) bySource.set(source, [...(bySource.get(source) ?? []), field]);
  }
  if (bySource.size === 0) return "network references as given";
  return [...bySource.entries()].map(([source, names]) => `${names.join(", ")} from ${source}`).join("; ");
}
