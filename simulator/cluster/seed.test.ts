import * as assert from "node:assert/strict";
import { createClock } from "../clock";
import { startControllers } from "../controllers";
import { K, keyOf } from "../controllers/util";
import { MemoryStore } from "../store/memory-store";
import { KubeObject } from "../store/types";
import { INFRASTRUCTURE_ID, PLATFORM_NAMESPACES, seedCluster } from "./seed";

const NS = "openshift-machine-api";
const field = (o: KubeObject | undefined, ...path: string[]): unknown =>
  path.reduce<unknown>((cur, p) => (cur as Record<string, unknown> | undefined)?.[p], o);

describe("seeded cluster", () => {
  describe("on AWS", () => {
    const store = new MemoryStore();
    const cluster = seedCluster(store, { platform: "aws" });

    it("describes itself in the Infrastructure object as the library reads it", () => {
      const infra = store.get(keyOf(K.infrastructure, "cluster"));
      assert.equal(field(infra, "status", "infrastructureName"), INFRASTRUCTURE_ID);
      assert.equal(field(infra, "status", "platform"), "AWS");
      assert.deepEqual(field(infra, "status", "platformStatus"), {
        type: "AWS",
        aws: { region: "us-east-2" },
      });
      assert.equal(cluster.infrastructureId, "cluster-zbwlg-cbgq7");
    });

    it("has the installer's worker MachineSets, one per zone, with a complete AWSMachineProviderConfig", () => {
      assert.deepEqual(
        cluster.workerMachineSets,
        ["a", "b", "c"].map((z) => `${INFRASTRUCTURE_ID}-worker-us-east-2${z}`),
      );
      for (const [i, name] of cluster.workerMachineSets.entries()) {
        const ms = store.get(keyOf(K.machineSet, name, NS))!;
        const value = field(ms, "spec", "template", "spec", "providerSpec", "value") as Record<
          string,
          unknown
        >;
        assert.match(
          String(field(ms, "spec", "template", "spec", "providerSpec", "value", "ami", "id")),
          /^ami-[0-9a-f]{17}$/,
        );
        assert.equal(value.kind, "AWSMachineProviderConfig");
        assert.deepEqual(value.placement, { availabilityZone: `us-east-2${"abc"[i]}`, region: "us-east-2" });
        assert.deepEqual(value.userDataSecret, { name: "worker-user-data" });
        assert.deepEqual(value.tags, [
          { name: `kubernetes.io/cluster/${INFRASTRUCTURE_ID}`, value: "owned" },
        ]);
        assert.deepEqual(field(ms, "status", "readyReplicas"), 1);
      }
    });

    it("has 3 masters and 3 workers as converged nodes with realistic labels", () => {
      assert.equal(cluster.masterNodes.length, 3);
      assert.equal(cluster.workerNodes.length, 3);
      for (const name of [...cluster.masterNodes, ...cluster.workerNodes]) {
        const node = store.get(keyOf(K.node, name))!;
        const labels = node.metadata.labels!;
        assert.match(name, /^ip-10-0-\d+-\d+\.us-east-2\.compute\.internal$/);
        assert.equal(labels["kubernetes.io/os"], "linux");
        assert.equal(labels["kubernetes.io/arch"], "amd64");
        assert.equal(labels["node.openshift.io/os_id"], "rhcos");
        assert.equal(labels["kubernetes.io/hostname"], name.split(".")[0]);
        assert.match(labels["topology.kubernetes.io/zone"], /^us-east-2[abc]$/);
        assert.equal(labels["topology.kubernetes.io/region"], "us-east-2");
        assert.ok(labels["node.kubernetes.io/instance-type"]);
        const annotations = node.metadata.annotations!;
        assert.equal(annotations["machineconfiguration.openshift.io/state"], "Done");
        assert.equal(
          annotations["machineconfiguration.openshift.io/currentConfig"],
          annotations["machineconfiguration.openshift.io/desiredConfig"],
        );
      }
      const master = store.get(keyOf(K.node, cluster.masterNodes[0]))!;
      assert.equal(master.metadata.labels!["node-role.kubernetes.io/master"], "");
      assert.deepEqual(field(master, "spec", "taints"), [
        { effect: "NoSchedule", key: "node-role.kubernetes.io/master" },
      ]);
      const worker = store.get(keyOf(K.node, cluster.workerNodes[0]))!;
      assert.equal(worker.metadata.labels!["node-role.kubernetes.io/worker"], "");
      const machines = store.list(K.machine.apiVersion, K.machine.kind, { namespace: NS });
      assert.equal(machines.length, 6);
      assert.ok(
        machines.every((m) => field(m, "status", "phase") === "Running" && field(m, "status", "nodeRef")),
      );
    });

    it("has master and worker pools on their rendered configs, built from the base MachineConfigs", () => {
      for (const role of ["master", "worker"]) {
        const pool = store.get(keyOf(K.pool, role))!;
        const name = String(field(pool, "spec", "configuration", "name"));
        assert.match(name, new RegExp(`^rendered-${role}-[0-9a-f]{32}$`));
        assert.ok(store.get(keyOf(K.machineConfig, name)));
        assert.deepEqual(
          (field(pool, "spec", "configuration", "source") as Array<{ name: string }>).map((s) => s.name),
          [
            `00-${role}`,
            `01-${role}-container-runtime`,
            `01-${role}-kubelet`,
            `97-${role}-generated-kubelet`,
            `98-${role}-generated-kubelet`,
            `99-${role}-generated-registries`,
            `99-${role}-ssh`,
          ],
        );
        assert.equal(field(pool, "status", "configuration", "name"), name);
        assert.equal(field(pool, "status", "machineCount"), 3);
        assert.equal(field(pool, "status", "updatedMachineCount"), 3);
        assert.equal(field(pool, "status", "observedGeneration"), pool.metadata.generation);
        const conditions = field(pool, "status", "conditions") as Array<{ type: string; status: string }>;
        assert.equal(conditions.find((c) => c.type === "Updated")?.status, "True");
        assert.equal(conditions.find((c) => c.type === "Degraded")?.status, "False");
      }
    });

    it("has the platform objects, a redhat-operators catalog, and no cluster-monitoring-config", () => {
      for (const ns of PLATFORM_NAMESPACES) assert.ok(store.get(keyOf(K.namespace, ns)), ns);
      assert.ok(store.get(keyOf(K.clusterVersion, "version")));
      assert.ok(store.get(keyOf(K.ingressController, "default", "openshift-ingress-operator")));
      assert.equal(field(store.get(keyOf(K.imageRegistry, "cluster")), "spec", "managementState"), "Managed");
      const catalog = store.get(keyOf(K.catalogSource, "redhat-operators", "openshift-marketplace"));
      assert.equal(field(catalog, "status", "connectionState", "lastObservedState"), "READY");
      assert.equal(
        store.get(keyOf(K.configMap, "cluster-monitoring-config", "openshift-monitoring")),
        undefined,
      );
      assert.ok(store.get(keyOf(K.secret, "worker-user-data", NS)));
    });
  });

  describe("on Azure", () => {
    const store = new MemoryStore();
    const cluster = seedCluster(store, { platform: "azure" });

    it("uses centralus zones 1-3, Azure names and an image in the MachineSets", () => {
      assert.deepEqual(
        cluster.workerMachineSets,
        ["1", "2", "3"].map((z) => `${INFRASTRUCTURE_ID}-worker-centralus${z}`),
      );
      const ms = store.get(keyOf(K.machineSet, cluster.workerMachineSets[0], NS));
      assert.equal(
        field(ms, "spec", "template", "spec", "providerSpec", "value", "kind"),
        "AzureMachineProviderSpec",
      );
      assert.match(
        String(field(ms, "spec", "template", "spec", "providerSpec", "value", "image", "resourceID")),
        /galleries/,
      );
      const infra = store.get(keyOf(K.infrastructure, "cluster"));
      assert.equal(
        field(infra, "status", "platformStatus", "azure", "resourceGroupName"),
        `${INFRASTRUCTURE_ID}-rg`,
      );
      const node = store.get(keyOf(K.node, cluster.workerNodes[0]))!;
      assert.equal(node.metadata.labels!["topology.kubernetes.io/zone"], "centralus-1");
      assert.match(node.metadata.name, new RegExp(`^${INFRASTRUCTURE_ID}-worker-centralus1-`));
    });
  });

  it("is a fixpoint of the controllers: starting them renames, re-renders and rolls nothing", async () => {
    const clock = createClock(1000);
    const store = new MemoryStore({ now: () => clock.now() });
    const cluster = seedCluster(store, { platform: "aws" });
    const before = store.list(K.pool.apiVersion, K.pool.kind).map((p) => JSON.stringify(p.spec));
    const touched: string[] = [];
    store.subscribe(({ object }) => {
      if (object.kind !== "MachineSet" && object.kind !== "Machine" && object.kind !== "Node")
        touched.push(`${object.kind}/${object.metadata.name}`);
      else if (
        object.kind === "Node" &&
        cluster.workerNodes.concat(cluster.masterNodes).includes(object.metadata.name)
      )
        touched.push(`Node/${object.metadata.name}`);
    });
    const controllers = startControllers({ store, clock, platform: "aws" });
    try {
      // A change that takes every controller through its queues: a new worker machine joins the pool.
      store.mutate(
        keyOf(K.machineSet, cluster.workerMachineSets[0], NS),
        (o) => ((o.spec as { replicas: number }).replicas = 2),
      );
      await new Promise<void>((resolve) => {
        const stop = store.subscribe(({ object }) => {
          if (
            object.kind === "MachineConfigPool" &&
            object.metadata.name === "worker" &&
            field(object, "status", "machineCount") === 4 &&
            field(object, "status", "updatedMachineCount") === 4
          ) {
            stop();
            resolve();
          }
        });
      });
      assert.deepEqual(
        store.list(K.pool.apiVersion, K.pool.kind).map((p) => JSON.stringify(p.spec)),
        before,
      );
      assert.deepEqual(
        touched.filter((t) => !t.startsWith("MachineConfigPool/worker")),
        [],
      );
    } finally {
      controllers.stop();
      clock.stop();
    }
  });
});
