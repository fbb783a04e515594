import * as assert from "node:assert/strict";
import { assertMatchesCrd } from "../../test/crd-schemas";
import { CRDS, requireReference } from "../../test/reference";
import { inputError, inputErrors } from "../../test/input-error";
import { machineSetsForPool } from "../machineset";
import { machineHealthCheck } from ".";

const BASE = {
  name: "c-infra",
  infrastructureId: "c",
  machineRole: "infra",
  machineSetNames: ["c-infra-us-east-2b", "c-infra-us-east-2a"],
};

/** matchLabels and `In` expressions: all the selector the builder emits uses. */
function matchesSelector(
  selector: ReturnType<typeof machineHealthCheck>["spec"]["selector"],
  labels: Record<string, string>,
): boolean {
  return (
    Object.entries(selector.matchLabels).every(([k, v]) => labels[k] === v) &&
    selector.matchExpressions.every((e) => e.values.includes(labels[e.key]))
  );
}

describe("MachineHealthCheck builder", () => {
  it("uses OpenShift's documented defaults and is valid against the CRD", function () {
    requireReference(this, CRDS);
    const mhc = machineHealthCheck(BASE);
    assert.deepEqual(mhc.spec, {
      maxUnhealthy: "40%",
      nodeStartupTimeout: "10m",
      selector: {
        matchExpressions: [
          {
            key: "machine.openshift.io/cluster-api-machineset",
            operator: "In",
            values: ["c-infra-us-east-2a", "c-infra-us-east-2b"],
          },
        ],
        matchLabels: { "machine.openshift.io/cluster-api-cluster": "c" },
      },
      unhealthyConditions: [
        { type: "Ready", status: "False", timeout: "300s" },
        { type: "Ready", status: "Unknown", timeout: "300s" },
      ],
    });
    assertMatchesCrd(mhc);
    assertMatchesCrd(
      machineHealthCheck({
        ...BASE,
        maxUnhealthy: 2,
        nodeStartupTimeout: "0",
        unhealthyConditions: [{ type: "KernelDeadlock", status: "True", timeout: "1h30m" }],
      }),
    );
  });

  it("selects exactly the pool's machines on both clouds, not the workers sharing its role", () => {
    for (const [platform, extra] of [
      ["aws", { region: "us-east-2", zones: ["us-east-2a", "us-east-2b"], aws: { ami: "ami-1" } }],
      [
        "azure",
        {
          region: "eastus",
          zones: ["1", "2"],
          azure: { image: { resourceID: "/resourceGroups/c-rg/providers/Microsoft.Compute/images/rhcos" } },
        },
      ],
    ] as const) {
      const pool = machineSetsForPool({
        platform,
        infrastructureId: "c",
        role: "windows",
        machineRole: "worker",
        replicas: 2,
        ...extra,
      } as Parameters<typeof machineSetsForPool>[0]);
      const worker = machineSetsForPool({
        platform,
        infrastructureId: "c",
        role: "worker",
        replicas: 2,
        ...extra,
      } as Parameters<typeof machineSetsForPool>[0]);
      const mhc = machineHealthCheck({
        ...BASE,
        machineRole: "worker",
        machineSetNames: pool.map((s) => s.metadata.name),
      });
      const machineLabels = (s: (typeof pool)[number]) => s.spec.template.metadata.labels;
      assert.ok(
        pool.every((s) => matchesSelector(mhc.spec.selector, machineLabels(s))),
        platform,
      );
      assert.ok(
        worker.every((s) => !matchesSelector(mhc.spec.selector, machineLabels(s))),
        platform,
      );
    }
  });

  it("is refused for control plane machines", () => {
    const e = inputError(() => machineHealthCheck({ ...BASE, machineRole: "master" }));
    assert.equal(e.propertyPath, "healthCheck");
    assert.match(e.reason, /control plane/);
  });

  it("rejects bad durations, percentages and conditions, all at once", () => {
    const errors = inputErrors(() =>
      machineHealthCheck({
        ...BASE,
        maxUnhealthy: "140%",
        nodeStartupTimeout: "ten minutes",
        unhealthyConditions: [{ type: "Ready", status: "False", timeout: "300" }],
      }),
    );
    assert.deepEqual(
      errors.map((e) => e.propertyPath),
      ["unhealthyConditions[0].timeout", "maxUnhealthy", "nodeStartupTimeout"],
    );
    assert.match(errors[1].reason, /"140%" is not allowed/);
    assert.match(errors[2].reason, /"ten minutes" is not a duration/);
    assert.equal(
      inputError(() => machineHealthCheck({ ...BASE, unhealthyConditions: [] })).propertyPath,
      "unhealthyConditions",
    );
    assert.equal(
      inputError(() => machineHealthCheck({ ...BASE, maxUnhealthy: -1 })).propertyPath,
      "maxUnhealthy",
    );
  });
});
