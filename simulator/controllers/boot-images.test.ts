/**
 * The MCO's MachineSet boot image controller as the simulator models it, each rule checked against the
 * upstream function that decides it (openshift/machine-config-operator).
 */
import * as assert from "node:assert/strict";
import {
  BOOT_IMAGE_OWNER_LABEL,
  MANAGED_EXCEPT_STACK_OWNED,
  OS_STREAM_LABEL,
} from "../../primitives/boot-images";
import { bootImageStream, RHCOS_AMI, RHCOS_AZURE_VERSION } from "../cluster/seed";
import { KubeObject } from "../store/types";
import { K, Sim, machineSetFrom, startSim } from "./testing";
import { keyOf } from "./util";

const NS = "openshift-machine-api";
const NEW_AMI = "ami-0a1b2c3d4e5f60718";
const amiOf = (ms: KubeObject | undefined) =>
  (ms?.spec as { template: { spec: { providerSpec: { value: { ami?: { id?: string } } } } } }).template.spec
    .providerSpec.value.ami?.id;

describe("simulated MCO MachineSet boot image controller", () => {
  let sim: Sim;
  beforeEach(() => (sim = startSim()));
  afterEach(() => sim.stop());

  const infra = (zone: string) => `${sim.cluster.infrastructureId}-infra-${zone}`;
  /** A release upgrade: the CVO writes the new release's boot image stream. */
  const upgrade = () =>
    sim.store.mutate(keyOf(K.configMap, "coreos-bootimages", "openshift-machine-config-operator"), (o) => {
      o.data = bootImageStream(sim.cluster.region, NEW_AMI).data;
    });
  const configure = (managedBootImages: unknown) =>
    sim.store.mutate(keyOf(K.machineConfiguration, "cluster"), (o) => {
      o.spec = { ...(o.spec as object), managedBootImages };
    });
  const ami = (name: string) => amiOf(sim.get(K.machineSet, name, NS));

  it("opts AWS clusters in (All) and updates RHCOS MachineSets to the new stream, skipping owned, Windows, other-stream and custom-AMI ones (sync.go syncManagedBootImagesStatus; ms_helpers.go syncMAPIMachineSet; platform_helpers.go reconcileAWSProviderSpec)", async () => {
    machineSetFrom(sim, infra("us-east-2a"), { replicas: 0 });
    machineSetFrom(sim, "windows", {
      replicas: 0,
      machineLabels: { "machine.openshift.io/os-id": "Windows" },
    });
    machineSetFrom(sim, "custom", { replicas: 0, providerSpec: { ami: { id: "ami-0123456789abcdef0" } } });
    const owned = machineSetFrom(sim, "owned", { replicas: 0 });
    sim.store.mutate(keyOf(K.machineSet, owned.metadata.name, NS), (o) => {
      o.metadata.ownerReferences = [
        { apiVersion: "hive.openshift.io/v1", kind: "MachinePool", name: "p", uid: "u" },
      ];
    });
    sim.store.mutate(
      keyOf(K.machineSet, machineSetFrom(sim, "rhel10", { replicas: 0 }).metadata.name, NS),
      (o) => {
        o.metadata.labels = { ...o.metadata.labels, [OS_STREAM_LABEL]: "rhel-10" };
      },
    );
    const status = await sim.until(
      "managed boot images status",
      () =>
        (sim.get(K.machineConfiguration, "cluster")?.status as { managedBootImagesStatus?: unknown })
          ?.managedBootImagesStatus,
    );
    assert.deepEqual(status, {
      machineManagers: [
        { resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } },
      ],
    });
    upgrade();
    await sim.until("the worker and infra MachineSets on the new AMI", () =>
      [...sim.cluster.workerMachineSets, infra("us-east-2a")].every((n) => ami(n) === NEW_AMI),
    );
    assert.equal(ami("windows"), RHCOS_AMI, "Windows machines are WMCO's");
    assert.equal(ami("custom"), "ami-0123456789abcdef0", "an AMI of an unrecognised owner");
    assert.equal(ami("owned"), RHCOS_AMI, "owned by another controller");
    assert.equal(ami("rhel10"), RHCOS_AMI, "another OS stream");
  });

  it("with a Partial selection excluding the stack's label, updates only the MachineSets the selector matches (helpers.go getMachineResourceSelectorFromMachineManagers)", async () => {
    const pinned = machineSetFrom(sim, infra("us-east-2a"), { replicas: 0 });
    sim.store.mutate(keyOf(K.machineSet, pinned.metadata.name, NS), (o) => {
      o.metadata.labels = { ...o.metadata.labels, [BOOT_IMAGE_OWNER_LABEL]: "stack" };
    });
    configure(MANAGED_EXCEPT_STACK_OWNED);
    upgrade();
    await sim.until("the worker MachineSets on the new AMI", () =>
      sim.cluster.workerMachineSets.every((n) => ami(n) === NEW_AMI),
    );
    assert.equal(ami(pinned.metadata.name), RHCOS_AMI);
  });

  it("with an empty list of machine managers (the legacy opt-out) or mode None, updates nothing", async () => {
    for (const managedBootImages of [
      { machineManagers: [] },
      {
        machineManagers: [
          { resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "None" } },
        ],
      },
    ]) {
      // Both written before the controller's next sync, which writes the status and then patches.
      configure(managedBootImages);
      upgrade();
      await sim.until("the status to follow the spec", () => {
        const status = (
          sim.get(K.machineConfiguration, "cluster")?.status as { managedBootImagesStatus?: unknown }
        )?.managedBootImagesStatus;
        return JSON.stringify(status) === JSON.stringify(managedBootImages);
      });
      assert.ok(sim.cluster.workerMachineSets.every((n) => ami(n) === RHCOS_AMI));
    }
  });
});

