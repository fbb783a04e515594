import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { K, keyOf } from "../test/simulator-fixture";
import {
  checkpointOnCluster,
  destroyLeavesNothing,
  mergePatch,
  previewThenUp,
  refreshFindsDrift,
  revise,
  upTakesBackHandEdits,
} from "../test/stack-life";
import { deploy, DeployEvent, DeployOptions, preview } from "./deploy";
import { installedProgram } from "./installed";
import { loadProject } from "./project";

const PROGRAM = path.join(__dirname, "testdata", "autoscaled-pool");
const NS = "openshift-machine-api";
const SETS = ["cluster-zbwlg-cbgq7-infra-us-east-2a", "cluster-zbwlg-cbgq7-infra-us-east-2b"];
const MA = { apiVersion: "autoscaling.openshift.io/v1beta1", kind: "MachineAutoscaler" };
const MAX_SIZE = "machine.openshift.io/cluster-api-autoscaler-node-group-max-size";
const MHC = { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineHealthCheck" };

type Obj = { metadata: { annotations?: Record<string, string> }; spec?: any; status?: any };

/** Resolves once `check` holds, evaluated now and on every store event; bounded so a bug fails, not hangs. */
function until(sim: Simulator, what: string, check: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    if (check()) return resolve();
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`timed out waiting for ${what}`));
    }, 20_000);
    const unsubscribe = sim.store.subscribe(() => {
      if (!check()) return;
      clearTimeout(timer);
      unsubscribe();
      resolve();
    });
  });
}

/**
 * What release 0.1.0 wrote for PROGRAM with its zones from an output (`zonesFromOutput=true`): its
 * MachineAutoscalers named by position (`infra-0-autoscaler`), as they were whenever zones were not
 * listed in the program.
 */
const ZONES_BY_INDEX = path.join(__dirname, "testdata", "checkpoints", "autoscaled-pool-zones-by-index.json");

/**
 * #40 §4: a stack whose MachineAutoscalers were named by position keeps them once they are named by
 * zone: each is the same object under its new name (an alias), neither created nor deleted.
 */
async function keepsAutoscalersNamedByIndex(
  sim: Simulator,
  dir: string,
  options: (statePath: string) => DeployOptions,
): Promise<void> {
  // Beside the suite's own state, in its temporary directory.
  const statePath = path.join(dir, "zones-by-index.json");
  fs.writeFileSync(statePath, checkpointOnCluster(sim, ZONES_BY_INDEX));
  const planned = await preview(options(statePath));
  assert.deepEqual(planned.errors, []);
  const autoscalers = planned.plan.filter((s) => s.type.endsWith(":MachineAutoscaler"));
  assert.deepEqual(
    autoscalers.map((s) => `${s.op} ${s.name}`).sort(),
    ["same infra-us-east-2a-autoscaler", "same infra-us-east-2b-autoscaler"],
    "each autoscaler is the one the checkpoint holds, renamed",
  );
}

