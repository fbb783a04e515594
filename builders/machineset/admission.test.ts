import * as assert from "node:assert/strict";
import { inputError } from "../../test/input-error";
import { AWS_POOL, AZURE_POOL } from "../../test/pool-specs";
import { manifestsOf, runProgram } from "../../test/program";
import { providerSpecErrors } from "../../test/provider-spec-schema";
import { azureCloud } from "../../test/mocks";
import { PROVIDER_SPECS, requireReference } from "../../test/reference";
import { MemoryStore } from "../../simulator/store/memory-store";
import { seedCluster } from "../../simulator/cluster/seed";
import { admissionRefusals, AWS_ADMISSION, AZURE_ADMISSION } from "./admission";
import { machineSetsForPool, MachineSetPoolSpec, ProviderSpec } from ".";

const AWS = AWS_POOL;
const AZURE = AZURE_POOL;
/** An Azure region without zones: one MachineSet, in an availability set. */
const AZURE_NO_ZONES = { ...AZURE, region: "westcentralus", zones: [] };

describe("admission: what the webhook, the installer and the cloud refuse, at preview", () => {
  const refused: Array<[string, string, MachineSetPoolSpec, string, RegExp]> = [
    [
      "EC2 RunInstances (machine-api-provider-aws instances.go launchInstance sends both)",
      "spot on a dedicated host",
      { ...AWS, aws: { ...AWS.aws, spotMarketOptions: true, dedicatedHostId: "h-0123456789abcdef0" } },
      "aws.dedicatedHostId",
      /spotMarketOptions/,
    ],
    [
      "machine-api-operator machine_webhook.go validateAWS",
      "spot in a capacity reservation",
      {
        ...AWS,
        aws: { ...AWS.aws, spotMarketOptions: true, capacityReservationId: "cr-0123456789abcdef0" },
      },
      "aws.capacityReservationId",
      /spotMarketOptions/,
    ],
    [
      "installer pkg/asset/machines/aws/machines.go tagsFromUserTags",
      "a user tag replacing the cluster ownership tag",
      { ...AWS, aws: { ...AWS.aws, tags: { "kubernetes.io/cluster/c": "shared" } } },
      'aws.tags["kubernetes.io/cluster/c"]',
      /ownership tag/,
    ],
    [
      "installer pkg/types/aws/validation/machinepool.go validateIOPS",
      "IOPS on a gp2 volume",
      {
        ...AWS,
        aws: { ...AWS.aws, blockDevices: [{ ebs: { volumeType: "gp2", volumeSize: 120, iops: 300 } }] },
      },
      "aws.blockDevices[0].ebs.iops",
      /volumeType gp2/,
    ],
    [
      "installer pkg/types/aws/validation/machinepool.go validateThroughput",
      "gp3 throughput above what its IOPS allow",
      {
        ...AWS,
        aws: {
          ...AWS.aws,
          blockDevices: [{ ebs: { volumeType: "gp3", volumeSize: 120, throughputMib: 1000 } }],
        },
      },
      "aws.blockDevices[0].ebs.throughputMib",
      /iops of at least 4000/,
    ],
    [
      "machine-api-operator machine_webhook.go validateAWS",
      "throughput on an io1 volume",
      {
        ...AWS,
        aws: {
          ...AWS.aws,
          blockDevices: [{ ebs: { volumeType: "io1", volumeSize: 120, iops: 3000, throughputMib: 200 } }],
        },
      },
      "aws.blockDevices[0].ebs.throughputMib",
      /volumeType io1/,
    ],
    [
      "machine-api-provider-azure reconciler.go getOrCreateAvailabilitySet",
      "an Azure spot VM in an availability set",
      { ...AZURE_NO_ZONES, azure: { ...AZURE.azure, availabilitySet: "infra-as", spotVMOptions: true } },
      "azure.availabilitySet",
      /spotVMOptions/,
    ],
    [
      "machine-api-provider-azure reconciler.go getOrCreateAvailabilitySet",
      "an availability set with zones",
      { ...AZURE, azure: { ...AZURE.azure, availabilitySet: "infra-as" } },
      "azure.availabilitySet",
      /zones/,
    ],
    [
      "installer pkg/types/azure/validation/machinepool.go ValidateMachinePool",
      "an Ultra SSD OS disk",
      {
        ...AZURE,
        azure: { ...AZURE.azure, osDisk: { managedDisk: { storageAccountType: "UltraSSD_LRS" } } },
      },
      "azure.osDisk.managedDisk.storageAccountType",
      /Premium_LRS, StandardSSD_LRS, Standard_LRS/,
    ],
    [
      "machine-api-operator machine_webhook.go validateAzureSecurityProfile",
      "a confidential VM encrypting its disk without secure boot",
      {
        ...AZURE,
        azure: {
          ...AZURE.azure,
          security: {
            type: "ConfidentialVM",
            confidentialDiskEncryption: "DiskWithVMGuestState",
            secureBoot: "Disabled",
          },
        },
      },
      "azure.security.secureBoot",
      /security.confidentialDiskEncryption DiskWithVMGuestState/,
    ],
    [
      "machine-api-operator machine_webhook.go validateAzureSecurityProfile",
      "a confidential VM without its vTPM",
      {
        ...AZURE,
        azure: {
          ...AZURE.azure,
          security: { type: "ConfidentialVM", virtualizedTrustedPlatformModule: "Disabled" },
        },
      },
      "azure.security.virtualizedTrustedPlatformModule",
      /security.type ConfidentialVM/,
    ],
    [
      "machine-api-operator machine_webhook.go validateAzureSecurityProfile",
      "encryption at host with a confidential disk",
      {
        ...AZURE,
        azure: {
          ...AZURE.azure,
          encryptionAtHost: true,
          security: { type: "ConfidentialVM", confidentialDiskEncryption: "DiskWithVMGuestState" },
        },
      },
      "azure.encryptionAtHost",
      /DiskWithVMGuestState/,
    ],
    [
      "machine-api-operator machine_webhook.go validateAzureImage",
      "an image resource ID beside a marketplace image",
      {
        ...AZURE,
        azure: {
          ...AZURE.azure,
          image: {
            ...AZURE.azure.image,
            publisher: "RedHat",
            offer: "rh-ocp-worker",
            sku: "x",
            version: "1",
          },
        },
      },
      "azure.image.resourceID",
      /image.publisher/,
    ],
  ];
  for (const [upstream, what, spec, propertyPath, message] of refused) {
    it(`${what}: refused at ${propertyPath} (${upstream})`, () => {
      const e = inputError(() => machineSetsForPool(spec));
      assert.equal(e.propertyPath, propertyPath);
      assert.match(e.message, message);
    });
  }

  it("a combination's refusal names every property it concerns", () => {
    for (const r of [...AWS_ADMISSION, ...AZURE_ADMISSION]) {
      assert.ok(r.upstream.length > 0);
      for (const other of r.properties.slice(1)) {
        const name = other.split(".").pop()!;
        assert.ok(r.reason.includes(name), `${r.properties[0]} does not name ${other}`);
      }
    }
  });

  it("a confidential VM encrypting its disk gets the secure boot and vTPM the webhook requires", () => {
    const [set] = machineSetsForPool({
      ...AZURE,
      azure: {
        ...AZURE.azure,
        security: { type: "ConfidentialVM", confidentialDiskEncryption: "DiskWithVMGuestState" },
      },
    });
    const value = set.spec.template.spec.providerSpec.value;
    assert.ok(value.kind === "AzureMachineProviderSpec");
    assert.deepEqual(value.securityProfile?.settings?.confidentialVM?.uefiSettings, {
      secureBoot: "Enabled",
      virtualizedTrustedPlatformModule: "Enabled",
    });
  });
});

