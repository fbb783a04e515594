import * as assert from "node:assert/strict";
import { assertMatchesCrd } from "../../test/crd-schemas";
import { inputError } from "../../test/input-error";
import { providerSpecErrors } from "../../test/provider-spec-schema";
import { AWS_POOL, AZURE_POOL } from "../../test/pool-specs";
import { CRDS, PROVIDER_SPECS, requireReference } from "../../test/reference";
import { machineSetsForPool, MachineSetPoolSpec } from ".";

const AWS = AWS_POOL;
const AZURE = AZURE_POOL;

const AWS_OPTIONS = {
  "spot, any price": { spotMarketOptions: true },
  "spot with a maximum price": { spotMarketOptions: { maxPrice: "0.12" } },
  "an EBS KMS key": {
    kmsKeyArn: "arn:aws:kms:us-east-2:123456789012:key/0a1b2c3d-aaaa-bbbb-cccc-0123456789ab",
  },
  "a partition placement group": { placementGroupName: "pg-infra", placementGroupPartition: 3 },
  "a capacity reservation": { capacityReservationId: "cr-0123456789abcdef0" },
  "a dedicated host": { dedicatedHostId: "h-0123456789abcdef0" },
  "additional security groups and tags": { additionalSecurityGroups: ["sg-0a1b2c3d"], tags: { team: "ops" } },
  "gp3 throughput": {
    blockDevices: [{ ebs: { volumeSize: 200, volumeType: "gp3" as const, throughputMib: 250, iops: 4000 } }],
  },
} as const;

const AZURE_OPTIONS = {
  "spot, up to the on-demand price": { spotVMOptions: true },
  "spot with a maximum price": { spotVMOptions: { maxPrice: "0.05" } },
  "accelerated networking and ultra SSD": { acceleratedNetworking: true, ultraSSDCapability: "Enabled" },
  "encryption at host": { encryptionAtHost: true },
  "trusted launch": {
    security: { type: "TrustedLaunch", secureBoot: "Enabled", virtualizedTrustedPlatformModule: "Enabled" },
  },
  "a confidential VM": {
    security: { type: "ConfidentialVM", confidentialDiskEncryption: "DiskWithVMGuestState" },
  },
  "managed boot diagnostics": { bootDiagnostics: "AzureManaged" },
  "customer-managed boot diagnostics": {
    bootDiagnostics: { storageAccountURI: "https://diag.blob.core.windows.net/" },
  },
  tags: { tags: { team: "ops", "cost-center": "42" } },
} as const;

function rendered(spec: MachineSetPoolSpec) {
  return machineSetsForPool(spec).map(
    (s) => s.spec.template.spec.providerSpec.value as unknown as Record<string, any>,
  );
}

