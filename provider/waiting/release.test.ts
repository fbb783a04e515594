import * as assert from "node:assert/strict";
import { stringify } from "yaml";
import { kubectl } from "../../simulator/apiserver/kubectl";
import { Simulator, startTestSimulator } from "../../test/simulator-fixture";
import {
  EARLIER_ANNOTATION,
  PatchTarget,
  recordEarlier,
  RESTORE_FIELD_MANAGER,
  restoreEarlier,
} from "./release";

const ROUTER: PatchTarget = {
  apiVersion: "operator.openshift.io/v1",
  kind: "IngressController",
  name: "default",
  namespace: "openshift-ingress-operator",
};
const MONITORING: PatchTarget = {
  apiVersion: "v1",
  kind: "ConfigMap",
  name: "cluster-monitoring-config",
  namespace: "openshift-monitoring",
};

/**
 * A patch's life as pulumi-kubernetes leads it: applied server-side with force, then released by
 * applying the bare object with the same field manager (pkg/ssa, Relinquish), which removes what it
 * owned alone. The restore then gives back what the release took.
 */
describe("waiting core: what a released patch gives back", function () {
  let sim: Simulator;
  before(async () => (sim = await startTestSimulator()));
  after(() => sim.stop());

  const run = async (args: string[], input?: string) => {
    const { code, stderr, stdout } = await kubectl(sim.kubeconfigPath, args, input);
    assert.equal(code, 0, stderr);
    return stdout;
  };
  const apply = (target: PatchTarget, body: object, force = true) =>
    run(
      ["apply", "--server-side", "--field-manager=stack", ...(force ? ["--force-conflicts"] : []), "-f", "-"],
      stringify({
        apiVersion: target.apiVersion,
        kind: target.kind,
        metadata: { name: target.name, namespace: target.namespace },
        ...body,
      }),
    );
  const live = (target: PatchTarget) =>
    sim.store.get({
      apiVersion: target.apiVersion,
      kind: target.kind,
      name: target.name,
      namespace: target.namespace,
    });
  const options = { timeoutMs: 10_000 };

  it("puts back the value an operator had set, as that operator, and leaves a field changed by hand since", async () => {
    const paths = [
      ["spec", "nodePlacement"],
      ["spec", "replicas"],
      ["spec", "httpEmptyRequestsPolicy"],
    ];
    const earlier = await recordEarlier({ kubeconfig: sim.kubeconfig, target: ROUTER, paths, ...options });
    assert.deepEqual(earlier, {
      existed: true,
      fields: [
        { path: ["spec", "nodePlacement"] },
        { path: ["spec", "replicas"], value: 2, manager: "ingress-operator" },
        { path: ["spec", "httpEmptyRequestsPolicy"], value: "Respond", manager: "ingress-operator" },
      ],
    });
    await apply(ROUTER, {
      spec: {
        nodePlacement: { nodeSelector: { matchLabels: { "node-role.kubernetes.io/infra": "" } } },
        replicas: 3,
        httpEmptyRequestsPolicy: "Ignore",
      },
    });
    await run([
      "patch",
      "ingresscontroller",
      "default",
      "-n",
      ROUTER.namespace!,
      "--type=merge",
      '-p={"spec":{"httpEmptyRequestsPolicy":"Respond"}}',
    ]);
    await apply(ROUTER, {}, false);
    const spec = live(ROUTER)!.spec as Record<string, unknown>;
    assert.equal(spec.replicas, undefined, "the release removed the replicas it had taken");
    assert.equal(spec.nodePlacement, undefined);

    const done = await restoreEarlier({ kubeconfig: sim.kubeconfig, target: ROUTER, earlier, ...options });
    assert.deepEqual(done, ["restored IngressController openshift-ingress-operator/default spec.replicas"]);
    const restored = live(ROUTER)!;
    assert.equal((restored.spec as Record<string, unknown>).replicas, 2);
    assert.equal((restored.spec as Record<string, unknown>).nodePlacement, undefined);
    const owners = (restored.metadata.managedFields as Array<{ manager: string; fieldsV1: any }>)
      .filter((m) => m.fieldsV1?.["f:spec"]?.["f:replicas"])
      .map((m) => m.manager);
    assert.deepEqual(owners, ["ingress-operator"], "the operator owns its replicas again");
  });

  it("deletes the ConfigMap the patch created once nothing else is in it, and keeps one someone wrote to", async () => {
    const paths = [["data", "config.yaml"]];
    const earlier = await recordEarlier({
      kubeconfig: sim.kubeconfig,
      target: MONITORING,
      paths,
      ...options,
    });
    assert.deepEqual(earlier, { existed: false, fields: [{ path: ["data", "config.yaml"] }] });

    await apply(MONITORING, { data: { "config.yaml": "prometheusK8s: {}\n" } });
    await run([
      "patch",
      "configmap",
      MONITORING.name,
      "-n",
      MONITORING.namespace!,
      "--type=merge",
      '-p={"data":{"other.yaml":"kept: true\\n"}}',
    ]);
    await apply(MONITORING, {}, false);
    assert.deepEqual(
      await restoreEarlier({ kubeconfig: sim.kubeconfig, target: MONITORING, earlier, ...options }),
      ["kept ConfigMap openshift-monitoring/cluster-monitoring-config: it holds data"],
    );
    assert.deepEqual(live(MONITORING)?.data, { "other.yaml": "kept: true\n" });

    await run(["delete", "configmap", MONITORING.name, "-n", MONITORING.namespace!]);
    await apply(MONITORING, { data: { "config.yaml": "prometheusK8s: {}\n" } });
    await apply(MONITORING, {}, false);
    assert.deepEqual(
      await restoreEarlier({ kubeconfig: sim.kubeconfig, target: MONITORING, earlier, ...options }),
      ["deleted ConfigMap openshift-monitoring/cluster-monitoring-config, which the stack created"],
    );
    assert.equal(live(MONITORING), undefined);
  });

  // pulumi-kubernetes names a Patch's manager by its `pulumi.com/patchFieldManager` annotation
  // (provider.go, fieldManagerName), so the same Patch declared after its state was lost applies and
  // releases as the same manager; what was there before the first apply is only on the object.
  it("gives back what was there before the first patch when the stack's state was lost and it adopts the object again", async () => {
    const target: PatchTarget = {
      apiVersion: "imageregistry.operator.openshift.io/v1",
      kind: "Config",
      name: "cluster",
    };
    const paths = [
      ["spec", "nodeSelector"],
      ["spec", "replicas"],
    ];
    const before = structuredClone(live(target)!.spec);
    const annotationsBefore = live(target)!.metadata.annotations;
    const record = { kubeconfig: sim.kubeconfig, target, paths, fieldManager: "stack", ...options };
    const first = await recordEarlier(record);
    assert.equal(first.existed, true);
    const tolerations = [{ key: "node-role.kubernetes.io/infra", effect: "NoSchedule", operator: "Exists" }];
    await apply(target, { spec: { nodeSelector: { "node-role.kubernetes.io/infra": "" }, tolerations } });

    // The state lost: the release is created again, once the patch has written the fields.
    const again = await recordEarlier(record);
    assert.deepEqual(again, first, "what the object keeps, not what the patch wrote");
    await apply(target, {}, false);
    await restoreEarlier({
      kubeconfig: sim.kubeconfig,
      target,
      earlier: again,
      fieldManager: "stack",
      ...options,
    });
    const restored = live(target)!;
    assert.deepEqual(restored.spec, before, "the object as before the first stack");
    assert.deepEqual(
      restored.metadata.annotations,
      annotationsBefore,
      "the record goes with the patch, no empty map left in its place",
    );
  });

  it("without a record, leaves unset what the patch's own manager wrote, and knows an object only it wrote to as its own", async () => {
    const paths = [["spec", "replicas"]];
    await apply(ROUTER, { spec: { replicas: 4 } });
    const router = { kubeconfig: sim.kubeconfig, target: ROUTER, paths, fieldManager: "stack", ...options };
    assert.deepEqual(await recordEarlier(router), {
      existed: true,
      fields: [{ path: ["spec", "replicas"] }],
    });
    await apply(ROUTER, {}, false);
    await restoreEarlier({ ...router, earlier: await recordEarlier(router) });
    assert.equal((live(ROUTER)!.spec as Record<string, unknown>).replicas, undefined, "4 is not given back");

    const target = { ...MONITORING, name: "release-lost" };
    await apply(target, { data: { "config.yaml": "prometheusK8s: {}\n" } });
    const monitoring = {
      kubeconfig: sim.kubeconfig,
      target,
      paths: [["data", "config.yaml"]],
      fieldManager: "stack",
    };
    const earlier = await recordEarlier({ ...monitoring, ...options });
    assert.deepEqual(earlier, { existed: false, fields: [{ path: ["data", "config.yaml"] }] });
    assert.equal(live(target)!.metadata.annotations?.[EARLIER_ANNOTATION], undefined);
    await apply(target, {}, false);
    assert.deepEqual(await restoreEarlier({ ...monitoring, earlier, ...options }), [
      "deleted ConfigMap openshift-monitoring/release-lost, which the stack created",
    ]);
  });

  /** A ConfigMap put in the store as given, with no managedFields unless the object carries them. */
  const put = (name: string, body: Record<string, unknown>) => {
    sim.store.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name, namespace: "openshift-monitoring" },
      ...body,
    });
    return { apiVersion: "v1", kind: "ConfigMap", name, namespace: "openshift-monitoring" } as PatchTarget;
  };

  it("records a field under a value that is no object as unset, and an owner no managedFields entry names as none", async () => {
    const target = put("release-scalars", { data: { "config.yaml": "a: 1\n" }, binaryData: null });
    const earlier = await recordEarlier({
      kubeconfig: sim.kubeconfig,
      target,
      paths: [["data", "config.yaml", "a"], ["data", "config.yaml"], ["immutable"], ["binaryData", "a.bin"]],
      ...options,
    });
    assert.deepEqual(earlier, {
      existed: true,
      fields: [
        { path: ["data", "config.yaml", "a"] },
        { path: ["data", "config.yaml"], value: "a: 1\n", manager: undefined },
        { path: ["immutable"] },
        { path: ["binaryData", "a.bin"] },
      ],
    });
    sim.store.mutate(
      { apiVersion: "v1", kind: "ConfigMap", name: target.name, namespace: target.namespace },
      (o) => {
        delete (o as { data?: unknown }).data;
      },
    );
    assert.deepEqual(await restoreEarlier({ kubeconfig: sim.kubeconfig, target, earlier, ...options }), [
      "restored ConfigMap openshift-monitoring/release-scalars data.config.yaml",
    ]);
    const restored = live(target)!;
    assert.deepEqual(restored.data, { "config.yaml": "a: 1\n" });
    const managers = (restored.metadata.managedFields as Array<{ manager: string }>).map((m) => m.manager);
    assert.deepEqual(managers, [RESTORE_FIELD_MANAGER], "written as the restore when no manager was known");
  });

  it("records as a field's manager the managedFields entry that owns it, not the first entry", async () => {
    const target = put("release-owned", {
      metadata: {
        name: "release-owned",
        namespace: "openshift-monitoring",
        labels: { team: "a" },
        managedFields: [
          {
            manager: "labeller",
            operation: "Update",
            apiVersion: "v1",
            fieldsV1: { "f:metadata": { "f:labels": { "f:team": {} } } },
          },
          {
            manager: "owner",
            operation: "Apply",
            apiVersion: "v1",
            fieldsV1: { "f:data": { "f:other.yaml": {} } },
          },
        ],
      },
      data: { "other.yaml": "b\n" },
    });
    const earlier = await recordEarlier({
      kubeconfig: sim.kubeconfig,
      target,
      paths: [["data", "other.yaml"]],
      ...options,
    });
    assert.deepEqual(earlier.fields, [{ path: ["data", "other.yaml"], value: "b\n", manager: "owner" }]);
  });

  it("restores a field of a cluster-scoped object, naming it without a namespace", async () => {
    sim.store.create({
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: "release-ns", labels: { zone: "a" } },
    });
    const target: PatchTarget = { apiVersion: "v1", kind: "Namespace", name: "release-ns" };
    const paths = [["metadata", "labels", "zone"]];
    const earlier = await recordEarlier({ kubeconfig: sim.kubeconfig, target, paths, ...options });
    sim.store.mutate({ apiVersion: "v1", kind: "Namespace", name: "release-ns" }, (o) => {
      o.metadata.labels = {};
    });
    assert.deepEqual(await restoreEarlier({ kubeconfig: sim.kubeconfig, target, earlier, ...options }), [
      "restored Namespace release-ns metadata.labels.zone",
    ]);
    assert.deepEqual(live(target)?.metadata.labels, { zone: "a" });
  });

  it("deletes an object it created once only empty values are left, keeps one holding a set value, naming each", async () => {
    const created = { existed: false, fields: [{ path: ["data", "config.yaml"] }] };
    const emptied = put("release-emptied", { data: {}, binaryData: null });
    assert.deepEqual(
      await restoreEarlier({ kubeconfig: sim.kubeconfig, target: emptied, earlier: created, ...options }),
      ["deleted ConfigMap openshift-monitoring/release-emptied, which the stack created"],
    );
    assert.equal(live(emptied), undefined);
    const held = put("release-held", { immutable: false, binaryData: { "a.bin": "AA==" }, data: {} });
    assert.deepEqual(
      await restoreEarlier({ kubeconfig: sim.kubeconfig, target: held, earlier: created, ...options }),
      ["kept ConfigMap openshift-monitoring/release-held: it holds immutable, binaryData"],
    );
    assert.notEqual(live(held), undefined);
  });

  it("does nothing when the object is gone by the time the patch is released", async () => {
    const target = { ...MONITORING, name: "release-gone" };
    const existed = { existed: true, fields: [{ path: ["data", "config.yaml"], value: "x", manager: "m" }] };
    assert.deepEqual(
      await restoreEarlier({ kubeconfig: sim.kubeconfig, target, earlier: existed, ...options }),
      [],
    );
    const created = { existed: false, fields: [{ path: ["data", "config.yaml"] }] };
    assert.deepEqual(
      await restoreEarlier({ kubeconfig: sim.kubeconfig, target, earlier: created, ...options }),
      [],
    );
    assert.equal(live(target), undefined);
  });

  // The API server refuses a delete whose preconditions no longer hold (apiserver's generic registry
  // Store.Delete checks Preconditions: 409 Conflict), so a write between the read and the delete is kept.
  it("does not delete an object someone wrote to after it was read as empty", async () => {
    const target = put("release-raced", { data: {} });
    const created = { existed: false, fields: [{ path: ["data", "config.yaml"] }] };
    const stop = sim.observeRequests((method, url) => {
      if (method !== "DELETE" || !url.includes("release-raced")) return;
      sim.store.mutate(
        { apiVersion: "v1", kind: "ConfigMap", name: target.name, namespace: target.namespace },
        (o) => {
          o.data = { "mine.yaml": "written meanwhile\n" };
        },
      );
    });
    try {
      await assert.rejects(
        restoreEarlier({ kubeconfig: sim.kubeconfig, target, earlier: created, ...options }),
        (e: { status?: number }) => e.status === 409,
      );
    } finally {
      stop();
    }
    assert.deepEqual(live(target)?.data, { "mine.yaml": "written meanwhile\n" });
  });
});
