/**
 * What the MachineSet and autoscaler waits ask the API server for: the pool's Machines by the label the
 * machine-api's MachineSet controller gives each Machine it creates (machine-api-operator,
 * pkg/controller/machineset/controller.go, `getNewMachine`: the template's labels, which carry
 * `machine.openshift.io/cluster-api-machineset`), and the nodes by the labels the nodelink controller
 * copies onto them from their Machine (pkg/controller/nodelink/nodelink_controller.go,
 * `ReconcileNodeLink.Reconcile`), or by name when a template sets none of its own.
 */
import { strict as assert } from "node:assert";
import { KubeObject } from "./kinds";
import { machinesSelector, nodeNames, nodeQueries } from "./machineset";

function machineSet(name: string, nodeLabels: Record<string, string>): KubeObject {
  return { metadata: { name }, spec: { template: { spec: { metadata: { labels: nodeLabels } } } } };
}

function machine(name: string, set: string, node?: string): KubeObject {
  return {
    metadata: { name, labels: { "machine.openshift.io/cluster-api-machineset": set } },
    ...(node ? { status: { nodeRef: { name: node } } } : {}),
  };
}

describe("pool selectors", () => {
  it("selects the Machines of every MachineSet of the pool, in a stable order", () => {
    assert.equal(machinesSelector(["b", "a"]), "machine.openshift.io/cluster-api-machineset in (a,b)");
  });

  it("selects each MachineSet's nodes by its template's node labels plus the target's, one list per distinct set", () => {
    const sets = [
      machineSet("a", { "node-role.kubernetes.io/infra": "", tier: "x" }),
      machineSet("b", { tier: "x", "node-role.kubernetes.io/infra": "" }),
      machineSet("c", { "node-role.kubernetes.io/infra": "", zone: "c" }),
      machineSet("other", { "node-role.kubernetes.io/worker": "" }),
    ];
    const target = { namespace: "ns", machineSets: ["a", "b", "c"], nodeLabels: { team: "red" } };
    assert.deepEqual(nodeQueries(target, sets, {}), [
      { slot: "nodes/a", labelSelector: "node-role.kubernetes.io/infra=,team=red,tier=x" },
      { slot: "nodes/c", labelSelector: "node-role.kubernetes.io/infra=,team=red,zone=c" },
    ]);
  });

  it("selects by the template's labels that every Machine of the MachineSet declares: one added since is on no running node yet", () => {
    const sets = [machineSet("a", { "node-role.kubernetes.io/infra": "", team: "new", tier: "x" })];
    const labelled = (name: string, labels: Record<string, string>): KubeObject => ({
      ...machine(name, "a", `node-${name}`),
      spec: { metadata: { labels } },
    });
    const machines = [
      labelled("a-1", { "node-role.kubernetes.io/infra": "", tier: "x" }),
      labelled("a-2", { "node-role.kubernetes.io/infra": "", team: "new", tier: "y" }),
      labelled("other", { "node-role.kubernetes.io/infra": "", team: "new", tier: "x" }),
    ];
    machines[2].metadata.labels = { "machine.openshift.io/cluster-api-machineset": "b" };
    assert.deepEqual(nodeQueries({ namespace: "ns", machineSets: ["a"] }, sets, {}, machines), [
      { slot: "nodes/a", labelSelector: "node-role.kubernetes.io/infra=" },
    ]);
  });

  it("asks for the nodes of a MachineSet whose template sets no label by name, never for every node", () => {
    const sets = [machineSet("a", { zone: "a" }), machineSet("b", {})];
    const machines = [machine("b-1", "b", "node-b1"), machine("b-2", "b"), machine("a-1", "a", "node-a1")];
    const names = nodeNames(["a", "b"], machines);
    assert.deepEqual(names, { a: ["node-a1"], b: ["node-b1"] });
    assert.deepEqual(nodeQueries({ namespace: "ns", machineSets: ["a", "b"] }, sets, names), [
      { slot: "nodes/a", labelSelector: "zone=a" },
      { slot: "node/node-b1", fieldSelector: "metadata.name=node-b1" },
    ]);
    // A template that sets only labels every worker carries (a Windows MachineSet's sets the worker
    // role: the MCO's kubelet unit gives every worker that label and node.openshift.io/os_id) would
    // list every worker: its nodes by name too.
    const windows = [
      machineSet("w", { "node-role.kubernetes.io/worker": "", "kubernetes.io/os": "windows" }),
    ];
    assert.deepEqual(nodeQueries({ namespace: "ns", machineSets: ["w"] }, windows, { w: ["win-1"] }), [
      { slot: "node/win-1", fieldSelector: "metadata.name=win-1" },
    ]);
    // Whichever role-wide label it sets: the kubelet's own and those the MCO's kubelet unit gives every
    // node of the role (templates/*/01-*-kubelet, --node-labels), for every role.
    const roleWide = ["worker", "master", "control-plane", "arbiter"].map(
      (r) => `node-role.kubernetes.io/${r}`,
    );
    for (const label of ["kubernetes.io/os", "kubernetes.io/arch", "node.openshift.io/os_id", ...roleWide]) {
      assert.deepEqual(
        nodeQueries({ namespace: "ns", machineSets: ["r"] }, [machineSet("r", { [label]: "x" })], {
          r: ["r-1"],
        }),
        [{ slot: "node/r-1", fieldSelector: "metadata.name=r-1" }],
        label,
      );
    }
    // Nothing yet for one whose Machines name no node; by its labels once it sets one of its own.
    assert.deepEqual(nodeQueries({ namespace: "ns", machineSets: ["w"] }, windows, {}), []);
    const tiered = [machineSet("t", { "node-role.kubernetes.io/worker": "", tier: "x" })];
    assert.deepEqual(nodeQueries({ namespace: "ns", machineSets: ["t"] }, tiered, { t: ["t-1"] }), [
      { slot: "nodes/t", labelSelector: "node-role.kubernetes.io/worker=,tier=x" },
    ]);
    // A MachineSet not seen (gone before a deletion's wait began): its Machines' nodes by name.
    assert.deepEqual(
      nodeQueries({ namespace: "ns", machineSets: ["a", "gone"] }, sets.slice(0, 1), { gone: ["n"] }),
      [
        { slot: "nodes/a", labelSelector: "zone=a" },
        { slot: "node/n", fieldSelector: "metadata.name=n" },
      ],
    );
  });
});
