import * as assert from "node:assert/strict";
import * as path from "node:path";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { K, keyOf } from "../test/simulator-fixture";
import { destroyLeavesNothing, refreshFindsDrift, revise } from "../test/stack-life";
import { deploy, DeployOptions, DeployResult, preview, UNKNOWN } from "./deploy";
import { installedProgram } from "./installed";
import { loadProject } from "./project";

const CLUSTER_IN_STACK = path.join(__dirname, "testdata", "cluster-in-stack");
/** The run's own kubeconfig names no reachable cluster: everything must go through the stack's provider. */
const NOWHERE = path.join(__dirname, "render-kubeconfig.yaml");
const POOL_LABEL = "pools.operator.machineconfiguration.openshift.io/infra";
const ZONES = ["us-east-2a", "us-east-2b"];
const MACHINE_SETS = ZONES.map((zone) => `cluster-zbwlg-cbgq7-infra-${zone}`);

const changes = (result: DeployResult) =>
  result.plan
    .filter((s) => s.op !== "same" && s.op !== "read")
    .map((s) => `${s.op} ${s.type.split(":").pop()} ${s.name}`);

describe("a stack that makes its cluster: kubeconfig and cluster facts unknown at preview", function () {
  this.timeout(120_000);
  let sim: Simulator;
  let dir: string;
  const suite = simulatorForSuite("harness-cluster-in-stack-", { speed: 500 });
  before(() => ({ sim, dir } = suite));

  const options = (config: string[] = []): DeployOptions => ({
    project: loadProject(installedProgram(CLUSTER_IN_STACK), "dev", [
      `kubeconfigFile=${sim.kubeconfigPath}`,
      ...config,
    ]),
    kubeconfigPath: NOWHERE,
    statePath: path.join(dir, "state.json"),
  });

  it("previews the planned pool, its MachineSets per listed zone and its waiters without asking the cluster anything", async () => {
    // Any request reaching the API server would take one of these errors.
    sim.faults.failNextRequests(1000, 500);
    try {
      const planned = await preview(options());
      assert.deepEqual(planned.errors, []);
      assert.deepEqual(changes(planned).sort(), [
        "create ClusterInstall cluster",
        "create MachineConfig 99-infra-motd",
        "create MachineConfigPool infra-pool",
        "create MachineSet infra-us-east-2a",
        "create MachineSet infra-us-east-2b",
        "create MachineSetRemoval infra-machines-removal",
        "create NodeConfigRemoval 99-infra-motd-removal",
        "create NodeLabelsAndTaints infra-node-labels",
        "create PoolRollout 99-infra-motd-rollout",
        "create PoolRollout infra-pool-rollout",
      ]);
      // The facts are read once the cluster exists: in preview the reads are planned, their outputs unknown.
      assert.deepEqual(
        planned.plan.filter((s) => s.op === "read").map((s) => s.name),
        ["infra-infrastructure", "infra-image-source"],
      );
      assert.equal(planned.outputs.machineSets, UNKNOWN);
      assert.equal(sim.faults.status().pendingErrors, 1000, "no request reached the cluster");
    } finally {
      sim.faults.failNextRequests(0);
    }
    assert.equal(sim.store.get(keyOf(K.pool, "infra")), undefined);
  });

  it("then up converges on the cluster the stack made, plans nothing more, takes a revision and drift, and destroy removes it all", async () => {
    const up = await deploy(options());
    assert.deepEqual(up.errors, []);
    assert.deepEqual(up.outputs.machineSets, MACHINE_SETS);
    const pool = sim.store.get(keyOf(K.pool, "infra")) as any;
    assert.equal(up.outputs.renderedConfig, pool.status.configuration.name);
    // One replica spread over two zones: one machine, updated to the rendered config.
    assert.deepEqual([pool.status.machineCount, pool.status.updatedMachineCount], [1, 1]);

    const again = await preview(options());
    assert.deepEqual(again.errors, []);
    assert.deepEqual(changes(again), []);

    // A third zone: its MachineSet, and the waiters that name the pool's MachineSets.
    const third = options([`zones=${JSON.stringify([...ZONES, "us-east-2c"])}`]);
    await revise(third, [
      "create infra-us-east-2c",
      "update infra-machines-removal",
      "update infra-node-labels",
      "update infra-pool-rollout",
    ]);
    await refreshFindsDrift(sim, third, ["label", "machineconfigpool", "infra", `${POOL_LABEL}-`], {
      "infra-pool": [`metadata.labels.${POOL_LABEL}`],
    });

    await destroyLeavesNothing(sim, third);
    for (const name of [...MACHINE_SETS, "cluster-zbwlg-cbgq7-infra-us-east-2c"])
      assert.equal(sim.store.get(keyOf(K.machineSet, name, "openshift-machine-api")), undefined);
    assert.equal(sim.store.get(keyOf(K.machineConfig, "99-infra-motd")), undefined);
    assert.equal(sim.store.get(keyOf(K.pool, "infra")), undefined);
  });
});
