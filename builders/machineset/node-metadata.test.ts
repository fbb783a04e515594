import * as assert from "node:assert/strict";
import {
  describeTaint,
  INFRA_TAINTS,
  infraTaints,
  NodeMetadataChange,
  nodeMetadataImpact,
  nodeMetadataPhrase,
  nodeMetadataRecord,
} from "./node-metadata";
import type { Taint } from "../validation";

const DEDICATED: Taint = { key: "example.com/dedicated", value: "logging", effect: "NoSchedule" };
const EVICT: Taint = { key: "example.com/evict", effect: "NoExecute" };
const change = (more: Partial<NodeMetadataChange>): NodeMetadataChange => ({
  getLabels: {},
  loseLabels: [],
  getTaints: [],
  loseTaints: [],
  ...more,
});

// What a preview says of a pool's running nodes: the waiting core's plan of each Machine and its Node
// (provider/waiting/node-metadata.ts planMachine), summed per pool. machine-api-operator's nodelink
// controller copies a Machine's labels and taints to its Node; nothing drains or reboots for them.
describe("node labels and taints: what a pool's running nodes get and lose, in one phrase", () => {
  it("counts each label and taint by the nodes that get or lose it: labels first, got before lost, by key", () => {
    const impact = nodeMetadataImpact("infra", [
      change({ getLabels: { team: "logging", "a.example.com/tier": "gold" }, getTaints: [DEDICATED] }),
      change({ getLabels: { team: "logging" }, loseLabels: ["old"], loseTaints: [EVICT] }),
      change({ getTaints: [DEDICATED] }),
      change({}),
    ])!;
    assert.deepEqual(impact, {
      pool: "infra",
      nodes: 3,
      items: [
        { change: "get", kind: "label", what: "a.example.com/tier=gold", nodes: 1 },
        { change: "get", kind: "label", what: "team=logging", nodes: 2 },
        { change: "lose", kind: "label", what: "old", nodes: 1 },
        { change: "get", kind: "taint", what: "example.com/dedicated=logging:NoSchedule", nodes: 2 },
        { change: "lose", kind: "taint", what: "example.com/evict:NoExecute", nodes: 1 },
      ],
      evicting: [],
    });
    assert.equal(
      nodeMetadataPhrase(impact),
      "1 node gets label a.example.com/tier=gold; 2 nodes get label team=logging; 1 node loses label old; " +
        "2 nodes get taint example.com/dedicated=logging:NoSchedule; 1 node loses taint example.com/evict:NoExecute " +
        "(no drain, no reboot)",
    );
  });

  it("a node that gets one thing and loses another changes, a taint's new value among them", () => {
    const relabelled = nodeMetadataImpact("infra", [
      change({ getLabels: { team: "b" }, loseLabels: ["old"] }),
    ]);
    assert.equal(relabelled?.nodes, 1);
    const revalued = { ...DEDICATED, value: "metrics" };
    const impact = nodeMetadataImpact("infra", [change({ getTaints: [revalued], loseTaints: [DEDICATED] })]);
    assert.equal(
      impact && nodeMetadataPhrase(impact),
      "1 node gets taint example.com/dedicated=metrics:NoSchedule; 1 node loses taint " +
        "example.com/dedicated=logging:NoSchedule (no drain, no reboot)",
    );
  });

  it("says the labels in key order, whatever order the nodes give them in", () => {
    const impact = nodeMetadataImpact("infra", [
      change({ getLabels: { c: "1", a: "1", d: "1", b: "1" }, loseLabels: ["y", "z", "x"] }),
    ]);
    assert.deepEqual(
      impact?.items.map((i) => i.what),
      ["a=1", "b=1", "c=1", "d=1", "x", "y", "z"],
    );
  });

  it("nothing to say when no node changes", () => {
    assert.equal(nodeMetadataImpact("infra", [change({}), change({})]), undefined);
    assert.equal(nodeMetadataImpact("infra", []), undefined);
  });

  // kubernetes pkg/controller/tainteviction: a NoExecute taint evicts the pods that do not tolerate it.
  it("names the NoExecute taints the nodes get, once each and sorted, whose pods are evicted", () => {
    const other: Taint = { key: "a.example.com/other", value: "x", effect: "NoExecute" };
    const impact = nodeMetadataImpact("infra", [
      change({ getTaints: [EVICT, DEDICATED] }),
      change({ getTaints: [EVICT, other] }),
    ])!;
    assert.deepEqual(impact.evicting, ["a.example.com/other:NoExecute", "example.com/evict:NoExecute"]);
    assert.match(
      nodeMetadataPhrase(impact),
      / \(no drain, no reboot; pods that do not tolerate a\.example\.com\/other:NoExecute, example\.com\/evict:NoExecute are evicted from them\)$/,
    );
  });

  it("writes a taint as key=value:Effect, or key:Effect without a value", () => {
    assert.deepEqual([DEDICATED, EVICT, { ...EVICT, value: "" }].map(describeTaint), [
      "example.com/dedicated=logging:NoSchedule",
      "example.com/evict:NoExecute",
      "example.com/evict:NoExecute",
    ]);
  });
});

// The record the template carries (machine-api-operator pkg/controller/machineset/controller.go
// createMachine copies the template's metadata into each Machine it creates).
describe("node labels and taints: the record a MachineSet's template carries", () => {
  it("records the label keys and taint ids, sorted, and nothing for none", () => {
    assert.deepEqual(nodeMetadataRecord({ zeta: "1", alpha: "2" }, [EVICT, DEDICATED]), {
      annotations: {
        "openshift-topology.io/node-labels": "alpha,zeta",
        "openshift-topology.io/node-taints": "example.com/dedicated:NoSchedule,example.com/evict:NoExecute",
      },
    });
    assert.deepEqual(nodeMetadataRecord({ alpha: "2" }, []), {
      annotations: { "openshift-topology.io/node-labels": "alpha" },
    });
    assert.deepEqual(nodeMetadataRecord({}, []), {});
  });

  // OpenShift's "Creating infrastructure machine sets": node-role.kubernetes.io/infra=reserved.
  it("the infra taints keep user workloads off, scheduled and running", () => {
    assert.deepEqual(INFRA_TAINTS, infraTaints("infra"));
    assert.deepEqual(infraTaints("logging"), [
      { key: "node-role.kubernetes.io/logging", value: "reserved", effect: "NoSchedule" },
      { key: "node-role.kubernetes.io/logging", value: "reserved", effect: "NoExecute" },
    ]);
  });
});
