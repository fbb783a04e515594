import * as assert from "node:assert/strict";
import { assertMatchesCrd } from "../../test/crd-schemas";
import { AWS_POOL, AZURE_POOL } from "../../test/pool-specs";
import { CRDS, requireReference } from "../../test/reference";
import { inputError, inputErrors } from "../../test/input-error";
import { machineSetsForPool } from "../machineset";
import { clusterAutoscaler, machineAutoscalersForPool } from ".";

const SETS = ["c-infra-us-east-2a", "c-infra-us-east-2b", "c-infra-us-east-2c"];

describe("autoscaling builders", () => {
  it("spreads pool-wide bounds over the zones as the installer spreads replicas", function () {
    requireReference(this, CRDS);
    const mas = machineAutoscalersForPool(SETS, { minReplicas: 4, maxReplicas: 8 });
    assert.deepEqual(
      mas.map((m) => [m.metadata.name, m.spec.minReplicas, m.spec.maxReplicas, m.spec.scaleTargetRef.name]),
      [
        ["c-infra-us-east-2a", 2, 3, "c-infra-us-east-2a"],
        ["c-infra-us-east-2b", 1, 3, "c-infra-us-east-2b"],
        ["c-infra-us-east-2c", 1, 2, "c-infra-us-east-2c"],
      ],
    );
    mas.forEach((m) => assertMatchesCrd(m));
  });

  it("gives every zone the same bounds when they are per zone", () => {
    const mas = machineAutoscalersForPool(SETS, { minReplicas: 0, maxReplicas: 2, per: "zone" });
    assert.deepEqual(
      mas.map((m) => [m.spec.minReplicas, m.spec.maxReplicas]),
      [
        [0, 2],
        [0, 2],
        [0, 2],
      ],
    );
  });

  it("targets the MachineSets the pool builder names, on both clouds", () => {
    for (const sets of [machineSetsForPool(AWS_POOL), machineSetsForPool(AZURE_POOL)]) {
      const names = sets.map((s) => s.metadata.name);
      const mas = machineAutoscalersForPool(names, { minReplicas: 2, maxReplicas: 6 });
      assert.deepEqual(
        mas.map((m) => m.spec.scaleTargetRef),
        names.map((name) => ({ apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", name })),
      );
    }
  });

  it("rejects bad bounds naming each property, all at once", () => {
    const both = inputErrors(() => machineAutoscalersForPool(SETS, { minReplicas: -1, maxReplicas: 1.5 }));
    assert.deepEqual(
      both.map((e) => e.message),
      [
        "minReplicas: must be a whole number of 0 or more, got -1",
        "maxReplicas: must be a whole number of 0 or more, got 1.5",
      ],
    );
    const inverted = inputError(() => machineAutoscalersForPool(SETS, { minReplicas: 5, maxReplicas: 3 }));
    assert.equal(inverted.propertyPath, "minReplicas");
    assert.match(inverted.message, /5 is more than maxReplicas \(3\)/);
    const tooFew = inputError(() => machineAutoscalersForPool(SETS, { minReplicas: 0, maxReplicas: 2 }));
    assert.equal(tooFew.propertyPath, "maxReplicas");
    const scope = inputError(() =>
      machineAutoscalersForPool(SETS, { minReplicas: 0, maxReplicas: 3, per: "node" as "zone" }),
    );
    assert.equal(scope.propertyPath, "per");
  });

  it("renders a ClusterAutoscaler default with every field, valid against its CRD", function () {
    requireReference(this, CRDS);
    const ca = clusterAutoscaler({
      resourceLimits: {
        maxNodesTotal: 24,
        cores: { min: 8, max: 128 },
        memory: { min: 4, max: 256 },
        gpus: [{ type: "nvidia.com/gpu", min: 0, max: 16 }],
      },
      scaleDown: {
        enabled: true,
        delayAfterAdd: "10m",
        delayAfterDelete: "5m",
        delayAfterFailure: "30s",
        unneededTime: "5m",
        utilizationThreshold: "0.4",
        cordonNodeBeforeTerminating: "Enabled",
      },
      scaleUp: { newPodScaleUpDelay: "10s" },
      balanceSimilarNodeGroups: true,
      balancingIgnoredLabels: ["topology.ebs.csi.aws.com/zone"],
      ignoreDaemonsetsUtilization: false,
      skipNodesWithLocalStorage: true,
      podPriorityThreshold: -10,
      maxPodGracePeriod: 600,
      maxNodeProvisionTime: "15m",
      expanders: ["Priority", "LeastWaste"],
      enforceNodeGroupMinSize: "Enabled",
      logVerbosity: 4,
      startupTaints: ["ignore-taint.cluster-autoscaler.kubernetes.io/gpu"],
    });
    assert.equal(ca.metadata.name, "default");
    assert.deepEqual(ca.spec.scaleDown, {
      cordonNodeBeforeTerminating: "Enabled",
      delayAfterAdd: "10m",
      delayAfterDelete: "5m",
      delayAfterFailure: "30s",
      enabled: true,
      unneededTime: "5m",
      utilizationThreshold: "0.4",
    });
    assertMatchesCrd(ca);
    assertMatchesCrd(clusterAutoscaler());
    assert.deepEqual(clusterAutoscaler().spec, {});
  });

  it("rejects every bad ClusterAutoscaler field at once, each by its path", () => {
    const errors = inputErrors(() =>
      clusterAutoscaler({
        resourceLimits: { cores: { min: 10, max: 2 }, gpus: [{ type: "", min: 0, max: 0 }] },
        scaleDown: { enabled: true, unneededTime: "5 minutes", utilizationThreshold: "50%" },
        expanders: ["Priority", "MostPods" as "Random"],
        podPriorityThreshold: 1.5,
      }),
    );
    const paths = [
      "resourceLimits.cores.min",
      "resourceLimits.gpus[0].type",
      "scaleDown.unneededTime",
      "scaleDown.utilizationThreshold",
      "podPriorityThreshold",
      "expanders[1]",
    ];
    assert.deepEqual(
      errors.map((e) => e.propertyPath),
      paths,
    );
  });

  it("refuses fields it would not render, at every level, with the closest known name", () => {
    const errors = inputErrors(() =>
      clusterAutoscaler({
        expander: ["Random"],
        resourceLimits: {
          maxNodesTotal: 6,
          cores: { min: 1, max: 8, step: 2 },
          gpus: [{ type: "nvidia", min: 0, max: 1, count: 1 }],
        },
        scaleDown: { enabled: true, delayAfterAd: "10m" },
        scaleUp: { newPodScaleUpDelays: "10s" },
      } as never),
    );
    assert.deepEqual(
      errors.map((e) => [e.propertyPath, e.reason]),
      [
        ["expander", "is not a ClusterAutoscaler field: did you mean expanders?"],
        ["scaleDown.delayAfterAd", "is not a scaleDown field: did you mean delayAfterAdd?"],
        ["scaleUp.newPodScaleUpDelays", "is not a scaleUp field: did you mean newPodScaleUpDelay?"],
        ["resourceLimits.cores.step", "is not a limit field: use min, max"],
        ["resourceLimits.gpus[0].count", "is not a limit field: use type, min, max"],
      ],
    );
    assert.equal(inputError(() => clusterAutoscaler(null as never)).propertyPath, "");
  });
});
