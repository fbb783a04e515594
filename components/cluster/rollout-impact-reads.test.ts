import * as assert from "node:assert/strict";
import type { KubeObject } from "../../primitives/objects";
import type { ResourceKind } from "../../provider/waiting/kinds";
import type { ClusterSnapshot } from "./cluster-snapshot";
import { declaredPool, DeclaredMachineSet, machineSetChangesIn, renderImpactIn } from "./rollout-impact";

const ROLE = "machineconfiguration.openshift.io/role";
const MACHINESET = "machine.openshift.io/cluster-api-machineset";

/** A MachineConfig of the infra role writing these files (`path` with the text `x`, or `path=text`). */
const mc = (name: string, ...files: string[]): KubeObject => ({
  kind: "MachineConfig",
  metadata: { name, labels: { [ROLE]: "infra" } },
  spec: {
    config: {
      storage: {
        files: files.map((f) => {
          const [path, text = "x"] = f.split("=");
          return { path, contents: { source: `data:,${text}` } };
        }),
      },
    },
  },
});
const kubelet = (name: string, selector: Record<string, string>): KubeObject => ({
  kind: "KubeletConfig",
  metadata: { name },
  spec: { machineConfigPoolSelector: { matchLabels: selector }, kubeletConfig: { maxPods: 300 } },
});
const infraPool = (
  more: { spec?: object; status?: object; labels?: Record<string, string> } = {},
): KubeObject => ({
  kind: "MachineConfigPool",
  metadata: { name: "infra", labels: more.labels ?? {} },
  spec: {
    machineConfigSelector: { matchExpressions: [{ key: ROLE, operator: "In", values: ["worker", "infra"] }] },
    ...more.spec,
  },
  status: { machineCount: 3, updatedMachineCount: 3, ...more.status },
});
const machineSet = (name: string, instanceType: string, labels: Record<string, string> = {}): KubeObject => ({
  kind: "MachineSet",
  metadata: { name },
  spec: { template: { metadata: { labels }, spec: { providerSpec: { value: { instanceType } } } } },
});
const machine = (
  name: string,
  set: string,
  instanceType: string,
  more: Partial<KubeObject["metadata"]> = {},
) => ({
  kind: "Machine",
  metadata: { name, labels: { [MACHINESET]: set }, ...more },
  spec: { providerSpec: { value: { instanceType } } },
});

/** A cluster as a preview reads it, holding these objects; it counts the reads of Machines. */
function snapshot(objects: KubeObject[]): ClusterSnapshot & { machineReads: string[][] } {
  const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);
  const named = (kind: string, name: string) => ofKind(kind).find((o) => o.metadata.name === name);
  const machineReads: string[][] = [];
  return {
    machineReads,
    unreachableBecause: async () => undefined,
    machineConfiguration: async () => undefined,
    pool: async (name) => named("MachineConfigPool", name),
    objects: async (kind: ResourceKind) => ofKind(kind.kind),
    machineConfig: async (name) => named("MachineConfig", name),
    machineSets: async () => ofKind("MachineSet"),
    machines: async (sets) => {
      machineReads.push(sets);
      return ofKind("Machine").filter((m) => sets.includes(m.metadata.labels![MACHINESET]));
    },
    objectsIn: async () => [],
    object: async () => undefined,
  };
}

