/**
 * How a pool wait reads its nodes' MachineConfigNodes: each by name for a few nodes, all of the
 * cluster's at once for more, from the view the converge engine hands the predicate. MachineConfigNodes
 * are named as their nodes and labelled with nothing (MCO upgrade_monitor.go
 * GenerateAndApplyMachineConfigNodes), and kube-apiserver's field selectors on a custom resource know
 * only metadata.name and metadata.namespace, so a pool's are found by name.
 */
import { strict as assert } from "node:assert";
import type { View } from "./converge";
import { KINDS, KubeObject } from "./kinds";
import {
  MACHINE_CONFIG_NODES_BY_NAME_UP_TO,
  machineConfigNodeSources,
  machineConfigNodesOf,
} from "./machineconfignode";

const view = (sources: View["sources"]): View => ({ sources, fetched: {}, patched: {}, elapsedMs: 0 });
const object = (name: string, pool = "infra"): KubeObject => ({
  metadata: { name },
  spec: { pool: { name: pool } },
});

describe("the MachineConfigNodes a pool wait reads", () => {
  it("asks for a first node's by name until it answered, then for each node's, and never for the cluster's", () => {
    const byName = (name: string) => ({
      name: `MachineConfigNode/${name}`,
      resource: KINDS.machineConfigNode,
      fieldSelector: `metadata.name=${name}`,
      servedOrNull: true,
    });
    assert.deepEqual(machineConfigNodeSources(["a", "b"], view({ pool: [] }), false), [byName("a")]);
    const probed = view({ "MachineConfigNode/a": [] });
    assert.deepEqual(machineConfigNodeSources(["a", "b"], probed, false), [byName("a"), byName("b")]);
    assert.equal(MACHINE_CONFIG_NODES_BY_NAME_UP_TO >= 3, true, "a 3-node infra pool is read by name");
  });

  it("asks for all of the cluster's in one source, which also finds out whether the cluster serves them", () => {
    for (const sources of [{}, { "MachineConfigNode/a": [] }])
      assert.deepEqual(machineConfigNodeSources(["a", "b"], view(sources), true), [
        { name: "MachineConfigNodes", resource: KINDS.machineConfigNode, servedOrNull: true },
      ]);
  });

  it("reads each node's by name once every one is listed, in the nodes' order", () => {
    const nodes = [object("b"), object("a")];
    assert.equal(machineConfigNodesOf(view({}), undefined), undefined);
    assert.equal(machineConfigNodesOf(view({ "MachineConfigNode/b": [object("b")] }), nodes), undefined);
    const listed = view({ "MachineConfigNode/b": [object("b")], "MachineConfigNode/a": [] });
    assert.deepEqual(machineConfigNodesOf(listed, nodes), [object("b")]);
  });

  it("reads the pool's nodes' from all of the cluster's, in the nodes' order, others left out", () => {
    const nodes = [object("b"), object("a"), object("c")];
    const all = [object("a"), object("other-1", "other"), object("b")];
    assert.deepEqual(machineConfigNodesOf(view({ MachineConfigNodes: all }), nodes), [
      object("b"),
      object("a"),
    ]);
    assert.deepEqual(machineConfigNodesOf(view({ MachineConfigNodes: [] }), nodes), []);
    // Once listed, the cluster's answer is the whole truth, whatever nodes were read by name before.
    const both = view({ MachineConfigNodes: [object("a")], "MachineConfigNode/b": [object("b")] });
    assert.deepEqual(machineConfigNodesOf(both, nodes), [object("a")]);
  });

  it("is null once the cluster answered that it does not serve them, however they were asked for", () => {
    for (const sources of [{ MachineConfigNodes: null }, { "MachineConfigNode/a": null }])
      assert.equal(machineConfigNodesOf(view(sources), [object("a")]), null);
    assert.equal(machineConfigNodesOf(view({ MachineConfigNodes: null }), undefined), null);
  });
});
