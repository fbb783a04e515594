import { collectErrors, InputError, InputErrors, within } from "../errors";
import {
  requireDnsLabel,
  requireLabels,
  requireNonEmptyString,
  requireNonNegativeInteger,
  requireTaints,
  requireUnique,
  Taint,
} from "../validation";
import { requireAmiId } from "./aws";
import { machineSet, MachineSetManifest } from "./machineset";
import { spreadReplicas } from "./naming";
import { MachineSetPlatformModule, WorkerMachineSet, ZoneSpec } from "./platform";
import { MachineSetPlatform, PlatformOptions, platformModule } from "./platforms";
import { Refusal } from "./admission";
import { AzureImage, ProviderSpec } from "./provider-spec";
import { MachineReplacementArgs, requireMachineReplacement } from "./replacement";

interface PoolSpecBase {
  infrastructureId: string;
  /** AWS region or Azure location. */
  region: string;
  /** The pool's name segment in MachineSet names (`infra`, `windows-worker`). */
  role: string;
  /** Value of the machine-role/type labels; default `role`. */
  machineRole?: string;
  zones: ReadonlyArray<string | ZoneSpec>;
  /** Total machines, spread over the zones as the installer does. */
  replicas: number;
  machineLabels?: Record<string, string>;
  nodeLabels?: Record<string, string>;
  taints?: Taint[];
  annotations?: Record<string, string>;
  maxNameLength?: number;
  roleLabelsOnSet?: boolean;
  /** The MachineSet name of a zone when not the installer's (Windows on Azure); a zone's own name wins. */
  machineSetName?: (zone: string) => string;
  /** The installer's worker MachineSet the pool copies network references from, when one was read. */
  worker?: WorkerMachineSet;
}

/** A pool on one platform: its options sit under the platform's name (`aws: {...}`). */
export type MachineSetPoolSpec = {
  [P in MachineSetPlatform]: PoolSpecBase & { platform: P } & { [K in P]: PlatformOptions[P] };
}[MachineSetPlatform];

/** A pool whose zones are normalised and placed in its region (`""`: one MachineSet without a zone). */
export type PlacedPoolSpec = Omit<PoolSpecBase, "zones"> & { zones: readonly ZoneSpec[] };

/**
 * The zones as given, each a ZoneSpec with a name, none twice: the one place `string | ZoneSpec` becomes
 * a ZoneSpec. Nothing here needs the cluster.
 */
export function zoneSpecs(given: unknown): ZoneSpec[] {
  if (!Array.isArray(given)) {
    throw new InputError("zones", "at least one zone is required (production infra pools want three)");
  }
  const zones = collectErrors(
    given.map((z: unknown, i) => () => {
      // A YAML stack config's `zones: [1, 2, 3]` reads as numbers: Azure's zones are strings.
      if (typeof z === "number")
        throw new InputError(`zones[${i}]`, `${z} is a number: write the zone as a string, "${z}"`);
      const zone = typeof z === "string" ? { zone: z } : { ...(z as ZoneSpec) };
      requireNonEmptyString(`zones[${i}]`, zone.zone);
      return zone;
    }),
  );
  requireUnique("zones", zones, (z) => z.zone, "zone");
  return zones;
}

/**
 * A pool's zones in its region, and the problems of those that are not the region's (at `zones[i]`),
 * as plain data: they travel through Pulumi Outputs, which copy an Error into a plain object.
 */
export interface PlacedZones {
  zones: ZoneSpec[];
  problems: Refusal[];
}

/** The InputErrors of refusals, to throw. */
export function refusalErrors(refusals: readonly Refusal[]): InputError[] {
  return refusals.map((r) => new InputError(r.path, r.reason));
}

/**
 * `zones` checked against the cluster's region (`byTable`: also by the platform's table of the region's
 * zones, when the cloud is not asked), or the platform's zones for a pool that lists none. The problems
 * are returned, so that they are reported with the pool's other ones.
 */
