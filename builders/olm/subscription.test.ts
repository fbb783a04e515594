import * as assert from "node:assert/strict";
import { seedYaml } from "../../test/seeds";
import { InputError } from "../errors";
import { operatorGroup, operatorNamespace, OperatorSubscriptionArgs, subscription } from ".";
import { SEEDS, requireReference } from "../../test/reference";

const WMCO: OperatorSubscriptionArgs = {
  packageName: "windows-machine-config-operator",
  namespace: "openshift-windows-machine-config-operator",
  channel: "stable",
};

describe("OLM builders", () => {
  it("reproduce seed 002's Namespace, OperatorGroup and Subscription for WMCO", function () {
    requireReference(this, SEEDS);
    assert.deepEqual(operatorNamespace(WMCO), seedYaml("002", /^\s+apiVersion: v1$/));
    assert.deepEqual(operatorGroup(WMCO), seedYaml("002", /^\s+apiVersion: operators.coreos.com\/v1$/));
    assert.deepEqual(subscription(WMCO), seedYaml("002", /^\s+apiVersion: operators.coreos.com\/v1alpha1$/));
  });

  it("targets all namespaces with an empty OperatorGroup spec and pins a starting CSV", () => {
    assert.deepEqual(operatorGroup({ ...WMCO, targetNamespaces: "AllNamespaces" }).spec, {});
    const pinned = subscription({
      ...WMCO,
      installPlanApproval: "Manual",
      startingCSV: "windows-machine-config-operator.v10.16.1",
    });
    assert.equal(pinned.spec.installPlanApproval, "Manual");
    assert.equal(pinned.spec.startingCSV, "windows-machine-config-operator.v10.16.1");
  });

  const bad: Array<[string, Partial<OperatorSubscriptionArgs>, string]> = [
    [
      "an approval OLM does not know",
      { installPlanApproval: "Sometimes" as "Manual" },
      "installPlanApproval",
    ],
    ["a channel with spaces", { channel: "stable please" }, "channel"],
    ["an empty channel", { channel: "" }, "channel"],
    ["a CSV of another package", { startingCSV: "other-operator.v1.0.0" }, "startingCSV"],
    ["a namespace that is not a DNS label", { namespace: "WMCO" }, "namespace"],
  ];
  for (const [what, change, propertyPath] of bad) {
    it(`rejects ${what} at ${propertyPath}`, () => {
      assert.throws(
        () => subscription({ ...WMCO, ...change }),
        (e: unknown) => e instanceof InputError && e.propertyPath === propertyPath,
      );
    });
  }
});
