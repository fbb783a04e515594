import * as assert from "node:assert/strict";
import { condition, K, Sim, startSim } from "./testing";
import { resolveBundle } from "./operator-controller";

const EXT = { apiVersion: "olm.operatorframework.io/v1", kind: "ClusterExtension" };
const spec = (catalog: object) => ({
  namespace: "gitops",
  serviceAccount: { name: "installer" },
  source: { sourceType: "Catalog", catalog: { packageName: "openshift-gitops-operator", ...catalog } },
});

describe("OLM v1's operator-controller", () => {
  it("resolves the highest version within the channels and range, or says none fits as the resolver does", () => {
    assert.equal(resolveBundle(spec({})).bundle?.version, "1.14.2");
    assert.equal(resolveBundle(spec({ channels: ["gitops-1.14"] })).bundle?.version, "1.14.1");
    assert.equal(resolveBundle(spec({ version: ">=1.14.0, <1.14.2" })).bundle?.version, "1.14.1");
    assert.equal(
      resolveBundle(spec({ channels: ["latest"], version: "2.x" })).error,
      'no bundles found for package "openshift-gitops-operator" matching version "2.x" in channels [latest]',
    );
  });

  describe("a ClusterExtension's life", () => {
    let sim: Sim;
    beforeEach(() => (sim = startSim()));
    afterEach(() => sim.stop());

    it("adds its finalizers, retries while its ServiceAccount is missing, installs the bundle, and uninstalls it before letting go", async () => {
      sim.store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: "gitops" } });
      sim.store.create({
        ...EXT,
        metadata: { name: "openshift-gitops-operator" },
        spec: spec({ channels: ["latest"] }),
      });
      const waiting = await sim.until("Retrying", () => {
        const o = sim.store.get({ ...EXT, name: "openshift-gitops-operator" });
        return condition(o, "Progressing")?.reason === "Retrying" && o;
      });
      assert.equal(
        condition(waiting, "Progressing")?.message,
        "installation cannot proceed due to missing ServiceAccount",
      );
      assert.equal(condition(waiting, "Installed")?.status, "Unknown");
      assert.equal(waiting.metadata.finalizers?.length, 2);
      sim.store.create({
        apiVersion: "v1",
        kind: "ServiceAccount",
        metadata: { name: "installer", namespace: "gitops" },
      });
      const installed = await sim.until("Installed", () => {
        const o = sim.store.get({ ...EXT, name: "openshift-gitops-operator" });
        return condition(o, "Installed")?.status === "True" && o;
      });
      assert.deepEqual((installed.status as { install: object }).install, {
        bundle: { name: "openshift-gitops-operator.v1.14.2", version: "1.14.2" },
      });
      assert.equal(condition(installed, "Progressing")?.message, "desired state reached");
      assert.ok(sim.get(K.crd, "argocds.argoproj.io"));
      sim.store.delete({ ...EXT, name: "openshift-gitops-operator" });
      await sim.until("gone", () => !sim.store.get({ ...EXT, name: "openshift-gitops-operator" }));
      assert.equal(sim.get(K.crd, "argocds.argoproj.io"), undefined);
      assert.equal(
        sim.get(K.deployment, "openshift-gitops-operator-controller-manager", "gitops"),
        undefined,
      );
    });
  });
});
