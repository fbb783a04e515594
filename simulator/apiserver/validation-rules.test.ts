import * as assert from "node:assert/strict";
import { requireReference, CRDS } from "../../test/reference";
import { seedCluster } from "../cluster/seed";
import { CrdSchemas } from "../schema";
import { MemoryStore } from "../store/memory-store";
import { startTestServer, TestServer, WIDGET_CRD } from "./testing";

const INFRASTRUCTURES = "/apis/config.openshift.io/v1/infrastructures";
const CRDS_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const WIDGETS = "/apis/example.com/v1/namespaces/default/widgets";

const infrastructure = (name: string, platformSpec: object) => ({
  apiVersion: "config.openshift.io/v1",
  kind: "Infrastructure",
  metadata: { name },
  spec: { platformSpec },
});

/** The Widget CRD with `rules` on its spec. */
function widgetCrd(
  rules: object[],
  spec: object = { type: "object", properties: { value: { type: "string" } } },
) {
  const crd = structuredClone(WIDGET_CRD) as typeof WIDGET_CRD & { metadata: Record<string, unknown> };
  const version = crd.spec.versions[0] as {
    schema: { openAPIV3Schema: { properties: Record<string, unknown> } };
  };
  version.schema.openAPIV3Schema.properties.spec = { ...spec, "x-kubernetes-validations": rules };
  return crd;
}

describe("the API server evaluates validation rules as kube-apiserver does", function () {
  this.timeout(60_000);
  let t: TestServer;
  before(async function () {
    requireReference(this, CRDS);
    t = await startTestServer({ namespaces: ["default"] });
  });
  after(() => t?.stop());

  const message = async (method: string, path: string, body: object) => {
    const response = await t.request(method, path, { body });
    return { status: response.status, message: String(response.json().message ?? "") };
  };

  it("refuses a MachineConfigNode named otherwise than its node (machineconfignodes CRD: self.metadata.name == self.spec.node.name)", async () => {
    const refused = await message("POST", "/apis/machineconfiguration.openshift.io/v1/machineconfignodes", {
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigNode",
      metadata: { name: "worker-a" },
      spec: {
        node: { name: "worker-b" },
        pool: { name: "worker" },
        configVersion: { desired: "rendered-worker-1" },
      },
    });
    assert.deepEqual(refused, {
      status: 422,
      message:
        'MachineConfigNode.machineconfiguration.openshift.io "worker-a" is invalid: <nil>: Invalid value: "object": spec.node.name should match metadata.name',
    });
  });

  it("refuses two IPv4 apiServerInternalIPs and accepts one of each family (infrastructures CRD, ip().family())", async () => {
    const refused = await message(
      "POST",
      INFRASTRUCTURES,
      infrastructure("two-v4", {
        type: "BareMetal",
        baremetal: { apiServerInternalIPs: ["10.0.0.1", "10.0.0.2"] },
      }),
    );
    assert.deepEqual(refused, {
      status: 422,
      message:
        'Infrastructure.config.openshift.io "two-v4" is invalid: spec.platformSpec.baremetal.apiServerInternalIPs: Invalid value: "array": apiServerInternalIPs must contain at most one IPv4 address and at most one IPv6 address',
    });
    const accepted = await message(
      "POST",
      INFRASTRUCTURES,
      infrastructure("dual", {
        type: "BareMetal",
        baremetal: { apiServerInternalIPs: ["10.0.0.1", "fd00::1"] },
      }),
    );
    assert.equal(accepted.status, 201, accepted.message);
  });

  it("refuses changing an External platformName once set, a transition rule on oldSelf", async () => {
    const created = await t.request("POST", INFRASTRUCTURES, {
      body: infrastructure("external", { type: "External", external: { platformName: "oci" } }),
    });
    assert.equal(created.status, 201, created.text);
    const stored = created.json();
    const changed = {
      ...stored,
      spec: { platformSpec: { type: "External", external: { platformName: "other" } } },
    };
    assert.deepEqual(await message("PUT", `${INFRASTRUCTURES}/external`, changed), {
      status: 422,
      message:
        'Infrastructure.config.openshift.io "external" is invalid: spec.platformSpec.external.platformName: Invalid value: "string": platform name cannot be changed once set',
    });
  });

  it("validates with a CRD's new rules once it is updated, ratcheting what objects already hold (KEP-4008)", async () => {
    assert.equal((await t.request("POST", CRDS_PATH, { body: widgetCrd([]) })).status, 201);
    const old = await t.request("POST", WIDGETS, {
      body: {
        apiVersion: "example.com/v1",
        kind: "Widget",
        metadata: { name: "old" },
        spec: { value: "loud" },
      },
    });
    assert.equal(old.status, 201, old.text);
    const crd = (await t.request("GET", `${CRDS_PATH}/widgets.example.com`)).json();
    const rule = { rule: "self.value == self.value.lowerAscii()", message: "value must be lower case" };
    const updated = await t.request("PUT", `${CRDS_PATH}/widgets.example.com`, {
      body: { ...crd, spec: widgetCrd([rule]).spec },
    });
    assert.equal(updated.status, 200, updated.text);
    const refused = await message("POST", WIDGETS, {
      apiVersion: "example.com/v1",
      kind: "Widget",
      metadata: { name: "new" },
      spec: { value: "LOUD" },
    });
    assert.deepEqual(refused, {
      status: 422,
      message: 'Widget.example.com "new" is invalid: spec: Invalid value: "object": value must be lower case',
    });
    // An object stored before the rule, unchanged where the rule looks, can still be updated.
    const stored = (await t.request("GET", `${WIDGETS}/old`)).json();
    const relabelled = await t.request("PUT", `${WIDGETS}/old`, {
      body: { ...stored, metadata: { ...(stored.metadata as object), labels: { touched: "yes" } } },
    });
    assert.equal(relabelled.status, 200, relabelled.text);
    assert.equal((await t.request("DELETE", `${CRDS_PATH}/widgets.example.com`)).status, 200);
  });

  it("seeds a cluster whose objects satisfy their CRDs' rules", () => {
    for (const platform of ["aws", "azure"] as const) {
      const store = new MemoryStore();
      seedCluster(store, { platform, now: new Date("2026-01-01T00:00:00Z") });
      const schemas = CrdSchemas.load(CRDS.dir);
      for (const crd of schemas.definitions) {
        const version = crd.versions.find((v) => v.storage)!.name;
        for (const object of store.list(`${crd.group}/${version}`, crd.kind)) {
          assert.deepEqual(
            schemas.validate(object).errors,
            [],
            `${platform}: ${crd.kind} ${object.metadata.name}`,
          );
        }
      }
    }
  });

  it("refuses a CRD whose rule's estimated cost exceeds the budget (validation.go, getCostErrorMessage)", async () => {
    const crd = widgetCrd([{ rule: "self.items.all(x, self.items.exists_one(y, x == y))" }], {
      type: "object",
      properties: { items: { type: "array", items: { type: "string" } } },
    });
    const refused = await message("POST", CRDS_PATH, crd);
    assert.equal(refused.status, 422);
    assert.ok(
      refused.message.startsWith(
        'CustomResourceDefinition.apiextensions.k8s.io "widgets.example.com" is invalid: [spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
      ),
      refused.message,
    );
  });
});