export function placeInRegion<O extends object>(
  platform: MachineSetPlatformModule<O>,
  region: string,
  zones: readonly ZoneSpec[],
  byTable = true,
): PlacedZones {
  if (zones.length === 0) return { zones: platform.zonesWhenNoneListed("zones", region), problems: [] };
  const errors: InputError[] = [];
  zones.forEach((z, i) => attempt(errors, () => platform.checkZone(`zones[${i}]`, z.zone, region, byTable)));
  return { zones: [...zones], problems: errors.map((e) => ({ path: e.propertyPath, reason: e.reason })) };
}

/** The first zone without a problem (the one whose worker MachineSet a pool reads); with none, their problems. */
export function firstPlacedZone(placed: PlacedZones): ZoneSpec {
  const zone = placed.zones.find((_, i) => !placed.problems.some((r) => r.path === `zones[${i}]`));
  if (zone === undefined) InputErrors.throwIfAny(refusalErrors(placed.problems));
  return zone!;
}

/** What a pool's args must satisfy whatever the cluster: checked before any cluster fact is read. */
export interface PoolInputs {
  zones?: ReadonlyArray<string | ZoneSpec>;
  replicas?: number;
  nodeLabels?: Record<string, string>;
  taints?: Taint[];
  /**
   * A given image. A string can only be an AMI id; an object is checked once the platform is known,
   * since on AWS the better message is that an AMI id is needed.
   */
  image?: string | Partial<AzureImage>;
  machineReplacement?: MachineReplacementArgs;
  /** Whether the pool has `autoscaling`, which decides what `machineReplacement` may be. */
  autoscaled?: boolean;
  /** Whether the pool waits (`wait` is not false): its waiter is what replaces machines. */
  waits?: boolean;
}

/** Every problem of a pool's own inputs at once, without the cluster's facts. */
export function checkPoolInputs(inputs: PoolInputs): void {
  collectErrors([
    () => inputs.zones === undefined || zoneSpecs(inputs.zones),
    () => inputs.replicas === undefined || requireNonNegativeInteger("replicas", inputs.replicas),
    () => requireLabels("nodeLabels", inputs.nodeLabels),
    () => requireTaints("taints", inputs.taints),
    () => typeof inputs.image !== "string" || requireAmiId("image", inputs.image),
    () =>
      inputs.machineReplacement === undefined ||
      within("machineReplacement", () =>
        requireMachineReplacement(
          inputs.machineReplacement!,
          inputs.autoscaled === true,
          inputs.waits !== false,
        ),
      ),
  ]);
}

/**
 * The MachineSets of one pool: one per zone, named and sized as openshift/installer does for its own
 * compute pools, so that an infra pool sits beside the worker sets as if the installer had made it.
 * Every problem is reported at once.
 */
export function machineSetsForPool(spec: MachineSetPoolSpec): MachineSetManifest[] {
  const errors: InputError[] = [];
  const platform = attempt(errors, () => platformModule("platform", spec.platform));
  const given = attempt(errors, () => zoneSpecs(spec.zones));
  const placed =
    platform && given && typeof spec.region === "string" && spec.region !== ""
      ? attempt(errors, () => placeInRegion(platform, spec.region, given))
      : undefined;
  errors.push(...refusalErrors(placed?.problems ?? []));
  // The pool's other properties are checked on the zones found valid, so every mistake shows at once.
  const zones = (placed?.zones ?? given ?? []).filter(
    (_, i) => !errors.some((e) => e.propertyPath === `zones[${i}]`),
  );
  const sets =
    platform && attempt(errors, () => machineSetsInZones({ ...spec, zones } as MachineSetPoolSpec));
  throwFirstPerPath(errors);
  return sets as MachineSetManifest[];
}

/** The MachineSets of a pool whose zones are already normalised and placed (what components build). */
export function machineSetsInZones(spec: MachineSetPoolSpec): MachineSetManifest[] {
  const platform = platformModule("platform", spec.platform);
  const options = (spec as unknown as Record<string, object>)[spec.platform];
  return machineSetsOf(platform, spec.platform, options, spec as PlacedPoolSpec);
}

