/**
 * A pool's node labels and taints on its running machines, decided as the machine-api forces: a
 * MachineSet's template reaches only the Machines it creates (machine-api-operator
 * pkg/controller/machineset/controller.go `createMachine`), and the nodelink controller sets a
 * Machine's labels on its Node and adds the taints whose key and effect the Node lacks, never removing
 * either nor changing a taint's value (pkg/controller/nodelink/nodelink_controller.go
 * `ReconcileNodeLink.Reconcile`, `addTaintsToNode`).
 */
import { strict as assert } from "node:assert";
import { NODE_LABELS_RECORD, NODE_TAINTS_RECORD } from "../../primitives/openshift";
import { mergePatch } from "../../simulator/apiserver/patch";
import { isWaitError } from "./converge";
import { KINDS, KubeObject } from "./kinds";
import { evaluateNodeMetadata, NodeMetadataTarget, planMachine } from "./node-metadata";
import { apiError } from "./retry";
import { waitForNodeMetadata } from "./waiters";
import type { Taint } from "../../builders/validation";
import { fakeClock } from "../../test/fake-clock";
import { memoryClient } from "../../test/memory-client";

const MAPI = "openshift-machine-api";
const INFRA = { "node-role.kubernetes.io/infra": "" };
const DEDICATED: Taint = { key: "example.com/dedicated", value: "logging", effect: "NoSchedule" };
const RESERVED: Taint = { key: "node-role.kubernetes.io/infra", value: "reserved", effect: "NoSchedule" };
const OPS: Taint = { key: "example.com/ops", effect: "NoSchedule" };

const target = (labels: Record<string, string>, taints: Taint[] = []): NodeMetadataTarget => ({
  namespace: MAPI,
  machineSets: ["infra-a"],
  labels,
  taints,
});

interface MachineShape {
  labels?: Record<string, string>;
  taints?: Taint[];
  record?: { labels?: string; taints?: string };
  node?: string;
  set?: string;
  deleting?: boolean;
}

