import * as assert from "node:assert/strict";
import {
  evaluateAutoscalersReady,
  MACHINE_AUTOSCALER_KIND,
  MAX_SIZE_ANNOTATION,
  MIN_SIZE_ANNOTATION,
  observeAutoscalers,
  waitForAutoscalersReady,
} from "./autoscaling";
import { KINDS, KubeObject } from "./kinds";
import { memoryClient, MemoryClient } from "../../test/memory-client";
import { fakeClock } from "../../test/fake-clock";

const NS = "openshift-machine-api";
const SET = "c-infra-us-east-2a";

function autoscaler(lastTarget?: string): KubeObject {
  return {
    metadata: { name: SET, namespace: NS },
    spec: { minReplicas: 2, maxReplicas: 4, scaleTargetRef: { kind: "MachineSet", name: SET } },
    ...(lastTarget ? { status: { lastTargetRef: { kind: "MachineSet", name: lastTarget } } } : {}),
  };
}

function machineSet(annotated: boolean): KubeObject {
  return {
    metadata: {
      name: SET,
      namespace: NS,
      ...(annotated ? { annotations: { [MIN_SIZE_ANNOTATION]: "2", [MAX_SIZE_ANNOTATION]: "4" } } : {}),
    },
    spec: { replicas: 3 },
  };
}

function machine(name: string, node: string, phase = "Running"): KubeObject {
  return {
    metadata: { name, namespace: NS, labels: { "machine.openshift.io/cluster-api-machineset": SET } },
    status: { phase, nodeRef: { name: node } },
  };
}

