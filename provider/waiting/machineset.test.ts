import { strict as assert } from "node:assert";
import { KINDS, KubeObject } from "./kinds";
import { evaluateMachineSetsDeleted, MACHINESET_LABEL } from "./machineset";
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
      machine("m2", { label: "infra-b" }),
      machine("m1", { set: "infra-a" }),
      machine("m3", { set: "other" }),
    ];
    const e = evaluateMachineSetsDeleted(target, { ...none, machines });
    assert.equal(e.state, "waiting");
    assert.equal(e.message, "deletion of MachineSets infra-a, infra-b: waiting for Machines m1, m2 to go");
    assert.equal(e.result?.machineCount, 2);
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
        if (event.state === "waiting") steps.shift()?.();
      },
    });
    const prefix = "deletion of MachineSets infra-a: waiting for";
    assert.deepEqual(messages, [
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
