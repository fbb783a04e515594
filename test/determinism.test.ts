import * as assert from "node:assert/strict";
import { InfraNodePool, MachineConfig } from "../index";
import { RegisteredResource } from "./mocks";
import { runProgram } from "./program";

/** Two pools and a MachineConfig; only the replicas of pool `infra` vary. */
function twoPools(infraReplicas: number) {
  return () => {
    new InfraNodePool("infra", {
      zones: ["us-east-2a", "us-east-2b", "us-east-2c"],
      replicas: infraReplicas,
    });
    new InfraNodePool("storage", {
      role: "storage",
      zones: ["us-east-2a", "us-east-2b"],
      replicas: 2,
      taints: [],
    });
    new MachineConfig("99-storage-iscsi", {
      role: "storage",
      systemd: { units: [{ name: "iscsid.service", enabled: true }] },
    });
  };
}

function byName(resources: RegisteredResource[]): Map<string, string> {
  return new Map(resources.map((r) => [`${r.type}::${r.name}`, JSON.stringify(r.inputs)]));
}

describe("deterministic previews", () => {
  it("renders byte-identical manifests for the same program", async () => {
    const first = await runProgram(twoPools(3));
    const second = await runProgram(twoPools(3));
    assert.equal(JSON.stringify(first), JSON.stringify(second));
  });

  it("changes only the MachineSets of the pool whose replicas changed, and the pool's wait for them", async () => {
    const before = byName(await runProgram(twoPools(3)));
    const after = byName(await runProgram(twoPools(5)));
    assert.deepEqual([...after.keys()].sort(), [...before.keys()].sort());
    const changed = [...after.keys()].filter((k) => after.get(k) !== before.get(k)).sort();
    assert.deepEqual(changed, [
      "kubernetes:machine.openshift.io/v1beta1:MachineSet::infra-us-east-2a",
      "kubernetes:machine.openshift.io/v1beta1:MachineSet::infra-us-east-2b",
      "pulumi-nodejs:dynamic:PoolRollout::infra-pool-rollout",
    ]);
  });
});
