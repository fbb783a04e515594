import { strict as assert } from "node:assert";
import { KubeObject } from "./kinds";
import {
  describeNodePhases,
  PHASES_NAMED,
  failingMachineConfigNodes,
  isUpdatedTo,
  meanNodeTimings,
  observedNodeTimings,
  phaseOf,
} from "./machineconfignode";
import {
  evaluatePoolRollout,
  Inherited,
  missingFromRender,
  noteInherited,
  PoolObservation,
  PoolRolloutTarget,
} from "./pool";
import { PERSISTENCE_MS, recordSightings, Sightings } from "./persistence";

interface PoolShape {
  source?: string[];
  target?: string;
  statusName?: string;
  updated?: number;
  machines?: number;
  degraded?: number;
  generation?: number;
  observedGeneration?: number;
  paused?: boolean;
  conditions?: Array<{ type: string; status: string; message?: string; lastTransitionTime?: string }>;
}

function pool(p: PoolShape): KubeObject {
  const machines = p.machines ?? 3;
  const updated = p.updated ?? machines;
  return {
    metadata: { name: "worker", generation: p.generation ?? 2 },
    spec: {
      paused: p.paused ?? false,
      nodeSelector: { matchLabels: { "node-role.kubernetes.io/worker": "" } },
      configuration: {
        name: p.target ?? "rendered-worker-new",
        source: (p.source ?? []).map((name) => ({ name })),
      },
    },
    status: {
      observedGeneration: p.observedGeneration ?? p.generation ?? 2,
      machineCount: machines,
      updatedMachineCount: updated,
      readyMachineCount: updated,
      degradedMachineCount: p.degraded ?? 0,
      configuration: { name: p.statusName ?? p.target ?? "rendered-worker-new" },
      conditions: p.conditions ?? [
        { type: "Updated", status: updated === machines ? "True" : "False" },
        { type: "Degraded", status: "False" },
      ],
    },
  };
}

function mc(name: string, generation: number, files: Record<string, string> = {}): KubeObject {
  return {
    metadata: { name, generation, labels: { "machineconfiguration.openshift.io/role": "worker" } },
    spec: {
      config: {
        ignition: { version: "3.2.0" },
        storage: { files: Object.entries(files).map(([path, source]) => ({ path, contents: { source } })) },
      },
    },
  };
}

function observation(o: Partial<PoolObservation>): PoolObservation {
  return {
    pool: undefined,
    machineConfigs: {},
    rendered: {},
    kubeletConfigs: [],
    containerRuntimeConfigs: [],
    generated: {},
    nodes: undefined,
    // A cluster without MachineConfigNodes, unless a test gives them.
    machineConfigNodes: null,
    initialRenderDegraded: undefined,
    ...o,
  };
}

function node(name: string, state: string, desired: string, reason = ""): KubeObject {
  return {
    metadata: {
      name,
      labels: { "node-role.kubernetes.io/worker": "" },
      annotations: {
        "machineconfiguration.openshift.io/state": state,
        "machineconfiguration.openshift.io/desiredConfig": desired,
        "machineconfiguration.openshift.io/currentConfig": "rendered-worker-old",
        "machineconfiguration.openshift.io/reason": reason,
      },
    },
  };
}

const ours: PoolRolloutTarget = { pool: "worker", machineConfigs: ["99-worker-chrony"] };

/**
 * Evaluates the observation of each step as the waiter does at successive times: sightings recorded
 * after each; with `inherited`, the failures nodes carried at the first look are noted in it too.
 */
function overSteps<S>(observe: (step: S) => PoolObservation, target = ours, inherited?: Inherited) {
  const since: Sightings = {};
  return (step: S, nowMs: number) => {
    const o = observe(step);
    if (inherited) noteInherited(inherited, o.pool, o.nodes, o.machineConfigNodes);
    const e = evaluatePoolRollout(target, { ...o, inherited, since, nowMs });
    recordSightings(since, e.problems ?? [], nowMs);
    return e;
  };
}

/** Evaluates one observation as the waiter does at successive times. */
function overTime(o: PoolObservation, target = ours) {
  const at = overSteps(() => o, target);
  return (nowMs: number) => at(undefined, nowMs);
}
const created = { "99-worker-chrony": mc("99-worker-chrony", 1) };

