import * as pulumi from "@pulumi/pulumi";
import { Refusal, ZoneSpec } from "../../builders/machineset";
import { WindowsServerVersion } from "../../builders/windows";

/** `status` of `infrastructures.config.openshift.io/cluster`, as far as the platforms read it. */
export interface InfrastructureStatus {
  infrastructureName?: string;
  platformStatus?: { type?: string } & Record<string, unknown>;
}

export type InvokeParent = { parent: pulumi.Resource };

/** Where a pool's machines go once the cloud has been asked. */
export interface LookedUp<Options> {
  zones: ZoneSpec[];
  options: Options;
}

/**
 * The Pulumi side of a platform: what is read from the cluster and the cloud. Its pure side (names,
 * zones, images, provider specs) is the builders' MachineSetPlatformModule of the same name.
 */
export interface CloudPlatform<Options extends object> {
  /** The region (or location) when not given, from the Infrastructure object and what it points to. */
  region(status: InfrastructureStatus, opts: pulumi.CustomResourceOptions): pulumi.Output<string>;
  /** The zones of a pool that gives none (looked up when `lookups`); an input error where they are needed. */
  zonesWhenNotGiven(region: string, lookups: boolean, invoke: InvokeParent): Promise<ZoneSpec[]>;
  /** The given zones the region does not have, asked of the cloud (`cloudLookups`), each at `zones[i]`. */
  zoneProblems(region: string, zones: readonly ZoneSpec[], invoke: InvokeParent): Promise<Refusal[]>;
  /**
   * What the cloud lacks of the machines' size in the region's zones (`cloudLookups`): the size in the
   * region or a zone, and what the options need of it; each problem at its property.
   */
  sizeProblems(
    region: string,
    zones: readonly ZoneSpec[],
    options: Options,
    invoke: InvokeParent,
  ): Promise<Refusal[]>;
  /** Zones and options completed or checked against the cloud (`cloudLookups`); given values win. */
  lookUp(
    infrastructureId: string,
    zones: ZoneSpec[],
    options: Options,
    invoke: InvokeParent,
  ): Promise<LookedUp<Options>>;
  /** The Windows Server image of `version` when the user gives none. */
  windowsImage(version: WindowsServerVersion, invoke: InvokeParent): unknown;
}