// What a preview says of a pool, from what the cluster holds with the program's objects applied over it
// (the MCO's render controller renders the pool's selected configs, whichever component declares each).
describe("rollout impact at preview: a pool's render from the cluster's reads", () => {
  const impactOf = (cluster: KubeObject[], declared: Parameters<typeof renderImpactIn>[2]) =>
    renderImpactIn(snapshot(cluster), "infra", declared);
  const causes = (impact: Awaited<ReturnType<typeof renderImpactIn>>) => impact?.causes.map((c) => c.name);

  it("a declared object replaces the cluster's of its kind and name whole: a file it no longer writes is removed", async () => {
    const cluster = [infraPool(), mc("99-infra-chrony", "/etc/a", "/etc/b")];
    assert.deepEqual(causes(await impactOf(cluster, { objects: [mc("99-infra-chrony", "/etc/a")] })), [
      "/etc/b",
    ]);
    // A KubeletConfig of the same name is another object.
    const own = {
      ...kubelet("99-infra-chrony", { "pools.operator.machineconfiguration.openshift.io/infra": "" }),
    };
    assert.deepEqual(causes(await impactOf(cluster, { objects: [own] })), ["/etc/kubernetes/kubelet.conf"]);
    assert.equal((await impactOf(cluster, { objects: [] }))?.newRender, false);
    assert.equal(await renderImpactIn(snapshot([]), "infra", { objects: [] }), undefined, "no such pool");
  });

  it("the pool's declared settings pace and hold its render, and those it leaves out are the cluster's", async () => {
    const cluster = [infraPool({ spec: { paused: true, maxUnavailable: 2 } })];
    const declared = { objects: [mc("99-infra-chrony", "/etc/a")] };
    const held = await impactOf(cluster, { ...declared, settings: {} });
    assert.deepEqual([held?.paused, held?.atATime], [true, 2]);
    const paced = await impactOf(cluster, { ...declared, settings: { paused: false, maxUnavailable: 3 } });
    assert.deepEqual([paced?.paused, paced?.atATime, paced?.waves], [false, 3, 1]);
  });

  // pkg/controller/node/node_controller.go: the pool's nodes not yet updated move from the config it
  // last completed (status.configuration) to its target (spec.configuration), maxUnavailable at a time.
  it("a pool's own settings move the nodes a pending render has not reached, and nothing else does", async () => {
    const NEW = "rendered-infra-new";
    const pending = (status: object, target?: string) => [
      infraPool({ spec: { configuration: { name: target } }, status }),
      { ...mc("rendered-infra-old", "/etc/a=old"), metadata: { name: "rendered-infra-old" } },
      { ...mc("rendered-infra-new", "/etc/a=new"), metadata: { name: "rendered-infra-new" } },
    ];
    const behind = { configuration: { name: "rendered-infra-old" }, updatedMachineCount: 1 };
    const impact = await impactOf(pending(behind, NEW), { objects: [], settings: {} });
    assert.deepEqual(
      [impact?.pending, impact?.newRender, impact?.machineCount, causes(impact)],
      [true, true, 2, ["/etc/a"]],
    );
    // Not the pool's component: its objects render nothing new, and it says nothing of the pending render.
    assert.equal((await impactOf(pending(behind, NEW), { objects: [] }))?.pending, undefined);
    // A new render of the declared objects is what the pool does next.
    const rendering = await impactOf(pending(behind, NEW), {
      objects: [mc("99-infra-chrony", "/etc/b")],
      settings: {},
    });
    assert.deepEqual([rendering?.pending, causes(rendering)], [undefined, ["/etc/b"]]);
    // Nothing pending: every node updated (or no count yet), no config completed, no target, or the same.
    for (const cluster of [
      pending({ ...behind, updatedMachineCount: 3 }, NEW),
      pending({ ...behind, updatedMachineCount: undefined }, NEW),
      pending({ updatedMachineCount: 1 }, NEW),
      pending(behind),
      pending(behind, "rendered-infra-old"),
    ]) {
      const none = await impactOf(cluster, { objects: [], settings: {} });
      assert.deepEqual([none?.pending, none?.newRender], [undefined, false], JSON.stringify(cluster[0]));
    }
  });

  it("an adopted pool: the stack's selector and labels, added to those others set, decide what it renders", async () => {
    const sized = kubelet("infra-sized", { tier: "infra" });
    const cluster = [
      infraPool({ labels: { "pools.operator.machineconfiguration.openshift.io/infra": "" } }),
      sized,
    ];
    const adopted = (selection: object) => impactOf(cluster, { objects: [], settings: { selection } });
    // The stack's label makes the KubeletConfig select the pool, keeping the pool label others set.
    const labelled = await adopted({ labels: { tier: "infra" } });
    assert.deepEqual(causes(labelled), ["/etc/kubernetes/kubelet.conf"]);
    assert.equal((await adopted({}))?.newRender, false);
    // A label set by hand, which a KubeletConfig selects, stays beside the stack's.
    const byHand = [
      infraPool({ labels: { "custom-kubelet": "small" } }),
      kubelet("small", { "custom-kubelet": "small" }),
    ];
    const kept = await renderImpactIn(snapshot(byHand), "infra", {
      objects: [],
      settings: { selection: { labels: { tier: "infra" } } },
    });
    assert.equal(kept?.newRender, false);
    // Its selector picks the configs the cluster's did not.
    const mine = { ...mc("50-mine", "/etc/mine"), metadata: { name: "50-mine", labels: { mine: "yes" } } };
    const withMine = [...cluster, mine];
    const selected = await renderImpactIn(snapshot(withMine), "infra", {
      objects: [],
      settings: { selection: { machineConfigSelector: { matchLabels: { mine: "yes" } } } },
    });
    assert.deepEqual(causes(selected), ["/etc/mine"]);
  });

  it("a pool manifest's settings and selection", () => {
    const selector = { matchLabels: { [ROLE]: "infra" } };
    assert.deepEqual(
      declaredPool({
        metadata: { name: "infra", labels: { a: "b" } },
        spec: { machineConfigSelector: selector, paused: true },
      }),
      {
        maxUnavailable: undefined,
        paused: true,
        selection: { machineConfigSelector: selector, labels: { a: "b" } },
      },
    );
  });
});

