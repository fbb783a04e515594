import * as assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { KubeObject } from "../store/types";
import {
  K,
  Sim,
  WMCO_NAMESPACE,
  annotation,
  machineSetFrom,
  startSim,
  status,
  subscribeWmco,
} from "./testing";
import { keyOf } from "./util";
import { DESIRED_VERSION_ANNOTATION, VERSION_ANNOTATION } from "./wmco";

const NS = "openshift-machine-api";
const WINDOWS_MS = "winworker";

function windowsMachine(sim: Sim): KubeObject | undefined {
  return sim.store
    .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
    .find((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === WINDOWS_MS);
}

function windowsNodes(sim: Sim): KubeObject[] {
  return sim.store.list("v1", "Node").filter((n) => n.metadata.labels?.["kubernetes.io/os"] === "windows");
}

function events(sim: Sim, machine: KubeObject): Array<{ type: string; reason: string; message: string }> {
  return sim.store
    .list("v1", "Event", { namespace: NS })
    .filter(
      (e) => (e.involvedObject as { name: string }).name === machine.metadata.name,
    ) as unknown as Array<{ type: string; reason: string; message: string }>;
}

function privateKeyPem(): string {
  return generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs1", format: "pem" })
    .toString();
}

describe("WMCO", () => {
  let sim: Sim;
  beforeEach(() => {
    sim = startSim();
    machineSetFrom(sim, WINDOWS_MS, {
      machineLabels: { "machine.openshift.io/os-id": "Windows" },
      nodeLabels: { "node-role.kubernetes.io/worker": "" },
      providerSpec: {
        ami: { id: "ami-0windows2022" },
        userDataSecret: { name: "windows-user-data", namespace: NS },
      },
    });
  });
  afterEach(() => sim.stop());

  it("leaves Windows machines Provisioned without a node until WMCO runs and has its key, then makes them Windows nodes", async () => {
    const provisioned = await sim.until("machine Provisioned", () => {
      const m = windowsMachine(sim);
      return (m?.status as { phase?: string } | undefined)?.phase === "Provisioned" && m;
    });
    assert.equal(windowsNodes(sim).length, 0);

    subscribeWmco(sim);
    const warning = await sim.until("WMCO says the key is missing", () =>
      events(sim, provisioned).find((e) => e.type === "Warning"),
    );
    assert.equal(warning.reason, "MachineSetupFailure");
    assert.match(warning.message, /cloud-private-key/);
    assert.match(warning.message, /not found/);
    assert.equal(sim.get(K.secret, "windows-user-data", NS), undefined);
    assert.equal((windowsMachine(sim)?.status as { phase: string }).phase, "Provisioned");
    assert.equal(windowsNodes(sim).length, 0);

    // What the node looks like at each write: nodeconfig.go Configure cordons, announces the desired
    // version, waits for WICD's version annotation, then uncordons.
    const steps: string[] = [];
    const unwatch = sim.watch(({ object }) => {
      if (object.kind !== "Node" || object.metadata.labels?.["kubernetes.io/os"] !== "windows") return;
      const cordoned = (object.spec as { unschedulable?: boolean }).unschedulable === true;
      const step = `${cordoned ? "cordoned" : "schedulable"} desired=${annotation(object, DESIRED_VERSION_ANNOTATION) ?? "-"} version=${annotation(object, VERSION_ANNOTATION) ?? "-"}`;
      if (steps[steps.length - 1] !== step) steps.push(step);
    });
    sim.store.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "cloud-private-key", namespace: WMCO_NAMESPACE },
      type: "Opaque",
      data: { "private-key.pem": Buffer.from(privateKeyPem()).toString("base64") },
    });
    const userData = await sim.until("windows-user-data", () => sim.get(K.secret, "windows-user-data", NS));
    assert.match(
      Buffer.from((userData.data as { userData: string }).userData, "base64").toString(),
      /ssh-rsa AAAAB3NzaC1yc2E/,
    );

    const running = await sim.until("machine Running", () => {
      const m = windowsMachine(sim);
      return (m?.status as { phase?: string } | undefined)?.phase === "Running" && m;
    });
    const node = await sim.until("node configured and uncordoned", () =>
      windowsNodes(sim).find(
        (n) =>
          annotation(n, VERSION_ANNOTATION) && (n.spec as { unschedulable?: boolean }).unschedulable !== true,
      ),
    );
    unwatch();
    assert.deepEqual(steps, [
      "schedulable desired=- version=-",
      "cordoned desired=10.17.0 version=-",
      "cordoned desired=10.17.0 version=10.17.0",
      "schedulable desired=10.17.0 version=10.17.0",
    ]);
    assert.equal(node.metadata.name, (running.status as { nodeRef: { name: string } }).nodeRef.name);
    const labels = node.metadata.labels ?? {};
    assert.equal(labels["kubernetes.io/os"], "windows");
    assert.equal(labels["node.kubernetes.io/windows-build"], "10.0.20348");
    assert.equal(labels["node-role.kubernetes.io/worker"], "");
    assert.deepEqual((node.spec as { taints: unknown[] }).taints, [
      { effect: "NoSchedule", key: "os", value: "Windows" },
    ]);
    assert.equal(annotation(node, VERSION_ANNOTATION), "10.17.0");
    assert.equal(annotation(node, DESIRED_VERSION_ANNOTATION), "10.17.0");
    await sim.until(
      "MachineSet ready",
      () => status<{ readyReplicas: number }>(sim.get(K.machineSet, WINDOWS_MS, NS)).readyReplicas === 1,
    );

    // The MCO leaves Windows nodes alone.
    const worker = status<{ machineCount: number; updatedMachineCount: number }>(sim.get(K.pool, "worker"));
    assert.deepEqual([worker.machineCount, worker.updatedMachineCount], [3, 3]);
    assert.equal(annotation(node, "machineconfiguration.openshift.io/currentConfig"), undefined);
  });

  it("reconfigures Windows nodes to the new version when WMCO is upgraded", async () => {
    sim.store.create({
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "cloud-private-key", namespace: "openshift-windows-machine-config-operator" },
      data: { "private-key.pem": Buffer.from(privateKeyPem()).toString("base64") },
    });
    subscribeWmco(sim, { startingCSV: "windows-machine-config-operator.v10.16.1", approval: "Manual" });
    const first = await sim.until(
      "install plan",
      () => sim.store.list(K.installPlan.apiVersion, K.installPlan.kind, { namespace: WMCO_NAMESPACE })[0],
    );
    sim.store.mutate(
      { ...K.installPlan, name: first.metadata.name, namespace: WMCO_NAMESPACE },
      (o) => ((o.spec as { approved: boolean }).approved = true),
    );
    await sim.until("node at 10.16.1", () =>
      windowsNodes(sim).find((n) => annotation(n, VERSION_ANNOTATION) === "10.16.1"),
    );
    const upgrade = await sim.until("upgrade plan", () =>
      sim.store
        .list(K.installPlan.apiVersion, K.installPlan.kind, { namespace: WMCO_NAMESPACE })
        .find((ip) => ip.metadata.name !== first.metadata.name),
    );
    let desiredFirst = false;
    const unwatch = sim.watch(({ object }) => {
      if (
        annotation(object, DESIRED_VERSION_ANNOTATION) === "10.17.0" &&
        annotation(object, VERSION_ANNOTATION) === "10.16.1" &&
        (object.spec as { unschedulable?: boolean }).unschedulable === true
      )
        desiredFirst = true;
    });
    sim.store.mutate(
      { ...K.installPlan, name: upgrade.metadata.name, namespace: WMCO_NAMESPACE },
      (o) => ((o.spec as { approved: boolean }).approved = true),
    );
    await sim.until("node at 10.17.0 and uncordoned", () =>
      windowsNodes(sim).find(
        (n) =>
          annotation(n, VERSION_ANNOTATION) === "10.17.0" &&
          (n.spec as { unschedulable?: boolean }).unschedulable !== true,
      ),
    );
    unwatch();
    assert.ok(desiredFirst, "the node is cordoned and told the target before the version is reached");
  });

  describe("on Azure", () => {
    let azure: Sim;
    beforeEach(() => (azure = startSim("azure")));
    afterEach(() => azure.stop());

    const windowsOnAzure = (name: string, placement: Record<string, unknown> = {}, replicas = 1) =>
      machineSetFrom(azure, name, {
        replicas,
        machineLabels: { "machine.openshift.io/os-id": "Windows" },
        nodeLabels: { "node-role.kubernetes.io/worker": "" },
        providerSpec: {
          image: {
            offer: "WindowsServer",
            publisher: "MicrosoftWindowsServer",
            resourceID: "",
            sku: "2019-Datacenter-with-Containers",
            version: "latest",
          },
          osDisk: { diskSizeGB: 128, managedDisk: { storageAccountType: "Premium_LRS" }, osType: "Windows" },
          userDataSecret: { name: "windows-user-data", namespace: NS },
          ...placement,
        },
      });

    const withWmco = (): void => {
      azure.store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: WMCO_NAMESPACE } });
      azure.store.create({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "cloud-private-key", namespace: WMCO_NAMESPACE },
        data: { "private-key.pem": Buffer.from(privateKeyPem()).toString("base64") },
      });
      subscribeWmco(azure);
    };

    it("configures the node of a Windows MachineSet without a zone (a region without zones) and the set gets ready", async () => {
      withWmco();
      // Cloned from a zonal worker set at zero replicas, then without its zone before any machine exists.
      windowsOnAzure("win", { location: "westcentralus" }, 0);
      azure.store.mutate(keyOf(K.machineSet, "win", NS), (o) => {
        const spec = o.spec as { replicas: number; template: { spec: { providerSpec: { value: object } } } };
        delete (spec.template.spec.providerSpec.value as { zone?: string }).zone;
        spec.replicas = 1;
      });
      const node = await azure.until("Windows node", () => windowsNodes(azure)[0]);
      assert.match(node.metadata.name, /^win-[a-z0-9]{5}$/);
      const labels = node.metadata.labels ?? {};
      assert.equal(labels["topology.kubernetes.io/region"], "westcentralus");
      // Azure labels the nodes of VMs outside any zone with fault domain "0".
      assert.equal(labels["topology.kubernetes.io/zone"], "0");
      await azure.until("WMCO configured the node", () =>
        annotation(windowsNodes(azure)[0], VERSION_ANNOTATION) === "10.17.0" ? true : undefined,
      );
      await azure.until(
        "MachineSet ready",
        () => status<{ readyReplicas: number }>(azure.get(K.machineSet, "win", NS)).readyReplicas === 1,
      );
    });

    it("builds Windows Server 2019 nodes from a 2019 SKU and fails machines whose VM name would exceed 15 characters", async () => {
      withWmco();
      windowsOnAzure("win19");
      windowsOnAzure("windows2019");
      const node = await azure.until("Windows node", () => windowsNodes(azure)[0]);
      assert.equal(node.metadata.labels?.["node.kubernetes.io/windows-build"], "10.0.17763");
      assert.match(node.metadata.name, /^win19-[a-z0-9]{5}$/);
      const failed = await azure.until("long name fails", () =>
        azure.store
          .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
          .find(
            (m) =>
              m.metadata.name.startsWith("windows2019-") &&
              (m.status as { phase?: string } | undefined)?.phase === "Failed",
          ),
      );
      assert.match(
        (failed.status as { errorMessage: string }).errorMessage,
        /cannot be more than 15 characters/,
      );
    });
  });
});
