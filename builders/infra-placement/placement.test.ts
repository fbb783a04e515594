import * as assert from "node:assert/strict";
import { parse } from "yaml";
import { InputError } from "../errors";
import { imageRegistryPlacementPatch, monitoringConfigYaml, MONITORING_COMPONENTS, placementFor } from ".";

describe("infra placement builders", () => {
  const placement = placementFor("infra", [
    { key: "node-role.kubernetes.io/infra", value: "reserved", effect: "NoSchedule" },
    { key: "dedicated", effect: "NoExecute" },
  ]);

  it("select the pool's nodes and tolerate each of its taints", () => {
    assert.deepEqual(placement, {
      nodeSelector: { "node-role.kubernetes.io/infra": "" },
      tolerations: [
        { effect: "NoSchedule", key: "node-role.kubernetes.io/infra", operator: "Equal", value: "reserved" },
        { effect: "NoExecute", key: "dedicated", operator: "Exists" },
      ],
    });
    assert.deepEqual(imageRegistryPlacementPatch(placement).spec, placement);
  });

  it("place every movable monitoring component, keep per-component settings, and write no YAML anchors", () => {
    const text = monitoringConfigYaml(placement, { prometheusK8s: { retention: "15d" } });
    assert.doesNotMatch(text, /[&*]a\d/, "anchors and aliases are hard to review in a diff");
    const config = parse(text);
    assert.deepEqual(Object.keys(config), [...MONITORING_COMPONENTS].sort());
    for (const component of MONITORING_COMPONENTS)
      assert.deepEqual(config[component].nodeSelector, placement.nodeSelector);
    assert.equal(config.prometheusK8s.retention, "15d");
  });

  it("reject a role that is not a DNS label", () => {
    assert.throws(
      () => placementFor("Infra"),
      (e: unknown) => e instanceof InputError && e.propertyPath === "role",
    );
  });
});