describe("pool rollout predicate", () => {
  // The MCO's render controller renders only for pools whose machineConfigSelector picks a config
  // (render_controller.go syncMachineConfigPool): a MachineConfig whose role no pool has is never
  // rendered and no condition says so. A pool the deployment creates appears within seconds.
  it("waits for a pool that does not exist, then fails once it has not appeared for five minutes", () => {
    const at = overSteps((exists: boolean) => observation(exists ? { pool: pool({}) } : { pool: undefined }));
    const first = at(false, 0);
    assert.equal(first.state, "waiting");
    assert.equal(first.message, "pool worker: the MachineConfigPool does not exist yet");
    assert.equal(first.recheckMs, PERSISTENCE_MS);
    assert.equal(at(true, 1_000).state, "waiting", "created by the deployment: the wait goes on");
    assert.equal(at(false, 2_000).state, "waiting", "gone again: the count starts over");
    assert.equal(at(false, 2_000 + PERSISTENCE_MS - 1).state, "waiting");
    const e = at(false, 2_000 + PERSISTENCE_MS);
    assert.equal(e.state, "failed");
    assert.equal(
      e.message,
      "pool worker: no MachineConfigPool of that name appeared in 5 minutes, so nothing renders the configs this wait is for: check the pool's name (oc get mcp lists the pools)",
    );
  });

  it("first reads the MachineConfigs it waits for", () => {
    const e = evaluatePoolRollout(ours, observation({ pool: pool({}) }));
    assert.equal(e.state, "waiting");
    assert.deepEqual(e.needs.machineConfigs, ["99-worker-chrony"]);
  });

  it("does not take the stale Updated=True of the old rendered config for done (the race)", () => {
    const stale = pool({ target: "rendered-worker-old", source: ["00-worker"] });
    const e = evaluatePoolRollout(ours, observation({ pool: stale, machineConfigs: created }));
    assert.equal(e.state, "waiting");
    assert.match(e.message, /to include 99-worker-chrony/);
  });

  it("follows the sequence: rendered, rolling out, done with the new rendered config", () => {
    const source = ["00-worker", "99-worker-chrony"];
    const sequence = [
      pool({ source, target: "rendered-worker-new", statusName: "rendered-worker-old", updated: 0 }),
      pool({ source, statusName: "rendered-worker-old", updated: 2 }),
      pool({ source, generation: 3, observedGeneration: 2 }),
      pool({ source, generation: 3, observedGeneration: 3 }),
    ];
    const states = sequence.map((p) =>
      evaluatePoolRollout(ours, observation({ pool: p, machineConfigs: created })),
    );
    assert.deepEqual(
      states.map((s) => s.state),
      ["waiting", "waiting", "waiting", "done"],
    );
    assert.equal(states[1].message, "pool worker: 2/3 updated -> rendered-worker-new");
    assert.equal(states[1].done, 2);
    assert.equal(states[3].result?.renderedConfig, "rendered-worker-new");
    assert.equal(states[3].result?.machineCount, 3);
  });

  it("waits for a new pool's first render", () => {
    const fresh = pool({ target: "" });
    const e = evaluatePoolRollout({ pool: "worker" }, observation({ pool: fresh }));
    assert.equal(e.state, "waiting");
    assert.match(e.message, /first configuration/);
  });

  it("waits until a deleted MachineConfig is no longer a source", () => {
    const target = { pool: "worker", deletedMachineConfigs: ["99-worker-old"] };
    const before = evaluatePoolRollout(
      target,
      observation({ pool: pool({ source: ["00-worker", "99-worker-old"] }) }),
    );
    assert.equal(before.state, "waiting");
    assert.match(before.message, /to drop 99-worker-old/);
    const after = evaluatePoolRollout(target, observation({ pool: pool({ source: ["00-worker"] }) }));
    assert.equal(after.state, "done");
  });

  it("waits for a render carrying the content of a MachineConfig changed in place", () => {
    const changed = { "99-worker-chrony": mc("99-worker-chrony", 2, { "/etc/chrony.conf": "data:,new" }) };
    const p = pool({ source: ["99-worker-chrony"], target: "rendered-worker-old" });
    const first = evaluatePoolRollout(ours, observation({ pool: p, machineConfigs: changed }));
    assert.equal(first.needs.rendered, "rendered-worker-old");
    const oldRender = mc("rendered-worker-old", 1, { "/etc/chrony.conf": "data:,old" });
    const second = evaluatePoolRollout(
      ours,
      observation({ pool: p, machineConfigs: changed, rendered: { "rendered-worker-old": oldRender } }),
    );
    assert.equal(second.state, "waiting");
    assert.match(second.message, /lacks file \/etc\/chrony.conf of 99-worker-chrony/);
    const p2 = pool({ source: ["99-worker-chrony"], target: "rendered-worker-new" });
    const newRender = mc("rendered-worker-new", 1, { "/etc/chrony.conf": "data:,new" });
    const third = evaluatePoolRollout(
      ours,
      observation({ pool: p2, machineConfigs: changed, rendered: { "rendered-worker-new": newRender } }),
    );
    assert.equal(third.state, "done");
  });

  it("fails on nodes degraded on the target once the daemon's retries leave them so, naming each node and its reason", () => {
    const p = pool({
      source: ["99-worker-chrony"],
      updated: 1,
      degraded: 2,
      conditions: [{ type: "NodeDegraded", status: "True", message: "2 nodes" }],
    });
    const ask = evaluatePoolRollout(ours, observation({ pool: p, machineConfigs: created }));
    assert.equal(ask.state, "waiting");
    assert.equal(ask.needs.nodes, true);
    const nodes = [
      node("worker-b", "Degraded", "rendered-worker-new", "failed to write /usr/x: read-only file system"),
      node("worker-a", "Unreconcilable", "rendered-worker-new", "ignition kargs section contains changes"),
      node("worker-c", "Done", "rendered-worker-new"),
    ];
    const at = overTime(observation({ pool: p, machineConfigs: created, nodes }));
    const first = at(0);
    assert.equal(first.state, "waiting");
    assert.equal(first.recheckMs, PERSISTENCE_MS);
    assert.equal(
      first.message,
      "pool worker: 1/3 updated -> rendered-worker-new; degraded: node worker-a (Unreconcilable): ignition kargs section contains changes (for 0m0s; retried, final after 5m0s); node worker-b (Degraded): failed to write /usr/x: read-only file system (for 0m0s; retried, final after 5m0s)",
    );
    assert.equal(at(PERSISTENCE_MS - 1).state, "waiting");
    const e = at(PERSISTENCE_MS);
    assert.equal(e.state, "failed");
    assert.equal(
      e.message,
      "pool worker is degraded rolling out rendered-worker-new: node worker-a (Unreconcilable): ignition kargs section contains changes (persisted 5m0s, past the 5m0s allowed for retries); node worker-b (Degraded): failed to write /usr/x: read-only file system (persisted 5m0s, past the 5m0s allowed for retries)",
    );
  });

  it("fails on nodes degraded at rest only when they use up maxUnavailable, so that no node is handed the target", () => {
    // node_controller.go getAllCandidateMachines: no capacity while unavailable >= maxUnavailable.
    const atRest = (maxUnavailable?: number | string) => {
      const p = pool({
        source: ["99-worker-chrony"],
        updated: 0,
        degraded: 1,
        statusName: "rendered-worker-old",
      });
      if (maxUnavailable !== undefined) (p.spec as Record<string, unknown>).maxUnavailable = maxUnavailable;
      return p;
    };
    const drifted = node("worker-a", "Degraded", "rendered-worker-old", 'content mismatch for file "/etc/x"');
    drifted.metadata.annotations!["machineconfiguration.openshift.io/currentConfig"] = "rendered-worker-old";
    const others = [
      node("worker-b", "Done", "rendered-worker-old"),
      node("worker-c", "Done", "rendered-worker-old"),
    ];
    const nodes = [drifted, ...others];
    const held = evaluatePoolRollout(ours, observation({ pool: atRest(), machineConfigs: created, nodes }));
    assert.equal(held.state, "failed");
    assert.equal(
      held.message,
      'pool worker cannot roll out rendered-worker-new: degraded at rest, node worker-a (Degraded): content mismatch for file "/etc/x" uses up maxUnavailable, so the MCO updates no node until they are repaired',
    );
    assert.equal(
      evaluatePoolRollout(ours, observation({ pool: atRest("1"), machineConfigs: created, nodes })).state,
      "failed",
    );
    assert.equal(
      evaluatePoolRollout(ours, observation({ pool: atRest("bogus"), machineConfigs: created, nodes })).state,
      "failed",
    );
    // Room for another node: the MCO hands it the target, and the drifted node may be fixed by it.
    for (const room of [2, "67%"]) {
      const at = overTime(observation({ pool: atRest(room), machineConfigs: created, nodes }));
      assert.equal(at(0).state, "waiting");
      assert.equal(at(2 * PERSISTENCE_MS).state, "waiting", String(room));
    }
    assert.equal(
      evaluatePoolRollout(ours, observation({ pool: atRest("66%"), machineConfigs: created, nodes })).state,
      "failed",
    );
    // A pool without a node selector manages no node.
    const unselected = atRest();
    delete (unselected.spec as Record<string, unknown>).nodeSelector;
    assert.equal(
      evaluatePoolRollout(ours, observation({ pool: unselected, machineConfigs: created, nodes })).state,
      "waiting",
    );
    // Any other failure at rest the daemon retries, and clears once a retry succeeds
    // (daemon.go updateConfigAndState): final once it persists.
    const retried = structuredClone(drifted);
    retried.metadata.annotations!["machineconfiguration.openshift.io/reason"] =
      "error setting node's state to Done";
    const retrying = overTime(
      observation({ pool: atRest(), machineConfigs: created, nodes: [retried, ...others] }),
    );
    const first = retrying(0);
    assert.equal(first.state, "waiting");
    assert.equal(first.recheckMs, PERSISTENCE_MS);
    assert.match(
      first.message,
      /held back by nodes degraded at rest: node worker-a \(Degraded\): error setting/,
    );
    assert.equal(retrying(PERSISTENCE_MS - 1).state, "waiting");
    assert.equal(
      retrying(PERSISTENCE_MS).message,
      "pool worker cannot roll out rendered-worker-new: degraded at rest, node worker-a (Degraded): error setting node's state to Done (persisted 5m0s, past the 5m0s allowed for retries) uses up maxUnavailable, so the MCO updates no node until they recover",
    );
    // Drift on one node of two that use up maxUnavailable 2: the other may recover.
    const mixed = overTime(
      observation({
        pool: atRest(2),
        machineConfigs: created,
        nodes: [drifted, { ...retried, metadata: { ...retried.metadata, name: "worker-b" } }, others[1]],
      }),
    );
    assert.equal(mixed(0).state, "waiting");
    assert.match(
      mixed(PERSISTENCE_MS).message,
      /node worker-a .*; node worker-b .* use up maxUnavailable, so the MCO updates no node until they recover$/,
    );
    const two = [drifted, { ...drifted, metadata: { ...drifted.metadata, name: "worker-b" } }, others[1]];
    const both = evaluatePoolRollout(
      ours,
      observation({ pool: atRest(2), machineConfigs: created, nodes: two }),
    );
    assert.match(both.message, /node worker-a .*; node worker-b .* use up maxUnavailable/);
  });

  it("keeps waiting while the only degraded node is still failing an older config", () => {
    const p = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
    const nodes = [node("worker-a", "Degraded", "rendered-worker-broken", "drift")];
    const at = overTime(observation({ pool: p, machineConfigs: created, nodes }));
    assert.equal(at(0).state, "waiting");
    assert.equal(at(2 * PERSISTENCE_MS).state, "waiting");
  });

  it("counts anything the daemon changes on the node as progress: state, reason, current config, drain, readiness", () => {
    const p = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
    const base = node("worker-a", "Degraded", "rendered-worker-new", "failed to drain node");
    const withAnnotations = (n: KubeObject, a: Record<string, string>): KubeObject => ({
      ...n,
      metadata: { ...n.metadata, annotations: { ...n.metadata.annotations, ...a } },
    });
    const steps: KubeObject[] = [base];
    const next = (change: (n: KubeObject) => KubeObject) => steps.push(change(steps[steps.length - 1]));
    next((n) => withAnnotations(n, { "machineconfiguration.openshift.io/reason": "failed to write /etc/x" }));
    next((n) => withAnnotations(n, { "machineconfiguration.openshift.io/state": "Unreconcilable" }));
    next((n) =>
      withAnnotations(n, { "machineconfiguration.openshift.io/desiredDrain": "drain-rendered-worker-new" }),
    );
    next((n) =>
      withAnnotations(n, {
        "machineconfiguration.openshift.io/lastAppliedDrain": "drain-rendered-worker-new",
      }),
    );
    next((n) => ({ ...n, status: { conditions: [{ type: "Ready", status: "Unknown" }] } }));
    next((n) =>
      withAnnotations(n, { "machineconfiguration.openshift.io/currentConfig": "rendered-worker-mid" }),
    );
    const judged = overSteps((n: KubeObject) =>
      observation({ pool: p, machineConfigs: created, nodes: [n] }),
    );
    const at = (n: KubeObject, nowMs: number) => judged(n, nowMs).state;
    const minute = 60_000;
    steps.forEach((n, i) => {
      // Had the change not counted, the node would have stood still for five minutes by then.
      assert.equal(at(n, 4 * minute * i), "waiting", `step ${i}`);
      assert.equal(at(n, 4 * minute * i + minute), "waiting", `step ${i} a minute later`);
    });
    const last = steps[steps.length - 1];
    assert.equal(at(last, 4 * minute * (steps.length - 1) + PERSISTENCE_MS), "failed");
  });

  it("names every MachineConfigNode degraded on the target, in name order, with or without a message", () => {
    const p = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 2 });
    const silent = mcn("ip-10-0-1-9", "rendered-worker-old", "rendered-worker-new", {
      NodeDegraded: ["True"],
    });
    const loud = mcn("ip-10-0-1-1", "rendered-worker-old", "rendered-worker-new", {
      NodeDegraded: ["True", "disk full"],
    });
    const at = overTime(
      observation({ pool: p, machineConfigs: created, machineConfigNodes: [silent, loud] }),
    );
    at(0);
    assert.equal(
      at(PERSISTENCE_MS).message,
      "pool worker is degraded rolling out rendered-worker-new: node ip-10-0-1-1 (NodeDegraded): disk full (persisted 5m0s, past the 5m0s allowed for retries); node ip-10-0-1-9 (NodeDegraded): no reason given (persisted 5m0s, past the 5m0s allowed for retries)",
    );
  });

  it("takes a daemon that reports its phases again on each retry as stuck: only NodeDegraded's message and the config versions are progress", () => {
    // update.go update: each attempt reports its phases again (upgrade_monitor.go
    // generateAndApplyMachineConfigNodes), and NodeDegraded only once it ends (deferred
    // reportMachineNodeDegradeStatus), so a daemon failing alike flips its phases and keeps its failure.
    const p = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
    const failing = mcn("ip-10-0-1-2", "rendered-worker-old", "rendered-worker-new", {
      UpdateExecuted: ["Unknown", "Error updating the Files on disk: mkdir /usr/bin: read-only file system"],
      NodeDegraded: ["True", "Node ip-10-0-1-2 upgrade failure. mkdir /usr/bin: read-only file system"],
    });
    const edited = (m: KubeObject, edit: (status: Record<string, unknown>) => void): KubeObject => {
      const copy = structuredClone(m);
      edit(copy.status as Record<string, unknown>);
      return copy;
    };
    const conditions = (st: Record<string, unknown>) => st.conditions as Array<Record<string, string>>;
    const retrying = edited(failing, (st) => {
      conditions(st)[0].message = "Updating the Files and OS on disk as a part of the in progress phase";
      conditions(st).push({ type: "UpdatePrepared", status: "True", message: "Update Compatible" });
    });
    const at = overSteps((m: KubeObject) =>
      observation({ pool: p, machineConfigs: created, machineConfigNodes: [m] }),
    );
    const minute = 60_000;
    for (let i = 0; i < 5; i++) assert.equal(at(i % 2 ? retrying : failing, i * minute).state, "waiting");
    const stuck = at(retrying, PERSISTENCE_MS);
    assert.equal(stuck.state, "failed");
    assert.match(stuck.message, /node ip-10-0-1-2 \(UpdateExecuted\): Updating the Files .*\(persisted 5m0s/);
    // Another failure, or a step to another config version, starts the count again.
    const progress = [
      edited(failing, (st) => (conditions(st)[1].message = "Node ip-10-0-1-2 upgrade failure. disk full")),
      edited(
        failing,
        (st) => (st.configVersion = { current: "rendered-worker-mid", desired: "rendered-worker-new" }),
      ),
    ];
    for (const next of progress) {
      const again = overSteps((m: KubeObject) =>
        observation({ pool: p, machineConfigs: created, machineConfigNodes: [m] }),
      );
      again(failing, 0);
      assert.equal(again(next, 4 * minute).state, "waiting");
      assert.equal(again(next, 4 * minute + PERSISTENCE_MS - 1).state, "waiting");
      assert.equal(again(next, 4 * minute + PERSISTENCE_MS).state, "failed");
    }
  });

  it("a node handed the target keeps the failure it carried while its daemon drains and applies, however long: only a failure it writes after is the target's", () => {
    // update.go update: SetWorking only over a state that is not Degraded or Unreconcilable; daemon.go
    // handleErr/updateErrorState writes state and reason only when an attempt fails, and
    // updateConfigAndState clears them once done. So the old reason stays until the daemon fails again.
    const degradedPool = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
    const carried = node("worker-a", "Degraded", "rendered-worker-broken", "failed to write /usr/x");
    const step = (annotations: Record<string, string>, ready = "True"): KubeObject => ({
      ...carried,
      metadata: { ...carried.metadata, annotations: { ...carried.metadata.annotations, ...annotations } },
      status: { conditions: [{ type: "Ready", status: ready }] },
    });
    const handed = step({ "machineconfiguration.openshift.io/desiredConfig": "rendered-worker-new" });
    const drained = step({
      "machineconfiguration.openshift.io/desiredConfig": "rendered-worker-new",
      "machineconfiguration.openshift.io/desiredDrain": "drain-rendered-worker-new",
      "machineconfiguration.openshift.io/lastAppliedDrain": "drain-rendered-worker-new",
    });
    const memory: Inherited = {};
    const at = overSteps(
      (n: KubeObject) => observation({ pool: degradedPool, machineConfigs: created, nodes: [n] }),
      ours,
      memory,
    );
    const minute = 60_000;
    assert.equal(at(carried, 0).state, "waiting");
    assert.deepEqual(memory, {
      poolDegraded: true,
      nodes: { "worker-a": JSON.stringify(["Degraded", "failed to write /usr/x"]) },
    });
    assert.equal(at(handed, minute).state, "waiting");
    // A slow OS image pull: nothing changes on the node for two persistence windows.
    const applying = at(drained, 2 * minute);
    assert.equal(at(drained, 2 * minute + 2 * PERSISTENCE_MS).state, "waiting");
    assert.equal(
      applying.message,
      "pool worker: 1/3 updated -> rendered-worker-new; degraded on an older config while the daemon applies the target: node worker-a (Degraded): failed to write /usr/x",
    );
    assert.equal(applying.recheckMs, undefined);
    // The daemon fails the target: a reason written after the handover, final once it persists.
    const failedAgain = step({
      "machineconfiguration.openshift.io/desiredConfig": "rendered-worker-new",
      "machineconfiguration.openshift.io/reason": "failed to write /usr/y",
    });
    const t = 3 * minute + 2 * PERSISTENCE_MS;
    assert.equal(at(failedAgain, t).state, "waiting");
    const final = at(failedAgain, t + PERSISTENCE_MS);
    assert.equal(final.state, "failed");
    assert.match(final.message, /node worker-a \(Degraded\): failed to write \/usr\/y \(persisted 5m0s/);

    // A reason that names the target is the target's, though the node carried it.
    const unreconcilable = node(
      "worker-a",
      "Unreconcilable",
      "rendered-worker-new",
      "can't reconcile config rendered-worker-old with rendered-worker-new: ignition kargs section contains changes",
    );
    const named = overSteps(
      (n: KubeObject) => observation({ pool: degradedPool, machineConfigs: created, nodes: [n] }),
      ours,
      {},
    );
    named(unreconcilable, 0);
    assert.equal(named(unreconcilable, PERSISTENCE_MS).state, "failed");

    // A pool healthy at the first look, whose node then fails an intermediate render (node_controller.go
    // getAllCandidateMachines hands a Ready node whose daemon is failing the next target): not the
    // target's while the node's desiredConfig is another, nor once handed the target and drained for it.
    const healthyFirst: Inherited = {};
    const intermediate = step({ "machineconfiguration.openshift.io/desiredConfig": "rendered-worker-mid" });
    const later = overSteps(
      ([p, n]: [KubeObject, KubeObject]) => observation({ pool: p, machineConfigs: created, nodes: [n] }),
      ours,
      healthyFirst,
    );
    const healthy = pool({ source: ["99-worker-chrony"], updated: 1 });
    assert.equal(
      later([healthy, { ...carried, metadata: { ...carried.metadata, annotations: {} } }], 0).state,
      "waiting",
    );
    assert.deepEqual(healthyFirst, { poolDegraded: false, nodes: {} });
    assert.equal(later([degradedPool, intermediate], minute).state, "waiting");
    assert.equal(later([degradedPool, intermediate], minute + 2 * PERSISTENCE_MS).state, "waiting");
    assert.equal(later([degradedPool, handed], minute + 2 * PERSISTENCE_MS).state, "waiting");
    const drainedLater = later([degradedPool, drained], 2 * minute + 2 * PERSISTENCE_MS);
    assert.match(drainedLater.message, /degraded on an older config while the daemon applies the target/);
    assert.equal(later([degradedPool, drained], 2 * minute + 4 * PERSISTENCE_MS).state, "waiting");
  });

  it("reports a failure the daemon repeats word for word before draining for the target once it persists, though the node showed it before the wait or the handover", () => {
    // daemon.go syncNode fails its preflight check (runPreflightConfigDriftCheck) before any drain on
    // each retry, and handleErr/updateErrorState writes the same state and reason (writer.go SetDegraded):
    // nothing changes on the node, and the daemon never asks to drain it for the target.
    const degradedPool = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
    const reason = 'content mismatch for file "/etc/x"';
    const before = node("worker-a", "Degraded", "rendered-worker-mid", reason);
    const handed = node("worker-a", "Degraded", "rendered-worker-new", reason);
    const minute = 60_000;
    // Handed over by the node controller during this wait.
    const during = overSteps(
      (n: KubeObject) => observation({ pool: degradedPool, machineConfigs: created, nodes: [n] }),
      ours,
      {},
    );
    assert.equal(during(before, 0).state, "waiting");
    assert.equal(during(before, 2 * PERSISTENCE_MS).state, "waiting", "an older config's failure");
    assert.equal(during(handed, 3 * PERSISTENCE_MS).state, "waiting");
    assert.equal(during(handed, 4 * PERSISTENCE_MS - 1).state, "waiting");
    const failed = during(handed, 4 * PERSISTENCE_MS);
    assert.equal(failed.state, "failed");
    assert.match(failed.message, /node worker-a \(Degraded\): content mismatch .*\(persisted 5m0s/);
    // Handed over before this wait began (an earlier wait timed out on it, say).
    const drainedBefore: KubeObject = structuredClone(handed);
    Object.assign(drainedBefore.metadata.annotations!, {
      "machineconfiguration.openshift.io/desiredDrain": "drain-rendered-worker-new",
      "machineconfiguration.openshift.io/lastAppliedDrain": "drain-rendered-worker-new",
    });
    const next = overSteps(
      () => observation({ pool: degradedPool, machineConfigs: created, nodes: [handed] }),
      ours,
      {},
    );
    assert.equal(next(undefined, minute).state, "waiting");
    assert.equal(next(undefined, minute + PERSISTENCE_MS).state, "failed");
    // Drained for the target before the first look: a repeat after the drain looks like a slow apply
    // (update.go applyOSChanges changes nothing on the node while it runs), which must not fail. No
    // annotation tells them apart: the daemon's retry skips the drain already done (drain.go
    // performDrain: "drain is already completed"), does not set Working over Degraded (update.go
    // update), and SetDegraded with the same text (daemon.go handleErr, updateErrorState; writer.go)
    // writes nothing new. It is reported at the deadline, with what was seen last.
    const drainedFirst = overSteps(
      () => observation({ pool: degradedPool, machineConfigs: created, nodes: [drainedBefore] }),
      ours,
      {},
    );
    drainedFirst(undefined, 0);
    assert.equal(drainedFirst(undefined, 2 * PERSISTENCE_MS).state, "waiting");

    // With MachineConfigNodes: NodeDegraded is written only when it changes (upgrade_monitor.go
    // isParentConditionChanged), so a word-for-word repeat leaves status.configVersion on the older config.
    const message = `Node worker-a upgrade failure. ${reason}`;
    const stale = mcn("worker-a", "rendered-worker-old", "rendered-worker-new", {
      NodeDegraded: ["True", message],
    });
    stale.status = {
      ...(stale.status as object),
      configVersion: { current: "rendered-worker-old", desired: "rendered-worker-mid" },
    };
    const viaMcn = overSteps(
      (m: KubeObject) =>
        observation({ pool: degradedPool, machineConfigs: created, machineConfigNodes: [m] }),
      ours,
      {},
    );
    assert.equal(viaMcn(stale, 0).state, "waiting");
    assert.equal(viaMcn(stale, PERSISTENCE_MS).state, "failed");
  });

  it("fails on a render failure, unless it predates the wait unchanged", () => {
    const failure = {
      type: "RenderDegraded",
      status: "True",
      message: "bad ignition",
      lastTransitionTime: "t1",
    };
    const p = pool({ conditions: [failure] });
    const fresh = evaluatePoolRollout(ours, observation({ pool: p, machineConfigs: created }));
    assert.equal(fresh.state, "failed");
    assert.match(fresh.message, /cannot render its configuration: bad ignition/);
    const old = evaluatePoolRollout(
      ours,
      observation({ pool: p, machineConfigs: created, initialRenderDegraded: failure }),
    );
    assert.equal(old.state, "waiting");
    const renewed = pool({ conditions: [{ ...failure, message: "another error" }] });
    const again = evaluatePoolRollout(
      ours,
      observation({ pool: renewed, machineConfigs: created, initialRenderDegraded: failure }),
    );
    assert.equal(again.state, "failed");
  });

  it("says a paused pool will not roll out instead of hanging", () => {
    const p = pool({
      source: ["99-worker-chrony"],
      updated: 0,
      paused: true,
      statusName: "rendered-worker-old",
    });
    const e = evaluatePoolRollout(ours, observation({ pool: p, machineConfigs: created }));
    assert.equal(e.state, "failed");
    assert.match(
      e.message,
      /pool worker is paused at 0\/3 updated: it will not roll out rendered-worker-new/,
    );
    const done = evaluatePoolRollout(
      ours,
      observation({ pool: pool({ source: ["99-worker-chrony"], paused: true }), machineConfigs: created }),
    );
    assert.equal(done.state, "done");
  });

  it("follows a KubeletConfig through its status to its generated MachineConfig", () => {
    const target = { pool: "worker", kubeletConfigs: ["max-pods"] };
    const kc = (generation: number, observed: number | undefined, conditions: unknown[]): KubeObject => ({
      metadata: { name: "max-pods", generation },
      status: { observedGeneration: observed, conditions },
    });
    const p = pool({ source: ["99-worker-generated-kubelet"] });
    const unprocessed = evaluatePoolRollout(target, observation({ pool: p, kubeletConfigs: [kc(2, 1, [])] }));
    assert.match(unprocessed.message, /waiting for the MCO to process KubeletConfig max-pods/);
    const failure = [{ type: "Failure", status: "True", message: "Error: invalid maxPods" }];
    const failedE = evaluatePoolRollout(
      target,
      observation({ pool: p, kubeletConfigs: [kc(2, 2, failure)] }),
    );
    assert.equal(failedE.state, "failed");
    assert.match(failedE.message, /KubeletConfig max-pods failed: Error: invalid maxPods/);
    const success = [
      { type: "Accepted", status: "True" },
      { type: "Success", status: "True" },
    ];
    const read = evaluatePoolRollout(target, observation({ pool: p, kubeletConfigs: [kc(2, 2, success)] }));
    assert.deepEqual(read.needs.generated, [
      {
        owner: "KubeletConfig",
        ownerName: "max-pods",
        machineConfig: "99-worker-generated-kubelet",
        generation: 2,
      },
    ]);
    const generatedMc = mc("99-worker-generated-kubelet", 2, {
      "/etc/kubernetes/kubelet.conf": "data:,maxPods=300",
    });
    const render = mc("rendered-worker-new", 1, { "/etc/kubernetes/kubelet.conf": "data:,maxPods=300" });
    const e = evaluatePoolRollout(
      target,
      observation({
        pool: p,
        kubeletConfigs: [kc(2, 2, success)],
        generated: { "99-worker-generated-kubelet@2": generatedMc },
        rendered: { "rendered-worker-new": render },
      }),
    );
    assert.equal(e.state, "done");
  });
});

describe("pool rollout predicate: KubeletConfigs and ContainerRuntimeConfigs the MCO rejects", () => {
  const kc = (
    name: string,
    generation: number,
    observed: number | undefined,
    conditions: unknown[],
  ): KubeObject => ({
    metadata: { name, generation },
    status: { observedGeneration: observed, conditions },
  });
  const success = [
    { type: "Accepted", status: "True", message: "Success" },
    { type: "Success", status: "True", message: "Success" },
  ];
  const noPool = (kind: string, name: string) => [
    {
      type: "Accepted",
      status: "False",
      message: `Error: ${kind} ${name} does not match any MachineConfigPools`,
    },
    {
      type: "Failure",
      status: "True",
      message: `Error: ${kind} ${name} does not match any MachineConfigPools`,
    },
  ];

  it("fails as soon as the MCO reports that a KubeletConfig's pool does not exist, though the pool does not", () => {
    // kubelet_config_controller.go syncKubeletConfig: len(mcpPools) == 0 -> syncStatusOnly(cfg, err).
    const target = { pool: "infar", kubeletConfigs: ["max-pods"] };
    const e = evaluatePoolRollout(
      target,
      observation({ kubeletConfigs: [kc("max-pods", 1, 1, noPool("KubeletConfig", "max-pods"))] }),
    );
    assert.equal(e.state, "failed");
    assert.equal(
      e.message,
      "pool infar: KubeletConfig max-pods failed: Error: KubeletConfig max-pods does not match any MachineConfigPools",
    );
    // Not yet processed: the pool may still come.
    const fresh = evaluatePoolRollout(
      target,
      observation({ kubeletConfigs: [kc("max-pods", 1, undefined, [])] }),
    );
    assert.equal(fresh.state, "waiting");
    assert.match(fresh.message, /the MachineConfigPool does not exist yet/);
  });

  it("fails likewise for a ContainerRuntimeConfig", () => {
    // container_runtime_config_controller.go syncContainerRuntimeConfig.
    const e = evaluatePoolRollout(
      { pool: "infar", containerRuntimeConfigs: ["pids"] },
      observation({ containerRuntimeConfigs: [kc("pids", 2, 2, noPool("containerRuntimeConfig", "pids"))] }),
    );
    assert.equal(e.state, "failed");
    assert.match(
      e.message,
      /ContainerRuntimeConfig pids failed: Error: containerRuntimeConfig pids does not match any MachineConfigPools/,
    );
  });

  it("takes neither a Failure nor a Success of an earlier generation as the current one's", () => {
    const target = { pool: "worker", kubeletConfigs: ["max-pods"] };
    const p = pool({ source: ["99-worker-generated-kubelet"] });
    const oldFailure = evaluatePoolRollout(
      target,
      observation({ pool: p, kubeletConfigs: [kc("max-pods", 3, 2, noPool("KubeletConfig", "max-pods"))] }),
    );
    assert.equal(oldFailure.state, "waiting");
    assert.match(oldFailure.message, /waiting for the MCO to process KubeletConfig max-pods/);
    const oldSuccess = evaluatePoolRollout(
      target,
      observation({ pool: p, kubeletConfigs: [kc("max-pods", 3, 2, success)] }),
    );
    assert.equal(oldSuccess.state, "waiting");
    assert.match(oldSuccess.message, /waiting for the MCO to process KubeletConfig max-pods/);
    // The last outcome counts: a Success after a Failure.
    const recovered = evaluatePoolRollout(
      target,
      observation({
        pool: p,
        kubeletConfigs: [kc("max-pods", 3, 3, [...noPool("KubeletConfig", "max-pods"), ...success])],
      }),
    );
    assert.deepEqual(
      recovered.needs.generated?.map((g) => g.generation),
      [3],
    );
    const unknownFailure = evaluatePoolRollout(
      target,
      observation({ pool: p, kubeletConfigs: [kc("max-pods", 1, 1, [{ type: "Failure", status: "True" }])] }),
    );
    assert.equal(unknownFailure.message, "pool worker: KubeletConfig max-pods failed: no reason given");
  });

  it("reads an Accepted condition that comes last, as the MCO writes once it drops the deprecated copy after it", () => {
    // kubelet_config_controller.go syncStatusOnly appends legacyConditionFromAccepted's copy after
    // Accepted "for backwards compat", marked to be removed (OCPNODE-4040).
    const target = { pool: "worker", kubeletConfigs: ["max-pods"] };
    const p = pool({ source: ["99-worker-generated-kubelet"] });
    const accepted = kc("max-pods", 2, 2, [success[0]]);
    assert.deepEqual(
      evaluatePoolRollout(target, observation({ pool: p, kubeletConfigs: [accepted] })).needs.generated?.map(
        (g) => g.machineConfig,
      ),
      ["99-worker-generated-kubelet"],
    );
    const refused = kc("max-pods", 2, 2, [success[0], noPool("KubeletConfig", "max-pods")[0]]);
    const e = evaluatePoolRollout(target, observation({ pool: p, kubeletConfigs: [refused] }));
    assert.deepEqual(
      [e.state, e.message],
      [
        "failed",
        "pool worker: KubeletConfig max-pods failed: Error: KubeletConfig max-pods does not match any MachineConfigPools",
      ],
    );
  });

  it("follows the generated MachineConfig of a pool's second KubeletConfig by its name suffix", () => {
    // kubelet-config/helpers.go getManagedKubeletConfigKey: `99-<pool>-generated-kubelet-<suffix>` from
    // the mc-name-suffix annotation, so the first KubeletConfig's config is not taken for the second's.
    const target = { pool: "worker", kubeletConfigs: ["max-pods"] };
    const second = kc("max-pods", 1, 1, success);
    second.metadata.annotations = { "machineconfiguration.openshift.io/mc-name-suffix": "1" };
    const e = evaluatePoolRollout(
      target,
      observation({ pool: pool({ source: ["99-worker-generated-kubelet"] }), kubeletConfigs: [second] }),
    );
    assert.deepEqual(
      e.needs.generated?.map((g) => g.machineConfig),
      ["99-worker-generated-kubelet-1"],
    );
  });
});

describe("pool rollout predicate: a MachineConfig changed in place", () => {
  const changedTo = (spec: Record<string, unknown>): KubeObject => ({
    metadata: {
      name: "99-worker-chrony",
      generation: 2,
      labels: { "machineconfiguration.openshift.io/role": "worker" },
    },
    spec,
  });
  const render = (spec: Record<string, unknown>): KubeObject => ({
    metadata: { name: "rendered-worker-new" },
    spec,
  });
  const p = pool({ source: ["99-worker-chrony"] });
  const unit = { name: "chronyd.service", enabled: true, contents: "[Unit]" };
  const key = "ssh-ed25519 AAAA core@example";
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      "a systemd unit",
      { config: { systemd: { units: [unit] } } },
      /lacks systemd unit chronyd.service of 99-worker-chrony/,
    ],
    [
      "a unit's drop-in",
      {
        config: {
          systemd: {
            units: [{ name: "crio.service", dropins: [{ name: "10-x.conf", contents: "[Service]" }] }],
          },
        },
      },
      /lacks systemd unit crio.service/,
    ],
    ["an extension", { extensions: ["usbguard"] }, /lacks extension usbguard of 99-worker-chrony/],
    [
      "an SSH key",
      { config: { passwd: { users: [{ name: "core", sshAuthorizedKeys: [key] }] } } },
      /lacks an SSH key of user core from 99-worker-chrony/,
    ],
    ["kernelType", { kernelType: "realtime" }, /lacks kernelType realtime of 99-worker-chrony/],
    ["FIPS", { fips: true }, /lacks fips of 99-worker-chrony/],
    [
      "the OS image",
      { osImageURL: "quay.io/example/os@sha256:1" },
      /lacks the osImageURL of 99-worker-chrony/,
    ],
    ["a kernel argument", { kernelArguments: ["nosmt"] }, /lacks kernel argument nosmt of 99-worker-chrony/],
  ];
  for (const [what, spec, missing] of cases) {
    it(`waits for the render to carry ${what}, then is done`, () => {
      const machineConfigs = { "99-worker-chrony": changedTo(spec) };
      const ask = evaluatePoolRollout(ours, observation({ pool: p, machineConfigs }));
      assert.equal(ask.needs.rendered, "rendered-worker-new");
      const stale = evaluatePoolRollout(
        ours,
        observation({ pool: p, machineConfigs, rendered: { "rendered-worker-new": render({}) } }),
      );
      assert.equal(stale.state, "waiting");
      assert.match(stale.message, missing);
      const done = evaluatePoolRollout(
        ours,
        observation({ pool: p, machineConfigs, rendered: { "rendered-worker-new": render(spec) } }),
      );
      assert.equal(done.state, "done");
    });
  }
});

