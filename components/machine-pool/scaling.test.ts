import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import {
  AWS_INFRA_ID,
  awsCloud,
  azureCloud,
  created,
  imported,
  mocks,
  resetMocks,
  settle,
  valueOf,
  withObjects,
} from "../../test/mocks";
import { ClusterAutoscaler } from "../cluster-autoscaler/cluster-autoscaler";
import { InfraNodePool, InfraNodePoolArgs } from "../infra-node-pool/infra-node-pool";
import { WindowsNodePool } from "../windows-node-pool/windows-node-pool";

const AUTOSCALER = "kubernetes:autoscaling.openshift.io/v1beta1:MachineAutoscaler";
const HEALTH_CHECK = "kubernetes:machine.openshift.io/v1beta1:MachineHealthCheck";
const MACHINESET = "kubernetes:machine.openshift.io/v1beta1:MachineSet";
const RSA_PEM = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
  type: "pkcs1",
  format: "pem",
}) as string;
const ZONES = ["us-east-2a", "us-east-2b", "us-east-2c"];

async function rejectsAt(
  output: pulumi.Output<unknown>,
  propertyPath: string,
  message: RegExp,
): Promise<void> {
  await assert.rejects(valueOf(output), (e: unknown) => {
    assert.ok(pulumi.InputPropertyError.isInstance(e), `not an InputPropertyError: ${String(e)}`);
    assert.equal(e.propertyPath, propertyPath);
    assert.match(e.reason, message);
    return true;
  });
}

