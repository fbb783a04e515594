import * as assert from "node:assert/strict";
import { admissionRefusals } from "../../builders/machineset/admission";
import { machineSetsForPool, MachineSetPoolSpec, ProviderSpec } from "../../builders/machineset";
import { AWS_POOL, AZURE_POOL } from "../../test/pool-specs";
import { seedCluster } from "../cluster/seed";
import { PlatformName } from "../cluster/platforms";
import { MemoryStore } from "../store/memory-store";
import { KubeObject } from "../store/types";
import { providerSpecDenials } from "./machine-webhooks";
import { startTestServer, TestServer } from "./testing";

const MACHINESETS = "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machinesets";
const MACHINES = "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines";

/** A server over a seeded cluster of `platform`, and a copy of its first worker MachineSet. */
async function seeded(platform: PlatformName): Promise<{ api: TestServer; worker: KubeObject }> {
  const store = new MemoryStore();
  const cluster = seedCluster(store, { platform });
  const api = await startTestServer({ store, namespaces: [] });
  const worker = store.get({
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "MachineSet",
    namespace: "openshift-machine-api",
    name: cluster.workerMachineSets[0],
  })!;
  return { api, worker };
}

/** `worker` renamed, its provider spec changed by `change`, as a user would post it. */
function machineSet(worker: KubeObject, name: string, change: (value: Record<string, any>) => void): object {
  const copy = structuredClone(worker) as any;
  copy.metadata = { name, namespace: "openshift-machine-api", labels: copy.metadata.labels };
  delete copy.status;
  const labels = { "machine.openshift.io/cluster-api-machineset": name };
  copy.spec.selector = { matchLabels: labels };
  copy.spec.template.metadata.labels = { ...copy.spec.template.metadata.labels, ...labels };
  change(copy.spec.template.spec.providerSpec.value);
  return copy;
}

/** The 403 a webhook's denial is answered with, and its message. */
async function denied(api: TestServer, path: string, body: object, method = "POST"): Promise<string> {
  const response = await api.request(method, path, { body });
  assert.equal(response.status, 403, response.text);
  const status = response.json() as { reason: string; message: string };
  assert.equal(status.reason, "Forbidden");
  return status.message;
}

/**
 * machine-api-operator's webhooks (pkg/webhooks/machine_webhook.go validateAWS, validateAzure,
 * validateAzureSecurityProfile, processAWSPlacementTenancy; machineset_webhook.go validateMachineSetSpec),
 * their messages as kube-apiserver relays a denial.
 */