describe("simulated MCO MachineSet boot image controller on Azure", () => {
  let sim: Sim;
  before(() => (sim = startSim("azure")));
  after(() => sim.stop());

  const imageOf = (name: string) =>
    (
      sim.get(K.machineSet, name, NS)?.spec as {
        template: { spec: { providerSpec: { value: { image: Record<string, string> } } } };
      }
    ).template.spec.providerSpec.value.image;
  const unpaid = (version: string) => ({
    offer: "aro4",
    publisher: "azureopenshift",
    resourceID: "",
    sku: `${version.split(".")[0]}-v2`,
    version,
    type: "MarketplaceNoPlan",
  });

  it("opts Azure in, moves the image uploaded at install to the unpaid marketplace one, keeps paid images on their own offer and generation, and skips security types and images that are not Red Hat's (featuregates.go CheckBootImagePlatform; platform_helpers.go reconcileAzureProviderSpec, determineAzureVariant, getTargetImageFromStream)", async () => {
    const paid = {
      offer: "rh-ocp-worker",
      publisher: "redhat",
      resourceID: "",
      sku: "rh-ocp-worker-gen1",
      version: "413.92.2023",
    };
    machineSetFrom(sim, "paid", {
      replicas: 0,
      providerSpec: { image: { ...paid, type: "MarketplaceWithPlan" } },
    });
    const own = { offer: "my-offer", publisher: "me", resourceID: "", sku: "my-sku", version: "1.0.0" };
    machineSetFrom(sim, "own", { replicas: 0, providerSpec: { image: own } });
    // As the installer uploads it (the seed's workers have it until the MCO moves them).
    const id = sim.cluster.infrastructureId;
    const uploaded = {
      offer: "",
      publisher: "",
      resourceID: `/resourceGroups/${id}-rg/providers/Microsoft.Compute/galleries/gallery_${id.replaceAll("-", "_")}/images/${id}-gen2/versions/latest`,
      sku: "",
      version: "",
    };
    machineSetFrom(sim, "trusted", {
      replicas: 0,
      providerSpec: { image: uploaded, securityProfile: { settings: { securityType: "TrustedLaunch" } } },
    });
    const [worker] = sim.cluster.workerMachineSets;
    await sim.until("the workers on the unpaid marketplace image", () =>
      sim.cluster.workerMachineSets.every(
        (n) => JSON.stringify(imageOf(n)) === JSON.stringify(unpaid(RHCOS_AZURE_VERSION)),
      ),
    );
    await sim.until(
      "the paid image on this release's Gen1 OCP image",
      () => imageOf("paid").version === RHCOS_AZURE_VERSION,
    );
    assert.deepEqual(imageOf("paid"), { ...paid, version: RHCOS_AZURE_VERSION, type: "MarketplaceWithPlan" });
    assert.deepEqual(imageOf("own"), own, "a publisher and offer the MCO does not know");
    assert.deepEqual(imageOf("trusted"), uploaded, "a security type");

    // A release upgrade: every image the MCO manages moves to the new version.
    const next = "420.94.202509010000";
    sim.store.mutate(keyOf(K.configMap, "coreos-bootimages", "openshift-machine-config-operator"), (o) => {
      o.data = bootImageStream(sim.cluster.region, RHCOS_AMI, next).data;
    });
    await sim.until("the workers on the new version", () => imageOf(worker).version === next);
    assert.deepEqual(imageOf(worker), unpaid(next));
  });
});
