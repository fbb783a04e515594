import * as pulumi from "@pulumi/pulumi";
import * as assert from "node:assert/strict";
import { AWS_INFRA_ID, created, mocks, poolHolds, resetMocks, settle, valueOf } from "../../test/mocks";
import { INFRA_TAINTS, InfraNodePool } from "../infra-node-pool/infra-node-pool";
import { MachineConfig } from "../machine-configuration/machine-configuration";
import { NodePool, NodePoolArgs } from "./node-pool";

const MACHINESET = "kubernetes:machine.openshift.io/v1beta1:MachineSet";
const POOL = "kubernetes:machineconfiguration.openshift.io/v1:MachineConfigPool";
const PATCHES = /Patch$/;

/**
 * A pool of workers of their own role, as OpenShift documents custom machine config pools: the role's
 * node label beside the worker's, a MachineConfigPool of that name selecting the worker configs and its
 * own (the MCO supports a custom pool only when it inherits the worker configuration), and no infra taints
 * or infra workloads. InfraNodePool is the same pool with those (infra-node-pool.test.ts).
 */
describe("NodePool", () => {
  beforeEach(() => resetMocks());

  const template = (i = 0) =>
    (created(MACHINESET)[i].inputs.spec as { template: Record<string, any> }).template;

  it("makes a pool of its own role inheriting the worker configs: no taints, no workloads moved, its labels on the running nodes", async () => {
    const pool = new NodePool("highmem", {
      role: "highmem",
      zones: ["us-east-2a", "us-east-2b"],
      nodeLabels: { "example.com/memory": "high" },
    });
    assert.deepEqual(await valueOf(pool.machineSetNames), [
      `${AWS_INFRA_ID}-highmem-us-east-2a`,
      `${AWS_INFRA_ID}-highmem-us-east-2b`,
    ]);
    await settle();
    const labels = {
      "example.com/memory": "high",
      "node-role.kubernetes.io/highmem": "",
      "node-role.kubernetes.io/worker": "",
    };
    assert.deepEqual(template().spec.metadata.labels, labels);
    assert.equal(template().spec.taints, undefined);
    // The record of what the stack sets, which the machine-api copies into each Machine it creates.
    assert.deepEqual(template().metadata.annotations, {
      "openshift-topology.io/node-labels":
        "example.com/memory,node-role.kubernetes.io/highmem,node-role.kubernetes.io/worker",
    });
    const [mcp] = created(POOL);
    assert.equal((mcp.inputs.metadata as { name: string }).name, "highmem");
    assert.deepEqual((mcp.inputs.spec as Record<string, any>).machineConfigSelector, {
      matchExpressions: [
        { key: "machineconfiguration.openshift.io/role", operator: "In", values: ["worker", "highmem"] },
      ],
    });
    assert.deepEqual(created(PATCHES), []);
    assert.deepEqual(await valueOf(pool.placement), {
      nodeSelector: { "node-role.kubernetes.io/highmem": "" },
      tolerations: [],
    });
    const waiter = mocks.resources.find((r) => r.name === "highmem-node-labels")!;
    assert.equal(waiter.type, "pulumi-nodejs:dynamic:NodeLabelsAndTaints");
    assert.deepEqual([waiter.inputs.labels, waiter.inputs.taints], [labels, []]);
    assert.equal(pulumi.runtime.isDryRun(), false);
    assert.equal(await valueOf(pool.labelsAndTaintsImpact), undefined, "said at preview only");
  });

  it("takes taints as given, with their tolerations, and hands them to the running nodes", async () => {
    const dedicated = { key: "example.com/dedicated", value: "highmem", effect: "NoSchedule" as const };
    const pool = new NodePool("highmem", { role: "highmem", zones: ["us-east-2a"], taints: [dedicated] });
    await valueOf(pool.machineSetNames);
    await settle();
    assert.deepEqual(template().spec.taints, [dedicated]);
    assert.equal(
      template().metadata.annotations["openshift-topology.io/node-taints"],
      "example.com/dedicated:NoSchedule",
    );
    assert.deepEqual((await valueOf(pool.placement)).tolerations, [{ ...dedicated, operator: "Equal" }]);
    const waiter = mocks.resources.find((r) => r.name === "highmem-node-labels")!;
    assert.deepEqual(waiter.inputs.taints, [dedicated]);
  });

  it("requires a role, a custom pool's name", async () => {
    for (const [role, reason] of [
      [undefined, /./],
      ["worker", /a pool every cluster already has/],
    ] as const) {
      resetMocks();
      const pool = new NodePool("bad", { zones: ["us-east-2a"], role } as unknown as NodePoolArgs);
      await assert.rejects(valueOf(pool.machineSetNames), (e: unknown) => {
        assert.ok(pulumi.InputPropertyError.isInstance(e), String(e));
        assert.equal(e.propertyPath, "role");
        assert.match(e.reason, reason);
        return true;
      });
    }
  });

  it("is what InfraNodePool presets: its type, the infra role and taints by default, replaced when given", async () => {
    const infra = new InfraNodePool("infra", { zones: ["us-east-2a"] });
    await valueOf(infra.machineSetNames);
    await settle();
    assert.ok(infra instanceof NodePool);
    assert.match(await valueOf(infra.urn), /::openshift-topology:index:InfraNodePool::infra$/);
    assert.deepEqual(template().spec.taints, [...INFRA_TAINTS]);
    resetMocks();
    const own = new NodePool("gpu", { role: "gpu", zones: ["us-east-2a"] });
    await valueOf(own.machineSetNames);
    await settle();
    assert.match(await valueOf(own.urn), /::openshift-topology:index:NodePool::gpu$/);
    resetMocks();
    const none = new InfraNodePool("infra", { zones: ["us-east-2a"], taints: [] });
    await valueOf(none.machineSetNames);
    await settle();
    assert.equal(template().spec.taints, undefined, "[] replaces the infra taints");
  });

  it("rolls out after the pools rollOutAfter names, as a MachineConfigPool does: InfraNodePool too; checked at preview", async () => {
    new InfraNodePool("infra", { zones: ["us-east-2a"], rollOutAfter: ["worker"] });
    new MachineConfig("99-infra-ntp", {
      role: "infra",
      files: [{ path: "/etc/ntp.conf", contents: { text: "pool ntp.example.com\n" } }],
    });
    await settle();
    assert.deepEqual(poolHolds(), [
      "99-infra-ntp-infra-pause: pause infra after worker",
      "99-infra-ntp-infra-resume: resume infra after worker",
    ]);
    for (const [args, reason] of [
      [{ role: "gpu", rollOutAfter: ["gpu"] }, /gpu cannot roll out after itself/],
      [{ role: "gpu", rollOutAfter: ["worker"], paused: true }, /leave paused out/],
    ] as const) {
      resetMocks();
      const pool = new NodePool("bad", { zones: ["us-east-2a"], ...args } as unknown as NodePoolArgs);
      await assert.rejects(valueOf(pool.machineSetNames), (e: unknown) => {
        assert.ok(pulumi.InputPropertyError.isInstance(e), String(e));
        assert.equal(e.propertyPath, "rollOutAfter");
        assert.match(e.reason, reason);
        return true;
      });
    }
  });
});