// machine-api-operator pkg/controller/machineset/controller.go: a template reaches only the Machines the
// MachineSet creates after it changes.
describe("rollout impact at preview: the machines a MachineSet's template leaves on their old spec", () => {
  const declared = (
    name: string,
    instanceType: string,
    labels: Record<string, string> = {},
  ): DeclaredMachineSet => ({
    name,
    providerSpec: { instanceType },
    labels,
  });
  const machines = [
    machine("infra-a-1", "infra-a", "m6i.xlarge"),
    machine("infra-a-2", "infra-a", "m6i.xlarge"),
    machine("infra-a-3", "infra-a", "m6i.xlarge", { deletionTimestamp: "2026-01-01T00:00:00Z" }),
    machine("infra-b-1", "infra-b", "m6i.2xlarge"),
  ];

  it("reads the Machines only of the MachineSets whose template changes, and counts those not being deleted", async () => {
    const cluster = snapshot([
      machineSet("infra-a", "m6i.xlarge"),
      machineSet("infra-b", "m6i.2xlarge"),
      ...machines,
    ]);
    const changes = await machineSetChangesIn(
      cluster,
      [
        declared("infra-a", "m6i.2xlarge"),
        declared("infra-b", "m6i.2xlarge"),
        declared("infra-c", "m6i.2xlarge"),
      ],
      undefined,
    );
    assert.deepEqual(changes, [
      { machineSet: "infra-a", machines: 2, size: { from: ["m6i.xlarge"], to: "m6i.2xlarge" }, fields: [] },
    ]);
    assert.deepEqual(cluster.machineReads, [["infra-a"]]);
  });

  it("reads none when no template changes, and replacing, every MachineSet's (an earlier up may have left machines)", async () => {
    const sets = [
      machineSet("infra-a", "m6i.2xlarge", { tier: "gold" }),
      machineSet("infra-b", "m6i.2xlarge"),
    ];
    const cluster = snapshot([...sets, ...machines]);
    const same = [declared("infra-a", "m6i.2xlarge", { tier: "gold" }), declared("infra-b", "m6i.2xlarge")];
    assert.deepEqual(await machineSetChangesIn(cluster, same, undefined), []);
    assert.deepEqual(cluster.machineReads, []);
    const policy = { maxSurge: 1, maxUnavailable: 0 };
    const replaced = await machineSetChangesIn(cluster, same, policy);
    assert.deepEqual(cluster.machineReads, [["infra-a", "infra-b"]]);
    assert.deepEqual(
      replaced.map((c) => [c.machineSet, c.machines, c.replacement]),
      [["infra-a", 2, { surge: 1, unavailable: 0 }]],
    );
  });

  it("machine labels the template now gives: the machines that lack them", async () => {
    const labelled = [
      machine("infra-b-2", "infra-b", "m6i.2xlarge"),
      machine("infra-b-1", "infra-b", "m6i.2xlarge"),
      machine("infra-b-3", "infra-b", "m6i.2xlarge"),
    ];
    labelled[1].metadata.labels = { ...labelled[1].metadata.labels, tier: "gold" };
    labelled[2].metadata.labels = { ...labelled[2].metadata.labels, tier: "gold", zone: "a" };
    const cluster = snapshot([machineSet("infra-b", "m6i.2xlarge", { tier: "gold" }), ...labelled]);
    const changes = await machineSetChangesIn(
      cluster,
      [declared("infra-b", "m6i.2xlarge", { tier: "gold", zone: "a" })],
      undefined,
    );
    assert.deepEqual(changes, [
      {
        machineSet: "infra-b",
        machines: 0,
        fields: [],
        machineLabels: { machines: 2, labels: ["tier=gold", "zone=a"] },
      },
    ]);
  });
});
