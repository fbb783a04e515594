import * as assert from "node:assert/strict";
import { startTestServer, TestServer } from "../apiserver/testing";
import { KubeObject } from "../store/types";
import { CLUSTER_AUTOSCALER, MACHINE_AUTOSCALER, MAX_SIZE } from "./machine-autoscaler";
import { K, Sim, machineSetFrom, startSim } from "./testing";
import { keyOf } from "./util";

const NS = "openshift-machine-api";

interface Entry {
  manager: string;
  operation: string;
  subresource?: string;
  time?: string;
  fieldsV1: Record<string, Record<string, Record<string, unknown>>>;
}

function entries(object: KubeObject | undefined): Entry[] {
  return (object?.metadata.managedFields ?? []) as Entry[];
}

function entryOf(object: KubeObject | undefined, manager: string, subresource?: string): Entry | undefined {
  return entries(object).find((e) => e.manager === manager && e.subresource === subresource);
}

describe("controllers' writes in managedFields", () => {
  let sim: Sim;
  let api: TestServer;
  let name: string;
  const path = () => `/apis/machine.openshift.io/v1beta1/namespaces/${NS}/machinesets/${name}`;
  const replicas = () => (sim.get(K.machineSet, name, NS)?.spec as { replicas: number }).replicas;
  /** Server-side apply of `spec.replicas` by the deploy's field manager, as pulumi-kubernetes sends it. */
  const applyReplicas = (value: number, force = false) =>
    api.request("PATCH", `${path()}?fieldManager=pulumi-kubernetes${force ? "&force=true" : ""}`, {
      contentType: "application/apply-patch+yaml",
      body: {
        apiVersion: "machine.openshift.io/v1beta1",
        kind: "MachineSet",
        metadata: { name, namespace: NS },
        spec: { replicas: value },
      },
    });

  beforeEach(async () => {
    sim = startSim();
    api = await startTestServer({ store: sim.store, namespaces: [] });
    name = `${sim.cluster.infrastructureId}-infra-us-east-2a`;
    machineSetFrom(sim, name, { replicas: 1 });
  });
  afterEach(async () => {
    sim.stop();
    await api.stop();
  });

  it("records a controller's update under its manager, on the fields it changed only, status writes as the status subresource", async () => {
    sim.store.create({
      apiVersion: MACHINE_AUTOSCALER.apiVersion,
      kind: MACHINE_AUTOSCALER.kind,
      metadata: { name, namespace: NS },
      spec: {
        minReplicas: 1,
        maxReplicas: 3,
        scaleTargetRef: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", name },
      },
    });
    const ms = await sim.until("bounds and status", () => {
      const s = sim.get(K.machineSet, name, NS);
      return s?.metadata.annotations?.[MAX_SIZE] !== undefined &&
        entryOf(s, "machineset-controller", "status")
        ? s
        : undefined;
    });
    const operator = entryOf(ms, "cluster-autoscaler-operator");
    assert.equal(operator?.operation, "Update");
    assert.deepEqual(Object.keys(operator.fieldsV1), ["f:metadata"]);
    assert.deepEqual(Object.keys(operator.fieldsV1["f:metadata"]["f:annotations"]).sort(), [
      "f:autoscaling.openshift.io/machineautoscaler",
      "f:machine.openshift.io/cluster-api-autoscaler-node-group-max-size",
      "f:machine.openshift.io/cluster-api-autoscaler-node-group-min-size",
    ]);
    assert.match(operator.time ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const status = entryOf(ms, "machineset-controller", "status");
    assert.equal(status?.operation, "Update");
    assert.deepEqual(Object.keys(status.fieldsV1), ["f:status"]);
    assert.ok(status.fieldsV1["f:status"]["f:replicas"]);
    // The machines the MachineSet controller created are its own, with their owner reference; the
    // machine controller's status writes are its own, apart from its spec writes.
    const machine = await sim.until("a provisioned machine", () =>
      sim.store
        .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
        .find(
          (m) =>
            m.metadata.ownerReferences?.[0]?.name === name &&
            entryOf(m, "machine-controller-manager", "status"),
        ),
    );
    assert.ok(entryOf(machine, "machineset-controller")?.fieldsV1["f:metadata"]["f:ownerReferences"]);
    assert.ok(entryOf(machine, "machine-controller-manager", "status")?.fieldsV1["f:status"]["f:phase"]);
    assert.ok(entryOf(machine, "machine-controller-manager")?.fieldsV1["f:metadata"]["f:finalizers"]);
  });

  it("has the operators own what they defaulted in the IngressController and registry Config they made", async () => {
    const applyReplicasTo = (path: string, apiVersion: string, kind: string, meta: object, value: number) =>
      api.request("PATCH", `${path}?fieldManager=pulumi-kubernetes`, {
        contentType: "application/apply-patch+yaml",
        body: { apiVersion, kind, metadata: meta, spec: { replicas: value } },
      });
    const ingress = sim.get(K.ingressController, "default", "openshift-ingress-operator");
    const registry = sim.get(K.imageRegistry, "cluster");
    for (const [object, manager, path] of [
      [
        ingress,
        "ingress-operator",
        "/apis/operator.openshift.io/v1/namespaces/openshift-ingress-operator/ingresscontrollers/default",
      ],
      [
        registry,
        "cluster-image-registry-operator",
        "/apis/imageregistry.operator.openshift.io/v1/configs/cluster",
      ],
    ] as const) {
      const entry = entryOf(object, manager);
      assert.ok(entry?.fieldsV1["f:spec"]["f:replicas"], JSON.stringify(entries(object)));
      const meta = { name: object!.metadata.name, namespace: object!.metadata.namespace };
      const other = await applyReplicasTo(path, object!.apiVersion, object!.kind, meta, 3);
      assert.equal(other.status, 409, other.text);
      assert.equal(
        other.json().message,
        `Apply failed with 1 conflict: conflict with "${manager}" using ${object!.apiVersion} at ${entry.time}: .spec.replicas`,
      );
      const same = await applyReplicasTo(path, object!.apiVersion, object!.kind, meta, 2);
      assert.equal(same.status, 200, same.text);
    }
  });

  it("makes a server-side apply of another value for a field a controller changed a 409 naming it; the same value is shared, force takes it over", async () => {
    const applied = await applyReplicas(1);
    assert.equal(applied.status, 200, applied.text);
    sim.store.create({
      apiVersion: CLUSTER_AUTOSCALER.apiVersion,
      kind: CLUSTER_AUTOSCALER.kind,
      metadata: { name: "default" },
      spec: {},
    });
    sim.store.mutate(keyOf(K.machineSet, name, NS), (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, [MAX_SIZE]: "3" };
    });
    sim.controllers.machineFaults.pendingPods(1);
    assert.equal(replicas(), 2);
    const scaled = sim.get(K.machineSet, name, NS);
    const autoscaler = entryOf(scaled, "cluster-autoscaler", "scale");
    assert.deepEqual(autoscaler?.fieldsV1, { "f:spec": { "f:replicas": {} } });
    // kube-apiserver names an Update's manager with its subresource, apiVersion and time.
    const manager = `"cluster-autoscaler" with subresource "scale" using machine.openshift.io/v1beta1 at ${autoscaler.time}`;
    assert.equal(entryOf(scaled, "pulumi-kubernetes")?.fieldsV1["f:spec"]?.["f:replicas"], undefined);

    const conflict = await applyReplicas(1);
    assert.equal(conflict.status, 409, conflict.text);
    const body = conflict.json() as { message: string; details: { causes: unknown[] } };
    assert.equal(body.message, `Apply failed with 1 conflict: conflict with ${manager}: .spec.replicas`);
    assert.deepEqual(body.details.causes, [
      {
        reason: "FieldManagerConflict",
        message: `conflict with ${manager}`,
        field: ".spec.replicas",
      },
    ]);
    assert.equal(replicas(), 2);

    const same = await applyReplicas(2);
    assert.equal(same.status, 200, same.text);
    const shared = sim.get(K.machineSet, name, NS);
    assert.ok(entryOf(shared, "pulumi-kubernetes")?.fieldsV1["f:spec"]["f:replicas"]);
    assert.ok(entryOf(shared, "cluster-autoscaler", "scale")?.fieldsV1["f:spec"]["f:replicas"]);

    const forced = await applyReplicas(1, true);
    assert.equal(forced.status, 200, forced.text);
    assert.equal(replicas(), 1);
    const taken = sim.get(K.machineSet, name, NS);
    assert.ok(entryOf(taken, "pulumi-kubernetes")?.fieldsV1["f:spec"]["f:replicas"]);
    assert.equal(entryOf(taken, "cluster-autoscaler", "scale"), undefined);
  });
});