describe("missingFromRender", () => {
  const rendered: KubeObject = {
    metadata: { name: "rendered-worker-x" },
    spec: {
      kernelArguments: ["nosmt"],
      extensions: ["usbguard"],
      config: {
        systemd: {
          units: [
            {
              name: "a.service",
              enabled: true,
              contents: "[Unit]",
              dropins: [{ name: "10.conf", contents: "x" }],
            },
          ],
        },
        passwd: { users: [{ name: "core", sshAuthorizedKeys: ["ssh-ed25519 AAA"] }] },
      },
    },
  };
  const config = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: "99-x" }, spec });

  it("accepts what the render carries", () => {
    const ok = config({
      kernelArguments: ["nosmt"],
      extensions: ["usbguard"],
      config: {
        systemd: {
          units: [{ name: "a.service", enabled: true, dropins: [{ name: "10.conf", contents: "x" }] }],
        },
        passwd: { users: [{ name: "core", sshAuthorizedKeys: ["ssh-ed25519 AAA"] }] },
      },
    });
    assert.equal(missingFromRender(rendered, [ok]), undefined);
  });

  it("names the first missing piece", () => {
    assert.match(
      missingFromRender(rendered, [config({ kernelArguments: ["nosmt", "mitigations=off"] })]) ?? "",
      /kernel argument mitigations=off/,
    );
    assert.match(
      missingFromRender(rendered, [
        config({ config: { systemd: { units: [{ name: "a.service", enabled: false }] } } }),
      ]) ?? "",
      /systemd unit a.service of 99-x/,
    );
    assert.match(
      missingFromRender(rendered, [config({ kernelType: "realtime" })]) ?? "",
      /kernelType realtime/,
    );
  });

  it("expects the last of our configs to win a file both set", () => {
    const a = mc("99-a", 2, { "/etc/x": "data:,a" });
    const b = mc("99-b", 1, { "/etc/x": "data:,b" });
    const render = mc("rendered", 1, { "/etc/x": "data:,b" });
    assert.equal(missingFromRender(render, [b, a]), undefined);
  });
});

