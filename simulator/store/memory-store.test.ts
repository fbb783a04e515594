import * as assert from "node:assert/strict";
import { MemoryStore, ResourceVersionTooOldError } from "./memory-store";
import { KubeObject, StoreError, StoreEvent } from "./types";

const MS = { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet" };
const MACHINE = { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine" };
const NS = "openshift-machine-api";

function machineSet(name: string, replicas = 1): KubeObject {
  return { ...MS, metadata: { name, namespace: NS }, spec: { replicas } };
}

function expectStoreError(fn: () => unknown, code: number, reason: string): void {
  assert.throws(fn, (e: unknown) => e instanceof StoreError && e.code === code && e.reason === reason);
}

describe("MemoryStore", () => {
  it("assigns server metadata on create and refuses duplicates", () => {
    const store = new MemoryStore({ now: () => new Date("2026-01-02T03:04:05.678Z") });
    const created = store.create(machineSet("a"));
    assert.match(created.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.equal(created.metadata.generation, 1);
    assert.equal(created.metadata.resourceVersion, "1");
    assert.equal(created.metadata.creationTimestamp, "2026-01-02T03:04:05Z");
    expectStoreError(() => store.create(machineSet("a")), 409, "AlreadyExists");
    expectStoreError(() => store.create({ ...MS, metadata: { name: "" } }), 422, "Invalid");
  });

  it("copies objects in and out", () => {
    const store = new MemoryStore();
    const input = machineSet("a");
    const created = store.create(input);
    (input.spec as { replicas: number }).replicas = 9;
    (created.spec as { replicas: number }).replicas = 8;
    const got = store.get({ ...MS, namespace: NS, name: "a" })!;
    assert.equal((got.spec as { replicas: number }).replicas, 1);
    (got.spec as { replicas: number }).replicas = 7;
    assert.equal((store.list(MS.apiVersion, MS.kind)[0].spec as { replicas: number }).replicas, 1);
  });

  it("copies JSON as JSON.parse made it: nested arrays apart, a __proto__ key as an own field", () => {
    const store = new MemoryStore();
    const input = JSON.parse(
      `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"},"data":{"__proto__":{"x":"1"}},"list":[{"a":[1]}]}`,
    ) as KubeObject;
    const created = store.create(input);
    (input.list as Array<{ a: number[] }>)[0].a.push(2);
    const got = store.get({ apiVersion: "v1", kind: "ConfigMap", namespace: "ns", name: "a" })!;
    assert.deepEqual(got.list, [{ a: [1] }]);
    assert.notEqual(got.list, created.list);
    const data = got.data as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(data), Object.prototype);
    assert.deepEqual(Object.keys(data), ["__proto__"]);
    assert.deepEqual(Object.getOwnPropertyDescriptor(data, "__proto__")!.value, { x: "1" });
  });

  it("keeps one global, increasing resourceVersion across kinds", () => {
    const store = new MemoryStore();
    const a = store.create(machineSet("a"));
    const m = store.create({ ...MACHINE, metadata: { name: "m", namespace: NS } });
    const a2 = store.update({ ...a, spec: { replicas: 2 } });
    assert.deepEqual(
      [a, m, a2].map((o) => Number(o.metadata.resourceVersion)),
      [1, 2, 3],
    );
    assert.equal(store.resourceVersion, "3");
  });

  it("bumps generation on spec changes only and protects status", () => {
    const store = new MemoryStore();
    const a = store.create(machineSet("a"));
    const labelled = store.update({
      ...a,
      metadata: { ...a.metadata, labels: { x: "y" } },
      status: { replicas: 5 },
    });
    assert.equal(labelled.metadata.generation, 1);
    assert.equal(labelled.status, undefined, "the main resource ignores status");
    const status = store.update(
      { ...labelled, spec: { replicas: 4 }, status: { replicas: 1 } },
      { subresource: "status" },
    );
    assert.deepEqual(status.status, { replicas: 1 });
    assert.deepEqual(status.spec, { replicas: 1 }, "the status subresource ignores spec");
    assert.equal(status.metadata.generation, 1);
    const scaled = store.update({ ...status, spec: { replicas: 3 } });
    assert.equal(scaled.metadata.generation, 2);
    assert.deepEqual(scaled.status, { replicas: 1 });
  });

  it("does not write or notify when nothing changed", () => {
    const store = new MemoryStore();
    const a = store.create(machineSet("a"));
    const events: StoreEvent[] = [];
    store.subscribe((e) => events.push(e));
    const same = store.update(a);
    assert.equal(same.metadata.resourceVersion, a.metadata.resourceVersion);
    assert.equal(events.length, 0);
  });

  it("does not write when only managedFields times changed, keeping the old times as the API server does", () => {
    const store = new MemoryStore();
    const entry = { manager: "m", operation: "Apply", apiVersion: MS.apiVersion, fieldsType: "FieldsV1" };
    const owned = (time: string, fieldsV1: object) => [{ ...entry, time, fieldsV1 }];
    const a = store.create({
      ...machineSet("a"),
      metadata: { name: "a", namespace: NS, managedFields: owned("2026-01-01T00:00:00Z", { "f:spec": {} }) },
    });
    const events: StoreEvent[] = [];
    store.subscribe((e) => events.push(e));
    const later = store.update({
      ...a,
      metadata: { ...a.metadata, managedFields: owned("2026-01-01T00:00:01Z", { "f:spec": {} }) },
    });
    assert.equal(later.metadata.resourceVersion, a.metadata.resourceVersion);
    assert.deepEqual(later.metadata.managedFields, a.metadata.managedFields);
    assert.equal(events.length, 0);
    const changed = store.update({
      ...a,
      metadata: { ...a.metadata, managedFields: owned("2026-01-01T00:00:02Z", { "f:metadata": {} }) },
    });
    assert.notEqual(changed.metadata.resourceVersion, a.metadata.resourceVersion);
  });

  it("rejects a stale resourceVersion with Conflict and lets mutate win", () => {
    const store = new MemoryStore();
    const a = store.create(machineSet("a"));
    store.update({ ...a, spec: { replicas: 2 } });
    expectStoreError(() => store.update({ ...a, spec: { replicas: 3 } }), 409, "Conflict");
    const mutated = store.mutate(
      { ...MS, namespace: NS, name: "a" },
      (o) => {
        o.status = { replicas: 2 };
      },
      { subresource: "status" },
    );
    assert.deepEqual(mutated?.status, { replicas: 2 });
    assert.equal(
      store.mutate({ ...MS, namespace: NS, name: "nope" }, () => undefined),
      undefined,
    );
    expectStoreError(() => store.update(machineSet("nope")), 404, "NotFound");
  });

  it("holds objects with finalizers until the last one is removed", () => {
    const store = new MemoryStore();
    const key = { ...MS, namespace: NS, name: "a" };
    store.create({ ...machineSet("a"), metadata: { name: "a", namespace: NS, finalizers: ["x", "y"] } });
    assert.equal(store.delete(key), true);
    const deleting = store.get(key)!;
    assert.ok(deleting.metadata.deletionTimestamp);
    assert.equal(store.delete(key), true, "deleting again is a no-op while finalizers remain");
    expectStoreError(
      () => store.update({ ...deleting, metadata: { ...deleting.metadata, finalizers: ["x", "y", "z"] } }),
      422,
      "Invalid",
    );
    store.mutate(key, (o) => (o.metadata.finalizers = ["y"]));
    assert.ok(store.get(key));
    const events: StoreEvent[] = [];
    store.subscribe((e) => events.push(e));
    store.mutate(key, (o) => (o.metadata.finalizers = []));
    assert.equal(store.get(key), undefined);
    assert.deepEqual(
      events.map((e) => e.type),
      ["DELETED"],
    );
    assert.equal(store.delete(key), false);
  });

  it("checks delete preconditions", () => {
    const store = new MemoryStore();
    const key = { ...MS, namespace: NS, name: "a" };
    const a = store.create(machineSet("a"));
    expectStoreError(() => store.delete(key, { preconditions: { uid: "other" } }), 409, "Conflict");
    expectStoreError(() => store.delete(key, { preconditions: { resourceVersion: "0" } }), 409, "Conflict");
    assert.equal(store.delete(key, { preconditions: { uid: a.metadata.uid } }), true);
  });

  function ownerAndMachines(store: MemoryStore): KubeObject {
    const owner = store.create(machineSet("owner"));
    const ref = {
      apiVersion: MS.apiVersion,
      kind: MS.kind,
      name: "owner",
      uid: owner.metadata.uid!,
      controller: true,
    };
    for (const name of ["m1", "m2"]) {
      store.create({ ...MACHINE, metadata: { name, namespace: NS, ownerReferences: [ref] } });
    }
    return owner;
  }

  it("garbage collects dependents whose owners are gone", () => {
    const store = new MemoryStore();
    const owner = ownerAndMachines(store);
    const other = store.create(machineSet("other"));
    store.mutate({ ...MACHINE, namespace: NS, name: "m2" }, (o) => {
      o.metadata.ownerReferences!.push({
        apiVersion: MS.apiVersion,
        kind: MS.kind,
        name: "other",
        uid: other.metadata.uid!,
      });
    });
    store.delete({ ...MS, namespace: NS, name: owner.metadata.name });
    assert.deepEqual(
      store.list(MACHINE.apiVersion, MACHINE.kind).map((m) => m.metadata.name),
      ["m2"],
    );
    const m2 = store.get({ ...MACHINE, namespace: NS, name: "m2" })!;
    assert.deepEqual(
      m2.metadata.ownerReferences!.map((r) => r.name),
      ["other"],
    );
  });

  it("orphans dependents with propagationPolicy Orphan", () => {
    const store = new MemoryStore();
    ownerAndMachines(store);
    store.delete({ ...MS, namespace: NS, name: "owner" }, { propagationPolicy: "Orphan" });
    assert.equal(store.get({ ...MS, namespace: NS, name: "owner" }), undefined);
    const machines = store.list(MACHINE.apiVersion, MACHINE.kind);
    assert.equal(machines.length, 2);
    assert.ok(machines.every((m) => m.metadata.ownerReferences === undefined));
  });

  it("waits for dependents with propagationPolicy Foreground", () => {
    const store = new MemoryStore();
    ownerAndMachines(store);
    const m1 = { ...MACHINE, namespace: NS, name: "m1" };
    store.mutate(m1, (o) => (o.metadata.finalizers = ["machine.openshift.io"]));
    store.delete({ ...MS, namespace: NS, name: "owner" }, { propagationPolicy: "Foreground" });
    const owner = store.get({ ...MS, namespace: NS, name: "owner" })!;
    assert.deepEqual(owner.metadata.finalizers, ["foregroundDeletion"]);
    assert.ok(store.get(m1)!.metadata.deletionTimestamp);
    store.mutate(m1, (o) => delete o.metadata.finalizers);
    assert.equal(store.get({ ...MS, namespace: NS, name: "owner" }), undefined);
    assert.equal(store.list(MACHINE.apiVersion, MACHINE.kind).length, 0);
  });

  it("keeps a namespace Terminating until its content is gone", () => {
    const store = new MemoryStore();
    const nsKey = { apiVersion: "v1", kind: "Namespace", name: NS };
    store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: NS } });
    store.create(machineSet("a"));
    store.create({
      ...MACHINE,
      metadata: { name: "held", namespace: NS, finalizers: ["machine.openshift.io"] },
    });
    store.create({ ...machineSet("b"), metadata: { name: "b", namespace: "elsewhere" } });
    store.delete(nsKey);
    const terminating = store.get(nsKey)!;
    assert.equal((terminating.status as { phase: string }).phase, "Terminating");
    assert.deepEqual(
      store.list(MS.apiVersion, MS.kind).map((o) => o.metadata.namespace),
      ["elsewhere"],
    );
    store.mutate({ ...MACHINE, namespace: NS, name: "held" }, (o) => delete o.metadata.finalizers);
    assert.equal(store.get(nsKey), undefined);
    store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "empty" } });
    store.delete({ apiVersion: "v1", kind: "Namespace", name: "empty" });
    assert.equal(
      store.get({ apiVersion: "v1", kind: "Namespace", name: "empty" }),
      undefined,
      "an empty namespace goes at once",
    );
  });

  it("lists sorted by namespace and name, filtered by namespace and labels", () => {
    const store = new MemoryStore();
    store.create({ ...MS, metadata: { name: "b", namespace: "n2", labels: { role: "infra" } } });
    store.create({ ...MS, metadata: { name: "c", namespace: "n1" } });
    store.create({ ...MS, metadata: { name: "a", namespace: "n2", labels: { role: "worker" } } });
    const names = (objects: KubeObject[]) => objects.map((o) => `${o.metadata.namespace}/${o.metadata.name}`);
    assert.deepEqual(names(store.list(MS.apiVersion, MS.kind)), ["n1/c", "n2/a", "n2/b"]);
    assert.deepEqual(names(store.list(MS.apiVersion, MS.kind, { namespace: "n2" })), ["n2/a", "n2/b"]);
    assert.deepEqual(names(store.list(MS.apiVersion, MS.kind, { labels: { role: "infra" } })), ["n2/b"]);
  });

  it("serves all versions of a group from one storage", () => {
    const store = new MemoryStore();
    store.create({
      apiVersion: "operators.coreos.com/v1",
      kind: "OperatorGroup",
      metadata: { name: "g", namespace: "n" },
    });
    const old = store.get({
      apiVersion: "operators.coreos.com/v1alpha2",
      kind: "OperatorGroup",
      namespace: "n",
      name: "g",
    });
    assert.equal(old?.apiVersion, "operators.coreos.com/v1alpha2");
  });

  it("delivers events synchronously and in resourceVersion order, even for writes made by listeners", () => {
    const store = new MemoryStore();
    const seen: Array<[string, string]> = [];
    const first = store.subscribe((e) => {
      if (e.type === "ADDED" && e.object.metadata.name === "a") store.create(machineSet("from-listener"));
    });
    store.subscribe((e) => seen.push([e.type, e.object.metadata.resourceVersion!]));
    store.create(machineSet("a"));
    assert.deepEqual(seen, [
      ["ADDED", "1"],
      ["ADDED", "2"],
    ]);
    first();
    store.delete({ ...MS, namespace: NS, name: "a" });
    assert.deepEqual(seen[2], ["DELETED", "3"]);
  });

  it("survives a throwing listener", () => {
    const store = new MemoryStore();
    const original = console.error;
    console.error = () => undefined;
    try {
      store.subscribe(() => {
        throw new Error("boom");
      });
      const seen: string[] = [];
      store.subscribe((e) => seen.push(e.type));
      store.create(machineSet("a"));
      assert.deepEqual(seen, ["ADDED"]);
    } finally {
      console.error = original;
    }
  });

  it("replays history for resuming watches and reports when it is too old", () => {
    const store = new MemoryStore({ historyLimit: 3 });
    const a = store.create(machineSet("a"));
    store.update({ ...a, spec: { replicas: 2 } });
    store.delete({ ...MS, namespace: NS, name: "a" });
    assert.deepEqual(
      store.eventsSince(1).map((e) => [e.type, e.resourceVersion]),
      [
        ["MODIFIED", 2],
        ["DELETED", 3],
      ],
    );
    assert.equal(store.eventsSince(0).length, 3);
    store.create(machineSet("b"));
    assert.equal(store.oldestResumableVersion, 1);
    assert.throws(() => store.eventsSince(0), ResourceVersionTooOldError);
    assert.equal(store.eventsSince(1).length, 3);
  });
});
