import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import type { KubeObject } from "../../primitives/objects";
import { KINDS, ResourceKind } from "../../provider/waiting/kinds";
import { resetMocks, valueOf } from "../../test/mocks";
import { AdoptableObject, adoption } from "./adoption";
import type { ClusterSnapshot } from "./cluster-snapshot";
import { answerClusterReads } from "./preview-run";
import type { Waiting } from "./wait";

const NS = "openshift-machine-api";
const object = (kind: string, name: string, namespace?: string): KubeObject => ({
  kind,
  metadata: { name, ...(namespace ? { namespace } : {}) },
});

/**
 * A cluster holding `objects`, as a preview reads it (cluster-snapshot.ts), which says why it does not
 * answer when `down` is given and fails every read when `failing`; it records each read.
 */
function cluster(objects: KubeObject[], how: { down?: string; failing?: boolean } = {}) {
  const reads: string[] = [];
  const read = async <T>(what: string, answer: () => T): Promise<T> => {
    reads.push(what);
    if (how.failing) throw new Error("etcdserver: request timed out");
    return answer();
  };
  const find = (kind: string, name: string, namespace?: string) =>
    objects.find((o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === namespace);
  const snapshot: Partial<ClusterSnapshot> = {
    unreachableBecause: async () => how.down,
    pool: (name) => read(`pool ${name}`, () => find("MachineConfigPool", name)),
    machineSets: () => read("machineSets", () => objects.filter((o) => o.kind === "MachineSet")),
    object: (kind: ResourceKind, name: string, namespace?: string) =>
      read(`${kind.kind} ${name}`, () => find(kind.kind, name, namespace)),
    objectsIn: (kind: ResourceKind, namespace: string) =>
      read(`${kind.kind}s in ${namespace}`, () =>
        objects.filter((o) => o.kind === kind.kind && o.metadata.namespace === namespace),
      ),
  };
  return { snapshot: snapshot as ClusterSnapshot, reads };
}

/** Starts a run with Pulumi's mocks in which each kubeconfig's reads are answered by its cluster. */
async function run(clusters: Record<string, ClusterSnapshot>, preview = true) {
  await resetMocks(undefined, { preview });
  answerClusterReads(pulumi.runtime.getMonitor()!, (kubeconfig) => clusters[kubeconfig]);
  return new pulumi.ComponentResource("test:index:Adopter", "adopter");
}
const waitingWith = (kubeconfig: string) => ({ kubeconfig: pulumi.secret(kubeconfig) }) as unknown as Waiting;

const POOL = { kind: KINDS.pool, name: "infra" };
const NEW_POOL = { kind: KINDS.pool, name: "gpu" };
const SET_A = { kind: KINDS.machineSet, name: "infra-a", namespace: NS };
const SET_B = { kind: KINDS.machineSet, name: "infra-b", namespace: NS };
const CHECK = { kind: KINDS.machineHealthCheck, name: "infra", namespace: NS };
const SCALER = { kind: KINDS.machineAutoscaler, name: "infra-a", namespace: NS };
const held = [
  object("MachineConfigPool", "infra"),
  object("MachineSet", "infra-a", NS),
  // Another namespace's MachineSet of the name is not the one adopted.
  object("MachineSet", "infra-b", "elsewhere"),
  object("MachineHealthCheck", "infra", NS),
];

// A component's `adopt: true` (components/cluster/adoption.ts): Pulumi's `import` for what the cluster
// holds, nothing for what it lacks (the engine's step generator makes an ImportStep only of a goal with
// an ID, pkg/resource/deploy/step_generator.go), and every object imported when the cluster cannot say.
describe("adoption: which objects a component imports and which it creates", () => {
  const all: AdoptableObject[] = [POOL, NEW_POOL, SET_A, SET_B, CHECK, SCALER];

  it("imports what the cluster holds, by kind, and says at preview that it creates the rest", async () => {
    const { snapshot, reads } = cluster(held);
    const parent = await run({ kc: snapshot });
    const infos: string[] = [];
    const original = pulumi.log.info;
    Object.assign(pulumi.log, { info: (message: string) => infos.push(message) });
    try {
      const adopting = adoption({ adopt: true }, waitingWith("kc"), parent)!;
      assert.equal(await valueOf(adopting.kubeconfig), "kc");
      assert.deepEqual(await adopting.options("kc", all), [
        { import: "infra" },
        {},
        { import: `${NS}/infra-a` },
        {},
        { import: `${NS}/infra` },
        {},
      ]);
    } finally {
      Object.assign(pulumi.log, { info: original });
    }
    assert.deepEqual(infos, [
      "adopt: MachineConfigPool gpu is not in the cluster: created",
      `adopt: MachineSet ${NS}/infra-b is not in the cluster: created`,
      `adopt: MachineAutoscaler ${NS}/infra-a is not in the cluster: created`,
    ]);
    // Pools and MachineSets from the lists the preview's rollout reads share; the others by name.
    assert.deepEqual(
      reads.filter((r) => !r.startsWith("pool ") && r !== "machineSets"),
      ["MachineHealthCheck infra", "MachineAutoscaler infra-a"],
    );
  });

  it("says nothing on up, where the engine imports or creates as the preview said", async () => {
    const parent = await run({ kc: cluster(held).snapshot }, false);
    const infos: string[] = [];
    const original = pulumi.log.info;
    Object.assign(pulumi.log, { info: (message: string) => infos.push(message) });
    try {
      const adopting = adoption({ adopt: true }, waitingWith("kc"), parent)!;
      assert.deepEqual(await adopting.options("kc", [NEW_POOL]), [{}]);
    } finally {
      Object.assign(pulumi.log, { info: original });
    }
    assert.deepEqual(infos, []);
  });

  it("imports every object when the cluster cannot say: no kubeconfig, no answer (asked nothing more), a failed read", async () => {
    const down = cluster(held, { down: "connection refused" });
    const failing = cluster(held, { failing: true });
    const parent = await run({ down: down.snapshot, failing: failing.snapshot });
    const adopting = adoption({ adopt: true }, waitingWith("down"), parent)!;
    const imported = [{ import: "gpu" }, { import: `${NS}/infra-b` }];
    for (const kubeconfig of [undefined, "down", "failing"])
      assert.deepEqual(await adopting.options(kubeconfig, [NEW_POOL, SET_B]), imported, kubeconfig);
    assert.deepEqual(down.reads, []);
    await adopting.requireHeld("failing", [{ ...NEW_POOL, wayOut: "leave adopt off" }]);
  });

  it("reads an object, or the objects of a kind, as the cluster holds them; none when it cannot say", async () => {
    const { snapshot } = cluster(held);
    const down = cluster(held, { down: "connection refused" });
    const failing = cluster(held, { failing: true });
    const parent = await run({ kc: snapshot, down: down.snapshot, failing: failing.snapshot });
    const adopting = adoption({ adopt: true }, waitingWith("kc"), parent)!;
    assert.deepEqual(await adopting.read("kc", CHECK), held[3]);
    assert.deepEqual(await adopting.objectsIn("kc", KINDS.machineSet, NS), [held[1]]);
    for (const kubeconfig of [undefined, "down", "failing"]) {
      assert.equal(await adopting.read(kubeconfig, CHECK), undefined);
      assert.deepEqual(await adopting.objectsIn(kubeconfig, KINDS.machineSet, NS), []);
    }
    assert.deepEqual(down.reads, []);
  });

  it("fails, naming each object a whole-or-nothing adoption lacks and its way out", async () => {
    const parent = await run({ kc: cluster(held).snapshot });
    const adopting = adoption({ adopt: true }, waitingWith("kc"), parent)!;
    await adopting.requireHeld("kc", [{ ...POOL, wayOut: "x" }]);
    await assert.rejects(
      adopting.requireHeld("kc", [
        { ...POOL, wayOut: "x" },
        { ...NEW_POOL, wayOut: "leave adopt off" },
        { ...SCALER, wayOut: "name it as the cluster does" },
      ]),
      (e: pulumi.InputPropertyError) =>
        e.propertyPath === "adopt" &&
        e.reason ===
          `the cluster has no MachineConfigPool gpu (leave adopt off), no MachineAutoscaler ${NS}/infra-a (name it as the cluster does) to adopt`,
    );
  });

  it("reads with the waiters' connection, else with wait: false the one given or found; none without adopt", async () => {
    const parent = await run({});
    assert.equal(adoption({}, waitingWith("kc"), parent), undefined);
    const ambient = fs.readFileSync(process.env.KUBECONFIG!, "utf8");
    assert.equal(
      await valueOf(adoption({ adopt: true, wait: false }, undefined, parent)!.kubeconfig),
      ambient,
    );
    assert.equal(await valueOf(adoption({ adopt: true }, undefined, parent)!.kubeconfig), undefined);
  });
});
