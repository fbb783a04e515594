import * as assert from "node:assert/strict";
import * as pulumi from "@pulumi/pulumi";
import { created, resetMocks, settle, valueOf } from "../../test/mocks";
import { OperatorSubscription, OperatorSubscriptionArgs } from "./operator-subscription";

/** The names of the resources, as their URNs end. */
const names = async (resources: pulumi.Output<pulumi.Resource[]>) =>
  Promise.all((await valueOf(resources)).map(async (r) => (await valueOf(r.urn)).split("::").pop()));

const INSTALL = "pulumi-nodejs:dynamic:OperatorInstall";
const REMOVAL = "pulumi-nodejs:dynamic:OperatorRemoval";
const ARGS: OperatorSubscriptionArgs = { packageName: "cluster-logging", channel: "stable-6.2" };

describe("OperatorSubscription", () => {
  beforeEach(() => resetMocks());

  it("declares the namespace, an OperatorGroup and the Subscription, waits for the install and guards its uninstall", async () => {
    const operator = new OperatorSubscription("logging", ARGS);
    await settle();
    assert.deepEqual(
      created(/^kubernetes:/).map((r) => r.type),
      [
        "kubernetes:core/v1:Namespace",
        "kubernetes:operators.coreos.com/v1:OperatorGroup",
        "kubernetes:operators.coreos.com/v1alpha1:Subscription",
      ],
    );
    const [install] = created(INSTALL);
    assert.equal(install.inputs.subscription, "cluster-logging");
    const [removal] = created(REMOVAL);
    assert.equal(removal.name, "logging-removal");
    assert.equal(removal.inputs.namespace, "cluster-logging");
    assert.deepEqual(
      await names(operator.ready),
      ["logging-install", "logging-removal"],
      "users depend on the install and on the removal",
    );
  });

  it("keeps the removal with wait: false, so that turning waiting off does not uninstall the operator", async () => {
    new OperatorSubscription("logging", { ...ARGS, wait: false });
    await settle();
    assert.deepEqual(created(INSTALL), []);
    assert.equal(created(REMOVAL).length, 1);
  });

  it("declares no removal with wait: false when no kubeconfig is at hand", async () => {
    const kubeconfig = process.env.KUBECONFIG;
    process.env.KUBECONFIG = "/nonexistent/kubeconfig";
    try {
      const operator = new OperatorSubscription("logging", { ...ARGS, wait: false });
      await settle();
      assert.deepEqual(created(REMOVAL), []);
      assert.deepEqual(await names(operator.ready), ["logging-subscription"]);
    } finally {
      process.env.KUBECONFIG = kubeconfig;
    }
  });
});
