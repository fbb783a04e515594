import { strict as assert } from "node:assert";
import { KubeObject } from "./kinds";
import { evaluateMachineSetsDeleted, evaluateMachineSetsReady } from "./machineset";
import { evaluateWindowsNodes, WindowsObservation } from "./windows";

const NS = "openshift-machine-api";

function machineSet(
  name: string,
  replicas: number,
  status: Record<string, unknown>,
  generation = 1,
): KubeObject {
  return {
    metadata: { name, namespace: NS, generation },
    spec: { replicas, template: { spec: { metadata: { labels: { "node-role.kubernetes.io/infra": "" } } } } },
    status: { observedGeneration: generation, ...status },
  };
}

function machine(
  name: string,
  set: string,
  nodeName?: string,
  extra: Record<string, unknown> = {},
): KubeObject {
  return {
    metadata: {
      name,
      namespace: NS,
      ownerReferences: [
        { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", name: set, uid: "u" },
      ],
    },
    // The node labels its MachineSet's template had when it made the Machine (createMachine).
    spec: { metadata: { labels: { "node-role.kubernetes.io/infra": "" } } },
    status: {
      phase: nodeName ? "Running" : "Provisioning",
      ...(nodeName ? { nodeRef: { kind: "Node", name: nodeName } } : {}),
      ...extra,
    },
  };
}

function node(
  name: string,
  ready: boolean,
  labels: Record<string, string>,
  annotations: Record<string, string> = {},
): KubeObject {
  return {
    metadata: { name, labels, annotations },
    status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}

const full = { replicas: 2, readyReplicas: 2, availableReplicas: 2 };
const infra = { "node-role.kubernetes.io/infra": "" };

describe("MachineSet predicates", () => {
  const target = { namespace: NS, machineSets: ["infra-a"] };

  it("is done when every replica is a Ready node with its Machine's node labels", () => {
    const e = evaluateMachineSetsReady(target, {
      machineSets: [machineSet("infra-a", 2, full)],
      machines: [machine("infra-a-1", "infra-a", "n1"), machine("infra-a-2", "infra-a", "n2")],
      nodes: [node("n1", true, infra), node("n2", true, infra)],
    });
    assert.equal(e.state, "done");
    assert.deepEqual(e.result?.nodes, ["n1", "n2"]);
    assert.equal(e.result?.readyMachineCount, 2);
  });

  it("waits for a status that observed the new generation (a scale just made)", () => {
    const scaled = machineSet("infra-a", 3, { ...full, observedGeneration: 1 }, 2);
    const e = evaluateMachineSetsReady(target, {
      machineSets: [scaled],
      machines: [machine("infra-a-1", "infra-a", "n1"), machine("infra-a-2", "infra-a", "n2")],
      nodes: [node("n1", true, infra), node("n2", true, infra)],
    });
    assert.equal(e.state, "waiting");
    assert.match(e.message, /has not observed generation 2/);
  });

  it("waits for node labels and for deleting machines to go on scale-down", () => {
    const labels = evaluateMachineSetsReady(target, {
      machineSets: [machineSet("infra-a", 2, full)],
      machines: [machine("infra-a-1", "infra-a", "n1"), machine("infra-a-2", "infra-a", "n2")],
      nodes: [node("n1", true, infra), node("n2", true, {})],
    });
    assert.match(labels.message, /node n2 lacks label node-role.kubernetes.io\/infra=/);
    const deleting = machine("infra-a-3", "infra-a", "n3");
    deleting.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    const down = evaluateMachineSetsReady(target, {
      machineSets: [machineSet("infra-a", 2, full)],
      machines: [machine("infra-a-1", "infra-a", "n1"), machine("infra-a-2", "infra-a", "n2"), deleting],
      nodes: [node("n1", true, infra), node("n2", true, infra), node("n3", true, infra)],
    });
    assert.equal(down.state, "waiting");
    assert.match(down.message, /1 deleting/);
  });

  it("fails on a failed Machine or a MachineSet error, naming them", () => {
    const failedMachine = machine("infra-a-1", "infra-a", undefined, {
      phase: "Failed",
      errorReason: "InvalidConfiguration",
      errorMessage: "instance type m9.huge does not exist",
    });
    const e = evaluateMachineSetsReady(target, {
      machineSets: [machineSet("infra-a", 2, {})],
      machines: [failedMachine],
      nodes: [],
    });
    assert.equal(e.state, "failed");
    assert.equal(
      e.message,
      "MachineSet infra-a: Machine infra-a-1 failed (InvalidConfiguration): instance type m9.huge does not exist",
    );
    const broken = evaluateMachineSetsReady(target, {
      machineSets: [
        machineSet("infra-a", 2, { errorReason: "InvalidConfiguration", errorMessage: "bad selector" }),
      ],
      machines: [],
      nodes: [],
    });
    assert.match(broken.message, /MachineSet infra-a failed \(InvalidConfiguration\): bad selector/);
  });

  it("counts a deletion done only when MachineSet, Machines and their Nodes are gone", () => {
    const obs = {
      machineSets: [],
      machines: [],
      nodes: [node("n1", true, infra), node("other", true, {})],
      knownNodes: { n1: "infra-a" },
    };
    const e = evaluateMachineSetsDeleted(target, obs);
    assert.equal(e.state, "waiting");
    assert.match(e.message, /Nodes n1 to go/);
    assert.equal(
      evaluateMachineSetsDeleted(target, { ...obs, nodes: [node("other", true, {})] }).state,
      "done",
    );
  });

  it("awaits a MachineSet being deleted but not one that is kept", () => {
    const set = (name: string, deleting: boolean): KubeObject => ({
      metadata: {
        name,
        namespace: "openshift-machine-api",
        ...(deleting ? { deletionTimestamp: "now" } : {}),
      },
      spec: {},
    });
    const both = { namespace: "openshift-machine-api", machineSets: ["infra-a", "infra-b"] };
    const obs = {
      machineSets: [set("infra-a", false), set("infra-b", true)],
      machines: [],
      nodes: [node("n1", true, infra), node("n2", true, infra)],
      knownNodes: { n1: "infra-a", n2: "infra-b" },
    };
    const waiting = evaluateMachineSetsDeleted(both, obs);
    assert.equal(waiting.state, "waiting");
    assert.equal(
      waiting.message,
      "deletion of MachineSets infra-a, infra-b: waiting for MachineSets infra-b; Nodes n2 to go (infra-a not being deleted: left as they are)",
    );
    const done = evaluateMachineSetsDeleted(both, {
      ...obs,
      machineSets: [set("infra-a", false)],
      nodes: [node("n1", true, infra)],
    });
    assert.equal(done.state, "done");
    assert.deepEqual(done.result?.nodes, []);
  });
});

describe("Windows nodes predicate", () => {
  const target = {
    namespace: NS,
    machineSets: ["win"],
    wmcoNamespace: "openshift-windows-machine-config-operator",
  };
  const windows = { "kubernetes.io/os": "windows" };
  const obs = (o: Partial<WindowsObservation>): WindowsObservation => ({
    privateKeySecret: { metadata: { name: "cloud-private-key" } },
    machineSets: [machineSet("win", 2, {})],
    machines: [machine("win-1", "win", "w1"), machine("win-2", "win", "w2")],
    nodes: [],
    ...o,
  });

  it("fails with a clear message when cloud-private-key is missing", () => {
    assert.equal(evaluateWindowsNodes(target, obs({ privateKeySecret: undefined })).needSecret, true);
    const e = evaluateWindowsNodes(target, obs({ privateKeySecret: null }));
    assert.equal(e.state, "failed");
    assert.match(
      e.message,
      /secret cloud-private-key is missing in namespace openshift-windows-machine-config-operator/,
    );
  });

  it("is done when every machine is a Ready Windows node at the desired WMCO version", () => {
    const version = {
      "windowsmachineconfig.openshift.io/version": "10.17.0",
      "windowsmachineconfig.openshift.io/desired-version": "10.17.0",
    };
    const upgrading = { ...version, "windowsmachineconfig.openshift.io/desired-version": "10.18.0" };
    const waiting = evaluateWindowsNodes(
      target,
      obs({ nodes: [node("w1", true, windows, version), node("w2", true, windows, upgrading)] }),
    );
    assert.equal(waiting.state, "waiting");
    assert.equal(waiting.done, 1);
    const done = evaluateWindowsNodes(
      target,
      obs({ nodes: [node("w1", true, windows, version), node("w2", true, windows, version)] }),
    );
    assert.equal(done.state, "done");
    assert.equal(done.result?.version, "10.17.0");
  });

  it("takes a node WMCO still has cordoned as not configured, whatever its annotations say", () => {
    // windows-machine-config-operator nodeconfig.go Configure: uncordon is the last step.
    const version = {
      "windowsmachineconfig.openshift.io/version": "10.17.0",
      "windowsmachineconfig.openshift.io/desired-version": "10.17.0",
    };
    const cordoned = { ...node("w2", true, windows, version), spec: { unschedulable: true } };
    const e = evaluateWindowsNodes(target, obs({ nodes: [node("w1", true, windows, version), cordoned] }));
    assert.equal(e.state, "waiting");
    assert.equal(e.done, 1);
    assert.match(e.message, /node w2 cordoned until WMCO finishes configuring it/);
    const starting = { ...node("w2", true, windows, {}), spec: { unschedulable: true } };
    const early = evaluateWindowsNodes(
      target,
      obs({ nodes: [node("w1", true, windows, version), starting] }),
    );
    assert.match(early.message, /node w2 not configured yet/);
    const uncordoned = { ...cordoned, spec: { unschedulable: false } };
    assert.equal(
      evaluateWindowsNodes(target, obs({ nodes: [node("w1", true, windows, version), uncordoned] })).state,
      "done",
    );
  });
});

/**
 * Each decision of the Windows predicate, as WMCO makes it: it configures a Windows Machine's node,
 * cordoned meanwhile, records the version it configured and uncordons it last (nodeconfig.go
 * Configure); an upgrade writes the new desired version first (the node is not configured at it until
 * the version matches); a node of another OS is none of WMCO's.
 */
describe("Windows nodes predicate: each decision", () => {
  const target = { namespace: NS, machineSets: ["win"], wmcoNamespace: "wmco" };
  const windows = { "kubernetes.io/os": "windows" };
  const at = (version: string, desired?: string) => ({
    "windowsmachineconfig.openshift.io/version": version,
    ...(desired ? { "windowsmachineconfig.openshift.io/desired-version": desired } : {}),
  });
  const cordoned = (n: KubeObject) => ({ ...n, spec: { unschedulable: true } });
  const evaluate = (nodes: KubeObject[], machines = [machine("win-1", "win", "w1")], replicas = 1) =>
    evaluateWindowsNodes(target, {
      privateKeySecret: { metadata: { name: "cloud-private-key" } },
      machineSets: [machineSet("win", replicas, {})],
      machines,
      nodes,
    });

  it("takes a Ready Windows node at its version as configured, also one WMCO wrote no desired version on", () => {
    assert.equal(evaluate([node("w1", true, windows, at("10.17.0"))]).state, "done");
    assert.equal(
      evaluate([node("w1", false, windows, at("10.17.0"))]).message,
      "Windows nodes of win: 0/1 configured (node w1 not configured yet)",
    );
    assert.equal(
      evaluate([node("w1", true, { "kubernetes.io/os": "linux" }, at("10.17.0"))]).state,
      "waiting",
    );
  });

  it("says a node is cordoned for configuring only when it is Ready at the version WMCO wants", () => {
    const says = (n: KubeObject) =>
      evaluate([cordoned(n)]).message.replace("Windows nodes of win: 0/1 configured ", "");
    assert.equal(
      says(node("w1", true, windows, at("10.17.0"))),
      "(node w1 cordoned until WMCO finishes configuring it)",
    );
    assert.equal(
      says(node("w1", true, windows, at("10.17.0", "10.17.0"))),
      "(node w1 cordoned until WMCO finishes configuring it)",
    );
    assert.equal(says(node("w1", true, windows, at("10.17.0", "10.18.0"))), "(node w1 not configured yet)");
    assert.equal(says(node("w1", false, windows, at("10.17.0", "10.17.0"))), "(node w1 not configured yet)");
  });

  it("counts one replica when the MachineSet sets none, and leaves machines being deleted out", () => {
    const deleting = machine("win-0", "win", "w0");
    deleting.metadata.deletionTimestamp = "2026-01-01T00:00:00Z";
    const e = evaluateWindowsNodes(target, {
      privateKeySecret: { metadata: { name: "cloud-private-key" } },
      machineSets: [{ metadata: { name: "win", namespace: NS }, spec: {} }],
      machines: [deleting, machine("win-1", "win", "w1")],
      nodes: [node("w0", true, windows, at("10.17.0")), node("w1", true, windows, at("10.17.0"))],
    });
    assert.deepEqual(
      [e.state, e.message, e.done, e.total, e.result],
      [
        "done",
        "Windows nodes of win: 1/1 configured",
        1,
        1,
        { machineCount: 1, configuredCount: 1, nodes: ["w1"], version: "10.17.0" },
      ],
    );
  });

  it("names what it waits for first: a missing MachineSet, missing machines, a Machine without a node", () => {
    const noSet = evaluateWindowsNodes(target, {
      privateKeySecret: { metadata: { name: "cloud-private-key" } },
      machineSets: [],
      machines: [],
      nodes: [],
    });
    assert.equal(noSet.message, "Windows nodes of win: 0/0 configured (MachineSet win does not exist yet)");
    assert.equal(
      evaluate([], [machine("win-1", "win")], 2).message,
      "Windows nodes of win: 0/2 configured (MachineSet win: 1/2 machines)",
    );
    assert.equal(
      evaluate([], [machine("win-1", "win")]).message,
      "Windows nodes of win: 0/1 configured (Machine win-1 has no node yet)",
    );
  });

  it("fails naming a failed Machine and its reason", () => {
    const failed = machine("win-1", "win", undefined, {
      phase: "Failed",
      errorReason: "InvalidConfiguration",
      errorMessage: "no such image",
    });
    const e = evaluate([], [failed]);
    assert.deepEqual(
      [e.state, e.message],
      ["failed", "Windows nodes of win: Machine win-1 failed (InvalidConfiguration): no such image"],
    );
  });

  it("reports the nodes sorted, and a version only when every node is at the same one", () => {
    const machines = [machine("win-1", "win", "w2"), machine("win-2", "win", "w1")];
    const same = evaluate(
      [node("w2", true, windows, at("10.17.0")), node("w1", true, windows, at("10.17.0"))],
      machines,
      2,
    );
    assert.deepEqual(same.result, {
      machineCount: 2,
      configuredCount: 2,
      nodes: ["w1", "w2"],
      version: "10.17.0",
    });
    const mixed = evaluate(
      [node("w2", true, windows, at("10.17.0")), node("w1", true, windows, at("10.18.0"))],
      machines,
      2,
    );
    assert.equal(mixed.result?.version, undefined);
  });
});
