import * as assert from "node:assert/strict";
import { seedCluster } from "../cluster/seed";
import { PlatformName } from "../cluster/platforms";
import { MemoryStore } from "../store/memory-store";
import { KubeObject } from "../store/types";
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