function node(name: string, ready: boolean): KubeObject {
  return {
    metadata: { name },
    status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}

const target = { namespace: NS, autoscalers: [SET] };
/** Waits on a fake clock, whose deadline passes only if a wait hangs. */
const wait = () => ({ timeoutMs: 60_000, clock: fakeClock() });

describe("MachineAutoscalers in effect", () => {
  it("waits for the autoscaler, the annotations, lastTargetRef and the minimum of Ready machines, in that order", () => {
    const machines = [machine("m1", "n1"), machine("m2", "n2"), machine("m3", "n3")];
    const steps: Array<[Parameters<typeof evaluateAutoscalersReady>[1], RegExp]> = [
      [
        { autoscalers: [], machineSets: [], machines: [], nodes: [] },
        /MachineAutoscaler \S+ does not exist yet/,
      ],
      [
        { autoscalers: [autoscaler()], machineSets: [machineSet(false)], machines, nodes: [] },
        /does not carry the bounds 2-4/,
      ],
      [
        { autoscalers: [autoscaler()], machineSets: [machineSet(true)], machines, nodes: [] },
        /has not reported its target/,
      ],
      [
        {
          autoscalers: [autoscaler(SET)],
          machineSets: [machineSet(true)],
          machines,
          nodes: [node("n1", true), node("n2", false)],
        },
        /has 1 of at least 2 machines Ready/,
      ],
    ];
    for (const [obs, message] of steps) {
      const e = evaluateAutoscalersReady(target, obs);
      assert.equal(e.state, "waiting");
      assert.match(e.message, message);
    }
    const done = evaluateAutoscalersReady(target, {
      autoscalers: [autoscaler(SET)],
      machineSets: [machineSet(true)],
      machines,
      nodes: [node("n1", true), node("n2", true), node("n3", false)],
    });
    assert.equal(done.state, "done", "the minimum is enough: the autoscaler may be adding the third");
    assert.equal(done.result?.readyMachineCount, 2);
  });

  it("fails naming a failed Machine", () => {
    const failed = { ...machine("m1", "n1", "Failed") };
    (failed.status as Record<string, unknown>).errorMessage = "no capacity";
    const e = evaluateAutoscalersReady(target, {
      autoscalers: [autoscaler(SET)],
      machineSets: [machineSet(true)],
      machines: [failed],
      nodes: [],
    });
    assert.equal(e.state, "failed");
    assert.match(e.message, /Machine m1 failed: no capacity/);
  });
});

/**
 * The decisions follow the machine-api and cluster-autoscaler-operator: the operator's
 * MachineAutoscaler controller (openshift/cluster-autoscaler-operator pkg/controller/machineautoscaler,
 * Reconcile and setTargetAnnotations) writes both node-group bounds onto the target and records it in
 * `status.lastTargetRef`; the autoscaler reads a node group only with both bounds; and a Machine with a
 * deletionTimestamp is on its way out (openshift/machine-api-operator pkg/controller/machine,
 * Reconcile's deletion branch), so its Node will not count for long.
 */
describe("MachineAutoscalers in effect: what does not count", () => {
  const accepted = () => autoscaler(SET);
  const three = [machine("m1", "n1"), machine("m2", "n2"), machine("m3", "n3")];
  const ready = [node("n1", true), node("n2", true), node("n3", true)];

  it("does not count a Ready Machine that is being deleted", () => {
    const deleting = {
      ...machine("m2", "n2"),
      metadata: { ...machine("m2", "n2").metadata, deletionTimestamp: "2026-01-01T00:00:00Z" },
    };
    const e = evaluateAutoscalersReady(target, {
      autoscalers: [accepted()],
      machineSets: [machineSet(true)],
      machines: [machine("m1", "n1"), deleting],
      nodes: ready,
    });
    assert.equal(e.state, "waiting");
    assert.match(e.message, /MachineSet c-infra-us-east-2a has 1 of at least 2 machines Ready/);
    assert.equal(e.result?.readyMachineCount, 1);
  });

  it("waits while either bound is missing or different on the MachineSet", () => {
    const set = (annotations: Record<string, string>): KubeObject => ({
      ...machineSet(false),
      metadata: { ...machineSet(false).metadata, annotations },
    });
    for (const annotations of [
      { [MIN_SIZE_ANNOTATION]: "2" } as Record<string, string>,
      { [MAX_SIZE_ANNOTATION]: "4" },
      { [MIN_SIZE_ANNOTATION]: "2", [MAX_SIZE_ANNOTATION]: "5" },
      { [MIN_SIZE_ANNOTATION]: "1", [MAX_SIZE_ANNOTATION]: "4" },
    ]) {
      const e = evaluateAutoscalersReady(target, {
        autoscalers: [accepted()],
        machineSets: [set(annotations)],
        machines: three,
        nodes: ready,
      });
      assert.equal(e.state, "waiting", JSON.stringify(annotations));
      assert.match(
        e.message,
        /MachineSet c-infra-us-east-2a does not carry the bounds 2-4 of MachineAutoscaler c-infra-us-east-2a yet/,
      );
    }
  });

  it("reads the MachineSet the autoscaler targets, not another", () => {
    const other = { ...machineSet(false), metadata: { name: "c-infra-us-east-2b", namespace: NS } };
    const e = evaluateAutoscalersReady(target, {
      autoscalers: [accepted()],
      machineSets: [other, machineSet(true)],
      machines: three,
      nodes: ready,
    });
    assert.equal(e.state, "done");
    const untargeted = { ...accepted(), spec: { minReplicas: 2, maxReplicas: 4 } };
    const none = evaluateAutoscalersReady(target, {
      autoscalers: [untargeted],
      machineSets: [other],
      machines: [],
      nodes: [],
    });
    assert.equal(none.message, `MachineSet  of MachineAutoscaler ${SET} does not exist yet`);
  });

  it("names every autoscaler awaited, and every one accepted", () => {
    const both = { namespace: NS, autoscalers: ["a", "b"] };
    const waiting = evaluateAutoscalersReady(both, {
      autoscalers: [],
      machineSets: [],
      machines: [],
      nodes: [],
    });
    assert.equal(
      waiting.message,
      "MachineAutoscaler a does not exist yet; MachineAutoscaler b does not exist yet",
    );
    const named = (name: string): KubeObject => ({
      metadata: { name, namespace: NS },
      spec: { minReplicas: 0, maxReplicas: 1, scaleTargetRef: { kind: "MachineSet", name } },
      status: { lastTargetRef: { kind: "MachineSet", name } },
    });
    const bounded = (name: string): KubeObject => ({
      metadata: {
        name,
        namespace: NS,
        annotations: { [MIN_SIZE_ANNOTATION]: "0", [MAX_SIZE_ANNOTATION]: "1" },
      },
    });
    const done = evaluateAutoscalersReady(both, {
      autoscalers: [named("a"), named("b")],
      machineSets: [bounded("a"), bounded("b")],
      machines: [],
      nodes: [],
    });
    assert.equal(done.state, "done");
    assert.equal(done.message, "MachineAutoscalers a, b accepted, each MachineSet at or above its minimum");
  });

  it("waits for a MachineSet that does not exist and for a lastTargetRef naming another", () => {
    const missing = evaluateAutoscalersReady(target, {
      autoscalers: [accepted()],
      machineSets: [],
      machines: [],
      nodes: [],
    });
    assert.equal(missing.state, "waiting");
    assert.equal(missing.message, `MachineSet ${SET} of MachineAutoscaler ${SET} does not exist yet`);
    const elsewhere = evaluateAutoscalersReady(target, {
      autoscalers: [autoscaler("another-set")],
      machineSets: [machineSet(true)],
      machines: three,
      nodes: ready,
    });
    assert.equal(elsewhere.state, "waiting");
    assert.equal(elsewhere.message, `MachineAutoscaler ${SET} has not reported its target ${SET} yet`);
  });

  it("waits for every autoscaler, reporting each one's bounds, replicas and Ready machines", () => {
    const other = "c-infra-us-east-2b";
    const targetBoth = { namespace: NS, autoscalers: [SET, other] };
    const e = evaluateAutoscalersReady(targetBoth, {
      autoscalers: [accepted()],
      machineSets: [machineSet(true)],
      machines: three,
      nodes: ready,
    });
    assert.equal(e.state, "waiting");
    assert.equal(e.message, `MachineAutoscaler ${other} does not exist yet`);
    assert.deepEqual([e.done, e.total], [1, 2]);
    assert.deepEqual(e.result, {
      autoscalers: [
        { name: SET, machineSet: SET, minReplicas: 2, maxReplicas: 4, replicas: 3, readyMachines: 3 },
      ],
      readyMachineCount: 3,
    });
    const done = evaluateAutoscalersReady(target, {
      autoscalers: [accepted()],
      machineSets: [machineSet(true)],
      machines: three,
      nodes: ready,
    });
    assert.equal(done.message, `MachineAutoscalers ${SET} accepted, each MachineSet at or above its minimum`);
    assert.deepEqual([done.done, done.total], [1, 1]);
  });

  it("fails on a failed Machine with its reason even when the bounds are not there yet", () => {
    const failed = machine("m1", "n1", "Failed");
    failed.status = {
      ...(failed.status as object),
      errorReason: "InvalidConfiguration",
      errorMessage: "no AMI",
    };
    const e = evaluateAutoscalersReady(target, {
      autoscalers: [autoscaler()],
      machineSets: [machineSet(false)],
      machines: [failed],
      nodes: [],
    });
    assert.equal(e.state, "failed");
    assert.equal(e.message, `MachineSet ${SET}: Machine m1 failed (InvalidConfiguration): no AMI`);
  });
});

describe("waitForAutoscalersReady and observeAutoscalers", () => {
  // The test plays the cluster-autoscaler-operator and the machine-api.
  function cluster(): MemoryClient {
    const client = memoryClient();
    client.put(KINDS.machineSet, machineSet(false));
    for (const m of [machine("m1", "n1"), machine("m2", "n2")]) client.put(KINDS.machine, m);
    for (const n of [node("n1", true), node("n2", true)]) client.put(KINDS.node, n);
    client.put(MACHINE_AUTOSCALER_KIND, autoscaler());
    return client;
  }

  /** What the operator does on accepting the MachineAutoscaler: the bounds on the target, then its status. */
  function accept(client: MemoryClient): void {
    client.put(KINDS.machineSet, machineSet(true));
    client.put(MACHINE_AUTOSCALER_KIND, autoscaler(SET));
  }

  it("observes once what is not accepted yet, without waiting", async () => {
    const e = await observeAutoscalers({ client: cluster(), autoscalers: [SET], ...wait() });
    assert.equal(e.state, "waiting");
    assert.match(e.message, /does not carry the bounds 2-4/);
  });

  it("waits until the operator has accepted the autoscaler, then returns each MachineSet's Ready machines", async () => {
    const client = cluster();
    const messages: string[] = [];
    const waiters: string[] = [];
    const { result } = await waitForAutoscalersReady({
      client,
      autoscalers: [SET],
      ...wait(),
      progressIntervalMs: 0,
      onProgress: (event) => {
        messages.push(event.message);
        if (!waiters.includes(event.waiter)) waiters.push(event.waiter);
        if (event.state === "waiting" && /does not carry the bounds/.test(event.message)) accept(client);
      },
    });
    // Nothing is judged before the MachineSet, its Machines and nodes are read.
    assert.match(messages[0], /reading MachineSets, Machines and nodes/);
    assert.match(messages[1], /does not carry the bounds 2-4/, "not done before the operator accepted it");
    assert.deepEqual(waiters, [`MachineAutoscalers ${NS}/${SET}`]);
    assert.deepEqual(result, {
      autoscalers: [
        { name: SET, machineSet: SET, minReplicas: 2, maxReplicas: 4, replicas: 3, readyMachines: 2 },
      ],
      readyMachineCount: 2,
    });
  });

  it("asks for each autoscaler's own MachineSet by name, and for Machines and nodes only once every one is seen", async () => {
    // Two autoscalers, each on its MachineSet: "b" is created later, and "c" has no target yet.
    const client = memoryClient();
    const sent: string[] = [];
    const list = client.list.bind(client);
    client.list = (resource, selectors, signal) => {
      sent.push(`${resource.plural} ${selectors.fieldSelector ?? selectors.labelSelector ?? ""}`);
      return list(resource, selectors, signal);
    };
    const on = (set: string): KubeObject => ({
      ...autoscaler(set),
      metadata: { name: `scaler-${set}`, namespace: NS },
      spec: { minReplicas: 2, maxReplicas: 4, scaleTargetRef: { kind: "MachineSet", name: set } },
    });
    const bounded = (set: string): KubeObject => ({
      ...machineSet(true),
      metadata: { ...machineSet(true).metadata, name: set },
    });
    const ready = (set: string, n: string) => ({
      ...machine(`${set}-${n}`, `${set}-${n}`),
      metadata: {
        name: `${set}-${n}`,
        namespace: NS,
        labels: { "machine.openshift.io/cluster-api-machineset": set },
      },
    });
    for (const set of ["a", "b"]) client.put(MACHINE_AUTOSCALER_KIND, on(set));
    client.put(KINDS.machineSet, bounded("a"));
    client.put(KINDS.machineSet, bounded("other"));
    for (const set of ["a", "b"])
      for (const n of ["1", "2"]) {
        client.put(KINDS.machine, ready(set, n));
        client.put(KINDS.node, node(`${set}-${n}`, true));
      }
    const options = { client, autoscalers: ["scaler-a", "scaler-b"], ...wait() };
    const before = await observeAutoscalers(options);
    assert.equal(before.state, "waiting");
    assert.match(before.message, /MachineSet b of MachineAutoscaler scaler-b does not exist yet/);
    assert.deepEqual(sent.sort(), [
      "machineautoscalers metadata.name=scaler-a",
      "machineautoscalers metadata.name=scaler-b",
      "machinesets metadata.name=a",
      "machinesets metadata.name=b",
    ]);

    client.put(KINDS.machineSet, bounded("b"));
    for (const set of ["a", "b"])
      client.put(MACHINE_AUTOSCALER_KIND, { ...on(set), status: { lastTargetRef: { name: set } } });
    const waiters: string[] = [];
    const { result } = await waitForAutoscalersReady({
      ...options,
      onProgress: (e) => waiters.push(e.waiter),
    });
    assert.deepEqual(
      result.autoscalers.map((a) => [a.name, a.machineSet, a.readyMachines]),
      [
        ["scaler-a", "a", 2],
        ["scaler-b", "b", 2],
      ],
    );
    assert.deepEqual([...new Set(waiters)], [`MachineAutoscalers ${NS}/scaler-a,scaler-b`]);

    // An autoscaler without a target yet: nothing is asked for it, and the others' Machines wait.
    client.put(MACHINE_AUTOSCALER_KIND, { metadata: { name: "scaler-c", namespace: NS }, spec: {} });
    sent.length = 0;
    const untargeted = await observeAutoscalers({ ...options, autoscalers: ["scaler-a", "scaler-c"] });
    assert.equal(untargeted.state, "waiting");
    assert.deepEqual(sent.sort(), [
      "machineautoscalers metadata.name=scaler-a",
      "machineautoscalers metadata.name=scaler-c",
      "machinesets metadata.name=a",
    ]);
  });

  it("reads the MachineAutoscalers of the namespace given, openshift-machine-api unless told", async () => {
    const client = cluster();
    accept(client);
    const elsewhere = { ...autoscaler(SET), metadata: { name: "other", namespace: "elsewhere" } };
    client.put(MACHINE_AUTOSCALER_KIND, elsewhere);
    assert.equal((await observeAutoscalers({ client, autoscalers: [SET], ...wait() })).state, "done");
    const other = await observeAutoscalers({
      client,
      namespace: "elsewhere",
      autoscalers: ["other"],
      ...wait(),
    });
    assert.equal(other.state, "waiting");
    assert.match(
      other.message,
      /MachineSet c-infra-us-east-2a of MachineAutoscaler other does not exist yet/,
    );
  });
});
