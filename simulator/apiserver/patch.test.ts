import * as assert from "node:assert/strict";
import { KubeObject } from "../store";
import {
  ApplyConflictError,
  builtinListTypes,
  fieldSet,
  serverSideApply,
  trackUpdate,
} from "./managed-fields";
import { jsonPatch, mergePatch, PatchError, strategicMergePatch } from "./patch";

describe("patches", () => {
  it("merge patch: objects merge, null deletes, lists replace", () => {
    assert.deepEqual(mergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] }), {
      a: { c: 2, d: 3 },
      l: [3],
    });
    assert.deepEqual(mergePatch({ a: 1 }, "x"), "x");
  });

  it("JSON patch: every operation, with the server's failures", () => {
    const doc = { spec: { list: ["a", "b"], obj: { k: "v" } } };
    const patched = jsonPatch(doc, [
      { op: "add", path: "/spec/list/-", value: "c" },
      { op: "add", path: "/spec/list/0", value: "z" },
      { op: "replace", path: "/spec/obj/k", value: "w" },
      { op: "copy", from: "/spec/obj", path: "/spec/copy" },
      { op: "move", from: "/spec/list/1", path: "/spec/moved" },
      { op: "remove", path: "/spec/list/0" },
      { op: "test", path: "/spec/copy", value: { k: "w" } },
      { op: "add", path: "/spec/a~1b", value: 1 },
    ]);
    assert.deepEqual(patched, {
      spec: { list: ["b", "c"], obj: { k: "w" }, copy: { k: "w" }, moved: "a", "a/b": 1 },
    });
    assert.deepEqual(doc.spec.list, ["a", "b"], "the input is untouched");
    const failures: Array<[unknown, number]> = [
      [[{ op: "add", path: "/missing/deep", value: 1 }], 422],
      [[{ op: "remove", path: "/spec/nothing" }], 422],
      [[{ op: "replace", path: "/spec/nothing", value: 1 }], 422],
      [[{ op: "test", path: "/spec/obj/k", value: "other" }], 422],
      [[{ op: "add", path: "/spec/list/9", value: 1 }], 422],
      [[{ op: "frobnicate", path: "/spec" }], 422],
      [{ op: "add" }, 400],
    ];
    for (const [ops, code] of failures) {
      assert.throws(
        () => jsonPatch(doc, ops),
        (e: unknown) => e instanceof PatchError && e.code === code,
      );
    }
  });

  it("strategic merge patch: merge keys, primitive sets and directives", () => {
    const pod = {
      metadata: { finalizers: ["a"], labels: { x: "1" } },
      spec: {
        containers: [
          { name: "app", image: "v1", env: [{ name: "A", value: "1" }] },
          { name: "side", image: "s" },
        ],
        tolerations: [{ key: "t1" }],
      },
    };
    const patched = strategicMergePatch(pod, {
      metadata: { finalizers: ["b"], labels: { x: null } },
      spec: {
        containers: [
          { name: "app", image: "v2", env: [{ name: "B", value: "2" }] },
          { name: "side", $patch: "delete" },
        ],
        tolerations: [{ key: "t2" }],
        "$setElementOrder/containers": [{ name: "app" }],
      },
    });
    assert.deepEqual(patched, {
      metadata: { finalizers: ["a", "b"], labels: {} },
      spec: {
        containers: [
          {
            name: "app",
            image: "v2",
            env: [
              { name: "A", value: "1" },
              { name: "B", value: "2" },
            ],
          },
        ],
        tolerations: [{ key: "t2" }],
      },
    });
    assert.deepEqual(strategicMergePatch({ spec: { a: 1, b: 2 } }, { spec: { $patch: "replace", c: 3 } }), {
      spec: { c: 3 },
    });
    assert.deepEqual(
      strategicMergePatch(
        { metadata: { finalizers: ["a", "b"] } },
        { metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] } },
      ),
      { metadata: { finalizers: ["b"] } },
    );
    assert.deepEqual(strategicMergePatch({ spec: { a: 1, b: 2 } }, { spec: { $retainKeys: ["b"], b: 3 } }), {
      spec: { b: 3 },
    });
  });

  it("never lets a __proto__ key reach a prototype", () => {
    const patched = mergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as Record<
      string,
      unknown
    >;
    assert.equal(Object.getPrototypeOf(patched), Object.prototype);
    assert.deepEqual(Object.keys(patched), ["__proto__"]);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe("managed fields", () => {
  const node = (spec: Record<string, unknown>, labels: Record<string, string> = {}): KubeObject => ({
    apiVersion: "v1",
    kind: "Node",
    metadata: { name: "n", labels },
    spec,
  });
  const now = new Date("2026-01-01T00:00:00Z");
  const apply = (live: KubeObject | undefined, applied: KubeObject, manager: string, force = false) =>
    serverSideApply(live, applied, { manager, force, types: builtinListTypes, scope: "main", now });

  it("lists owned leaves, list-map elements and set values", () => {
    const fields = fieldSet(
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "p", labels: { a: "b" }, finalizers: ["f"] },
        spec: { containers: [{ name: "c", image: "i" }], empty: {} },
        status: { phase: "x" },
      },
      builtinListTypes,
      "main",
    );
    assert.deepEqual([...fields].map((f) => f.split("\u0001").join(" ")).sort(), [
      'f:metadata f:finalizers v:"f"',
      "f:metadata f:labels f:a",
      'f:spec f:containers k:{"name":"c"}',
      'f:spec f:containers k:{"name":"c"} f:image',
      'f:spec f:containers k:{"name":"c"} f:name',
      "f:spec f:empty",
    ]);
  });

  it("removes what a manager stops applying unless someone else owns it, and transfers on update", () => {
    let live = apply(undefined, node({ podCIDR: "10.0.0.0/24", providerID: "x" }, { a: "1" }), "one");
    live = apply(live, node({ providerID: "x" }, { b: "1" }), "two");
    live = apply(live, { apiVersion: "v1", kind: "Node", metadata: { name: "n" } }, "one");
    assert.deepEqual(live.spec, { providerID: "x" });
    assert.deepEqual(live.metadata.labels, { b: "1" });

    const edited = structuredClone(live);
    (edited.spec as Record<string, unknown>).providerID = "y";
    trackUpdate(live, edited, { manager: "editor", types: builtinListTypes, scope: "main", now });
    const owners = (edited.metadata.managedFields as Array<{ manager: string; fieldsV1: object }>).map(
      (m) => [m.manager, JSON.stringify(m.fieldsV1)],
    );
    assert.deepEqual(owners, [
      ["two", '{"f:metadata":{"f:labels":{"f:b":{}}}}'],
      ["editor", '{"f:spec":{"f:providerID":{}}}'],
    ]);
  });

  // structured-merge-diff merge/update.go, Updater.prune: the named fields above the last applied set
  // (EnsureNamedFieldsAreMembers) go with it when no manager holds anything under them.
  it("leaves no empty map behind when a manager releases what it applied, and keeps what others hold", () => {
    const controller = (spec: Record<string, unknown>): KubeObject => ({
      apiVersion: "operator.openshift.io/v1",
      kind: "IngressController",
      metadata: { name: "default" },
      spec,
    });
    let live = apply(undefined, controller({ replicas: 2, httpCompression: {} }), "operator");
    live = apply(
      live,
      controller({
        replicas: 2,
        nodePlacement: { nodeSelector: { matchLabels: { "node-role.kubernetes.io/infra": "" } } },
      }),
      "stack",
    );
    live = apply(live, controller({ nodePlacement: { tolerations: [{ key: "t" }] } }), "other");
    live = apply(
      live,
      { apiVersion: "operator.openshift.io/v1", kind: "IngressController", metadata: { name: "default" } },
      "stack",
    );
    assert.deepEqual(live.spec, {
      replicas: 2,
      httpCompression: {},
      nodePlacement: { tolerations: [{ key: "t" }] },
    });
    live = apply(
      live,
      { apiVersion: "operator.openshift.io/v1", kind: "IngressController", metadata: { name: "default" } },
      "other",
    );
    assert.deepEqual(
      live.spec,
      { replicas: 2, httpCompression: {} },
      "an empty map applied on purpose stays",
    );
  });

  it("releases a list-map element it applied whole, and keeps another manager's element of the same list", () => {
    const types = (names: string[]) =>
      names.join(".") === "spec.nodeDisruptionPolicy.files"
        ? { type: "map" as const, keys: ["path"] }
        : builtinListTypes(names);
    const configuration = (spec?: Record<string, unknown>): KubeObject => ({
      apiVersion: "operator.openshift.io/v1",
      kind: "MachineConfiguration",
      metadata: { name: "cluster" },
      ...(spec ? { spec } : {}),
    });
    const files = (...paths: string[]) => ({
      nodeDisruptionPolicy: { files: paths.map((path) => ({ path, actions: [{ type: "None" }] })) },
    });
    const ssa = (live: KubeObject | undefined, applied: KubeObject, manager: string) =>
      serverSideApply(live, applied, { manager, force: true, types, scope: "main", now });
    let live = ssa(undefined, configuration(files("/etc/a")), "admin");
    live = ssa(live, configuration(files("/etc/b")), "stack");
    live = ssa(live, configuration(), "stack");
    assert.deepEqual(live.spec, files("/etc/a"));
    live = ssa(live, configuration(), "admin");
    assert.deepEqual(live.spec, undefined);
  });

  // apimachinery pkg/util/managedfields/internal/skipnonapplied.go, skipNonAppliedManager.Apply: an
  // object no manager owns is first updated from the empty object as "before-first-apply".
  it("gives what an object held before its first apply to before-first-apply, so another value conflicts", () => {
    const seeded = node({ podCIDR: "10.0.0.0/24" }, { a: "1" });
    assert.throws(
      () => apply(seeded, node({ podCIDR: "10.0.1.0/24" }), "stack"),
      /conflict with "before-first-apply" using v1 at .*: \.spec\.podCIDR/,
    );
    const applied = { ...node({ podCIDR: "10.0.1.0/24", providerID: "p" }), metadata: { name: "n" } };
    const forced = apply(seeded, applied, "stack", true);
    const owners = (forced.metadata.managedFields as Array<{ manager: string; fieldsV1: object }>).map(
      (m) => [m.manager, JSON.stringify(m.fieldsV1)],
    );
    assert.deepEqual(owners, [
      ["before-first-apply", '{"f:metadata":{"f:labels":{"f:a":{}}}}'],
      ["stack", '{"f:spec":{"f:podCIDR":{},"f:providerID":{}}}'],
    ]);
    const released = apply(forced, { apiVersion: "v1", kind: "Node", metadata: { name: "n" } }, "stack");
    assert.deepEqual([released.spec, released.metadata.labels], [undefined, { a: "1" }]);
  });

  it("words conflicts as kube-apiserver: an applier by name, an updater with apiVersion, time and subresource", () => {
    let live = apply(undefined, node({ podCIDR: "10.0.0.0/24", providerID: "x" }, { a: "1" }), "one");
    const edited = structuredClone(live);
    (edited.spec as Record<string, unknown>).providerID = "y";
    edited.metadata.labels = { a: "2" };
    trackUpdate(live, edited, { manager: "ctl", types: builtinListTypes, scope: "main", now });
    live = edited;
    const withStatus = { ...structuredClone(live), status: { phase: "Running" } };
    trackUpdate(live, withStatus, {
      manager: "kubelet",
      types: builtinListTypes,
      scope: "status",
      subresource: "status",
      now,
    });
    live = withStatus;
    const conflict = (applied: KubeObject) => {
      try {
        serverSideApply(live, applied, {
          manager: "two",
          force: false,
          types: builtinListTypes,
          scope: "all",
          now,
        });
      } catch (error) {
        if (error instanceof ApplyConflictError) return error.message;
        throw error;
      }
      assert.fail("no conflict");
    };
    assert.equal(
      conflict(node({ podCIDR: "10.0.1.0/24" })),
      'Apply failed with 1 conflict: conflict with "one": .spec.podCIDR',
    );
    assert.equal(
      conflict({ ...node({ providerID: "z" }, { a: "3" }), status: { phase: "Failed" } }),
      [
        'Apply failed with 3 conflicts: conflicts with "ctl" using v1 at 2026-01-01T00:00:00Z:',
        "- .metadata.labels.a",
        "- .spec.providerID",
        'conflicts with "kubelet" with subresource "status" using v1 at 2026-01-01T00:00:00Z:',
        "- .status.phase",
      ].join("\n"),
    );
  });
});