/** The provider specs of every MachineSet among a program's resources. */
function providerSpecsOf(manifests: Array<Record<string, unknown>>): ProviderSpec[] {
  return manifests
    .filter((m) => m.kind === "MachineSet")
    .map(
      (m) =>
        (m.spec as { template: { spec: { providerSpec: { value: ProviderSpec } } } }).template.spec
          .providerSpec.value,
    );
}

describe("admission: every provider spec the examples and the simulated installer render", function () {
  // Set on the suite, where the root hook stretches it by the machine's load (a hook's own setting is not).
  this.timeout(60_000);
  const collected: Array<[string, ProviderSpec]> = [];

  before(async () => {
    for (const [program, cloud] of [
      ["examples/aws-infra-windows/index.ts", undefined],
      ["examples/azure-infra-windows/index.ts", azureCloud()],
    ] as const) {
      for (const spec of providerSpecsOf(manifestsOf(await runProgram(program, cloud))))
        collected.push([program, spec]);
    }
    for (const platform of ["aws", "azure"] as const) {
      const store = new MemoryStore();
      seedCluster(store, { platform });
      for (const spec of providerSpecsOf(store.list("machine.openshift.io/v1beta1", "MachineSet") as never)) {
        collected.push([`the simulator's ${platform} installer MachineSets`, spec]);
      }
    }
  });

  it("collects provider specs of both clouds", () => {
    assert.deepEqual([...new Set(collected.map(([, s]) => s.kind))].sort(), [
      "AWSMachineProviderConfig",
      "AzureMachineProviderSpec",
    ]);
  });

  it("the admission tables refuse none of them", () => {
    for (const [from, spec] of collected) assert.deepEqual(admissionRefusals(spec), [], from);
  });

  it("openshift/api's definitions accept every one the library renders", function () {
    requireReference(this, PROVIDER_SPECS);
    // The simulator's are the installer's serialization, `metadata.creationTimestamp: null` included.
    for (const [from, spec] of collected.filter(([from]) => from.startsWith("examples/"))) {
      assert.deepEqual(providerSpecErrors(spec), [], from);
    }
  });
});