describe("machine-api's admission webhooks in the simulator's API server", function () {
  this.timeout(30_000);

  it("Azure: refuses a ConfidentialVM encrypting its disk without secure boot, and every problem at once", async () => {
    const { api, worker } = await seeded("azure");
    try {
      const message = await denied(
        api,
        MACHINESETS,
        machineSet(worker, "cvm", (v) => {
          v.osDisk.managedDisk.securityProfile = { securityEncryptionType: "DiskWithVMGuestState" };
          v.securityProfile = {
            settings: {
              securityType: "ConfidentialVM",
              confidentialVM: {
                uefiSettings: { secureBoot: "Disabled", virtualizedTrustedPlatformModule: "Enabled" },
              },
            },
          };
        }),
      );
      assert.equal(
        message,
        'admission webhook "validation.machineset.machine.openshift.io" denied the request: providerSpec.securityProfile.settings.confidentialVM.uefiSettings.secureBoot: Invalid value: "Disabled": secureBoot should be enabled when securityEncryptionType is set to DiskWithVMGuestState.',
      );
      const several = await denied(
        api,
        MACHINESETS,
        machineSet(worker, "several", (v) => {
          v.osDisk.diskSizeGB = 40000;
          v.osDisk.cachingType = "Sometimes";
          v.ultraSSDCapability = "Yes";
          v.diagnostics = { boot: { storageAccountType: "CustomerManaged" } };
        }),
      );
      assert.equal(
        several,
        'admission webhook "validation.machineset.machine.openshift.io" denied the request: [providerSpec.osDisk.diskSizeGB: Invalid value: 40000: diskSizeGB must be greater than zero and less than 32768, providerSpec.osDisk.cachingType: Invalid value: "Sometimes": osDisk.cachingType can be only None, ReadOnly, ReadWrite or omitted, providerSpec.ultraSSDCapability: Invalid value: "Yes": ultraSSDCapability can be only Enabled, Disabled or omitted, providerSpec.diagnostics.boot.customerManaged: Required value: customerManaged configuration must be provided]',
      );
      // What the defaulting webhook fills in (vnet and subnet, the secrets) is never refused as missing.
      const defaulted = machineSet(worker, "defaulted", (v) => {
        delete v.vnet;
        delete v.subnet;
        delete v.credentialsSecret;
      });
      assert.equal((await api.request("POST", MACHINESETS, { body: defaulted })).status, 201);
    } finally {
      await api.stop();
    }
  });

  it("AWS: refuses what validateAWS refuses, and a changed selector or one that does not select the template", async () => {
    const { api, worker } = await seeded("aws");
    try {
      const message = await denied(
        api,
        MACHINESETS,
        machineSet(worker, "bad", (v) => {
          v.ami = {};
          v.spotMarketOptions = {};
          v.capacityReservationId = "cr-0123456789abcdef0";
          v.placementGroupPartition = 9;
          v.placement.host = { affinity: "DedicatedHost" };
          v.metadataServiceOptions = { authentication: "Sometimes" };
          v.blockDevices[0].ebs.volumeType = "gp2";
          v.blockDevices[0].ebs.throughputMib = 300;
        }),
      );
      assert.equal(
        message,
        'admission webhook "validation.machineset.machine.openshift.io" denied the request: [' +
          [
            "providerSpec.ami: Required value: expected providerSpec.ami.id to be populated",
            'providerSpec.capacityReservationId: Invalid value: "cr-0123456789abcdef0": spotMarketOptions and capacityReservationID may not be used together',
            "providerSpec.blockDevices[0].ebs.throughputMib: Invalid value: 300: only valid for gp3 volumes",
            "spec.placement.host: Forbidden: host may only be specified when tenancy is 'host'",
            "providerSpec.placementGroupPartition: Invalid value: 9: providerSpec.placementGroupPartition must be between 1 and 7",
            "providerSpec.placementGroupPartition: Invalid value: 9: providerSpec.placementGroupPartition is set but providerSpec.placementGroupName is empty",
            "providerSpec.metadataServiceOptions.authentication: Invalid value: \"Sometimes\": Allowed values are either 'Optional' or 'Required'",
          ].join(", ") +
          "]",
      );
      const good = machineSet(worker, "good", () => undefined) as any;
      const created = await api.request("POST", MACHINESETS, { body: good });
      assert.equal(created.status, 201, created.text);
      const moved = {
        ...created.json(),
        spec: { ...good.spec, selector: { matchLabels: { other: "x" } } },
      } as any;
      moved.spec.template.metadata.labels.other = "x";
      assert.equal(
        await denied(api, `${MACHINESETS}/good`, moved, "PUT"),
        'admission webhook "validation.machineset.machine.openshift.io" denied the request: spec.selector: Forbidden: selector is immutable',
      );
      const unselected = machineSet(worker, "unselected", () => undefined) as any;
      unselected.spec.template.metadata.labels = { only: "this" };
      assert.equal(
        await denied(api, MACHINESETS, unselected),
        'admission webhook "validation.machineset.machine.openshift.io" denied the request: spec.template.metadata.labels: Invalid value: map[string]string{"only":"this"}: `selector` does not match template `labels`',
      );
      // A Machine is validated by the Machine webhook; its status is not (the rules name no subresource).
      const machine = {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "Machine",
        metadata: { name: "m1", namespace: "openshift-machine-api" },
        spec: { providerSpec: { value: { ...good.spec.template.spec.providerSpec.value, ami: {} } } },
      };
      assert.match(
        await denied(api, MACHINES, machine),
        /^admission webhook "validation.machine.machine.openshift.io" denied the request: providerSpec.ami: Required value/,
      );
    } finally {
      await api.stop();
    }
  });
});

/** The provider spec the library renders for the first zone of `pool`, changed by `change`. */
function rendered(pool: MachineSetPoolSpec, change: (value: Record<string, any>) => void): ProviderSpec {
  const value = structuredClone(machineSetsForPool(pool)[0].spec.template.spec.providerSpec.value) as any;
  change(value);
  return value as ProviderSpec;
}

