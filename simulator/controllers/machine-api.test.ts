import * as assert from "node:assert/strict";
import { KubeObject } from "../store/types";
import { MACHINE_FINALIZER } from "./machine-api";
import { K, Sim, machineSetFrom, startSim, status } from "./testing";
import { keyOf } from "./util";

const NS = "openshift-machine-api";
const INFRA_LABELS = { "node-role.kubernetes.io/infra": "" };
const INFRA_TAINT = { key: "node-role.kubernetes.io/infra", effect: "NoSchedule" };

interface MachineSetStatus {
  replicas: number;
  fullyLabeledReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
  observedGeneration: number;
}

function machinesOf(sim: Sim, machineSet: string): KubeObject[] {
  return sim.store
    .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
    .filter((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === machineSet);
}

function ready(sim: Sim, name: string, replicas: number): KubeObject | undefined {
  const ms = sim.get(K.machineSet, name, NS);
  const s = status<MachineSetStatus>(ms);
  return ms &&
    s.observedGeneration === ms.metadata.generation &&
    s.replicas === replicas &&
    s.readyReplicas === replicas &&
    s.availableReplicas === replicas
    ? ms
    : undefined;
}

function nodeOf(sim: Sim, machine: KubeObject): KubeObject | undefined {
  const name = (machine.status as { nodeRef?: { name: string } } | undefined)?.nodeRef?.name;
  return name ? sim.get(K.node, name) : undefined;
}

describe("machine-api", () => {
  let sim: Sim;
  beforeEach(() => (sim = startSim()));
  afterEach(() => sim.stop());

  it("turns replicas into Machines that go Provisioning -> Provisioned -> Running and Nodes with the template's labels and taints", async () => {
    const name = `${sim.cluster.infrastructureId}-infra-us-east-2a`;
    const phases: Record<string, string[]> = {};
    const unwatch = sim.watch(({ object }) => {
      if (
        object.kind !== "Machine" ||
        object.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] !== name
      )
        return;
      const seen = (phases[object.metadata.name] ??= []);
      const phase = (object.status as { phase?: string } | undefined)?.phase;
      if (phase && seen[seen.length - 1] !== phase) seen.push(phase);
    });
    machineSetFrom(sim, name, {
      replicas: 2,
      nodeLabels: INFRA_LABELS,
      taints: [INFRA_TAINT],
      machineLabels: {
        "machine.openshift.io/cluster-api-machine-role": "infra",
        "machine.openshift.io/cluster-api-machine-type": "infra",
      },
    });
    const ms = await sim.until("2 ready", () => ready(sim, name, 2));
    unwatch();
    assert.deepEqual(Object.values(phases), [
      ["Provisioning", "Provisioned", "Running"],
      ["Provisioning", "Provisioned", "Running"],
    ]);
    assert.equal(status<MachineSetStatus>(ms).fullyLabeledReplicas, 2);

    const machines = machinesOf(sim, name);
    assert.equal(machines.length, 2);
    for (const m of machines) {
      assert.match(m.metadata.name, new RegExp(`^${name}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
      assert.equal(m.metadata.ownerReferences?.[0].kind, "MachineSet");
      assert.equal(m.metadata.ownerReferences?.[0].controller, true);
      assert.ok(m.metadata.finalizers?.includes(MACHINE_FINALIZER));
      assert.equal(m.metadata.labels?.["machine.openshift.io/cluster-api-machine-role"], "infra");
      const node = nodeOf(sim, m)!;
      const labels = node.metadata.labels ?? {};
      assert.equal(labels["node-role.kubernetes.io/infra"], "");
      assert.equal(labels["node-role.kubernetes.io/worker"], "", "worker-user-data boots a worker kubelet");
      assert.equal(labels["topology.kubernetes.io/zone"], "us-east-2a");
      assert.equal(labels["topology.kubernetes.io/region"], "us-east-2");
      assert.equal(labels["node.kubernetes.io/instance-type"], "m6i.xlarge");
      assert.equal(labels["kubernetes.io/os"], "linux");
      assert.equal(labels["node.openshift.io/os_id"], "rhcos");
      assert.deepEqual((node.spec as { taints: unknown[] }).taints, [INFRA_TAINT]);
      assert.equal(
        (node.spec as { providerID: string }).providerID,
        (m.spec as { providerID: string }).providerID,
      );
      assert.equal(node.metadata.annotations?.["machine.openshift.io/machine"], `${NS}/${m.metadata.name}`);
    }
  });

  it("gives machines the same names on every run", async () => {
    const other = startSim();
    try {
      for (const s of [sim, other]) machineSetFrom(s, "names", { replicas: 2 });
      await sim.until("ready", () => ready(sim, "names", 2));
      await other.until("ready", () => ready(other, "names", 2));
      assert.deepEqual(
        machinesOf(sim, "names").map((m) => m.metadata.name),
        machinesOf(other, "names").map((m) => m.metadata.name),
      );
    } finally {
      other.stop();
    }
  });

  it("scales down by draining: the node is cordoned before it goes, then the Machine", async () => {
    machineSetFrom(sim, "shrink", { replicas: 2 });
    await sim.until("2 ready", () => ready(sim, "shrink", 2));
    const nodeNames = machinesOf(sim, "shrink").map((m) => nodeOf(sim, m)!.metadata.name);
    const order: string[] = [];
    const unwatch = sim.watch(({ type, object }) => {
      if (object.kind === "Node" && nodeNames.includes(object.metadata.name)) {
        if (type === "DELETED")
          order.push(
            `node deleted (unschedulable=${(object.spec as { unschedulable?: boolean }).unschedulable === true})`,
          );
        else if ((object.spec as { unschedulable?: boolean }).unschedulable && !order.includes("cordoned"))
          order.push("cordoned");
      }
      if (object.kind === "Machine" && type === "DELETED") order.push("machine deleted");
    });
    sim.store.mutate(
      keyOf(K.machineSet, "shrink", NS),
      (o) => ((o.spec as { replicas: number }).replicas = 1),
    );
    await sim.until("1 ready", () => ready(sim, "shrink", 1) && machinesOf(sim, "shrink").length === 1);
    unwatch();
    assert.deepEqual(order, ["cordoned", "node deleted (unschedulable=true)", "machine deleted"]);
  });

  it("scales down by the delete policy: marked machines first whatever the policy, then Oldest or Newest by age; an unknown policy deletes nothing", async () => {
    // machine-api-operator pkg/controller/machineset/delete_policy.go: getDeletePriorityFunc,
    // oldestDeletePriority, newestDeletePriority and the delete-machine annotation's mustDelete.
    const name = "policy";
    machineSetFrom(sim, name, { replicas: 1 });
    const scale = (replicas: number, deletePolicy?: string) =>
      sim.store.mutate(keyOf(K.machineSet, name, NS), (o) => {
        Object.assign(o.spec as object, { replicas, ...(deletePolicy ? { deletePolicy } : {}) });
      });
    const settled = (replicas: number) =>
      sim.until(
        `${replicas} ready`,
        () => ready(sim, name, replicas) && machinesOf(sim, name).length === replicas,
      );
    // Created one after the other, so that each is older than the next.
    await settled(1);
    scale(2);
    await settled(2);
    scale(3);
    await settled(3);
    const byAge = machinesOf(sim, name)
      .sort((a, b) => Date.parse(a.metadata.creationTimestamp!) - Date.parse(b.metadata.creationTimestamp!))
      .map((m) => m.metadata.name);
    assert.equal(new Set(byAge.map((n) => sim.get(K.machine, n, NS)!.metadata.creationTimestamp)).size, 3);
    const names = () =>
      machinesOf(sim, name)
        .map((m) => m.metadata.name)
        .sort();

    scale(2, "Oldest");
    await settled(2);
    assert.deepEqual(names(), [byAge[1], byAge[2]].sort());

    sim.store.mutate(keyOf(K.machine, byAge[2], NS), (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, "machine.openshift.io/delete-machine": "true" };
    });
    scale(1);
    await settled(1);
    assert.deepEqual(names(), [byAge[1]], "the marked machine, though the newest");

    scale(2, "Newest");
    await settled(2);
    const newest = names().find((n) => n !== byAge[1])!;
    scale(1);
    await settled(1);
    assert.deepEqual(names(), [byAge[1]], `the newest, ${newest}`);

    scale(0, "Largest");
    await sim.until("observed", () => {
      const ms = sim.get(K.machineSet, name, NS)!;
      return status<MachineSetStatus>(ms).observedGeneration === ms.metadata.generation;
    });
    assert.deepEqual(names(), [byAge[1]]);
  });

  it("replaces a deleted Machine of a MachineSet", async () => {
    const ms = sim.cluster.workerMachineSets[1];
    const [old] = machinesOf(sim, ms);
    sim.store.delete(keyOf(K.machine, old.metadata.name, NS));
    const replacement = await sim.until("replacement running", () =>
      machinesOf(sim, ms).find(
        (m) => m.metadata.name !== old.metadata.name && nodeOf(sim, m) && ready(sim, ms, 1),
      ),
    );
    assert.equal(sim.get(K.machine, old.metadata.name, NS), undefined);
    assert.equal(sim.get(K.node, (old.status as { nodeRef: { name: string } }).nodeRef.name), undefined);
    // The new node joins the worker pool and gets the pool's config at first boot.
    const node = nodeOf(sim, replacement)!;
    await sim.until("counted by the worker pool", () => {
      const s = status<{ machineCount: number; updatedMachineCount: number }>(sim.get(K.pool, "worker"));
      return s.machineCount === 3 && s.updatedMachineCount === 3;
    });
    assert.equal(
      sim.get(K.node, node.metadata.name)?.metadata.annotations?.[
        "machineconfiguration.openshift.io/currentConfig"
      ],
      (sim.get(K.pool, "worker")?.spec as { configuration: { name: string } }).configuration.name,
    );
    // Its MachineConfigNode comes with it, Updated; the old node's went with the old node.
    const mcn = await sim.until("MachineConfigNode", () => sim.get(K.machineConfigNode, node.metadata.name));
    assert.equal((mcn.spec as { pool: { name: string } }).pool.name, "worker");
    const updated = (mcn.status as { conditions: Array<{ type: string; status: string }> }).conditions.find(
      (c) => c.type === "Updated",
    );
    assert.equal(updated?.status, "True");
    const oldNode = (old.status as { nodeRef: { name: string } }).nodeRef.name;
    await sim.until("old MachineConfigNode gone", () => !sim.get(K.machineConfigNode, oldNode));
  });

  it("holds the boot of a MachineSet's new machines (holdBoot): Provisioned without a node until cleared, its running machines untouched", async () => {
    const held = sim.cluster.workerMachineSets[0];
    const [running] = machinesOf(sim, held);
    sim.controllers.machineFaults.holdBoot(held);
    sim.store.mutate(keyOf(K.machineSet, held, NS), (o) => {
      (o.spec as { replicas: number }).replicas = 2;
    });
    const waiting = await sim.until("the held machine provisioned", () =>
      machinesOf(sim, held).find(
        (m) =>
          m.metadata.name !== running.metadata.name && status<{ phase?: string }>(m).phase === "Provisioned",
      ),
    );
    // A MachineSet created after it boots a machine into a node meanwhile: the held one still has none.
    machineSetFrom(sim, "free", { replicas: 1 });
    await sim.until("the free MachineSet ready", () => ready(sim, "free", 1));
    assert.equal(nodeOf(sim, sim.get(K.machine, waiting.metadata.name, NS)!), undefined);
    assert.equal(
      status<{ phase: string }>(sim.get(K.machine, waiting.metadata.name, NS)).phase,
      "Provisioned",
    );
    assert.ok(
      nodeOf(sim, sim.get(K.machine, running.metadata.name, NS)!),
      "a running machine keeps its node",
    );
    assert.deepEqual(sim.controllers.machineFaults.heldMachineSets(), [held]);

    sim.controllers.machineFaults.clear();
    await sim.until("the held machine's node", () => ready(sim, held, 2));
    assert.throws(() => sim.controllers.machineFaults.holdBoot("nope"), /MachineSet nope not found/);
  });

  // machine-api-operator pkg/controller/machineset/controller.go `createMachine`: a Machine is the
  // template as it was when the MachineSet created it; nothing later copies the template again.
  it("copies a MachineSet's template only into the Machines it creates", async () => {
    machineSetFrom(sim, "tmpl", { replicas: 1, nodeLabels: INFRA_LABELS });
    await sim.until("1 ready", () => ready(sim, "tmpl", 1));
    const [first] = machinesOf(sim, "tmpl");
    sim.store.mutate(keyOf(K.machineSet, "tmpl", NS), (o) => {
      const template = (o.spec as { template: { spec: Record<string, unknown> } }).template;
      template.spec.metadata = { labels: { ...INFRA_LABELS, team: "a" } };
      template.spec.taints = [INFRA_TAINT];
      (o.spec as { replicas: number }).replicas = 2;
    });
    await sim.until("2 ready", () => ready(sim, "tmpl", 2));
    const second = machinesOf(sim, "tmpl").find((m) => m.metadata.name !== first.metadata.name)!;
    const spec = (m: KubeObject) => m.spec as { metadata: { labels?: object }; taints?: unknown[] };
    const kept = sim.get(K.machine, first.metadata.name, NS)!;
    assert.deepEqual(spec(kept).metadata.labels, INFRA_LABELS);
    assert.equal(spec(kept).taints, undefined);
    assert.equal(nodeOf(sim, kept)!.metadata.labels?.team, undefined);
    assert.deepEqual(spec(second).metadata.labels, { ...INFRA_LABELS, team: "a" });
    assert.deepEqual(spec(second).taints, [INFRA_TAINT]);
    const node = nodeOf(sim, second)!;
    assert.equal(node.metadata.labels?.team, "a");
    assert.deepEqual((node.spec as { taints: unknown[] }).taints, [INFRA_TAINT]);
  });

  // machine-api-operator pkg/controller/nodelink/nodelink_controller.go: `ReconcileNodeLink.Reconcile`
  // sets each of `machine.Spec.Labels` on the Node; `addTaintsToNode` appends each machine taint whose
  // key and effect the Node lacks; neither removes anything. It reconciles on Machine and Node events.
  it("nodelink: a label or taint edited on a running Machine reaches its Node, which loses nothing and keeps a taint's value", async () => {
    machineSetFrom(sim, "link", { replicas: 1, nodeLabels: { ...INFRA_LABELS, team: "a" } });
    await sim.until("1 ready", () => ready(sim, "link", 1));
    const [machine] = machinesOf(sim, "link");
    const nodeName = nodeOf(sim, machine)!.metadata.name;
    const node = () => sim.get(K.node, nodeName)!;
    const taints = () => (node().spec as { taints?: unknown[] }).taints ?? [];
    const editMachine = (labels: Record<string, string>, machineTaints: unknown[]) =>
      sim.store.mutate(keyOf(K.machine, machine.metadata.name, NS), (o) => {
        Object.assign(o.spec as object, { metadata: { labels }, taints: machineTaints });
      });
    // Someone else's label and taint on the node.
    sim.store.mutate(keyOf(K.node, nodeName), (n) => {
      n.metadata.labels = { ...n.metadata.labels, "example.com/owner": "ops" };
      n.spec = { ...(n.spec as object), taints: [{ key: "example.com/ops", effect: "NoSchedule" }] };
    });

    const dedicated = { key: "example.com/dedicated", value: "logging", effect: "NoSchedule" };
    editMachine({ ...INFRA_LABELS, team: "b", tier: "gold" }, [dedicated]);
    await sim.until(
      "labels and taint on the node",
      () => node().metadata.labels?.tier === "gold" && taints().length === 2,
    );
    assert.equal(node().metadata.labels?.team, "b", "a label's value is set");
    assert.deepEqual(taints(), [{ key: "example.com/ops", effect: "NoSchedule" }, dedicated]);

    // Removed from the Machine, a taint's value changed, another effect of the same key added.
    const otherValue = { ...dedicated, value: "metrics" };
    const noExecute = { ...dedicated, effect: "NoExecute" };
    editMachine({ ...INFRA_LABELS }, [otherValue, noExecute]);
    await sim.until("the new effect on the node", () => taints().length === 3);
    assert.deepEqual(taints(), [{ key: "example.com/ops", effect: "NoSchedule" }, dedicated, noExecute]);
    assert.equal(node().metadata.labels?.team, "b", "never removed");
    assert.equal(node().metadata.labels?.tier, "gold", "never removed");
    assert.equal(node().metadata.labels?.["example.com/owner"], "ops");

    // Removed from the node by hand, a Machine's label and taint come back (a Node event).
    sim.store.mutate(keyOf(K.node, nodeName), (n) => {
      delete n.metadata.labels!["node-role.kubernetes.io/infra"];
      n.spec = { ...(n.spec as object), taints: [] };
    });
    await sim.until(
      "restored",
      () => node().metadata.labels?.["node-role.kubernetes.io/infra"] === "" && taints().length === 2,
    );
    assert.deepEqual(taints(), [otherValue, noExecute]);
  });

  it("removes the machines and nodes of a deleted MachineSet", async () => {
    machineSetFrom(sim, "gone", { replicas: 2 });
    await sim.until("2 ready", () => ready(sim, "gone", 2));
    const nodes = machinesOf(sim, "gone").map((m) => nodeOf(sim, m)!.metadata.name);
    sim.store.delete(keyOf(K.machineSet, "gone", NS));
    await sim.until(
      "all gone",
      () => machinesOf(sim, "gone").length === 0 && nodes.every((n) => !sim.get(K.node, n)),
    );
  });

  for (const [what, providerSpec, message] of [
    ["names no image", { ami: {} }, /AMI ID or filters must be set/],
    ["is for another cloud", { kind: "AzureMachineProviderSpec" }, /not AWSMachineProviderConfig/],
  ] as const) {
    it(`fails a Machine whose providerSpec ${what}, with errorReason and errorMessage`, async () => {
      machineSetFrom(sim, "broken", { providerSpec });
      const failed = await sim.until("failed", () =>
        machinesOf(sim, "broken").find(
          (m) => (m.status as { phase?: string } | undefined)?.phase === "Failed",
        ),
      );
      assert.equal((failed.status as { errorReason: string }).errorReason, "InvalidConfiguration");
      assert.match((failed.status as { errorMessage: string }).errorMessage, message);
      assert.equal(nodeOf(sim, failed), undefined);
    });
  }
});
