import * as assert from "node:assert/strict";
import * as path from "node:path";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { K, keyOf } from "../test/simulator-fixture";
import { deploy } from "./deploy";
import { installedProgram } from "./installed";
import { loadProject } from "./project";

const TWO_CLUSTERS = path.join(__dirname, "testdata", "two-clusters");
const MACHINE_SET = "cluster-zbwlg-cbgq7-infra-us-east-2a";

/**
 * Issue 25: a component given only `provider` creates its objects on that provider's cluster, while its
 * waiters connect with $KUBECONFIG. Here the provider reaches cluster A and $KUBECONFIG names cluster B.
 */
describe("waiters and the provider on two clusters", function () {
  this.timeout(60_000);
  let a: Simulator;
  let b: Simulator;
  let dir: string;
  const suiteA = simulatorForSuite("harness-two-clusters-", { speed: 500 });
  const suiteB = simulatorForSuite("harness-two-clusters-b-", { speed: 500 });
  before(() => ({ sim: a, dir } = suiteA));
  before(() => ({ sim: b } = suiteB));

  const up = (config: string[]) =>
    deploy({
      project: loadProject(installedProgram(TWO_CLUSTERS), "dev", [
        `clusterA=${a.kubeconfigPath}`,
        ...config,
      ]),
      kubeconfigPath: b.kubeconfigPath,
      statePath: path.join(dir, "state.json"),
    });
  const machineSetOn = (sim: Simulator) =>
    sim.store.get(keyOf(K.machineSet, MACHINE_SET, "openshift-machine-api"));

  it("fails at once, naming the object and the waiters' cluster, instead of waiting on cluster B", async () => {
    const result = await up([]);
    assert.equal(result.ok, false);
    const pool = a.store.get(keyOf(K.pool, "infra"));
    assert.ok(pool?.metadata.uid, "the provider created the pool on cluster A");
    // The guard of the MachineSets' removal is declared before them and holds the pool's deletion: it
    // finds the pool on its cluster first, so no machine is created while the waiters look elsewhere.
    const mismatch = result.errors.find((e) => e.includes("MachineSetRemoval"));
    assert.ok(mismatch, result.errors.join("\n"));
    assert.ok(
      mismatch.includes(
        `MachineConfigPool infra was created by the component's Kubernetes provider ` +
          `(uid ${pool.metadata.uid}), but ${b.server}`,
      ),
      mismatch,
    );
    assert.match(mismatch, /does not hold it: the provider and the kubeconfig reach different clusters/);
    assert.doesNotMatch(mismatch, /timed out/);
    assert.equal(machineSetOn(a), undefined, "no machine is created for waiters on another cluster");
    assert.equal(machineSetOn(b), undefined);
  });

  it("converges on cluster A once the component is given the kubeconfig its provider was made from", async () => {
    const result = await up(["kubeconfig=true"]);
    assert.deepEqual(result.errors, []);
    assert.equal(result.outputs.readyMachineCount, 1);
    assert.equal(machineSetOn(b), undefined);
  });
});