function machine(name: string, shape: MachineShape = {}): KubeObject {
  const annotations: Record<string, string> = {};
  if (shape.record?.labels !== undefined) annotations[NODE_LABELS_RECORD] = shape.record.labels;
  if (shape.record?.taints !== undefined) annotations[NODE_TAINTS_RECORD] = shape.record.taints;
  return {
    metadata: {
      name,
      namespace: MAPI,
      resourceVersion: "7",
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ...(shape.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
      ownerReferences: [
        { apiVersion: "v1beta1", kind: "MachineSet", name: shape.set ?? "infra-a", uid: "u" },
      ],
    },
    spec: {
      ...(shape.labels ? { metadata: { labels: shape.labels } } : { metadata: {} }),
      ...(shape.taints ? { taints: shape.taints } : {}),
    },
    ...(shape.node ? { status: { nodeRef: { kind: "Node", name: shape.node } } } : {}),
  };
}

function node(name: string, labels: Record<string, string>, taints?: Taint[], deleting = false): KubeObject {
  return {
    metadata: {
      name,
      resourceVersion: "9",
      labels: { "kubernetes.io/hostname": name, ...labels },
      ...(deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
    },
    spec: taints ? { taints } : {},
  };
}

const noChange = { getLabels: {}, loseLabels: [], getTaints: [], loseTaints: [] };

describe("node labels and taints: one machine and its node", () => {
  it("writes the declared labels, taints and their record on a Machine made before them; nodelink carries them to the node", () => {
    const plan = planMachine(
      target({ ...INFRA, team: "logging" }, [DEDICATED]),
      machine("m1", { labels: INFRA, node: "n1" }),
      node("n1", { ...INFRA, "example.com/owner": "ops" }, [OPS]),
    );
    assert.deepEqual(plan.machinePatch, {
      name: "m1",
      key: "machine/m1/7",
      patch: {
        metadata: {
          annotations: {
            [NODE_LABELS_RECORD]: "node-role.kubernetes.io/infra,team",
            [NODE_TAINTS_RECORD]: "example.com/dedicated:NoSchedule",
          },
          resourceVersion: "7",
        },
        spec: { metadata: { labels: { team: "logging" } }, taints: [DEDICATED] },
      },
    });
    // Adding is nodelink's: nothing is written on the node, someone else's label and taint stay.
    assert.equal(plan.nodePatch, undefined);
    assert.equal(plan.node, "n1");
    assert.deepEqual(plan.change, {
      getLabels: { team: "logging" },
      loseLabels: [],
      getTaints: [DEDICATED],
      loseTaints: [],
    });
  });

  it("has nothing to do when the Machine and its node carry what is declared and recorded", () => {
    const plan = planMachine(
      target(INFRA, [RESERVED]),
      machine("m1", {
        labels: { ...INFRA, other: "x" },
        taints: [OPS, RESERVED],
        record: {
          labels: "node-role.kubernetes.io/infra",
          taints: "node-role.kubernetes.io/infra:NoSchedule",
        },
        node: "n1",
      }),
      node("n1", { ...INFRA, other: "x" }, [RESERVED, OPS]),
    );
    assert.deepEqual(plan, { machine: "m1", node: "n1", change: noChange });
  });

  it("removes a recorded label from the Machine first, then from the node, then from the record; never one it did not record", () => {
    const declared = target(INFRA);
    const record = { labels: "node-role.kubernetes.io/infra,team" };
    const theirs = { "example.com/owner": "ops" };
    // 1. Off the Machine, which nodelink copies from; the node keeps it meanwhile.
    const first = planMachine(
      declared,
      machine("m1", { labels: { ...INFRA, team: "a", ...theirs }, record, node: "n1" }),
      node("n1", { ...INFRA, team: "a", ...theirs }),
    );
    assert.deepEqual(first.machinePatch?.patch, {
      metadata: { resourceVersion: "7" },
      spec: { metadata: { labels: { team: null } } },
    });
    assert.equal(first.nodePatch, undefined);
    assert.deepEqual(first.change, { ...noChange, loseLabels: ["team"] });
    // 2. Off the node, once the Machine lacks it; still recorded.
    const second = planMachine(
      declared,
      machine("m1", { labels: { ...INFRA, ...theirs }, record, node: "n1" }),
      node("n1", { ...INFRA, team: "a", ...theirs }),
    );
    assert.equal(second.machinePatch, undefined);
    assert.deepEqual(second.nodePatch, {
      name: "n1",
      key: "node/n1/9",
      patch: { metadata: { labels: { team: null }, resourceVersion: "9" } },
    });
    // 3. Out of the record once the node is clean.
    const third = planMachine(
      declared,
      machine("m1", { labels: { ...INFRA, ...theirs }, record, node: "n1" }),
      node("n1", { ...INFRA, ...theirs }),
    );
    assert.deepEqual(third.machinePatch?.patch, {
      metadata: {
        annotations: { [NODE_LABELS_RECORD]: "node-role.kubernetes.io/infra" },
        resourceVersion: "7",
      },
      spec: {},
    });
    assert.equal(third.nodePatch, undefined);
    assert.deepEqual(third.change, noChange);
  });

  it("leaves a label it never recorded where it is, on the Machine and on the node", () => {
    // A Machine made before the record existed: what its template gave it is not known to be the stack's.
    const plan = planMachine(
      target(INFRA),
      machine("m1", { labels: { ...INFRA, team: "a" }, node: "n1" }),
      node("n1", { ...INFRA, team: "a" }),
    );
    assert.deepEqual(plan.machinePatch?.patch, {
      metadata: {
        annotations: { [NODE_LABELS_RECORD]: "node-role.kubernetes.io/infra" },
        resourceVersion: "7",
      },
      spec: {},
    });
    assert.equal(plan.nodePatch, undefined);
    assert.deepEqual(plan.change, noChange);
  });

  it("removes a recorded taint from the Machine, then from the node, keeping the others' in order", () => {
    const declared = target(INFRA, [RESERVED]);
    const record = {
      labels: "node-role.kubernetes.io/infra",
      taints: "example.com/dedicated:NoSchedule,node-role.kubernetes.io/infra:NoSchedule",
    };
    const noExecute = { ...OPS, effect: "NoExecute" as const };
    const onMachine = planMachine(
      declared,
      machine("m1", { labels: INFRA, taints: [DEDICATED, RESERVED], record, node: "n1" }),
      node("n1", INFRA, [OPS, DEDICATED, RESERVED, noExecute]),
    );
    assert.deepEqual(onMachine.machinePatch?.patch, {
      metadata: { resourceVersion: "7" },
      spec: { taints: [RESERVED] },
    });
    assert.equal(onMachine.nodePatch, undefined, "nodelink would add it back while the Machine has it");
    assert.deepEqual(onMachine.change, { ...noChange, loseTaints: [DEDICATED] });
    const onNode = planMachine(
      declared,
      machine("m1", { labels: INFRA, taints: [RESERVED], record, node: "n1" }),
      node("n1", INFRA, [OPS, DEDICATED, RESERVED, noExecute]),
    );
    assert.equal(onNode.machinePatch, undefined);
    assert.deepEqual(onNode.nodePatch?.patch, {
      metadata: { resourceVersion: "9" },
      spec: { taints: [OPS, RESERVED, noExecute] },
    });
    const recorded = planMachine(
      declared,
      machine("m1", { labels: INFRA, taints: [RESERVED], record, node: "n1" }),
      node("n1", INFRA, [OPS, RESERVED, noExecute]),
    );
    assert.deepEqual(recorded.machinePatch?.patch, {
      metadata: {
        annotations: { [NODE_TAINTS_RECORD]: "node-role.kubernetes.io/infra:NoSchedule" },
        resourceVersion: "7",
      },
      spec: {},
    });
  });

  it("removes the last taint as the field, and drops an emptied record", () => {
    const plan = planMachine(
      target({}),
      machine("m1", {
        taints: [DEDICATED],
        record: { labels: "", taints: "example.com/dedicated:NoSchedule" },
        node: "n1",
      }),
      node("n1", {}, [DEDICATED]),
    );
    assert.deepEqual(plan.machinePatch?.patch, {
      metadata: { annotations: { [NODE_LABELS_RECORD]: null }, resourceVersion: "7" },
      spec: { taints: null },
    });
    const clean = planMachine(
      target({}),
      machine("m1", { record: { taints: "example.com/dedicated:NoSchedule" }, node: "n1" }),
      node("n1", {}, [DEDICATED]),
    );
    assert.deepEqual(clean.nodePatch?.patch, { metadata: { resourceVersion: "9" }, spec: { taints: null } });
  });

  it("changes a taint's value on the Machine and on the node at once, in place: nodelink leaves a taint of the same key and effect", () => {
    const metrics = { ...DEDICATED, value: "metrics" };
    const plan = planMachine(
      target(INFRA, [metrics]),
      machine("m1", {
        labels: INFRA,
        taints: [DEDICATED, OPS],
        record: { labels: "node-role.kubernetes.io/infra", taints: "example.com/dedicated:NoSchedule" },
        node: "n1",
      }),
      node("n1", INFRA, [OPS, DEDICATED]),
    );
    assert.deepEqual(plan.machinePatch?.patch, {
      metadata: { resourceVersion: "7" },
      spec: { taints: [metrics, OPS] },
    });
    assert.deepEqual(plan.nodePatch?.patch, {
      metadata: { resourceVersion: "9" },
      spec: { taints: [OPS, metrics] },
    });
    assert.deepEqual(plan.change, { ...noChange, getTaints: [metrics], loseTaints: [DEDICATED] });
  });

  it("tells taints by key and effect: another key's taint of the same value is no declared one; a changed value is lost among several", () => {
    const metrics = { ...DEDICATED, value: "metrics" };
    const sameValue = { key: "example.com/team", value: "logging", effect: "NoSchedule" as const };
    const plan = planMachine(
      target(INFRA, [RESERVED, metrics]),
      machine("m1", {
        labels: INFRA,
        taints: [RESERVED, metrics],
        record: {
          labels: "node-role.kubernetes.io/infra",
          taints: "example.com/dedicated:NoSchedule,node-role.kubernetes.io/infra:NoSchedule",
        },
        node: "n1",
      }),
      node("n1", INFRA, [{ ...sameValue, value: "reserved" }, DEDICATED]),
    );
    assert.deepEqual(plan.change, { ...noChange, getTaints: [RESERVED, metrics], loseTaints: [DEDICATED] });
  });

  it("takes a taint without value and one with an empty value as the same", () => {
    const bare = { key: "example.com/gpu", effect: "NoSchedule" as const };
    const plan = planMachine(
      target({}, [bare]),
      machine("m1", { taints: [bare], record: { taints: "example.com/gpu:NoSchedule" }, node: "n1" }),
      node("n1", {}, [{ ...bare, value: "" }]),
    );
    assert.deepEqual(plan, { machine: "m1", node: "n1", change: noChange });
  });

  it("on a Machine without a node writes the Machine only and records nothing removed", () => {
    const plan = planMachine(
      target(INFRA),
      machine("m1", {
        labels: { ...INFRA, team: "a" },
        record: { labels: "node-role.kubernetes.io/infra,team" },
      }),
      undefined,
    );
    assert.deepEqual(plan.machinePatch?.patch, {
      metadata: {
        annotations: { [NODE_LABELS_RECORD]: "node-role.kubernetes.io/infra" },
        resourceVersion: "7",
      },
      spec: { metadata: { labels: { team: null } } },
    });
    assert.equal(plan.node, undefined);
    assert.deepEqual(plan.change, noChange);
  });

  it("sets a declared label whose value someone else changed, on the Machine (nodelink copies values)", () => {
    const plan = planMachine(
      target({ team: "a" }),
      machine("m1", { labels: { team: "b" }, record: { labels: "team" }, node: "n1" }),
      node("n1", { team: "b" }),
    );
    assert.deepEqual(plan.machinePatch?.patch, {
      metadata: { resourceVersion: "7" },
      spec: { metadata: { labels: { team: "a" } } },
    });
    assert.equal(plan.nodePatch, undefined);
    assert.deepEqual(plan.change, { ...noChange, getLabels: { team: "a" } });
  });
});

describe("node labels and taints: the pool", () => {
  const declared = { ...target(INFRA, [RESERVED]), machineSets: ["infra-a", "infra-b"] };
  const done = (name: string, set: string, nodeName: string) =>
    machine(name, {
      set,
      labels: INFRA,
      taints: [RESERVED],
      record: { labels: "node-role.kubernetes.io/infra", taints: "node-role.kubernetes.io/infra:NoSchedule" },
      node: nodeName,
    });

  it("is done when every running Machine of its MachineSets and every node carry what is declared", () => {
    const e = evaluateNodeMetadata(declared, {
      machines: [
        done("b1", "infra-b", "nb1"),
        done("a1", "infra-a", "na1"),
        machine("gone", { deleting: true, node: "ng" }),
        machine("other", { set: "worker-a", node: "nw" }),
      ],
      nodes: [node("na1", INFRA, [RESERVED]), node("nb1", INFRA, [RESERVED])],
    });
    assert.deepEqual(e, {
      state: "done",
      message: "node labels and taints of MachineSets infra-a, infra-b: 2/2 machines carry them",
      done: 2,
      total: 2,
      result: { machineCount: 2, nodes: ["na1", "nb1"] },
      machinePatches: [],
      nodePatches: [],
    });
  });

  it("waits, saying for what, and hands over the patches of every machine and node", () => {
    const machines = [
      machine("a1", { labels: INFRA, node: "na1" }),
      done("a2", "infra-a", "na2"),
      done("b1", "infra-b", "nb1"),
      done("b2", "infra-b", "nb2"),
      done("b3", "infra-b", "nb3"),
      machine("b4", {
        set: "infra-b",
        labels: INFRA,
        taints: [RESERVED],
        record: {
          labels: "node-role.kubernetes.io/infra,team",
          taints: "node-role.kubernetes.io/infra:NoSchedule",
        },
        node: "nb4",
      }),
    ];
    const e = evaluateNodeMetadata(declared, {
      machines,
      nodes: [
        node("na1", INFRA),
        node("na2", INFRA),
        node("nb2", INFRA, [RESERVED], true),
        node("nb3", { ...INFRA, team: "x" }, [RESERVED]),
        node("nb4", { ...INFRA, team: "x" }, [RESERVED]),
      ],
    });
    assert.equal(e.state, "waiting");
    assert.deepEqual([e.done, e.total], [2, 6]);
    assert.equal(
      e.message,
      "node labels and taints of MachineSets infra-a, infra-b: 2/6 machines carry them (node na1: writing labels, taints and their record on Machine a1)",
    );
    assert.deepEqual(
      e.machinePatches.map((p) => p.key),
      ["machine/a1/7"],
    );
    assert.deepEqual(
      e.nodePatches.map((p) => p.key),
      ["node/nb4/9"],
    );
    // A node being deleted counts as none; one not listed is waited for; the carrying ones are named.
    assert.deepEqual(e.result, { machineCount: 6, nodes: ["nb3"] });
    const waits = [
      evaluateNodeMetadata(
        { ...declared, machineSets: ["infra-a"] },
        { machines: [machines[1]], nodes: [node("na2", INFRA)] },
      ),
      evaluateNodeMetadata({ ...declared, machineSets: ["infra-b"] }, { machines: [machines[2]], nodes: [] }),
      evaluateNodeMetadata(
        { ...declared, machineSets: ["infra-b"] },
        { machines: [machines[5]], nodes: [node("nb4", { ...INFRA, team: "x" }, [RESERVED])] },
      ),
    ].map((w) => w.message.replace(/^[^(]*\(/, "").replace(/\)$/, ""));
    assert.deepEqual(waits, [
      "node na2: waiting for the machine-api's nodelink controller to copy taint node-role.kubernetes.io/infra=reserved:NoSchedule from Machine a2",
      "node nb1 of Machine b1 is not listed yet",
      "node nb4: removing what the pool no longer declares",
    ]);
  });
});

describe("node labels and taints: what the pool's wait says", () => {
  const declared = {
    ...target({ ...INFRA, team: "logging" }, [DEDICATED]),
    machineSets: ["infra-a", "infra-b"],
  };
  const carrying = (name: string, set: string, nodeName?: string) =>
    machine(name, {
      set,
      labels: { ...INFRA, team: "logging" },
      taints: [DEDICATED],
      record: { labels: "node-role.kubernetes.io/infra,team", taints: "example.com/dedicated:NoSchedule" },
      ...(nodeName ? { node: nodeName } : {}),
    });

  it("names what nodelink has yet to copy, and a Machine without a node by its name", () => {
    const copying = evaluateNodeMetadata(declared, {
      machines: [carrying("a1", "infra-a", "na1")],
      nodes: [node("na1", INFRA)],
    });
    assert.match(
      copying.message,
      /\(node na1: waiting for the machine-api's nodelink controller to copy label team=logging, taint example\.com\/dedicated=logging:NoSchedule from Machine a1\)$/,
    );
    const unwritten = evaluateNodeMetadata(declared, {
      machines: [machine("a2", { labels: INFRA })],
      nodes: [],
    });
    assert.match(unwritten.message, /\(Machine a2: writing labels, taints and their record on Machine a2\)$/);
  });

  it("names the nodes that carry them in order, whichever MachineSet comes first", () => {
    const e = evaluateNodeMetadata(declared, {
      machines: [carrying("a1", "infra-a", "nz"), carrying("b1", "infra-b", "na")],
      nodes: [
        node("nz", { ...INFRA, team: "logging" }, [DEDICATED]),
        node("na", { ...INFRA, team: "logging" }, [DEDICATED]),
      ],
    });
    assert.deepEqual([e.state, e.result.nodes], ["done", ["na", "nz"]]);
  });
});

/**
 * The wait over a machine-api played in memory: merge patches applied with the API server's
 * resourceVersion precondition (a stale one is a 409), and the nodelink controller's copy after every
 * write (machine-api-operator nodelink_controller.go `ReconcileNodeLink.Reconcile`, `addTaintsToNode`:
 * labels set, taints added by key and effect, nothing removed).
 */
describe("node labels and taints: the wait", () => {
  function machineApi() {
    const client = memoryClient();
    const clock = fakeClock();
    const kindOf = (o: KubeObject) => (o.metadata.namespace ? KINDS.machine : KINDS.node);
    const put = (o: KubeObject) => client.put(kindOf(o), o);
    const get = async (name: string) =>
      (await client.get(KINDS.machine, name, MAPI)) ?? (await client.get(KINDS.node, name))!;
    /** Writes someone else makes just before the next patch of a Machine arrives. */
    const interference: Array<(name: string) => Promise<void>> = [];
    const nodelink = async () => {
      for (const m of (await client.list(KINDS.machine, {})).items) {
        const n = await get((m.status as { nodeRef: { name: string } }).nodeRef.name);
        const spec = m.spec as { metadata?: { labels?: object }; taints?: Taint[] };
        const labels = { ...n.metadata.labels, ...(spec.metadata?.labels ?? {}) };
        const taints = [...((n.spec as { taints?: Taint[] }).taints ?? [])];
        for (const t of spec.taints ?? [])
          if (!taints.some((x) => x.key === t.key && x.effect === t.effect)) taints.push(t);
        const linked = { ...n, metadata: { ...n.metadata, labels }, spec: { ...(n.spec as object), taints } };
        if (JSON.stringify(linked) !== JSON.stringify(n)) put(linked);
      }
    };
    client.mergePatch = async (resource, name, _namespace, body) => {
      client.patches.push([`${resource.plural}/${name}`, body]);
      if (resource === KINDS.machine) await interference.shift()?.(name);
      const current = await get(name);
      const { resourceVersion } = (body as { metadata: { resourceVersion: string } }).metadata;
      if (resourceVersion !== current.metadata.resourceVersion)
        throw apiError(`Operation cannot be fulfilled on ${resource.plural} "${name}"`, { status: 409 });
      const patched = mergePatch(current, body) as KubeObject;
      put(patched);
      await nodelink();
      return patched;
    };
    client.put(KINDS.machineSet, { metadata: { name: "infra-a", namespace: MAPI } });
    const theirs = { "example.com/owner": "ops" };
    for (const i of [1, 2]) {
      put(node(`n${i}`, { ...INFRA, ...theirs }, [OPS]));
      put(machine(`m${i}`, { labels: INFRA, node: `n${i}` }));
    }
    const wait = (labels: Record<string, string>, taints: Taint[]) =>
      waitForNodeMetadata({ client, clock, machineSets: ["infra-a"], labels, taints, timeoutMs: 60_000 });
    return { client, wait, get, interference, theirs, put };
  }

  it("adds a label and a taint to running machines and nodes, then removes them, leaving someone else's", async () => {
    const { client, wait, get, theirs } = machineApi();
    const added = await wait({ ...INFRA, team: "logging" }, [DEDICATED]);
    assert.deepEqual(added.result, { machineCount: 2, nodes: ["n1", "n2"] });
    for (const n of ["n1", "n2"]) {
      assert.deepEqual((await get(n)).metadata.labels, {
        "kubernetes.io/hostname": n,
        ...INFRA,
        ...theirs,
        team: "logging",
      });
      assert.deepEqual(((await get(n)).spec as { taints: Taint[] }).taints, [OPS, DEDICATED]);
    }
    assert.deepEqual((await get("m1")).metadata.annotations, {
      [NODE_LABELS_RECORD]: "node-role.kubernetes.io/infra,team",
      [NODE_TAINTS_RECORD]: "example.com/dedicated:NoSchedule",
    });
    // One patch per Machine; nodelink did the nodes.
    assert.deepEqual(
      client.patches.map(([what]) => what),
      ["machines/m1", "machines/m2"],
    );

    client.patches.length = 0;
    const removed = await wait(INFRA, []);
    assert.deepEqual(removed.result, { machineCount: 2, nodes: ["n1", "n2"] });
    for (const n of ["n1", "n2"]) {
      assert.deepEqual((await get(n)).metadata.labels, { "kubernetes.io/hostname": n, ...INFRA, ...theirs });
      assert.deepEqual(((await get(n)).spec as { taints: Taint[] }).taints, [OPS]);
    }
    assert.deepEqual((await get("m1")).spec, { metadata: { labels: INFRA } });
    assert.deepEqual((await get("m1")).metadata.annotations, {
      [NODE_LABELS_RECORD]: "node-role.kubernetes.io/infra",
    });
    // Off each Machine, then off its node, then out of its record.
    assert.deepEqual(client.patches.map(([what]) => what).sort(), [
      "machines/m1",
      "machines/m1",
      "machines/m2",
      "machines/m2",
      "nodes/n1",
      "nodes/n2",
    ]);
  });

  it("decides anew when a Machine changed between its read and the patch (409), and writes over nothing of it", async () => {
    const { client, wait, get, interference, put } = machineApi();
    interference.push(async (name) => {
      const m = await get(name);
      put({ ...m, spec: { ...(m.spec as object), taints: [OPS] } });
    });
    const outcome = await wait(INFRA, [DEDICATED]);
    assert.deepEqual(outcome.result?.nodes, ["n1", "n2"]);
    assert.deepEqual(((await get("m1")).spec as { taints: Taint[] }).taints, [OPS, DEDICATED]);
    const m1 = client.patches.filter(([what]) => what === "machines/m1");
    assert.equal(m1.length, 2, "the conflicting patch, then one decided on the changed Machine");
  });

  it("fails on what it cannot write, naming the object", async () => {
    const { client, wait } = machineApi();
    client.mergePatch = async () => {
      throw apiError('machines.machine.openshift.io "m1" is forbidden', { status: 403 });
    };
    await assert.rejects(wait(INFRA, [DEDICATED]), (e: unknown) => {
      assert.ok(isWaitError(e));
      assert.equal(e.kind, "failed");
      assert.match(e.message, /cannot patch Machine m\d/);
      return true;
    });
  });
});
