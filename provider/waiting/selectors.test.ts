/**
 * What the MachineSet and autoscaler waits ask the API server for: the pool's Machines by the label the
 * machine-api's MachineSet controller gives each Machine it creates (machine-api-operator,
 * pkg/controller/machineset/controller.go, `getNewMachine`: the template's labels, which carry
 * `machine.openshift.io/cluster-api-machineset`), and the nodes by the labels all of them carry.
 */
import { strict as assert } from "node:assert";
import { KubeObject } from "./kinds";
import { machinesSelector, nodesSelector } from "./machineset";

function machineSet(name: string, nodeLabels: Record<string, string>): KubeObject {
  return { metadata: { name }, spec: { template: { spec: { metadata: { labels: nodeLabels } } } } };
}

describe("pool selectors", () => {
  it("selects the Machines of every MachineSet of the pool, in a stable order", () => {
    assert.equal(machinesSelector(["b", "a"]), "machine.openshift.io/cluster-api-machineset in (a,b)");
  });

  it("selects nodes by the node labels all the pool's MachineSets share, plus the target's", () => {
    const sets = [
      machineSet("a", { "node-role.kubernetes.io/infra": "", zone: "a", tier: "x" }),
      machineSet("b", { "node-role.kubernetes.io/infra": "", zone: "b", tier: "x" }),
      machineSet("other", { "node-role.kubernetes.io/worker": "" }),
    ];
    const target = { namespace: "ns", machineSets: ["a", "b"], nodeLabels: { team: "red" } };
    assert.equal(nodesSelector(target, sets), "node-role.kubernetes.io/infra=,team=red,tier=x");
    assert.equal(
      nodesSelector({ ...target, nodeLabels: undefined }, sets.slice(0, 1)),
      "node-role.kubernetes.io/infra=,tier=x,zone=a",
    );
  });

  it("selects every node only when nothing is shared", () => {
    const sets = [machineSet("a", { zone: "a" }), machineSet("b", {})];
    assert.equal(nodesSelector({ namespace: "ns", machineSets: ["a", "b"] }, sets), undefined);
    assert.equal(nodesSelector({ namespace: "ns", machineSets: ["a"] }, []), undefined);
  });
});