/** The installer's name of a zone's MachineSet in this pool, unless the zone or the pool names it. */
export function machineSetNameOf<O extends object>(
  platform: MachineSetPlatformModule<O>,
  spec: Pick<PoolSpecBase, "infrastructureId" | "region" | "role" | "machineSetName">,
  zone: ZoneSpec,
): string {
  return (
    zone.machineSetName ??
    spec.machineSetName?.(zone.zone) ??
    platform.machineSetName(spec.infrastructureId, spec.role, spec.region, zone.zone)
  );
}

/**
 * The MachineSets of a placed pool on any platform module: `options` are the user's machine options,
 * reported under `optionsPath`. Nothing here knows a cloud.
 */
export function machineSetsOf<O extends object>(
  platform: MachineSetPlatformModule<O>,
  optionsPath: string,
  options: O,
  spec: PlacedPoolSpec,
): MachineSetManifest[] {
  const errors: InputError[] = [];
  const infraId = attempt(errors, () => requireDnsLabel("infrastructureId", spec.infrastructureId));
  const region = attempt(errors, () => requireNonEmptyString("region", spec.region));
  const role = attempt(errors, () => requireDnsLabel("role", spec.role));
  const zones = spec.zones;
  const replicas = attempt(errors, () =>
    // No zones: the caller has reported why; the total is still checked.
    zones.length > 0
      ? spreadReplicas("replicas", spec.replicas, zones.length)
      : [requireNonNegativeInteger("replicas", spec.replicas)],
  );
  attempt(errors, () => requireLabels("machineLabels", spec.machineLabels));
  attempt(errors, () => requireLabels("nodeLabels", spec.nodeLabels));
  attempt(errors, () => requireTaints("taints", spec.taints));
  const named = infraId !== undefined && region !== undefined && role !== undefined;
  // A bad derived name is the role's, unless a part it is made of is already reported as bad.
  const nameFrom = infraId === undefined ? "infrastructureId" : region === undefined ? "region" : "role";
  const names = zones.map((z) => machineSetNameOf(platform, spec, z));
  if (named) attempt(errors, () => requireUnique("zones", names, (n) => n, "MachineSet name"));

  const manifests = zones.map((zone, i) => {
    // The provider spec's defaults derive from the region; without one its errors would be noise.
    const providerSpec =
      region === undefined
        ? undefined
        : attempt(errors, () =>
            within(
              (path) => (path === "subnet" || path.endsWith(".subnet") ? `zones[${i}].subnet` : path),
              () =>
                within(optionsPath, () =>
                  platform.providerSpec(options, {
                    infrastructureId: spec.infrastructureId,
                    region,
                    zone: zone.zone,
                    subnet: zone.subnet,
                    worker: spec.worker,
                  }),
                ),
            ),
          );
    return attempt(errors, () =>
      within(
        // A bad name comes from the user's override, or else from the role that names the pool.
        (path) => (path !== "name" ? path : zone.machineSetName ? `zones[${i}].machineSetName` : nameFrom),
        () =>
          machineSet({
            name: names[i],
            infrastructureId: spec.infrastructureId,
            machineRole: spec.machineRole ?? spec.role,
            replicas: replicas?.[i] ?? 0,
            machineLabels: spec.machineLabels,
            nodeLabels: spec.nodeLabels,
            taints: spec.taints,
            annotations: spec.annotations,
            // Missing only when its errors are already recorded, and then nothing is returned.
            providerSpec: providerSpec as ProviderSpec,
            maxNameLength: spec.maxNameLength,
            roleLabelsOnSet: spec.roleLabelsOnSet,
          }),
      ),
    );
  });
  throwFirstPerPath(errors);
  return manifests as MachineSetManifest[];
}

/**
 * Throws the errors found, each property once by its first error: a pool-wide mistake fails every zone
 * alike, and a property that fails one check fails the ones built on it.
 */
function throwFirstPerPath(errors: readonly InputError[]): void {
  InputErrors.throwIfAny(
    errors.filter((e, i) => errors.findIndex((o) => o.propertyPath === e.propertyPath) === i),
  );
}

/** Runs `fn`, recording the InputErrors it throws in `errors`; undefined when it threw. */
function attempt<T>(errors: InputError[], fn: () => T): T | undefined {
  try {
    return fn();
  } catch (e) {
    errors.push(...InputErrors.of(e));
    return undefined;
  }
}