/**
 * The library's admission tables (builders/machineset/admission.ts) and the simulator's webhook refuse
 * the same provider specs where the tables take their rule from the webhook: what a preview refuses is
 * what the cluster would, and the other way round.
 */
describe("the preview's admission and the simulator's webhooks agree on the webhook's rules", () => {
  const cases: Array<[string, ProviderSpec]> = [
    ["AWS: no AMI id", rendered(AWS_POOL, (v) => (v.ami = {}))],
    [
      "AWS: spot in a capacity reservation",
      rendered(AWS_POOL, (v) => {
        v.spotMarketOptions = {};
        v.capacityReservationId = "cr-0123456789abcdef0";
      }),
    ],
    [
      "AWS: a host placement without host tenancy",
      rendered(AWS_POOL, (v) => (v.placement.host = { affinity: "DedicatedHost" })),
    ],
    ["AWS: a partition without its group", rendered(AWS_POOL, (v) => (v.placementGroupPartition = 3))],
    [
      "AWS: throughput on a gp2 volume",
      rendered(AWS_POOL, (v) => {
        v.blockDevices[0].ebs.volumeType = "gp2";
        v.blockDevices[0].ebs.throughputMib = 250;
      }),
    ],
    ["Azure: a vnet without its subnet", rendered(AZURE_POOL, (v) => (v.subnet = ""))],
    ["Azure: a subnet without its vnet", rendered(AZURE_POOL, (v) => (v.vnet = ""))],
    [
      "Azure: an image resource ID beside a marketplace one",
      rendered(AZURE_POOL, (v) => (v.image.sku = "x")),
    ],
    ["Azure: an OS disk of 40000 GiB", rendered(AZURE_POOL, (v) => (v.osDisk.diskSizeGB = 40000))],
    ...(
      [
        [
          "vTPM off",
          { secureBoot: "Enabled", virtualizedTrustedPlatformModule: "Disabled" },
          "VMGuestStateOnly",
          false,
        ],
        [
          "secure boot off",
          { secureBoot: "Disabled", virtualizedTrustedPlatformModule: "Enabled" },
          "DiskWithVMGuestState",
          false,
        ],
        [
          "encryption at host",
          { secureBoot: "Enabled", virtualizedTrustedPlatformModule: "Enabled" },
          "DiskWithVMGuestState",
          true,
        ],
      ] as const
    ).map(([what, uefiSettings, encryption, atHost]): [string, ProviderSpec] => [
      `Azure: a ConfidentialVM with ${what}`,
      rendered(AZURE_POOL, (v) => {
        v.osDisk.managedDisk.securityProfile = { securityEncryptionType: encryption };
        v.securityProfile = {
          encryptionAtHost: atHost,
          settings: { securityType: "ConfidentialVM", confidentialVM: { uefiSettings } },
        };
      }),
    ]),
    [
      "Azure: a disk encryption type without ConfidentialVM",
      rendered(AZURE_POOL, (v) => {
        v.osDisk.managedDisk.securityProfile = { securityEncryptionType: "VMGuestStateOnly" };
        // No security type (validateAzureSecurityProfile's default case; with TrustedLaunch it is Azure
        // that refuses, the webhook lets it through).
        v.securityProfile = { encryptionAtHost: false };
      }),
    ],
    [
      "Azure: customer-managed boot diagnostics without a storage account",
      rendered(AZURE_POOL, (v) => (v.diagnostics = { boot: { storageAccountType: "CustomerManaged" } })),
    ],
  ];
  const platformOf = (spec: ProviderSpec) => (spec.kind === "AWSMachineProviderConfig" ? "AWS" : "Azure");

  for (const [what, spec] of cases) {
    it(`both refuse ${what}`, () => {
      assert.notDeepEqual(admissionRefusals(spec), [], "the preview refuses it");
      assert.notDeepEqual(providerSpecDenials(platformOf(spec), spec as any), [], "the webhook refuses it");
    });
  }

  it("both accept what the library renders", () => {
    for (const pool of [AWS_POOL, AZURE_POOL]) {
      const spec = rendered(pool, () => undefined);
      assert.deepEqual(admissionRefusals(spec), []);
      assert.deepEqual(providerSpecDenials(platformOf(spec), spec as any), []);
    }
  });
});