function mcn(
  name: string,
  current: string,
  desired: string,
  conditions: Record<string, [string, string?]>,
): KubeObject {
  return {
    metadata: { name },
    spec: { node: { name }, pool: { name: "worker" }, configVersion: { desired } },
    status: {
      configVersion: { current, desired },
      conditions: Object.entries(conditions).map(([type, [status, message]]) => ({ type, status, message })),
    },
  };
}

describe("pool rollout predicate with MachineConfigNodes", () => {
  const rolling = pool({ source: ["99-worker-chrony"], updated: 1 });
  const mcns = [
    mcn("ip-10-0-1-1", "rendered-worker-new", "rendered-worker-new", { Updated: ["True"] }),
    mcn("ip-10-0-1-2", "rendered-worker-old", "rendered-worker-new", {
      Updated: ["False"],
      UpdateExecuted: ["Unknown"],
      Cordoned: ["True"],
      Drained: ["Unknown"],
    }),
    mcn("ip-10-0-1-3", "rendered-worker-old", "rendered-worker-old", { Updated: ["True"] }),
    mcn("ip-10-0-9-9", "rendered-infra-old", "rendered-infra-new", { Drained: ["Unknown"] }),
  ];
  mcns[3].spec = { ...(mcns[3].spec as object), pool: { name: "infra" } };

  it("asks for them while the pool rolls out, and says which node is in which phase", () => {
    const ask = evaluatePoolRollout(
      ours,
      observation({ pool: rolling, machineConfigs: created, machineConfigNodes: undefined }),
    );
    assert.equal(ask.needs.machineConfigNodes, true);
    assert.equal(ask.message, "pool worker: 1/3 updated -> rendered-worker-new");
    const e = evaluatePoolRollout(
      ours,
      observation({ pool: rolling, machineConfigs: created, machineConfigNodes: mcns }),
    );
    assert.equal(e.state, "waiting");
    assert.equal(e.needs.machineConfigNodes, undefined);
    assert.equal(
      e.message,
      "pool worker: 1/3 updated -> rendered-worker-new; ip-10-0-1-2 draining, ip-10-0-1-3 waiting",
    );
  });

  it("falls back to the node annotations on a cluster without them", () => {
    const e = evaluatePoolRollout(
      ours,
      observation({ pool: rolling, machineConfigs: created, machineConfigNodes: null }),
    );
    assert.deepEqual(
      [e.state, e.message, e.needs],
      ["waiting", "pool worker: 1/3 updated -> rendered-worker-new", {}],
    );
    const p = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
    const nodes = [node("worker-b", "Degraded", "rendered-worker-new", "failed to write /usr/x")];
    const f = overTime(observation({ pool: p, machineConfigs: created, machineConfigNodes: null, nodes }));
    f(0);
    assert.match(
      f(PERSISTENCE_MS).message,
      /node worker-b \(Degraded\): failed to write \/usr\/x \(persisted 5m0s/,
    );
  });

  it("fails naming the degraded node, its phase and the condition's message", () => {
    const p = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
    const broken = mcn("ip-10-0-1-2", "rendered-worker-old", "rendered-worker-new", {
      UpdateExecuted: [
        "Unknown",
        "Error updating the Files on disk as a part of the in progress phase: mkdir /usr/bin: read-only file system",
      ],
      NodeDegraded: ["True", "mkdir /usr/bin: read-only file system"],
    });
    const at = overTime(
      observation({ pool: p, machineConfigs: created, machineConfigNodes: [mcns[0], broken] }),
    );
    assert.equal(at(0).state, "waiting");
    assert.equal(at(PERSISTENCE_MS - 1).state, "waiting");
    const e = at(PERSISTENCE_MS);
    assert.equal(e.state, "failed");
    assert.equal(
      e.message,
      "pool worker is degraded rolling out rendered-worker-new: node ip-10-0-1-2 (UpdateExecuted): Error updating the Files on disk as a part of the in progress phase: mkdir /usr/bin: read-only file system (persisted 5m0s, past the 5m0s allowed for retries)",
    );
  });

  it("takes a NodeDegraded the node carried from an older config as stale while its daemon works on the target, and a new one as the target's", () => {
    // update.go update: NodeDegraded is written when an attempt ends (reportMachineNodeDegradeStatus).
    const p = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
    const old = mcn("ip-10-0-1-2", "rendered-worker-old", "rendered-worker-broken", {
      NodeDegraded: ["True", "content mismatch for file /etc/x"],
    });
    const nodes = [node("ip-10-0-1-2", "Degraded", "rendered-worker-broken", "content mismatch")];
    const memory: Inherited = {};
    const at = overSteps(
      (m: KubeObject) =>
        observation({ pool: p, machineConfigs: created, machineConfigNodes: [mcns[0], m], nodes }),
      ours,
      memory,
    );
    assert.equal(at(old, 0).state, "waiting");
    assert.deepEqual(memory.machineConfigNodes, { "ip-10-0-1-2": "content mismatch for file /etc/x" });
    assert.equal(at(old, 2 * PERSISTENCE_MS).state, "waiting");
    // Handed the target by the node controller (spec), the daemon at work on it (status).
    const working = {
      ...old,
      spec: { ...(old.spec as object), configVersion: { desired: "rendered-worker-new" } },
      status: {
        configVersion: { current: "rendered-worker-old", desired: "rendered-worker-new" },
        conditions: [
          { type: "NodeDegraded", status: "True", message: "content mismatch for file /etc/x" },
          { type: "UpdateExecuted", status: "Unknown", message: "Updating the Files and OS on disk" },
        ],
      },
    };
    const applying = at(working, 3 * PERSISTENCE_MS);
    assert.equal(at(working, 6 * PERSISTENCE_MS).state, "waiting");
    assert.match(
      applying.message,
      /degraded on an older config while the daemon applies the target: node ip-10-0-1-2 \(UpdateExecuted\): Updating the Files and OS on disk$/,
    );
    // The daemon starts over (UpdatePrepared again, the other phases reset: upgrade_monitor.go
    // GenerateAndApplyMachineConfigNodes) with NodeDegraded word for word: not proof that an attempt
    // on the target failed, since the daemon also starts update() over when its pod restarts mid-apply
    // (daemon.go checkStateOnFirstRun -> triggerUpdate), and the node's annotations prove nothing
    // either (writer.go SetDegraded with the same text changes nothing, update.go update skips
    // SetWorking over Degraded, drain.go performDrain skips a drain already done). So it stays an
    // older config's failure until it changes, and the deadline reports it; a false failure of a
    // rollout that would converge is the worse error.
    const restarted = structuredClone(working);
    restarted.status.conditions[1] = {
      type: "UpdatePrepared",
      status: "True",
      message: "Update Compatible. Post Cfg Actions: [] Drain Required: true",
    };
    assert.equal(at(restarted, 6 * PERSISTENCE_MS + 1).state, "waiting");
    assert.equal(at(restarted, 8 * PERSISTENCE_MS).state, "waiting");
    const failed = structuredClone(working);
    (failed.status.conditions[0] as { message: string }).message =
      "Node ip-10-0-1-2 upgrade failure. disk full";
    assert.equal(at(failed, 8 * PERSISTENCE_MS).state, "waiting");
    assert.equal(at(failed, 9 * PERSISTENCE_MS).state, "failed");
  });
});

describe("per-node timings from MachineConfigNode transitions", () => {
  const node = (conditions: Array<[string, string, string]>) =>
    ({
      apiVersion: "machineconfiguration.openshift.io/v1",
      kind: "MachineConfigNode",
      metadata: { name: "ip-10-0-1-2" },
      status: {
        conditions: conditions.map(([type, status, at]) => ({
          type,
          status,
          lastTransitionTime: `2026-11-24T10:${at}Z`,
        })),
      },
    }) as KubeObject;

  it("drain from Cordoned to Drained, reboot from AppliedFilesAndOS to RebootedNode; means over nodes", () => {
    const done = node([
      ["Cordoned", "True", "00:00"],
      ["Drained", "True", "01:30"],
      ["AppliedFilesAndOS", "True", "02:00"],
      ["RebootedNode", "True", "05:00"],
    ]);
    assert.deepEqual(observedNodeTimings(done), { drainSeconds: 90, rebootSeconds: 180 });
    // Still rebooting: only the drain is known.
    const rebooting = node([
      ["Cordoned", "True", "00:00"],
      ["Drained", "True", "00:30"],
      ["AppliedFilesAndOS", "True", "01:00"],
      ["RebootedNode", "Unknown", "01:00"],
    ]);
    assert.deepEqual(observedNodeTimings(rebooting), { drainSeconds: 30 });
    assert.deepEqual(meanNodeTimings([observedNodeTimings(done), observedNodeTimings(rebooting)]), {
      drainSeconds: 60,
      rebootSeconds: 180,
    });
    assert.equal(meanNodeTimings([observedNodeTimings(node([]))]), undefined);
  });
});

describe("pool rollout predicate: no early success", () => {
  const rolledOut = pool({ source: ["99-worker-chrony"] });
  const withStatus = (edit: (status: Record<string, unknown>) => void): KubeObject => {
    const p = structuredClone(rolledOut);
    edit(p.status as Record<string, unknown>);
    return p;
  };
  const evaluate = (p: KubeObject, o: Partial<PoolObservation> = {}) =>
    evaluatePoolRollout(ours, observation({ pool: p, machineConfigs: created, ...o }));

  it("is done only when every part of the status says so", () => {
    const done = evaluate(rolledOut);
    assert.equal(done.state, "done");
    assert.equal(done.result?.readyMachineCount, 3);
    const notYet: Array<[string, KubeObject]> = [
      [
        "status still on the old render",
        withStatus((s) => (s.configuration = { name: "rendered-worker-old" })),
      ],
      ["Updated=False", withStatus((s) => (s.conditions = [{ type: "Updated", status: "False" }]))],
      ["a machine not updated", withStatus((s) => (s.updatedMachineCount = 2))],
      ["a machine degraded", withStatus((s) => (s.degradedMachineCount = 1))],
      ["an older generation observed", withStatus((s) => (s.observedGeneration = 1))],
    ];
    for (const [why, p] of notYet) assert.notEqual(evaluate(p, { nodes: [] }).state, "done", why);
  });

  it("waits for each object it reads: our MachineConfig, our KubeletConfig and its outcome, the generated and the rendered config", () => {
    assert.match(
      evaluate(rolledOut, { machineConfigs: { "99-worker-chrony": null } }).message,
      /MachineConfig 99-worker-chrony does not exist yet/,
    );
    const target = { ...ours, kubeletConfigs: ["max-pods"] };
    const kubelet = (conditions: Array<{ type: string; status: string }>): KubeObject => ({
      metadata: { name: "max-pods", generation: 1 },
      status: { observedGeneration: 1, conditions },
    });
    const withKubelet = (o: Partial<PoolObservation>) =>
      evaluatePoolRollout(target, observation({ pool: rolledOut, machineConfigs: created, ...o }));
    assert.match(withKubelet({}).message, /KubeletConfig max-pods does not exist yet/);
    // Processed (observedGeneration current) but with no outcome yet: not a Success.
    assert.match(
      withKubelet({ kubeletConfigs: [kubelet([])] }).message,
      /waiting for the MCO to process KubeletConfig max-pods/,
    );
    const succeeded = kubelet([{ type: "Success", status: "True" }]);
    const generatedKey = "99-worker-generated-kubelet@1";
    assert.match(
      withKubelet({ kubeletConfigs: [succeeded], generated: { [generatedKey]: null } }).message,
      /waiting for the MCO to generate 99-worker-generated-kubelet from KubeletConfig max-pods/,
    );
    const changed = { "99-worker-chrony": mc("99-worker-chrony", 2, { "/etc/chrony.conf": "x" }) };
    assert.match(
      evaluate(rolledOut, { machineConfigs: changed, rendered: { "rendered-worker-new": null } }).message,
      /waiting for rendered-worker-new to exist/,
    );
  });

  it("judges a KubeletConfig's failure only on our KubeletConfig", () => {
    const target = { ...ours, kubeletConfigs: ["max-pods"] };
    const other: KubeObject = {
      metadata: { name: "theirs", generation: 1 },
      status: { observedGeneration: 1, conditions: [{ type: "Failure", status: "True", message: "bad" }] },
    };
    const e = evaluatePoolRollout(
      target,
      observation({ pool: rolledOut, machineConfigs: created, kubeletConfigs: [other] }),
    );
    assert.equal(e.state, "waiting");
    assert.match(e.message, /KubeletConfig max-pods does not exist yet/);
  });

  it("fails on a paused pool whether or not it rendered, also while a node is degraded", () => {
    const paused = (p: KubeObject) => {
      const copy = structuredClone(p);
      (copy.spec as { paused: boolean }).paused = true;
      return copy;
    };
    const unrendered = pool({ source: [] });
    assert.match(evaluate(paused(unrendered)).message, /is paused: it will not roll out a new configuration/);
    const degraded = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
    const olderFailure = [node("worker-a", "Degraded", "rendered-worker-broken", "drift")];
    const e = evaluate(paused(degraded), { nodes: olderFailure });
    assert.equal(e.state, "failed");
    assert.match(e.message, /is paused at 1\/3 updated/);
  });

  it("takes the pool's NodeDegraded condition alone as a reason to look at the nodes", () => {
    const lagging = pool({
      source: ["99-worker-chrony"],
      updated: 1,
      conditions: [{ type: "NodeDegraded", status: "True" }],
    });
    assert.equal(evaluate(lagging, { nodes: undefined }).needs.nodes, true);
    // Which needs MachineConfigNodes to be known first.
    assert.deepEqual(evaluate(lagging, { machineConfigNodes: undefined }).needs, {
      machineConfigNodes: true,
    });
  });

  it("reads the node annotations when the MachineConfigNodes show no node degraded on the target", () => {
    const p = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
    const quiet = mcn("worker-a", "rendered-worker-old", "rendered-worker-new", { UpdatePrepared: ["True"] });
    const nodes = [node("worker-a", "Degraded", "rendered-worker-new", "failed to write /usr/x")];
    const at = overTime(
      observation({ pool: p, machineConfigs: created, machineConfigNodes: [quiet], nodes }),
    );
    assert.equal(at(0).state, "waiting");
    assert.match(
      at(PERSISTENCE_MS).message,
      /node worker-a \(Degraded\): failed to write \/usr\/x \(persisted/,
    );
  });

  it("leaves out nodes its selector does not pick, and names nodes in name order", () => {
    const p = pool({ source: ["99-worker-chrony"], updated: 0, degraded: 3 });
    const stranger = node("worker-0", "Degraded", "rendered-worker-new", "not ours");
    stranger.metadata.labels = { "node-role.kubernetes.io/infra": "" };
    const ours3 = ["worker-c", "worker-b", "worker-a"].map((n) =>
      node(n, "Degraded", "rendered-worker-new", n),
    );
    const e = evaluate(p, { nodes: [stranger, ...ours3] });
    assert.match(e.message, /degraded: node worker-a .*; node worker-b .*; node worker-c /);
    assert.doesNotMatch(e.message, /worker-0/);
    const mcns3 = ["ip-2", "ip-3", "ip-1"].map((n) =>
      mcn(n, "rendered-worker-old", "rendered-worker-new", { NodeDegraded: ["True", n] }),
    );
    assert.match(
      evaluate(p, { machineConfigNodes: mcns3 }).message,
      /degraded: node ip-1 .*; node ip-2 .*; node ip-3 /,
    );
  });

  it("rechecks when the earliest of the failures it times would become final", () => {
    const p = pool({
      source: ["99-worker-chrony"],
      updated: 0,
      degraded: 2,
      statusName: "rendered-worker-old",
    });
    const failing = node("worker-a", "Degraded", "rendered-worker-new", "failed to write /usr/x");
    const atRest = node("worker-b", "Degraded", "rendered-worker-old", "error setting node's state to Done");
    atRest.metadata.annotations!["machineconfiguration.openshift.io/currentConfig"] = "rendered-worker-old";
    (p.spec as Record<string, unknown>).maxUnavailable = 1;
    const since: Sightings = {};
    const first = evaluate(p, { nodes: [failing], since, nowMs: 0 });
    recordSightings(since, first.problems ?? [], 0);
    const later = evaluate(p, { nodes: [failing, atRest], since, nowMs: 60_000 });
    assert.equal(later.recheckMs, PERSISTENCE_MS - 60_000);
  });
});

describe("missingFromRender: a render that carries an older version of each piece", () => {
  const config = (name: string, spec: Record<string, unknown>, role = "worker"): KubeObject => ({
    metadata: { name, labels: { "machineconfiguration.openshift.io/role": role } },
    spec,
  });
  const render = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: "rendered-x" }, spec });
  const units = (...u: Array<Record<string, unknown>>) => ({ config: { systemd: { units: u } } });

  it("names a unit whose contents, enablement, mask or drop-in differ", () => {
    const old = {
      name: "a.service",
      contents: "[Unit] old",
      enabled: false,
      mask: false,
      dropins: [{ name: "10.conf", contents: "old" }],
    };
    const changes: Array<Record<string, unknown>> = [
      { name: "a.service", contents: "[Unit] new" },
      { name: "a.service", enabled: true },
      { name: "a.service", mask: true },
      { name: "a.service", dropins: [{ name: "10.conf", contents: "new" }] },
    ];
    for (const change of changes) {
      assert.match(
        missingFromRender(render(units(old)), [config("99-x", units(change))]) ?? "",
        /lacks systemd unit a.service of 99-x/,
        JSON.stringify(change),
      );
    }
    assert.equal(
      missingFromRender(render(units(old)), [config("99-x", units({ name: "a.service" }))]),
      undefined,
    );
  });

  it("merges as the MCO does: a later config keeps what it does not set of a unit, and worker configs come first", () => {
    const full = config(
      "10-a",
      units({ name: "a.service", contents: "[Unit] a", enabled: true, mask: false }),
    );
    const dropin = config("20-b", units({ name: "a.service", dropins: [{ name: "x.conf", contents: "x" }] }));
    const merged = render(
      units({
        name: "a.service",
        contents: "[Unit] a",
        enabled: true,
        mask: false,
        dropins: [{ name: "x.conf", contents: "x" }],
      }),
    );
    assert.equal(missingFromRender(merged, [dropin, full]), undefined);
    const lost = render(units({ name: "a.service", dropins: [{ name: "x.conf", contents: "x" }] }));
    assert.match(missingFromRender(lost, [full, dropin]) ?? "", /lacks systemd unit a.service of 20-b/);
    // The infra pool's own file wins over the worker's, whatever their names.
    const file = (name: string, role: string, source: string) =>
      config(name, { config: { storage: { files: [{ path: "/etc/x", contents: { source } }] } } }, role);
    const infraWins = render({
      config: { storage: { files: [{ path: "/etc/x", contents: { source: "infra" } }] } },
    });
    assert.equal(
      missingFromRender(infraWins, [
        file("00-infra", "infra", "infra"),
        file("99-worker", "worker", "worker"),
      ]),
      undefined,
    );
  });

  it("names a key another user has, the old OS image, and ignores the default kernelType", () => {
    const keyOf = (user: string) => ({
      config: { passwd: { users: [{ name: user, sshAuthorizedKeys: ["ssh-ed25519 NEW"] }] } },
    });
    assert.match(
      missingFromRender(render(keyOf("other")), [config("99-x", keyOf("core"))]) ?? "",
      /lacks an SSH key of user core/,
    );
    assert.match(
      missingFromRender(render({ osImageURL: "quay.io/os@sha256:old" }), [
        config("99-x", { osImageURL: "quay.io/os@sha256:new" }),
      ]) ?? "",
      /lacks the osImageURL of 99-x/,
    );
    assert.equal(missingFromRender(render({}), [config("99-x", { kernelType: "default" })]), undefined);
    assert.match(
      missingFromRender(render({ kernelType: "64k-pages" }), [config("99-x", { kernelType: "realtime" })]) ??
        "",
      /lacks kernelType realtime/,
    );
  });
});

