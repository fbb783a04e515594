import * as assert from "node:assert/strict";
import { kubectl, kubectlMinorVersion } from "./kubectl";
import { startTestServer, TestServer, WIDGET_CRD } from "./testing";

const WIDGETS = "/apis/example.com/v1/namespaces/default/widgets";

const widget = (name: string, value: unknown, finalizers?: string[]) => ({
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name, namespace: "default", ...(finalizers ? { finalizers } : {}) },
  spec: { value },
});

describe("CRDs created and deleted at run time", function () {
  this.timeout(30_000);
  let t: TestServer;
  before(async function () {
    if (kubectlMinorVersion() === undefined) {
      console.log("    kubectl is not installed: CRD lifecycle tests skipped");
      this.skip();
    }
    t = await startTestServer({ namespaces: ["default"] });
  });
  after(() => t?.stop());

  const run = async (args: string[], input?: string) => {
    const result = await kubectl(t.server.kubeconfigPath, args, input);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout;
  };
  const apiResources = () => run(["api-resources", "--api-group=example.com", "-o", "wide", "--no-headers"]);

  it("serves a CRD's kind once it is established, validated by its schema and listed by discovery, refuses creates while it terminates, and stops serving it once its objects are gone (customresource_handler.go, ServeHTTP and serveResource; customresource_discovery_controller.go, sync; customresourcedefinition/etcd.go, REST.Delete; crd_finalizer.go, sync)", async () => {
    assert.equal((await t.request("POST", WIDGETS, { body: widget("early", "a") })).status, 404);
    assert.equal(await apiResources(), "");

    await run(["create", "-f", "-"], JSON.stringify(WIDGET_CRD));
    const crd = JSON.parse(await run(["get", "crd", "widgets.example.com", "-o", "json"]));
    assert.deepEqual(
      crd.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`),
      ["NamesAccepted=True", "Established=True"],
    );
    assert.match(
      await apiResources(),
      /^widgets\s+wg\s+example\.com\/v1\s+true\s+Widget\s+create,delete,deletecollection,get,list,patch,update,watch\s*$/,
    );
    assert.equal(
      (await t.request("POST", WIDGETS, { body: widget("one", "a", ["example.com/hold"]) })).status,
      201,
    );
    const refused = await t.request("POST", WIDGETS, { body: widget("bad", 5) });
    assert.equal(refused.status, 422, "the CRD's schema validates its kind");
    assert.match(
      refused.json().message as string,
      /spec\.value: Invalid value: "integer": spec\.value in body must be of type string/,
    );
    assert.match(await run(["get", "wg", "-n", "default"]), /^NAME\s+VALUE\s*\none\s+a\s*$/);

    // The object's finalizer holds the CRD's deletion: Terminating, its kind still read, creates refused.
    await run(["delete", "crd", "widgets.example.com", "--wait=false"]);
    const terminating = JSON.parse(await run(["get", "crd", "widgets.example.com", "-o", "json"]));
    assert.deepEqual(terminating.metadata.finalizers, ["customresourcecleanup.apiextensions.k8s.io"]);
    assert.ok(
      terminating.status.conditions.some(
        (c: { type: string; status: string }) => c.type === "Terminating" && c.status === "True",
      ),
    );
    assert.match(await apiResources(), /\sdelete,deletecollection,get,list,watch\s*$/);
    const late = await t.request("POST", WIDGETS, { body: widget("two", "b") });
    assert.equal(late.status, 405);
    assert.equal(late.json().message, "create not allowed while custom resource definition is terminating");
    const held = (await t.request("GET", `${WIDGETS}/one`)).json();
    assert.ok(
      (held.metadata as { deletionTimestamp?: string }).deletionTimestamp,
      "its objects are being deleted",
    );

    await run([
      "patch",
      "widget",
      "one",
      "-n",
      "default",
      "--type=merge",
      "-p",
      '{"metadata":{"finalizers":null}}',
    ]);
    assert.equal(
      t.store.get({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        name: "widgets.example.com",
      }),
      undefined,
    );
    assert.equal(await apiResources(), "");
    assert.equal((await t.request("GET", WIDGETS)).status, 404);
  });
});
