import { strict as assert } from "node:assert";
import { KINDS, KubeObject } from "./kinds";
import { evaluateMachineSetsDeleted, evaluateMachineSetsReady, MACHINESET_LABEL } from "./machineset";
import { waitForMachineSetsDeleted } from "./waiters";
import { fakeClock } from "../../test/fake-clock";
import { memoryClient } from "../../test/memory-client";

/**
 * A MachineSet's deletion is over when the MachineSet, its Machines and their Nodes are gone, as the
 * machine-api does it: the MachineSet's Machines go with it (owner references, foreground garbage
 * collection), and each Machine's deletion drains and deletes its Node before the Machine's finalizer
 * is removed (openshift/machine-api-operator pkg/controller/machine/controller.go, Reconcile's
 * deletion branch: drainNode, then deleteNode, then the finalizer). Until then nodes of the deleted
 * pool may still run workloads, so the wait must not end.
 */
const NS = "openshift-machine-api";
const target = { namespace: NS, machineSets: ["infra-a", "infra-b"] };

function set(name: string, deleting = true): KubeObject {
  return {
    metadata: { name, namespace: NS, ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
  };
}

function machine(name: string, owner: { set?: string; label?: string }, node?: string): KubeObject {
  return {
    metadata: {
      name,
      namespace: NS,
      ...(owner.set
        ? {
            ownerReferences: [
              { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", name: owner.set, uid: "u" },
            ],
          }
        : {}),
      ...(owner.label ? { labels: { [MACHINESET_LABEL]: owner.label } } : {}),
    },
    ...(node ? { status: { nodeRef: { kind: "Node", name: node } } } : {}),
  };
}

const node = (name: string): KubeObject => ({ metadata: { name } });

describe("MachineSet deletion: not done while anything of it remains", () => {
  const none = { machineSets: [], machines: [], nodes: [], knownNodes: {} };

  it("waits for a MachineSet being deleted", () => {
    const e = evaluateMachineSetsDeleted(target, { ...none, machineSets: [set("infra-b")] });
    assert.equal(e.state, "waiting");
    assert.equal(
      e.message,
      "deletion of MachineSets infra-a, infra-b: waiting for MachineSets infra-b to go",
    );
  });

  it("waits for Machines owned by reference or by label, naming them sorted", () => {
    const machines = [
      machine("m1", { label: "infra-b" }),
      machine("m2", { set: "infra-a" }),
      machine("m3", { set: "other" }),
      // An owner of another kind under the same name (a ControlPlaneMachineSet owns the control plane's
      // Machines) does not make a Machine the MachineSet's: awaiting it would hold the deletion forever.
      {
        metadata: {
          name: "master-0",
          namespace: NS,
          ownerReferences: [
            {
              apiVersion: "machine.openshift.io/v1",
              kind: "ControlPlaneMachineSet",
              name: "infra-a",
              uid: "c",
            },
          ],
        },
      },
    ];
    const e = evaluateMachineSetsDeleted(target, { ...none, machines });
    assert.equal(e.state, "waiting");
    assert.equal(e.message, "deletion of MachineSets infra-a, infra-b: waiting for Machines m1, m2 to go");
    assert.equal(e.result?.machineCount, 2);
  });

  it("names what remains sorted, and leaves MachineSets not being deleted and their Nodes alone", () => {
    const four = { namespace: NS, machineSets: ["infra-a", "infra-b", "infra-c", "infra-d"] };
    const e = evaluateMachineSetsDeleted(four, {
      machineSets: [set("infra-a"), set("infra-b"), set("infra-c", false), set("infra-d", false)],
      machines: [],
      nodes: [node("n2"), node("n9"), node("n1")],
      knownNodes: { n1: "infra-a", n2: "infra-b", n9: "infra-c" },
    });
    assert.equal(e.state, "waiting");
    assert.equal(
      e.message,
      "deletion of MachineSets infra-a, infra-b, infra-c, infra-d: waiting for MachineSets infra-a, infra-b; Nodes n1, n2 to go (infra-c, infra-d not being deleted: left as they are)",
    );
    assert.deepEqual(e.result?.nodes, ["n1", "n2"]);
  });

  it("is done when only other pools' objects remain", () => {
    const e = evaluateMachineSetsDeleted(target, {
      machineSets: [{ metadata: { name: "other", namespace: NS } }],
      machines: [machine("m3", { set: "other" }, "n3")],
      nodes: [node("n3")],
      knownNodes: { n3: "other" },
    });
    assert.equal(e.state, "done");
    assert.equal(e.message, "deletion of MachineSets infra-a, infra-b: gone");
    assert.deepEqual(e.result, { machineSets: [], machineCount: 0, readyMachineCount: 0, nodes: [] });
  });
});

describe("waitForMachineSetsDeleted", () => {
  it("waits for the Nodes of the deleted Machines after the Machines are gone, and only for those", async () => {
    const client = memoryClient();
    const m1 = machine("m1", { set: "infra-a" }, "n1");
    const m2 = machine("m2", { label: "infra-a" }, "n2");
    const other = machine("m3", { set: "other" }, "n3");
    client.put(KINDS.machineSet, set("infra-a"));
    for (const m of [m1, m2, other]) client.put(KINDS.machine, m);
    for (const n of ["n1", "n2", "n3"]) client.put(KINDS.node, node(n));
    const messages: string[] = [];
    const steps = [
      () => client.remove(KINDS.machineSet, set("infra-a")),
      () => client.remove(KINDS.machine, m1),
      () => client.remove(KINDS.machine, m2),
      () => client.remove(KINDS.node, node("n1")),
      () => client.remove(KINDS.node, node("n2")),
    ];
    const outcome = await waitForMachineSetsDeleted({
      client,
      machineSets: ["infra-a"],
      timeoutMs: 60_000,
      progressIntervalMs: 0,
      clock: fakeClock(),
      onProgress: (event) => {
        messages.push(event.message);
        // Nothing is gone before the nodes are listed, which the wait asks for after its first look.
        if (event.state === "waiting" && !event.message.endsWith("(listing nodes)")) steps.shift()?.();
      },
    });
    const prefix = "deletion of MachineSets infra-a: waiting for";
    assert.deepEqual(messages, [
      `${prefix} MachineSets infra-a; Machines m1, m2 to go (listing nodes)`,
      `${prefix} MachineSets infra-a; Machines m1, m2; Nodes n1, n2 to go`,
      `${prefix} Machines m1, m2; Nodes n1, n2 to go`,
      `${prefix} Machines m2; Nodes n1, n2 to go`,
      `${prefix} Nodes n1, n2 to go`,
      `${prefix} Nodes n2 to go`,
      "deletion of MachineSets infra-a: gone",
    ]);
    assert.equal(outcome.message, "deletion of MachineSets infra-a: gone");
  });
});

/**
 * Ready as the machine-api counts it (openshift/machine-api-operator pkg/controller/machineset,
 * calculateStatus: readyReplicas and availableReplicas count Machines whose Node is Ready, for the
 * generation observed), checked here against the Machines and Nodes themselves.
 */
describe("MachineSets ready: not done before every replica is a Ready node", () => {
  const labels = { "node-role.kubernetes.io/infra": "" };
  function readySet(name: string, status: Record<string, number> = {}): KubeObject {
    return {
      metadata: { name, namespace: NS, generation: 1 },
      spec: { replicas: 2, template: { spec: { metadata: { labels } } } },
      status: { observedGeneration: 1, replicas: 2, readyReplicas: 2, availableReplicas: 2, ...status },
    };
  }
  const readyNode = (name: string, ready = "True"): KubeObject => ({
    metadata: { name, labels },
    status: { conditions: [{ type: "Ready", status: ready }] },
  });
  const machines = [machine("m2", { set: "infra-a" }, "n2"), machine("m1", { set: "infra-a" }, "n1")];
  const nodes = [readyNode("n2"), readyNode("n1")];
  const one = { namespace: NS, machineSets: ["infra-a"] };

  it("is done with every replica a Ready node, naming the nodes sorted", () => {
    const e = evaluateMachineSetsReady(one, { machineSets: [readySet("infra-a")], machines, nodes });
    assert.equal(e.state, "done");
    assert.equal(e.message, "MachineSets infra-a: 2/2 nodes ready");
    assert.deepEqual(e.result, {
      machineSets: [{ name: "infra-a", replicas: 2, readyReplicas: 2, availableReplicas: 2 }],
      machineCount: 2,
      readyMachineCount: 2,
      nodes: ["n1", "n2"],
    });
  });

  it("waits while the status counts fewer ready, available or more replicas than desired", () => {
    for (const status of [{ readyReplicas: 1 }, { availableReplicas: 1 }, { replicas: 3 }] as Array<
      Record<string, number>
    >) {
      const e = evaluateMachineSetsReady(one, {
        machineSets: [readySet("infra-a", status)],
        machines,
        nodes,
      });
      assert.equal(e.state, "waiting", JSON.stringify(status));
      assert.match(e.message, /\(MachineSet infra-a: \d\/2 ready, \d available\)$/);
    }
  });

  it("waits for a Node that is not Ready, has no Ready condition or does not exist", () => {
    for (const [n2, what] of [
      [readyNode("n2", "False"), "not Ready"],
      [{ metadata: { name: "n2", labels } }, "no conditions"],
      [readyNode("elsewhere"), "missing"],
    ] as const) {
      const e = evaluateMachineSetsReady(one, {
        machineSets: [readySet("infra-a")],
        machines,
        nodes: [readyNode("n1"), n2],
      });
      assert.equal(e.state, "waiting", what);
      assert.equal(
        e.message,
        "MachineSets infra-a: 1/2 nodes ready (MachineSet infra-a: 1/2 nodes ready)",
        what,
      );
    }
  });

  it("waits for a Node lacking its Machine's labels, naming each, and for Machines being deleted or not yet replaced", () => {
    // What the nodelink controller copies is the Machine's own spec.metadata.labels
    // (machine-api-operator nodelink_controller.go ReconcileNodeLink.Reconcile).
    const labelled = (m: KubeObject, extra: Record<string, string>): KubeObject => ({
      ...m,
      spec: { metadata: { labels: { ...labels, ...extra } } },
    });
    const unlabelled = evaluateMachineSetsReady(one, {
      machineSets: [readySet("infra-a")],
      machines: [labelled(machines[0], { zone: "a", tier: "x" }), machines[1]],
      nodes,
    });
    assert.equal(unlabelled.state, "waiting");
    assert.match(unlabelled.message, /node n2 lacks label zone=a, tier=x\)$/);
    // A label the template gained after the Machines were made is nodelink's to copy only once it is
    // on a Machine (createMachine copies the template only at creation): not waited for.
    const template = {
      ...readySet("infra-a"),
      spec: { replicas: 2, template: { spec: { metadata: { labels: { ...labels, team: "a" } } } } },
    };
    const before = evaluateMachineSetsReady(
      { ...one, nodeLabels: labels },
      { machineSets: [template], machines, nodes },
    );
    assert.equal(before.state, "done");
    // Without a replacement policy the wait only watches: it has nothing to scale, mark or delete.
    assert.deepEqual(unlabelled.steps, []);
    const deleting = {
      ...machines[0],
      metadata: { ...machines[0].metadata, deletionTimestamp: "2026-01-01T00:00:00Z" },
    };
    const e = evaluateMachineSetsReady(one, {
      machineSets: [readySet("infra-a")],
      machines: [deleting, machines[1]],
      nodes,
    });
    assert.equal(e.state, "waiting");
    assert.match(e.message, /MachineSet infra-a: 1 machines for 2 replicas, 1 deleting\)$/);
  });

  it("counts no more Ready nodes than desired, only the MachineSet's own Machines, and every MachineSet", () => {
    const extra = [
      ...machines,
      machine("m3", { set: "infra-a" }, "n3"),
      machine("x1", { set: "other" }, "x1"),
    ];
    const e = evaluateMachineSetsReady(target, {
      machineSets: [readySet("infra-a"), readySet("infra-b")],
      machines: extra,
      nodes: [...nodes, readyNode("n3"), readyNode("x1")],
    });
    assert.equal(e.state, "waiting");
    assert.deepEqual([e.done, e.total], [2, 4]);
    assert.match(
      e.message,
      /^MachineSets infra-a, infra-b: 2\/4 nodes ready \(MachineSet infra-a: 3 machines for 2 replicas, 0 deleting\)$/,
    );
  });

  it("waits for a MachineSet that does not exist, and fails on its error reason or message alone", () => {
    const missing = evaluateMachineSetsReady(target, { machineSets: [readySet("infra-a")], machines, nodes });
    assert.equal(missing.state, "waiting");
    assert.match(missing.message, /\(MachineSet infra-b does not exist yet\)$/);
    const failed = (status: Record<string, string>) =>
      evaluateMachineSetsReady(one, {
        machineSets: [
          { ...readySet("infra-a"), status: { ...(readySet("infra-a").status as object), ...status } },
        ],
        machines,
        nodes,
      });
    assert.deepEqual(failed({ errorMessage: "bad selector" }), {
      state: "failed",
      message: "MachineSet infra-a failed: bad selector",
    });
    assert.deepEqual(failed({ errorReason: "InvalidConfiguration" }), {
      state: "failed",
      message: "MachineSet infra-a failed (InvalidConfiguration):",
    });
  });
});