describe("pool rollout predicate: what each decision reads", () => {
  const evaluate = (p: KubeObject, o: Partial<PoolObservation> = {}, target = ours) =>
    evaluatePoolRollout(target, observation({ pool: p, machineConfigs: created, ...o }));

  it("counts only a Failure that is True, and names a ContainerRuntimeConfig's generated config", () => {
    const target = { ...ours, containerRuntimeConfigs: ["pids"] };
    const crc = (conditions: Array<{ type: string; status: string }>): KubeObject => ({
      metadata: { name: "pids", generation: 1 },
      status: { observedGeneration: 1, conditions },
    });
    const p = pool({ source: ["99-worker-chrony"] });
    assert.equal(
      evaluate(p, { containerRuntimeConfigs: [crc([{ type: "Failure", status: "False" }])] }, target).state,
      "waiting",
    );
    const e = evaluate(p, { containerRuntimeConfigs: [crc([{ type: "Success", status: "True" }])] }, target);
    assert.deepEqual(
      e.needs.generated?.map((g) => g.machineConfig),
      ["99-worker-generated-containerruntime"],
    );
  });

  it("takes a render failure that predates the wait as renewed when it transitions again", () => {
    const failure = {
      type: "RenderDegraded",
      status: "True",
      message: "bad",
      lastTransitionTime: "2026-11-24T10:00:00Z",
    };
    const again = { ...failure, lastTransitionTime: "2026-11-24T10:05:00Z" };
    const p = pool({ source: ["99-worker-chrony"], updated: 0, conditions: [again] });
    assert.equal(evaluate(p, { initialRenderDegraded: failure }).state, "failed");
    assert.equal(
      evaluate(pool({ source: ["99-worker-chrony"], updated: 0, conditions: [failure] }), {
        initialRenderDegraded: failure,
      }).state,
      "waiting",
    );
  });

  it("starts the count again when a node at rest fails anew, and names nodes at rest in name order", () => {
    const p = pool({
      source: ["99-worker-chrony"],
      updated: 0,
      degraded: 2,
      statusName: "rendered-worker-old",
    });
    (p.spec as Record<string, unknown>).maxUnavailable = 2;
    const atRest = (name: string, reason: string) => {
      const n = node(name, "Degraded", "rendered-worker-old", reason);
      n.metadata.annotations!["machineconfiguration.openshift.io/currentConfig"] = "rendered-worker-old";
      return n;
    };
    const both = evaluatePoolRollout(
      ours,
      observation({
        pool: p,
        machineConfigs: created,
        nodes: [atRest("worker-b", "y"), atRest("worker-a", "x")],
      }),
    );
    assert.match(
      both.message,
      /held back by nodes degraded at rest: node worker-a \(Degraded\): x .*; node worker-b /,
    );
    const one = structuredClone(p);
    (one.spec as Record<string, unknown>).maxUnavailable = 1;
    const at = overSteps((reason: string) =>
      observation({ pool: one, machineConfigs: created, nodes: [atRest("worker-b", reason)] }),
    );
    assert.equal(at("error one", 0).state, "waiting");
    assert.equal(at("error two", 4 * 60_000).state, "waiting");
    assert.equal(at("error two", PERSISTENCE_MS + 60_000).state, "waiting");
    assert.equal(at("error two", 4 * 60_000 + PERSISTENCE_MS).state, "failed");
  });

  it("counts a MachineConfigNode degraded on another config, or not degraded, as no failure of the target", () => {
    const other = mcn("ip-1", "rendered-worker-old", "rendered-worker-broken", {
      NodeDegraded: ["True", "x"],
    });
    const recovered = mcn("ip-2", "rendered-worker-old", "rendered-worker-new", {
      NodeDegraded: ["False", "y"],
      Updated: ["True"],
    });
    assert.deepEqual(failingMachineConfigNodes([other, recovered], "rendered-worker-new"), {
      failing: [],
      inherited: [],
    });
    // NodeDegraded without a message, carried from the first look: still the carried failure.
    const silent = mcn("ip-3", "rendered-worker-old", "rendered-worker-new", { NodeDegraded: ["True"] });
    assert.deepEqual(failingMachineConfigNodes([silent], "rendered-worker-new", { "ip-3": "" }).failing, []);
    assert.equal(
      failingMachineConfigNodes([silent], "rendered-worker-new", { "ip-3": "other" }).failing.length,
      1,
    );
  });
});

