import * as assert from "node:assert/strict";
import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  Watch,
} from "@kubernetes/client-node";
import { KubeObject } from "../store";
import { startTestServer, TestServer } from "./testing";
import { CRDS, requireReference } from "../../test/reference";

const GROUP = "machine.openshift.io";
const VERSION = "v1beta1";
const NS = "openshift-machine-api";
const MS = { group: GROUP, version: VERSION, namespace: NS, plural: "machinesets" };

function machineSet(name: string, labels: Record<string, string> = {}, replicas = 1): KubeObject {
  return {
    apiVersion: `${GROUP}/${VERSION}`,
    kind: "MachineSet",
    metadata: { name, namespace: NS, labels },
    spec: {
      replicas,
      selector: { matchLabels: { set: name } },
      template: { metadata: { labels: { set: name } } },
    },
  };
}

async function expectCode(promise: Promise<unknown>, code: number): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiException, `expected an ApiException, got ${String(error)}`);
    assert.equal(error.code, code, String(error.body));
    return typeof error.body === "string" ? JSON.parse(error.body) : (error.body as Record<string, unknown>);
  }
  assert.fail(`expected HTTP ${code}`);
}

/** Collects watch events until `until` says stop (or the stream ends), bounded by a timeout. */
function collect(
  kc: KubeConfig,
  path: string,
  query: Record<string, string | number | boolean>,
  until: (events: Array<{ type: string; object: KubeObject }>) => boolean,
  start: () => unknown = () => undefined,
): Promise<Array<{ type: string; object: KubeObject }>> {
  const events: Array<{ type: string; object: KubeObject }> = [];
  return new Promise((resolve, reject) => {
    let controller: AbortController | undefined;
    const timer = setTimeout(
      () => finish(new Error(`watch timed out with ${JSON.stringify(events.map((e) => e.type))}`)),
      5000,
    );
    const finish = (error?: Error) => {
      clearTimeout(timer);
      controller?.abort();
      if (error) reject(error);
      else resolve(events);
    };
    new Watch(kc)
      .watch(
        path,
        query,
        (type, object) => {
          events.push({ type, object });
          if (until(events)) finish();
        },
        (error) => (error && error.name !== "AbortError" ? finish(error) : finish()),
      )
      .then((c) => {
        controller = c;
        start();
      }, finish);
  });
}