describe("pool autoscaling and health checks", () => {
  beforeEach(() => resetMocks());

  it("declares a MachineAutoscaler per MachineSet with spread bounds, the minimum as replicas, and a health check", async () => {
    const pool = new InfraNodePool("infra", {
      zones: ZONES,
      autoscaling: { minReplicas: 4, maxReplicas: 9 },
      healthCheck: { nodeStartupTimeout: "20m" },
    });
    const names = await valueOf(pool.machineSetNames);
    await settle();
    assert.deepEqual(
      created(MACHINESET).map((r) => (r.inputs.spec as { replicas: number }).replicas),
      [2, 1, 1],
    );
    assert.deepEqual(
      created(AUTOSCALER).map((r) => {
        const spec = r.inputs.spec as {
          minReplicas: number;
          maxReplicas: number;
          scaleTargetRef: { name: string };
        };
        return [spec.scaleTargetRef.name, spec.minReplicas, spec.maxReplicas];
      }),
      names.map((n, i) => [n, [2, 1, 1][i], 3]),
    );
    const [check] = created(HEALTH_CHECK);
    assert.equal((check.inputs.metadata as { name: string }).name, `${AWS_INFRA_ID}-infra`);
    const spec = check.inputs.spec as Record<string, any>;
    assert.deepEqual(spec.selector.matchExpressions[0].values, [...names].sort());
    assert.equal(spec.nodeStartupTimeout, "20m");
    assert.equal(spec.maxUnhealthy, "40%");
    assert.deepEqual(
      mocks.resources.filter((r) => r.type.endsWith("MachineAutoscalerReady")).map((r) => r.name),
      ["infra-autoscalers-ready"],
    );
  });

  it("names each MachineAutoscaler by its zone, as its MachineSet, whatever the zones' order and when they are known only from an output", async () => {
    const autoscalers = async (zones: pulumi.Input<string[]>) => {
      resetMocks();
      const pool = new InfraNodePool("infra", { zones, autoscaling: { minReplicas: 3, maxReplicas: 6 } });
      await valueOf(pool.machineSetNames);
      await settle();
      return Object.fromEntries(
        created(AUTOSCALER).map((r) => [
          r.name,
          (r.inputs.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name,
        ]),
      );
    };
    const byZone = Object.fromEntries(
      ZONES.map((z) => [`infra-${z}-autoscaler`, `${AWS_INFRA_ID}-infra-${z}`]),
    );
    assert.deepEqual(await autoscalers(ZONES), byZone);
    assert.deepEqual(await autoscalers([...ZONES].reverse()), byZone);
    assert.deepEqual(await autoscalers(pulumi.output([ZONES[2], ZONES[0], ZONES[1]])), byZone);
  });

  it("gives a Windows pool on Azure a health check over its own sets, not the workers sharing its role", async () => {
    await resetMocks(azureCloud());
    const pool = new WindowsNodePool("win", {
      zones: ["1", "2"],
      privateKey: pulumi.secret(RSA_PEM),
      healthCheck: true,
      autoscaling: { minReplicas: 0, maxReplicas: 2, per: "zone" },
    });
    const names = await valueOf(pool.machineSetNames);
    await settle();
    const spec = created(HEALTH_CHECK)[0].inputs.spec as Record<string, any>;
    assert.deepEqual(spec.selector.matchExpressions[0].values, [...names].sort());
    assert.deepEqual(
      created(AUTOSCALER).map((r) => (r.inputs.spec as { maxReplicas: number }).maxReplicas),
      [2, 2],
    );
  });

  it("adopts the MachineAutoscalers, MachineHealthCheck and ClusterAutoscaler made by hand: each imported by its name", async () => {
    const NS = "openshift-machine-api";
    const sets = ["us-east-2a", "us-east-2b"].map((z) => `${AWS_INFRA_ID}-infra-${z}`);
    const imports: Array<[string, string]> = [
      ...sets.map((n): [string, string] => [MACHINESET, `${NS}/${n}`]),
      ...sets.map((n): [string, string] => [AUTOSCALER, `${NS}/${n}`]),
      // Made by hand under a name of its own, given as healthCheck.name.
      [HEALTH_CHECK, `${NS}/infra-healthcheck`],
      ["kubernetes:machineconfiguration.openshift.io/v1:MachineConfigPool", "infra"],
      ["kubernetes:autoscaling.openshift.io/v1:ClusterAutoscaler", "default"],
    ];
    // The fake cluster answers each import with an object of that name.
    await resetMocks(withObjects(awsCloud(), imports));
    const pool = new InfraNodePool("infra", {
      zones: ["us-east-2a", "us-east-2b"],
      autoscaling: { minReplicas: 2, maxReplicas: 4 },
      healthCheck: { name: "infra-healthcheck" },
      adopt: true,
    });
    new ClusterAutoscaler("autoscaler", { adopt: true });
    await valueOf(pool.machineHealthCheck!);
    await settle();
    assert.deepEqual(imported(imports), [...imports].sort());
    // Adopted, they are still what the program declares: the bounds and the selection apply on import.
    const declared = (type: string) => mocks.resources.filter((r) => r.type === type);
    assert.deepEqual(
      declared(AUTOSCALER).map((r) => (r.inputs.spec as { maxReplicas: number }).maxReplicas),
      [2, 2],
    );
    const spec = declared(HEALTH_CHECK)[0].inputs.spec as Record<string, any>;
    assert.deepEqual(spec.selector.matchExpressions[0].values, sets);
  });

  const bad: Array<[string, InfraNodePoolArgs, string, RegExp]> = [
    [
      "a health check name that is not a DNS subdomain",
      { zones: ZONES, healthCheck: { name: "Infra_Check" } },
      "healthCheck.name",
      /Infra_Check/,
    ],
    [
      "min above max",
      { zones: ZONES, autoscaling: { minReplicas: 5, maxReplicas: 3 } },
      "autoscaling.minReplicas",
      /more than maxReplicas/,
    ],
    [
      "a negative minimum",
      { zones: ZONES, autoscaling: { minReplicas: -1, maxReplicas: 3 } },
      "autoscaling.minReplicas",
      /0 or more/,
    ],
    [
      "replicas outside the bounds",
      { zones: ZONES, replicas: 9, autoscaling: { minReplicas: 3, maxReplicas: 6 } },
      "replicas",
      /outside the autoscaling bounds/,
    ],
  ];
  for (const [what, args, propertyPath, message] of bad) {
    it(`rejects ${what} at ${propertyPath}`, async () => {
      const pool = new InfraNodePool("infra", args);
      await rejectsAt(pool.machineSetNames, propertyPath, message);
    });
  }

  it("rejects a bad health check at healthCheck.<field>, every mistake at once", async () => {
    const pool = new InfraNodePool("infra", {
      zones: ZONES,
      healthCheck: {
        maxUnhealthy: "150%",
        unhealthyConditions: [{ type: "Ready", status: "False", timeout: "5" }],
      },
    });
    await assert.rejects(valueOf(pool.machineSetNames), (e: unknown) => {
      assert.ok(pulumi.InputPropertiesError.isInstance(e), `not an InputPropertiesError: ${String(e)}`);
      assert.deepEqual(
        e.errors.map((x) => x.propertyPath),
        ["healthCheck.unhealthyConditions[0].timeout", "healthCheck.maxUnhealthy"],
      );
      return true;
    });
  });
});