describe("provider options on both clouds", () => {
  for (const [what, options] of Object.entries(AWS_OPTIONS)) {
    it(`AWS: ${what} renders a provider spec openshift/api accepts`, function () {
      requireReference(this, CRDS, PROVIDER_SPECS);
      for (const set of machineSetsForPool({
        ...AWS,
        aws: { ...AWS.aws, ...options },
      } as MachineSetPoolSpec)) {
        assert.deepEqual(providerSpecErrors(set.spec.template.spec.providerSpec.value), []);
        assertMatchesCrd(set);
      }
    });
  }
  for (const [what, options] of Object.entries(AZURE_OPTIONS)) {
    it(`Azure: ${what} renders a provider spec openshift/api accepts`, function () {
      requireReference(this, CRDS, PROVIDER_SPECS);
      for (const set of machineSetsForPool({
        ...AZURE,
        azure: { ...AZURE.azure, ...options },
      } as MachineSetPoolSpec)) {
        assert.deepEqual(providerSpecErrors(set.spec.template.spec.providerSpec.value), []);
        assertMatchesCrd(set);
      }
    });
  }

  it("the schema check notices unknown fields and wrong types, so it is not vacuous", function () {
    requireReference(this, CRDS, PROVIDER_SPECS);
    const [spec] = rendered(AWS);
    assert.deepEqual(providerSpecErrors({ ...spec, spotMarketOptions: { maxPrice: 1, bid: "x" } } as never), [
      "AWSMachineProviderConfig.spotMarketOptions.maxPrice: expected string, got 1",
      "AWSMachineProviderConfig.spotMarketOptions.bid: unknown field",
    ]);
  });

  it("renders each option where openshift/api has it", () => {
    const [aws] = rendered({
      ...AWS,
      aws: {
        ...AWS.aws,
        ...AWS_OPTIONS["a dedicated host"],
        ...AWS_OPTIONS["an EBS KMS key"],
      },
    } as MachineSetPoolSpec);
    const [spot] = rendered({
      ...AWS,
      aws: { ...AWS.aws, spotMarketOptions: { maxPrice: "0.2" } },
    } as MachineSetPoolSpec);
    assert.deepEqual(aws.placement, {
      availabilityZone: "us-east-2a",
      region: "us-east-2",
      host: {
        affinity: "DedicatedHost",
        dedicatedHost: { allocationStrategy: "UserProvided", id: "h-0123456789abcdef0" },
      },
      tenancy: "host",
    });
    assert.equal(aws.blockDevices[0].ebs.kmsKey.arn, AWS_OPTIONS["an EBS KMS key"].kmsKeyArn);
    assert.equal(aws.blockDevices[0].ebs.encrypted, true);
    assert.deepEqual(spot.spotMarketOptions, { maxPrice: "0.2" });
    const [azure] = rendered({
      ...AZURE,
      azure: { ...AZURE.azure, ...AZURE_OPTIONS["a confidential VM"], spotVMOptions: true },
    } as MachineSetPoolSpec);
    assert.deepEqual(azure.securityProfile, {
      settings: {
        // machine-api-operator validateAzureSecurityProfile: vTPM always, secure boot with DiskWithVMGuestState.
        confidentialVM: {
          uefiSettings: { secureBoot: "Enabled", virtualizedTrustedPlatformModule: "Enabled" },
        },
        securityType: "ConfidentialVM",
      },
    });
    assert.deepEqual(azure.osDisk.managedDisk.securityProfile, {
      securityEncryptionType: "DiskWithVMGuestState",
    });
    assert.deepEqual(azure.spotVMOptions, {});
  });

  it("makes one zone-less MachineSet in an Azure region without zones, named as the installer names it", function () {
    requireReference(this, CRDS, PROVIDER_SPECS);
    const sets = machineSetsForPool({
      ...AZURE,
      region: "westcentralus",
      zones: [],
      replicas: 3,
      azure: { ...AZURE.azure, availabilitySet: "c-infra-as" },
    });
    assert.deepEqual(
      sets.map((s) => [s.metadata.name, s.spec.replicas]),
      [["c-infra-westcentralus", 3]],
    );
    const spec = sets[0].spec.template.spec.providerSpec.value as unknown as Record<string, unknown>;
    assert.equal(spec.zone, undefined);
    assert.equal(spec.availabilitySet, "c-infra-as");
    assert.deepEqual(providerSpecErrors(sets[0].spec.template.spec.providerSpec.value), []);
    const zonal = inputError(() => machineSetsForPool({ ...AZURE, zones: [] }));
    assert.equal(zonal.propertyPath, "zones");
    assert.match(zonal.reason, /centralus" has availability zones/);
    assert.equal(inputError(() => machineSetsForPool({ ...AWS, zones: [] })).propertyPath, "zones");
  });

  const bad: Array<[string, MachineSetPoolSpec, string, RegExp]> = [
    [
      "a spot price that is not a number",
      { ...AWS, aws: { ...AWS.aws, spotMarketOptions: { maxPrice: "cheap" } } } as MachineSetPoolSpec,
      "aws.spotMarketOptions.maxPrice",
      /not a price/,
    ],
    [
      "an Azure spot price of zero",
      { ...AZURE, azure: { ...AZURE.azure, spotVMOptions: { maxPrice: "0" } } } as MachineSetPoolSpec,
      "azure.spotVMOptions.maxPrice",
      /not a price/,
    ],
    [
      "a partition without a group",
      { ...AWS, aws: { ...AWS.aws, placementGroupPartition: 2 } } as MachineSetPoolSpec,
      "aws.placementGroupPartition",
      /needs placementGroupName/,
    ],
    [
      "a KMS key that is not an ARN",
      { ...AWS, aws: { ...AWS.aws, kmsKeyArn: "alias/mine" } } as MachineSetPoolSpec,
      "aws.kmsKeyArn",
      /KMS key ARN/,
    ],
    [
      "a bad dedicated host id",
      { ...AWS, aws: { ...AWS.aws, dedicatedHostId: "host-1" } } as MachineSetPoolSpec,
      "aws.dedicatedHostId",
      /h- and 8 or 17/,
    ],
    [
      "an unknown security type",
      {
        ...AZURE,
        azure: { ...AZURE.azure, security: { type: "Shielded" as "TrustedLaunch" } },
      } as MachineSetPoolSpec,
      "azure.security.type",
      /TrustedLaunch/,
    ],
  ];
  for (const [what, spec, propertyPath, message] of bad) {
    it(`rejects ${what} at ${propertyPath}`, () => {
      const e = inputError(() => machineSetsForPool(spec));
      assert.equal(e.propertyPath, propertyPath);
      assert.match(e.message, message);
    });
  }
});
