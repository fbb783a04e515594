import * as assert from "node:assert/strict";
import { ROLE_LABEL } from "./openshift";
import { defaultMachineConfigSelector, mergeOrder, selectedByPool } from "./render-order";

const mc = (name: string, role?: string) => ({
  metadata: { name, ...(role === undefined ? {} : { labels: { [ROLE_LABEL]: role } }) },
});
const names = (configs: Array<{ metadata: { name: string } }>) => configs.map((c) => c.metadata.name);

describe("primitives/render-order: the MCO's choice and order of a pool's MachineConfigs", () => {
  // machine-config-operator pkg/controller/common/helpers.go MergeMachineConfigs: workerConfigs and
  // otherConfigs, each sort.SliceStable by Name, worker first; later configs win.
  it("merges worker-role configs first, then the others, each by name, as MergeMachineConfigs does", () => {
    const configs = [
      mc("99-worker-generated-kubelet", "worker"),
      mc("99-infra-generated-kubelet", "infra"),
      mc("00-worker", "worker"),
      mc("50-infra-chrony", "infra"),
      mc("01-unlabelled"),
    ];
    assert.deepEqual(names(mergeOrder(configs)), [
      "00-worker",
      "99-worker-generated-kubelet",
      "01-unlabelled",
      "50-infra-chrony",
      "99-infra-generated-kubelet",
    ]);
    // By name alone the worker's generated kubelet config would come last and win over the pool's own.
    assert.deepEqual(names(mergeOrder([...configs].reverse())), names(mergeOrder(configs)));
    // Go compares names byte by byte: upper case before lower case, digits before letters.
    assert.deepEqual(names(mergeOrder([mc("a", "worker"), mc("B", "worker"), mc("1", "worker")])), [
      "1",
      "B",
      "a",
    ]);
  });

  // pkg/controller/render/render_controller.go getMachineConfigsForPool: the pool's
  // machineConfigSelector; "a pool with a nil or empty selector ... should match nothing".
  it("selects by the pool's machineConfigSelector, nothing with an empty or missing one (getMachineConfigsForPool)", () => {
    const configs = [mc("00-worker", "worker"), mc("50-infra", "infra"), mc("00-master", "master"), mc("x")];
    assert.deepEqual(names(selectedByPool(defaultMachineConfigSelector("infra"), configs)), [
      "00-worker",
      "50-infra",
    ]);
    assert.deepEqual(names(selectedByPool(defaultMachineConfigSelector("worker"), configs)), ["00-worker"]);
    assert.deepEqual(names(selectedByPool(defaultMachineConfigSelector("master"), configs)), ["00-master"]);
    assert.deepEqual(selectedByPool({}, configs), []);
    assert.deepEqual(selectedByPool(undefined, configs), []);
    const notMaster = {
      matchExpressions: [{ key: ROLE_LABEL, operator: "NotIn" as const, values: ["master"] }],
    };
    assert.deepEqual(names(selectedByPool(notMaster, configs)), ["00-worker", "50-infra", "x"]);
  });
});