describe("an autoscaled pool with a health check through the deploy harness", function () {
  this.timeout(240_000);
  let sim: Simulator;
  let dir: string;
  const suite = simulatorForSuite("harness-autoscaling-", { speed: 500 });
  before(() => ({ sim, dir } = suite));

  const set = (name: string) => sim.store.get(keyOf(K.machineSet, name, NS)) as Obj | undefined;
  const readyCount = (name: string) => set(name)?.status?.readyReplicas ?? 0;

  it("converges, lets the autoscaler scale without fighting it, replaces a failed node, raises the ceiling by a revision planned exactly, finds drift made by hand, takes hand edits back, and destroys autoscalers first", async () => {
    const statePath = path.join(dir, "autoscaled.json");
    const program = installedProgram(PROGRAM);
    const options = (config: string[] = []): DeployOptions => ({
      project: loadProject(program, "dev", config),
      kubeconfigPath: sim.kubeconfigPath,
      statePath,
    });
    const up = () => deploy(options());

    await previewThenUp(sim, options(), [
      "create autoscaler-cluster-autoscaler",
      "create infra-autoscalers-ready",
      "create infra-health-check",
      "create infra-machines-removal",
      "create infra-node-labels",
      "create infra-pool",
      "create infra-pool-rollout",
      "create infra-us-east-2a",
      "create infra-us-east-2a-autoscaler",
      "create infra-us-east-2b",
      "create infra-us-east-2b-autoscaler",
    ]);
    await keepsAutoscalersNamedByIndex(sim, dir, (state) => ({
      ...options(["zonesFromOutput=true"]),
      statePath: state,
    }));
    for (const name of SETS) {
      const ms = set(name)!;
      assert.equal(ms.spec.replicas, 1, "the pool minimum, spread over the zones");
      assert.equal(ms.metadata.annotations?.[MAX_SIZE], "2");
      assert.equal(readyCount(name), 1);
      const ma = sim.store.get(keyOf(MA, name, NS)) as Obj;
      assert.equal(ma.status.lastTargetRef.name, name);
    }
    const mhc = sim.store.get(keyOf(MHC, "cluster-zbwlg-cbgq7-infra", NS)) as Obj;
    assert.deepEqual(mhc.spec.selector.matchExpressions[0].values, SETS);

    // Pending pods need two more nodes: the autoscaler balances them over the zones.
    sim.faults.inject("pendingPods", { nodes: 2 });
    await until(sim, "scaled up", () =>
      SETS.every((s) => set(s)?.spec.replicas === 2 && readyCount(s) === 2),
    );

    const second = await up();
    assert.deepEqual(second.errors, []);
    assert.equal(second.counts.update ?? 0, 0, "no waiter waits again");
    assert.equal(second.counts.create ?? 0, 0);
    for (const name of SETS) assert.equal(set(name)!.spec.replicas, 2, "the autoscaler's replicas stay");

    // A node whose kubelet stops is replaced by the health check; the pool converges again.
    const machines = () =>
      sim.store
        .list(K.machine.apiVersion, K.machine.kind, { namespace: NS })
        .filter((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === SETS[0]);
    const [victim] = machines();
    const node = (victim.status as { nodeRef: { name: string } }).nodeRef.name;
    sim.faults.inject("stopKubelet", { node });
    await until(
      sim,
      "the failed machine replaced",
      () =>
        !machines().some((m) => m.metadata.name === victim.metadata.name) &&
        readyCount(SETS[0]) === 2 &&
        !sim.store.get(keyOf(K.node, node)),
    );
    const third = await up();
    assert.deepEqual(third.errors, []);
    assert.equal(set(SETS[0])!.spec.replicas, 2);

    // A higher ceiling: the MachineAutoscalers and the waiter for their bounds; the MachineSets, the
    // health check and the pool's rollout stay.
    const raised = options(["maxReplicas=6"]);
    await revise(raised, [
      "update infra-autoscalers-ready",
      "update infra-us-east-2a-autoscaler",
      "update infra-us-east-2b-autoscaler",
    ]);
    for (const name of SETS) {
      const ms = set(name)!;
      assert.equal(ms.metadata.annotations?.[MAX_SIZE], "3", "the new ceiling, spread over the zones");
      assert.equal(ms.spec.replicas, 2, "the autoscaler's replicas stay");
    }

    await refreshFindsDrift(
      sim,
      raised,
      [
        "patch",
        "clusterautoscaler",
        "default",
        "--type=merge",
        '-p={"spec":{"scaleDown":{"unneededTime":"10m"}}}',
      ],
      { "autoscaler-cluster-autoscaler": ["spec.scaleDown.unneededTime"] },
    );
    // A MachineAutoscaler's bounds and the health check's budget edited by hand: taken back, no 409.
    await upTakesBackHandEdits(
      sim,
      raised,
      [
        mergePatch("machineautoscaler", SETS[0], { spec: { maxReplicas: 9 } }, NS),
        mergePatch("machinehealthcheck", "cluster-zbwlg-cbgq7-infra", { spec: { maxUnhealthy: "50%" } }, NS),
      ],
      ["infra-us-east-2a-autoscaler", "infra-health-check"],
      ["autoscaler-cluster-autoscaler"],
    );
    assert.equal((sim.store.get(keyOf(MA, SETS[0], NS)) as Obj).spec.maxReplicas, 3);
    assert.equal((sim.store.get(keyOf(MHC, "cluster-zbwlg-cbgq7-infra", NS)) as Obj).spec.maxUnhealthy, 1);

    const events: DeployEvent[] = [];
    await destroyLeavesNothing(sim, { ...raised, onEvent: (e) => events.push(e) });
    const deleted = (kind: string) =>
      events
        .map((e, i) => ({ e, i }))
        .filter(({ e }) => e.phase === "done" && e.operation === "delete" && e.type.endsWith(`:${kind}`))
        .map(({ i }) => i);
    const firstSetDeleted = Math.min(...deleted("MachineSet"));
    assert.equal(deleted("MachineSet").length, 2);
    assert.ok(
      deleted("MachineAutoscaler").length === 2 &&
        deleted("MachineAutoscaler").every((i) => i < firstSetDeleted),
    );
    assert.ok(
      deleted("MachineHealthCheck").length === 1 && deleted("MachineHealthCheck")[0] < firstSetDeleted,
    );
    for (const name of SETS) {
      assert.equal(set(name), undefined);
      assert.equal(sim.store.get(keyOf(MA, name, NS)), undefined);
    }
    assert.equal(
      sim.store.get(
        keyOf({ apiVersion: "autoscaling.openshift.io/v1", kind: "ClusterAutoscaler" }, "default"),
      ),
      undefined,
    );
  });
});
