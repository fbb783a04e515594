import { collectErrors, InputError } from "../errors";
import { requireInteger, requireNonEmptyString } from "../validation";
import { AWSBlockDevice, AWSMachineProviderConfig } from "./provider-spec";

/**
 * AWS machine options beyond the installer's defaults, as hive's MachinePool and ROSA expose them, each
 * rendered into the fields openshift/api's AWSMachineProviderConfig declares.
 */
export interface AwsPlacementOptions {
  /**
   * Spot instances: `true` or `{ maxPrice }` (USD per hour as a decimal string; default the on-demand
   * price). AWS reclaims them with two minutes' notice; the machine-api's termination handler then
   * deletes the Machine and its MachineSet creates a new one, so the pool shrinks until a new instance
   * is granted. Do not put workloads that cannot be rescheduled on them.
   */
  spotMarketOptions?: true | { maxPrice?: string };
  /** KMS key (ARN) encrypting every EBS volume of the machines. */
  kmsKeyArn?: string;
  /** An existing EC2 placement group, and the partition (1-7) within a partition group. */
  placementGroupName?: string;
  placementGroupPartition?: number;
  /** An On-Demand Capacity Reservation (`cr-...`) to launch into; not with spot. */
  capacityReservationId?: string;
  /** A dedicated host (`h-` and 8 or 17 hex digits): the instances run on it, tenancy `host`. */
  dedicatedHostId?: string;
  /** Security groups (`sg-...`) added to the installer's worker group, as hive's additionalSecurityGroupIDs. */
  additionalSecurityGroups?: string[];
}

const DECIMAL = /^[0-9]+(\.[0-9]+)?$/;

/** Every problem of each option at once; combinations are admission's (admission.ts). */
export function checkAwsPlacementOptions(options: AwsPlacementOptions): void {
  const spot = options.spotMarketOptions;
  collectErrors([
    () => {
      if (spot === undefined || spot === true) return;
      if (typeof spot !== "object" || spot === null) {
        throw new InputError("spotMarketOptions", "use true or { maxPrice }");
      }
      if (
        spot.maxPrice !== undefined &&
        (typeof spot.maxPrice !== "string" || !DECIMAL.test(spot.maxPrice) || Number(spot.maxPrice) <= 0)
      ) {
        throw new InputError(
          "spotMarketOptions.maxPrice",
          `${JSON.stringify(spot.maxPrice)} is not a price: use a positive decimal number of USD per hour as a string, e.g. "0.12"`,
        );
      }
    },
    () => {
      if (
        options.kmsKeyArn !== undefined &&
        !/^arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:(key|alias)\/.+$/.test(options.kmsKeyArn)
      ) {
        throw new InputError(
          "kmsKeyArn",
          `${JSON.stringify(options.kmsKeyArn)} is not a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>)`,
        );
      }
    },
    () => {
      if (options.placementGroupName !== undefined)
        requireNonEmptyString("placementGroupName", options.placementGroupName);
    },
    () => {
      if (options.placementGroupPartition === undefined) return;
      requireInteger("placementGroupPartition", options.placementGroupPartition, 1, 7);
    },
    () => {
      if (options.capacityReservationId === undefined) return;
      if (!/^cr-[0-9a-f]{17}$/.test(options.capacityReservationId)) {
        throw new InputError(
          "capacityReservationId",
          `${JSON.stringify(options.capacityReservationId)} is not a capacity reservation id (cr- and 17 hex digits)`,
        );
      }
    },
    () => {
      if (
        options.dedicatedHostId !== undefined &&
        !/^h-([0-9a-f]{8}|[0-9a-f]{17})$/.test(options.dedicatedHostId)
      ) {
        throw new InputError(
          "dedicatedHostId",
          `${JSON.stringify(options.dedicatedHostId)} is not a dedicated host id (h- and 8 or 17 hex digits)`,
        );
      }
    },
    () =>
      (options.additionalSecurityGroups ?? []).forEach((sg, i) => {
        if (typeof sg !== "string" || !/^sg-[0-9a-f]+$/.test(sg)) {
          throw new InputError(
            `additionalSecurityGroups[${i}]`,
            `${JSON.stringify(sg)} is not a security group id (sg-...)`,
          );
        }
      }),
  ]);
}

/** The provider-spec fields these options set, checked; `spec` is the installer-default config. */
export function withAwsPlacementOptions(
  spec: AWSMachineProviderConfig,
  options: AwsPlacementOptions,
): AWSMachineProviderConfig {
  checkAwsPlacementOptions(options);
  const blockDevices: AWSBlockDevice[] = options.kmsKeyArn
    ? spec.blockDevices.map((d) => ({
        ...d,
        ebs: { ...d.ebs, encrypted: true, kmsKey: { arn: options.kmsKeyArn } },
      }))
    : spec.blockDevices;
  const placement = options.dedicatedHostId
    ? {
        ...spec.placement,
        host: {
          affinity: "DedicatedHost" as const,
          dedicatedHost: { allocationStrategy: "UserProvided" as const, id: options.dedicatedHostId },
        },
        tenancy: "host" as const,
      }
    : spec.placement;
  const spot = options.spotMarketOptions;
  return {
    ...spec,
    blockDevices,
    ...(options.capacityReservationId ? { capacityReservationId: options.capacityReservationId } : {}),
    placement,
    ...(options.placementGroupName ? { placementGroupName: options.placementGroupName } : {}),
    ...(options.placementGroupPartition ? { placementGroupPartition: options.placementGroupPartition } : {}),
    securityGroups: [
      ...spec.securityGroups,
      ...(options.additionalSecurityGroups ?? []).map((id) => ({ id })),
    ],
    ...(spot
      ? { spotMarketOptions: spot === true || spot.maxPrice === undefined ? {} : { maxPrice: spot.maxPrice } }
      : {}),
  };
}