describe("API server with @kubernetes/client-node", function () {
  let t: TestServer;
  let kc: KubeConfig;
  let custom: CustomObjectsApi;
  let core: CoreV1Api;
  let objects: KubernetesObjectApi;

  before(async () => {
    t = await startTestServer({ storeOptions: { historyLimit: 50 }, bookmarkIntervalMs: 50 });
    kc = new KubeConfig();
    kc.loadFromString(t.server.kubeconfig);
    custom = kc.makeApiClient(CustomObjectsApi);
    core = kc.makeApiClient(CoreV1Api);
    objects = KubernetesObjectApi.makeApiClient(kc);
  });

  after(() => t?.stop());

  it("serves discovery and version", async () => {
    const v2 = await t.request("GET", "/openapi/v2", {
      accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
    });
    assert.equal(v2.status, 200);
    assert.ok(v2.text.startsWith("\n\u00032.0"), "a protobuf openapi.v2.Document with swagger 2.0");
    assert.equal((await t.request("GET", "/openapi/v2")).json().swagger, "2.0");
    const version = (await t.request("GET", "/version")).json();
    assert.equal(version.major, "1");
    const groups = (await t.request("GET", "/apis")).json() as { groups: Array<{ name: string }> };
    assert.ok(groups.groups.some((g) => g.name === "machineconfiguration.openshift.io"));
    const resources = (await t.request("GET", "/apis/machine.openshift.io/v1beta1")).json() as {
      resources: Array<{ name: string; kind: string; group?: string }>;
    };
    assert.deepEqual(
      resources.resources.filter((r) => r.name.startsWith("machinesets")).map((r) => `${r.name}:${r.kind}`),
      ["machinesets:MachineSet", "machinesets/status:MachineSet", "machinesets/scale:Scale"],
    );
    const core = (await t.request("GET", "/api/v1")).json() as {
      resources: Array<{ name: string; shortNames?: string[] }>;
    };
    assert.deepEqual(core.resources.find((r) => r.name === "namespaces")?.shortNames, ["ns"]);
  });

  it("creates with server metadata, bumps generation on spec changes only and rejects stale updates", async () => {
    const created = (await custom.createNamespacedCustomObject({
      ...MS,
      body: machineSet("crud"),
    })) as KubeObject;
    assert.match(created.metadata.uid!, /^[0-9a-f-]{36}$/);
    assert.equal(created.metadata.generation, 1);
    assert.ok(created.metadata.creationTimestamp);
    await expectCode(custom.createNamespacedCustomObject({ ...MS, body: machineSet("crud") }), 409);

    const relabelled = (await custom.replaceNamespacedCustomObject({
      ...MS,
      name: "crud",
      body: { ...created, metadata: { ...created.metadata, labels: { a: "b" } } },
    })) as KubeObject;
    assert.equal(relabelled.metadata.generation, 1);
    assert.ok(Number(relabelled.metadata.resourceVersion) > Number(created.metadata.resourceVersion));

    const stale = { ...created, spec: { ...(created.spec as object), replicas: 5 } };
    const conflict = await expectCode(
      custom.replaceNamespacedCustomObject({ ...MS, name: "crud", body: stale }),
      409,
    );
    assert.equal(conflict.reason, "Conflict");
    assert.match(
      String(conflict.message),
      /Operation cannot be fulfilled on machinesets.machine.openshift.io "crud"/,
    );

    const scaled = (await custom.replaceNamespacedCustomObject({
      ...MS,
      name: "crud",
      body: { ...relabelled, spec: { ...(relabelled.spec as object), replicas: 2 }, status: { replicas: 9 } },
    })) as KubeObject;
    assert.equal(scaled.metadata.generation, 2);
    assert.equal(scaled.status, undefined, "status is ignored by the main resource");

    const withStatus = (await custom.replaceNamespacedCustomObjectStatus({
      ...MS,
      name: "crud",
      body: { ...scaled, spec: { replicas: 7 }, status: { replicas: 2, observedGeneration: 2 } },
    })) as KubeObject;
    assert.deepEqual(withStatus.status, { replicas: 2, observedGeneration: 2 });
    assert.equal(
      (withStatus.spec as { replicas: number }).replicas,
      2,
      "spec is ignored by the status subresource",
    );
    assert.equal(withStatus.metadata.generation, 2);
  });

  it("filters lists with set-based label selectors and field selectors", async () => {
    for (const [name, role] of [
      ["sel-a", "infra"],
      ["sel-b", "worker"],
      ["sel-c", "master"],
    ]) {
      await custom.createNamespacedCustomObject({
        ...MS,
        body: machineSet(name, { role, tier: name === "sel-c" ? "x" : "" }),
      });
    }
    const names = async (labelSelector?: string, fieldSelector?: string) =>
      (
        (await custom.listNamespacedCustomObject({ ...MS, labelSelector, fieldSelector })) as {
          items: KubeObject[];
        }
      ).items
        .map((o) => o.metadata.name)
        .filter((n) => n.startsWith("sel-"));
    assert.deepEqual(await names("role in (infra,worker)"), ["sel-a", "sel-b"]);
    assert.deepEqual(await names("role notin (infra),role"), ["sel-b", "sel-c"]);
    assert.deepEqual(await names("tier=x"), ["sel-c"]);
    assert.deepEqual(await names("role,!nothing,role!=worker"), ["sel-a", "sel-c"]);
    assert.deepEqual(await names(undefined, "metadata.name=sel-b"), ["sel-b"]);
    assert.deepEqual(await names(undefined, "metadata.namespace!=openshift-machine-api"), []);
    await expectCode(custom.listNamespacedCustomObject({ ...MS, labelSelector: "role in (a" }), 400);
    // A label key's name part has at most 63 characters and its prefix is a lower-case DNS subdomain.
    await expectCode(custom.listNamespacedCustomObject({ ...MS, labelSelector: `a/${"n".repeat(64)}` }), 400);
    await expectCode(custom.listNamespacedCustomObject({ ...MS, labelSelector: "Example.com/role" }), 400);
  });

  it("refuses a label key whose name part is longer than 63 characters", async () => {
    const key = `operators.coreos.com/${"n".repeat(64)}`;
    const body = {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "long-label", labels: { [key]: "" } },
    };
    const created = await t.request("POST", "/api/v1/namespaces/default/configmaps", { body });
    assert.equal(created.status, 422);
    assert.match(
      (created.json() as { message: string }).message,
      /metadata\.labels: Invalid value: "operators\.coreos\.com\/n{64}"/,
    );
  });

  it("watches, resumes from a resourceVersion and answers 410 when it is too old", async () => {
    const start = (await custom.createNamespacedCustomObject({
      ...MS,
      body: machineSet("watched"),
    })) as KubeObject;
    const path = `/apis/${GROUP}/${VERSION}/namespaces/${NS}/machinesets`;
    const live = collect(
      kc,
      path,
      { resourceVersion: start.metadata.resourceVersion!, fieldSelector: "metadata.name=watched" },
      (events) => events.some((e) => e.type === "DELETED"),
      async () => {
        await custom.patchNamespacedCustomObject(
          { ...MS, name: "watched", body: { spec: { replicas: 3 } } },
          setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
        );
        await custom.deleteNamespacedCustomObject({ ...MS, name: "watched" });
      },
    );
    assert.deepEqual(
      (await live).map((e) => e.type),
      ["MODIFIED", "DELETED"],
    );

    const resumed = await collect(
      kc,
      path,
      { resourceVersion: start.metadata.resourceVersion!, fieldSelector: "metadata.name=watched" },
      (events) => events.length === 2,
    );
    assert.deepEqual(
      resumed.map((e) => [e.type, (e.object.spec as { replicas: number }).replicas]),
      [
        ["MODIFIED", 3],
        ["DELETED", 3],
      ],
    );

    for (let i = 0; i < 60; i++) {
      t.store.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: `filler-${i}`, namespace: "default" },
      });
    }
    const gone = await collect(
      kc,
      path,
      { resourceVersion: start.metadata.resourceVersion! },
      (events) => events.length > 0,
    );
    assert.equal(gone[0].type, "ERROR");
    const status = gone[0].object as unknown as { code: number; reason: string };
    assert.equal(status.code, 410);
    assert.equal(status.reason, "Expired");
  });

  it("sends bookmarks when asked", async () => {
    const events = await collect(
      kc,
      "/api/v1/namespaces",
      { allowWatchBookmarks: true, resourceVersion: t.store.resourceVersion },
      (e) => e.some((x) => x.type === "BOOKMARK"),
    );
    const bookmark = events.find((e) => e.type === "BOOKMARK")!;
    assert.equal(bookmark.object.metadata.resourceVersion, t.store.resourceVersion);
  });

  it("tracks server-side apply ownership per field manager", async () => {
    const apply = (manager: string, labels: Record<string, string>, replicas?: number, force = false) =>
      objects.patch(
        {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: "MachineSet",
          metadata: { name: "ssa", namespace: NS, labels },
          ...(replicas === undefined ? {} : { spec: { replicas } }),
        } as KubernetesObject,
        undefined,
        undefined,
        manager,
        force,
        PatchStrategy.ServerSideApply,
      ) as Promise<KubeObject>;
    await apply("alpha", { a: "1", shared: "x" }, 2);
    const second = await apply("beta", { b: "1", shared: "x" });
    const again = await apply("beta", { b: "1", shared: "x" });
    assert.equal(
      again.metadata.resourceVersion,
      second.metadata.resourceVersion,
      "re-applying the same configuration writes nothing",
    );
    let current = await apply("alpha", { shared: "x" }, 2);
    assert.deepEqual(
      current.metadata.labels,
      { shared: "x", b: "1" },
      "alpha's dropped label goes, beta's stays",
    );

    const conflict = await expectCode(apply("beta", { b: "1" }, 5), 409);
    assert.match(String(conflict.message), /conflict with "alpha".*\.spec\.replicas/);
    current = await apply("beta", { b: "1" }, 5, true);
    assert.equal((current.spec as { replicas: number }).replicas, 5);
    const managers = (current.metadata.managedFields as Array<{ manager: string; fieldsV1: object }>).map(
      (m) => [m.manager, JSON.stringify(m.fieldsV1).includes("f:replicas")],
    );
    assert.deepEqual(managers, [
      ["alpha", false],
      ["beta", true],
    ]);
    current = await apply("alpha", {});
    assert.deepEqual(
      current.metadata.labels,
      { b: "1" },
      "the shared label goes once neither manager applies it",
    );
  });

  it("garbage collects dependents and honours finalizers", async () => {
    const owner = (await custom.createNamespacedCustomObject({
      ...MS,
      body: machineSet("owner"),
    })) as KubeObject;
    const machines = { group: GROUP, version: VERSION, namespace: NS, plural: "machines" };
    const ref = {
      apiVersion: owner.apiVersion,
      kind: "MachineSet",
      name: "owner",
      uid: owner.metadata.uid!,
      controller: true,
    };
    await custom.createNamespacedCustomObject({
      ...machines,
      body: {
        apiVersion: owner.apiVersion,
        kind: "Machine",
        metadata: { name: "owned", namespace: NS, ownerReferences: [ref] },
      },
    });
    await custom.createNamespacedCustomObject({
      ...machines,
      body: {
        apiVersion: owner.apiVersion,
        kind: "Machine",
        metadata: { name: "held", namespace: NS, finalizers: ["machine.machine.openshift.io"] },
      },
    });
    await custom.deleteNamespacedCustomObject({ ...MS, name: "owner" });
    await expectCode(custom.getNamespacedCustomObject({ ...machines, name: "owned" }), 404);

    const deleting = (await custom.deleteNamespacedCustomObject({ ...machines, name: "held" })) as KubeObject;
    assert.ok(deleting.metadata.deletionTimestamp);
    assert.ok(await custom.getNamespacedCustomObject({ ...machines, name: "held" }));
    await custom.patchNamespacedCustomObject(
      { ...machines, name: "held", body: [{ op: "remove", path: "/metadata/finalizers" }] },
      setHeaderOptions("Content-Type", PatchStrategy.JsonPatch),
    );
    await expectCode(custom.getNamespacedCustomObject({ ...machines, name: "held" }), 404);
  });

  it("keeps a deleted namespace Terminating until its content is gone", async () => {
    await core.createNamespace({ body: { metadata: { name: "doomed" } } });
    const created = await core.readNamespace({ name: "doomed" });
    assert.deepEqual(created.spec?.finalizers, ["kubernetes"]);
    assert.equal(created.metadata?.labels?.["kubernetes.io/metadata.name"], "doomed");
    await core.createNamespacedConfigMap({
      namespace: "doomed",
      body: { metadata: { name: "held", finalizers: ["example.com/hold"] } },
    });
    await core.deleteNamespace({ name: "doomed" });
    assert.equal((await core.readNamespace({ name: "doomed" })).status?.phase, "Terminating");
    const refused = await expectCode(
      core.createNamespacedConfigMap({ namespace: "doomed", body: { metadata: { name: "late" } } }),
      403,
    );
    assert.match(
      String(refused.message),
      /unable to create new content in namespace doomed because it is being terminated/,
    );
    await core.patchNamespacedConfigMap(
      { name: "held", namespace: "doomed", body: { metadata: { finalizers: null } } },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );
    await expectCode(core.readNamespace({ name: "doomed" }), 404);
  });

  it("merges strategic patches of built-in kinds by their merge keys", async () => {
    await core.createNode({
      body: {
        metadata: { name: "node-1" },
        spec: { taints: [{ key: "a", effect: "NoSchedule" }] },
        status: {
          conditions: [
            { type: "Ready", status: "False" },
            { type: "DiskPressure", status: "False" },
          ],
        },
      },
    });
    const patched = await core.patchNodeStatus(
      { name: "node-1", body: { status: { conditions: [{ type: "Ready", status: "True" }] } } },
      setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(
      patched.status?.conditions?.map((c) => `${c.type}=${c.status}`),
      ["Ready=True", "DiskPressure=False"],
    );
    const retainted = await core.patchNode(
      { name: "node-1", body: { spec: { taints: [{ key: "b", effect: "NoExecute" }] } } },
      setHeaderOptions("Content-Type", PatchStrategy.StrategicMergePatch),
    );
    assert.deepEqual(
      retainted.spec?.taints?.map((x) => x.key),
      ["b"],
      "Node taints have no merge strategy: replaced",
    );
  });

  it("serves the scale subresource", async () => {
    await custom.createNamespacedCustomObject({ ...MS, body: machineSet("scaled", {}, 1) });
    const scale = (await custom.getNamespacedCustomObjectScale({ ...MS, name: "scaled" })) as {
      kind: string;
      apiVersion: string;
      metadata: { resourceVersion: string };
      spec: { replicas: number };
    };
    assert.equal(scale.kind, "Scale");
    assert.equal(scale.apiVersion, "autoscaling/v1");
    assert.equal(scale.spec.replicas, 1);
    const updated = (await custom.replaceNamespacedCustomObjectScale({
      ...MS,
      name: "scaled",
      body: { ...scale, spec: { replicas: 4 } },
    })) as { spec: { replicas: number } };
    assert.equal(updated.spec.replicas, 4);
    await expectCode(
      custom.replaceNamespacedCustomObjectScale({
        ...MS,
        name: "scaled",
        body: { ...scale, spec: { replicas: 2 } },
      }),
      409,
    );
    const ms = (await custom.getNamespacedCustomObject({ ...MS, name: "scaled" })) as KubeObject;
    assert.equal((ms.spec as { replicas: number }).replicas, 4);
    assert.equal(ms.metadata.generation, 2);
  });

  it("answers errors with Status objects and the real codes", async function () {
    requireReference(this, CRDS);
    const ms = `/apis/${GROUP}/${VERSION}/namespaces/${NS}/machinesets`;
    const unauthenticated = await t.request("GET", ms, { token: null });
    assert.equal(unauthenticated.status, 401);
    assert.deepEqual(unauthenticated.json(), {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Unauthorized",
      reason: "Unauthorized",
      code: 401,
    });
    assert.equal((await t.request("GET", ms, { token: "wrong" })).status, 401);

    const malformed = await t.request("POST", ms, { body: "{not json" });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.json().reason, "BadRequest");
    const badYaml = await t.request("PATCH", `${ms}/x?fieldManager=m`, {
      body: "a: [unclosed",
      contentType: "application/apply-patch+yaml",
    });
    assert.equal(badYaml.status, 400);
    // ValidateFieldManager (apimachinery pkg/apis/meta/v1/validation), as each handler refuses its options.
    const manager = "m".repeat(129);
    const longManager = await t.request("POST", `${ms}?fieldManager=${manager}`, { body: machineSet("x") });
    assert.equal(longManager.status, 422);
    assert.equal(
      longManager.json().message,
      'CreateOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes',
    );
    const longApply = await t.request("PATCH", `${ms}/x?fieldManager=${manager}`, {
      body: machineSet("x"),
      contentType: "application/apply-patch+yaml",
    });
    assert.equal(longApply.status, 422);
    assert.match(
      String(longApply.json().message),
      /^PatchOptions\.meta\.k8s\.io "" is invalid: fieldManager: Too long/,
    );

    assert.equal((await t.request("GET", "/apis/machine.openshift.io/v1beta1/widgets")).status, 404);
    assert.equal((await t.request("GET", "/nonsense")).status, 404);
    assert.equal((await t.request("GET", "/api/v1/namespaces/%E0%A4%A")).status, 400);
    const missing = await t.request("GET", `${ms}/absent`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json().message, 'machinesets.machine.openshift.io "absent" not found');
    const noNamespace = await t.request("POST", `/apis/${GROUP}/${VERSION}/namespaces/nowhere/machinesets`, {
      body: { ...machineSet("x"), metadata: { name: "x" } },
    });
    assert.equal(noNamespace.status, 404);
    assert.equal(noNamespace.json().message, 'namespaces "nowhere" not found');

    const huge = await t.request("POST", "/api/v1/namespaces/default/configmaps", {
      body: JSON.stringify({ metadata: { name: "big" }, data: { x: "y".repeat(3.5 * 1024 * 1024) } }),
    });
    assert.equal(huge.status, 413);
    assert.equal(huge.json().reason, "RequestEntityTooLarge");

    const invalid = await t.request("POST", ms, {
      body: { ...machineSet("bad"), spec: { replicas: "string" } },
    });
    assert.equal(invalid.status, 422);
    const status = invalid.json() as { message: string; reason: string; details: { causes: unknown[] } };
    assert.equal(
      status.message,
      'MachineSet.machine.openshift.io "bad" is invalid: spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    );
    assert.equal(status.reason, "Invalid");
    assert.deepEqual(status.details.causes, [
      {
        reason: "FieldValueTypeInvalid",
        message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"',
        field: "spec.replicas",
      },
    ]);

    const deep = await t.request("POST", "/api/v1/namespaces/default/configmaps", {
      body: `{"metadata":{"name":"deep"},"data":${"[".repeat(200_000)}${"]".repeat(200_000)}}`,
    });
    assert.equal(deep.status, 400);

    const strategic = await t.request("PATCH", `${ms}/crud`, {
      body: {},
      contentType: "application/strategic-merge-patch+json",
    });
    assert.equal(strategic.status, 415);
  });

  it("prunes unknown fields, warning or refusing per fieldValidation", async function () {
    requireReference(this, CRDS);
    const ms = `/apis/${GROUP}/${VERSION}/namespaces/${NS}/machinesets`;
    const body = { ...machineSet("pruned"), spec: { replicas: 1, bogus: 1 } };
    const strict = await t.request("POST", `${ms}?fieldValidation=Strict`, { body });
    assert.equal(strict.status, 400);
    assert.match(strict.json().message as string, /strict decoding error: unknown field "spec.bogus"/);
    const warned = await t.request("POST", ms, { body });
    assert.equal(warned.status, 201);
    assert.equal(warned.headers.warning, '299 - "unknown field \\"spec.bogus\\""');
    assert.equal((warned.json().spec as Record<string, unknown>).bogus, undefined);
    const unicode = await t.request("POST", ms, {
      body: { ...machineSet("pruned-unicode"), spec: { ünknown: 1 } },
    });
    assert.equal(unicode.status, 201);
    assert.equal(unicode.headers.warning, '299 - "unknown field \\"spec.\\u00fcnknown\\""');
  });

  it("validates and returns without storing on dryRun=All", async function () {
    requireReference(this, CRDS);
    const created = (await custom.createNamespacedCustomObject({
      ...MS,
      body: machineSet("dry"),
      dryRun: "All",
    })) as KubeObject;
    assert.equal(created.metadata.name, "dry");
    await expectCode(custom.getNamespacedCustomObject({ ...MS, name: "dry" }), 404);
    await expectCode(
      custom.createNamespacedCustomObject({
        ...MS,
        body: { ...machineSet("dry"), spec: { replicas: "x" } },
        dryRun: "All",
      }),
      422,
    );
  });

  it("renders tables with the CRD and built-in columns", async function () {
    requireReference(this, CRDS);
    t.store.create({
      apiVersion: "v1",
      kind: "Node",
      metadata: {
        name: "infra-1",
        labels: { "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/infra": "" },
      },
      status: { conditions: [{ type: "Ready", status: "True" }], nodeInfo: { kubeletVersion: "v1.32.5" } },
    });
    const accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json";
    const nodes = (
      await t.request("GET", "/api/v1/nodes?fieldSelector=metadata.name%3Dinfra-1", { accept })
    ).json() as {
      kind: string;
      columnDefinitions: Array<{ name: string; priority: number }>;
      rows: Array<{ cells: unknown[] }>;
    };
    assert.equal(nodes.kind, "Table");
    assert.deepEqual(
      nodes.columnDefinitions.filter((c) => c.priority === 0).map((c) => c.name),
      ["Name", "Status", "Roles", "Age", "Version"],
    );
    assert.deepEqual(nodes.rows[0].cells.slice(0, 3), ["infra-1", "Ready", "infra,worker"]);
    t.store.create({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigPool",
      metadata: { name: "worker" },
      spec: {},
      status: { machineCount: 3, conditions: [{ type: "Updated", status: "True" }] },
    });
    const pools = (
      await t.request("GET", "/apis/machineconfiguration.openshift.io/v1/machineconfigpools", { accept })
    ).json() as {
      columnDefinitions: Array<{ name: string }>;
      rows: Array<{ cells: unknown[] }>;
    };
    assert.deepEqual(
      pools.columnDefinitions.map((c) => c.name),
      [
        "Name",
        "Config",
        "Updated",
        "Updating",
        "Degraded",
        "MachineCount",
        "ReadyMachineCount",
        "UpdatedMachineCount",
        "DegradedMachineCount",
        "Age",
      ],
    );
    assert.deepEqual(pools.rows[0].cells.slice(0, 6), ["worker", null, "True", null, null, 3]);
    const metadataOnly = (
      await t.request("GET", "/apis/machineconfiguration.openshift.io/v1/machineconfigpools", {
        accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json",
      })
    ).json() as { kind: string; items: Array<{ kind: string; metadata: { name: string }; spec?: unknown }> };
    assert.equal(metadataOnly.kind, "PartialObjectMetadataList");
    assert.deepEqual(
      metadataOnly.items.map((i) => [i.kind, i.metadata.name, i.spec]),
      [["PartialObjectMetadata", "worker", undefined]],
    );
  });
});