describe("MachineConfigNode phases in words", () => {
  const phase = (conditions: Record<string, [string, string?]>) =>
    phaseOf(mcn("ip-1", "rendered-worker-old", "rendered-worker-new", conditions));

  it("names the most advanced phase the daemon reports", () => {
    const table: Array<[Record<string, [string, string?]>, string]> = [
      [{ NodeDegraded: ["True"], Drained: ["Unknown"] }, "degraded"],
      [{ Resumed: ["True"], RebootedNode: ["Unknown"] }, "resuming"],
      [{ UpdateComplete: ["True"] }, "resuming"],
      [{ RebootedNode: ["Unknown"], UpdatePostActionComplete: ["Unknown"] }, "rebooting"],
      [{ UpdatePostActionComplete: ["Unknown"], Drained: ["Unknown"] }, "reloading services"],
      [{ UpdatePostActionComplete: ["True"], Drained: ["Unknown"] }, "completing"],
      [{ Drained: ["Unknown"], UpdateExecuted: ["Unknown"] }, "draining"],
      [{ UpdateExecuted: ["Unknown"], UpdatePrepared: ["True"] }, "applying files and OS"],
      [{ UpdateExecuted: ["True"] }, "applying files and OS"],
      [{ UpdatePrepared: ["True"] }, "preparing"],
      [{ UpdatePrepared: ["Unknown"] }, "preparing"],
      [{ NodeDegraded: ["False"], Resumed: ["False"], UpdateExecuted: ["False"] }, "waiting"],
    ];
    for (const [conditions, words] of table)
      assert.equal(phase(conditions), words, JSON.stringify(conditions));
  });

  it("lists the nodes not yet updated to the target, in name order", () => {
    const updated = mcn("ip-1", "rendered-worker-new", "rendered-worker-new", { Updated: ["True"] });
    const claimsButOld = mcn("ip-2", "rendered-worker-old", "rendered-worker-new", { Updated: ["True"] });
    const onTargetNotUpdated = mcn("ip-3", "rendered-worker-new", "rendered-worker-new", {
      Updated: ["False"],
    });
    const draining = mcn("ip-0", "rendered-worker-old", "rendered-worker-new", { Drained: ["Unknown"] });
    assert.equal(isUpdatedTo(updated, "rendered-worker-new"), true);
    assert.equal(isUpdatedTo(claimsButOld, "rendered-worker-new"), false);
    assert.equal(
      describeNodePhases([onTargetNotUpdated, updated, draining, claimsButOld], "rendered-worker-new"),
      "ip-0 draining, ip-2 waiting, ip-3 waiting",
    );
  });

  it("names the first nodes not yet updated and counts the others by phase, so that a large pool's line stays short", () => {
    const nodes = Array.from({ length: PHASES_NAMED + 3 }, (_, i) =>
      mcn(`ip-${String(i).padStart(2, "0")}`, "rendered-worker-old", "rendered-worker-new", {
        ...(i % 2 === 0 ? { Drained: ["Unknown"] } : {}),
      }),
    );
    const updated = mcn("ip-99", "rendered-worker-new", "rendered-worker-new", { Updated: ["True"] });
    const named = nodes
      .slice(0, PHASES_NAMED)
      .map((m, i) => `${m.metadata.name} ${i % 2 === 0 ? "draining" : "waiting"}`);
    // The 11th to 13th: ip-10 and ip-12 draining, ip-11 waiting; phases in the order of their first node.
    assert.equal(
      describeNodePhases([updated, ...[...nodes].reverse()], "rendered-worker-new"),
      `${named.join(", ")} and 3 more: 2 draining, 1 waiting`,
    );
    assert.equal(
      describeNodePhases(nodes.slice(0, PHASES_NAMED), "rendered-worker-new"),
      named.join(", "),
      "as many as are named: no count",
    );
  });

  it("takes no timing from a span that runs backwards, and zero seconds as zero", () => {
    const timed = (cordoned: string, drained: string): KubeObject => ({
      metadata: { name: "ip-1" },
      status: {
        conditions: [
          { type: "Cordoned", status: "True", lastTransitionTime: cordoned },
          { type: "Drained", status: "True", lastTransitionTime: drained },
        ],
      },
    });
    assert.deepEqual(observedNodeTimings(timed("2026-11-24T10:01:00Z", "2026-11-24T10:00:00Z")), {});
    assert.deepEqual(observedNodeTimings(timed("2026-11-24T10:00:00Z", "2026-11-24T10:00:00Z")), {
      drainSeconds: 0,
    });
  });
});

describe("pool rollout predicate: which failures nodes carried into the wait", () => {
  const degradedPool = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 1 });
  const minute = 60_000;
  const drainedFor = (n: KubeObject, reason: string): KubeObject => {
    const copy = structuredClone(n);
    Object.assign(copy.metadata.annotations!, {
      "machineconfiguration.openshift.io/desiredConfig": "rendered-worker-new",
      "machineconfiguration.openshift.io/desiredDrain": "drain-rendered-worker-new",
      "machineconfiguration.openshift.io/reason": reason,
    });
    return copy;
  };

  it("takes a failure the daemon writes after draining for the target as the target's, though the node carried another", () => {
    // daemon.go handleErr/updateErrorState write the reason only when an attempt fails; drain.go
    // performDrain asks for `drain-<target>` first: a new reason after it is the target attempt's.
    const carried = node("worker-a", "Degraded", "rendered-worker-broken", "failed to write /usr/x");
    const at = overSteps(
      (n: KubeObject) => observation({ pool: degradedPool, machineConfigs: created, nodes: [n] }),
      ours,
      {},
    );
    assert.equal(at(carried, 0).state, "waiting");
    const failedTarget = drainedFor(carried, "failed to write /usr/y");
    assert.equal(at(failedTarget, minute).state, "waiting");
    const final = at(failedTarget, minute + PERSISTENCE_MS);
    assert.equal(final.state, "failed");
    assert.match(final.message, /node worker-a \(Degraded\): failed to write \/usr\/y \(persisted 5m0s/);
  });

  it("takes a failure first listed after the drain for the target as the target's when the pool was healthy at the first look", () => {
    // Nodes are listed only once the pool reports degraded ones (status.go calculateStatus): a pool
    // healthy at the first look had no failure then, so nothing seen later is carried.
    const healthy = pool({ source: ["99-worker-chrony"], updated: 1 });
    const failing = drainedFor(node("worker-a", "Degraded", "rendered-worker-new"), "failed to write /usr/y");
    const at = overSteps(
      ([p, nodes]: [KubeObject, KubeObject[] | undefined]) =>
        observation({ pool: p, machineConfigs: created, nodes }),
      ours,
      {},
    );
    assert.equal(at([healthy, undefined], 0).state, "waiting");
    assert.equal(at([degradedPool, [failing]], minute).state, "waiting");
    assert.equal(at([degradedPool, [failing]], minute + PERSISTENCE_MS).state, "failed");
  });

  it("follows each MachineConfigNode's NodeDegraded: carried into the target while the daemon works, cleared by a success, the target's when written again", () => {
    // update.go update reports NodeDegraded at the end of every attempt (reportMachineNodeDegradeStatus:
    // True with the error, False with "upgrade succeeded"); upgrade_monitor.go
    // GenerateAndApplyMachineConfigNodes writes status.configVersion.desired from the node's desiredConfig.
    const healthy = pool({ source: ["99-worker-chrony"], updated: 1 });
    const message = "Node ip-2 upgrade failure. failed to drain node: timed out";
    const done = mcn("ip-1", "rendered-worker-new", "rendered-worker-new", { Updated: ["True"] });
    const b = (desired: string, degraded: [string, string]) =>
      mcn("ip-2", "rendered-worker-old", desired, { NodeDegraded: degraded, Updated: ["False"] });
    const at = overSteps(
      ([p, m]: [KubeObject, KubeObject]) =>
        observation({ pool: p, machineConfigs: created, machineConfigNodes: [done, m], nodes: [] }),
      ours,
      {},
    );
    assert.equal(
      at([healthy, b("rendered-worker-mid", ["False", "Node ip-2 upgrade succeeded"])], 0).state,
      "waiting",
    );
    // Fails an intermediate config during the wait, then is handed the target: carried while it works.
    assert.equal(at([degradedPool, b("rendered-worker-mid", ["True", message])], minute).state, "waiting");
    const carried = at([degradedPool, b("rendered-worker-new", ["True", message])], 2 * minute);
    assert.match(
      carried.message,
      /degraded on an older config while the daemon applies the target: node ip-2/,
    );
    assert.equal(
      at([degradedPool, b("rendered-worker-new", ["True", message])], 2 * minute + 2 * PERSISTENCE_MS).state,
      "waiting",
    );
    // An attempt succeeds, and a later one on the target fails alike: that failure is the target's.
    const t = 3 * minute + 2 * PERSISTENCE_MS;
    at([degradedPool, b("rendered-worker-new", ["False", "Node ip-2 upgrade succeeded"])], t);
    assert.equal(
      at([degradedPool, b("rendered-worker-new", ["True", message])], t + minute).state,
      "waiting",
    );
    const final = at(
      [degradedPool, b("rendered-worker-new", ["True", message])],
      t + minute + PERSISTENCE_MS,
    );
    assert.equal(final.state, "failed");
    assert.match(final.message, /node ip-2 \(NodeDegraded\): Node ip-2 upgrade failure\. failed to drain/);
  });

  it("takes a NodeDegraded already on the target in a degraded pool's first look as carried, since nothing tells whether it predates the wait", () => {
    // The daemon rewrites NodeDegraded only when an attempt ends (update.go update, deferred
    // reportMachineNodeDegradeStatus) and retries with the same text: at the first look, a failure
    // from before the handover and one of the target read alike.
    const onTarget = mcn("ip-2", "rendered-worker-old", "rendered-worker-new", {
      NodeDegraded: ["True", "Node ip-2 upgrade failure. failed to drain node: timed out"],
      Drained: ["Unknown", "Draining node"],
    });
    const at = overSteps(
      () => observation({ pool: degradedPool, machineConfigs: created, machineConfigNodes: [onTarget] }),
      ours,
      {},
    );
    assert.equal(at(undefined, 0).state, "waiting");
    const later = at(undefined, 2 * PERSISTENCE_MS);
    assert.equal(later.state, "waiting");
    assert.match(
      later.message,
      /degraded on an older config while the daemon applies the target: node ip-2 \(Drained\)/,
    );
  });

  it("keeps a NodeDegraded without a message that the node carried into the target as carried", () => {
    const at = overSteps(
      (m: KubeObject) =>
        observation({ pool: degradedPool, machineConfigs: created, machineConfigNodes: [m] }),
      ours,
      {},
    );
    const silent = (desired: string) =>
      mcn("ip-2", "rendered-worker-old", desired, { NodeDegraded: ["True"], UpdateExecuted: ["Unknown"] });
    assert.equal(at(silent("rendered-worker-mid"), 0).state, "waiting");
    assert.equal(at(silent("rendered-worker-new"), minute).state, "waiting");
    const later = at(silent("rendered-worker-new"), minute + 2 * PERSISTENCE_MS);
    assert.equal(later.state, "waiting");
    assert.match(later.message, /degraded on an older config while the daemon applies the target: node ip-2/);
  });

  it("takes a NodeDegraded first listed on the target as the target's when the pool was healthy at the first look", () => {
    const healthy = pool({ source: ["99-worker-chrony"], updated: 1 });
    const failing = mcn("ip-2", "rendered-worker-old", "rendered-worker-new", {
      NodeDegraded: ["True", "Node ip-2 upgrade failure. disk full"],
    });
    const at = overSteps(
      ([p, mcns]: [KubeObject, KubeObject[] | undefined]) =>
        observation({ pool: p, machineConfigs: created, machineConfigNodes: mcns }),
      ours,
      {},
    );
    assert.equal(at([healthy, undefined], 0).state, "waiting");
    assert.equal(at([degradedPool, [failing]], minute).state, "waiting");
    assert.equal(at([degradedPool, [failing]], minute + PERSISTENCE_MS).state, "failed");
  });

  it("names the NodeDegraded condition when no phase is in progress", () => {
    const failing = mcn("ip-2", "rendered-worker-old", "rendered-worker-new", {
      UpdatePrepared: ["True", "Update Compatible"],
      UpdateExecuted: ["False", "Update not started"],
      NodeDegraded: ["True", "Node ip-2 upgrade failure. missing MachineConfig rendered-worker-new"],
    });
    assert.deepEqual(
      failingMachineConfigNodes([failing], "rendered-worker-new").failing.map((f) => f.message),
      ["node ip-2 (NodeDegraded): Node ip-2 upgrade failure. missing MachineConfig rendered-worker-new"],
    );
  });

  it("joins what it waits on in one line: failures it times, and each failure carried into the target", () => {
    const at = overSteps(
      (nodes: KubeObject[]) => observation({ pool: degradedPool, machineConfigs: created, nodes }),
      ours,
      {},
    );
    const a = node("worker-a", "Degraded", "rendered-worker-broken", "failed to write /usr/a");
    const b = node("worker-b", "Degraded", "rendered-worker-broken", "failed to write /usr/b");
    at([a, b], 0);
    const c = node("worker-c", "Degraded", "rendered-worker-new", "failed to write /usr/c");
    const e = at(
      [drainedFor(a, "failed to write /usr/a"), drainedFor(b, "failed to write /usr/b"), c],
      minute,
    );
    assert.equal(
      e.message,
      "pool worker: 1/3 updated -> rendered-worker-new; degraded: node worker-c (Degraded): failed to write /usr/c (for 0m0s; retried, final after 5m0s); degraded on an older config while the daemon applies the target: node worker-a (Degraded): failed to write /usr/a; node worker-b (Degraded): failed to write /usr/b",
    );
  });
});

describe("pool rollout predicate: nodes named in failures", () => {
  const degradedPool = pool({ source: ["99-worker-chrony"], updated: 1, degraded: 2 });
  const withoutReason = (n: KubeObject) => {
    delete n.metadata.annotations!["machineconfiguration.openshift.io/reason"];
    return n;
  };

  it("names the failing nodes in name order, one the daemon gave no reason as such", () => {
    // daemon.go updateErrorState writes the reason beside the state; a node may carry the state alone.
    const nodes = [
      node("worker-b", "Degraded", "rendered-worker-new", "failed to write /usr/b"),
      withoutReason(node("worker-a", "Unreconcilable", "rendered-worker-new")),
    ];
    const at = overTime(observation({ pool: degradedPool, machineConfigs: created, nodes }));
    at(0);
    assert.equal(
      at(PERSISTENCE_MS).message,
      "pool worker is degraded rolling out rendered-worker-new: node worker-a (Unreconcilable): no reason given (persisted 5m0s, past the 5m0s allowed for retries); node worker-b (Degraded): failed to write /usr/b (persisted 5m0s, past the 5m0s allowed for retries)",
    );
  });

  it("names a node degraded at rest without a reason as giving none", () => {
    const atRest = withoutReason(node("worker-a", "Degraded", "rendered-worker-old"));
    atRest.metadata.annotations!["machineconfiguration.openshift.io/desiredConfig"] = "rendered-worker-old";
    const p = pool({ source: ["99-worker-chrony"], updated: 0, degraded: 1 });
    (p.spec as Record<string, unknown>).maxUnavailable = 1;
    const at = overTime(observation({ pool: p, machineConfigs: created, nodes: [atRest] }));
    at(0);
    assert.equal(
      at(PERSISTENCE_MS).message,
      "pool worker cannot roll out rendered-worker-new: degraded at rest, node worker-a (Degraded): no reason given (persisted 5m0s, past the 5m0s allowed for retries) uses up maxUnavailable, so the MCO updates no node until they recover",
    );
  });

  it("takes a node degraded on the target itself as failing the target, not as held back at rest", () => {
    // layered_node_state.go IsUnavailableForUpdate: a node on its desired config counts as
    // unavailable, but one whose desired config is the target already has it: it is not held back.
    const drifted = node("worker-a", "Degraded", "rendered-worker-new", 'content mismatch for file "/etc/x"');
    drifted.metadata.annotations!["machineconfiguration.openshift.io/currentConfig"] = "rendered-worker-new";
    const at = overTime(observation({ pool: degradedPool, machineConfigs: created, nodes: [drifted] }));
    assert.equal(at(0).state, "waiting");
    const final = at(PERSISTENCE_MS);
    assert.equal(final.state, "failed");
    assert.match(final.message, /^pool worker is degraded rolling out rendered-worker-new: node worker-a/);
  });
});

describe("pool rollout predicate: the words of each wait", () => {
  const evaluate = (target: PoolRolloutTarget, o: Partial<PoolObservation>) => {
    const e = evaluatePoolRollout(target, observation(o));
    return [e.state, e.message, e.needs];
  };

  it("says what it reads", () => {
    const p = pool({ source: ["99-worker-chrony", "99-worker-generated-kubelet"] });
    assert.deepEqual(evaluate(ours, { pool: p }), [
      "waiting",
      "pool worker: reading MachineConfigs",
      { machineConfigs: ["99-worker-chrony"] },
    ]);
    const kubelet: KubeObject = {
      metadata: { name: "max-pods", generation: 1 },
      status: { observedGeneration: 1, conditions: [{ type: "Success", status: "True" }] },
    };
    const generated = [
      {
        owner: "KubeletConfig",
        ownerName: "max-pods",
        machineConfig: "99-worker-generated-kubelet",
        generation: 1,
      },
    ];
    assert.deepEqual(
      evaluate(
        { ...ours, kubeletConfigs: ["max-pods"] },
        { pool: p, machineConfigs: created, kubeletConfigs: [kubelet] },
      ),
      ["waiting", "pool worker: reading generated MachineConfigs", { generated }],
    );
    const changed = { "99-worker-chrony": mc("99-worker-chrony", 2) };
    assert.deepEqual(evaluate(ours, { pool: p, machineConfigs: changed }), [
      "waiting",
      "pool worker: reading rendered-worker-new",
      { rendered: "rendered-worker-new" },
    ]);
  });

  it("says which MachineConfigs the render must still include or drop", () => {
    const target = {
      pool: "worker",
      machineConfigs: ["99-a", "99-b"],
      deletedMachineConfigs: ["99-c", "99-d"],
    };
    const configs = { "99-a": mc("99-a", 1), "99-b": mc("99-b", 1) };
    const render = (source: string[]) =>
      evaluate(target, { pool: pool({ source }), machineConfigs: configs })[1];
    const words = "pool worker: waiting for the MCO to render the configuration";
    assert.equal(render(["99-c", "99-d"]), `${words} to include 99-a, 99-b and to drop 99-c, 99-d`);
    assert.equal(render(["99-a", "99-b", "99-c"]), `${words} to drop 99-c`);
    assert.equal(render(["99-a"]), `${words} to include 99-b`);
  });

  it("waits for a new pool's first render when it only drops MachineConfigs", () => {
    const fresh = pool({});
    fresh.spec = { ...(fresh.spec as object), configuration: {} };
    assert.deepEqual(evaluate({ pool: "worker", deletedMachineConfigs: ["99-c"] }, { pool: fresh }), [
      "waiting",
      "pool worker: waiting for the MCO to render the pool's first configuration",
      {},
    ]);
  });

  it("says the MCO cannot render, with nothing after the colon when it gives no message", () => {
    const p = pool({ conditions: [{ type: "RenderDegraded", status: "True" }] });
    assert.deepEqual(evaluate(ours, { pool: p, machineConfigs: created }), [
      "failed",
      "pool worker: the MCO cannot render its configuration:",
      {},
    ]);
  });
});

describe("missingFromRender: Ignition pieces merged and compared as the MCO does", () => {
  // common/helpers.go MergeMachineConfigs: worker configs first, then by name, merged with Ignition's
  // merge (child lists such as a unit's drop-ins merge by name); osImageURL only where a config sets it.
  const config = (name: string, spec: Record<string, unknown>): KubeObject => ({
    metadata: { name, generation: 2, labels: { "machineconfiguration.openshift.io/role": "worker" } },
    spec,
  });
  const render = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: "rendered-x" }, spec });
  const unit = (...dropins: Array<[string, string]>) => ({
    config: {
      systemd: {
        units: [
          { name: "kubelet.service", dropins: dropins.map(([name, contents]) => ({ name, contents })) },
        ],
      },
    },
  });

  it("keeps a unit's drop-ins from an earlier config when a later one adds its own", () => {
    const configs = [config("99-a", unit(["10-a.conf", "A"])), config("99-b", unit(["20-b.conf", "B"]))];
    assert.equal(
      missingFromRender(render(unit(["20-b.conf", "B"])), configs),
      "rendered-x lacks systemd unit kubelet.service of 99-b",
    );
    assert.equal(missingFromRender(render(unit(["10-a.conf", "A"], ["20-b.conf", "B"])), configs), undefined);
  });

  it("accepts an empty file, a user without SSH keys, and a config that sets no OS image", () => {
    const ours = config("99-a", {
      config: {
        storage: { files: [{ path: "/etc/empty", mode: 420 }] },
        passwd: { users: [{ name: "core", passwordHash: "$6$x" }] },
      },
    });
    const rendered = render({
      osImageURL: "quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0000",
      config: {
        storage: { files: [{ path: "/etc/empty", mode: 420 }] },
        passwd: { users: [{ name: "core", passwordHash: "$6$x", sshAuthorizedKeys: ["ssh-ed25519 AAA"] }] },
      },
    });
    assert.equal(missingFromRender(rendered, [ours]), undefined);
  });
});
