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
    const uid = machineSetOn(a)?.metadata.uid;
    assert.ok(uid, "the provider created the MachineSet on cluster A");
    assert.equal(machineSetOn(b), undefined);
    const mismatch = result.errors.find((e) => e.includes("PoolRollout"));
    assert.ok(mismatch, result.errors.join("\n"));
    assert.ok(
      mismatch.includes(
        `MachineSet openshift-machine-api/${MACHINE_SET} was created by the component's Kubernetes ` +
          `provider (uid ${uid}), but ${b.server}`,
      ),
      mismatch,
    );
    assert.match(mismatch, /does not hold it: the provider and the kubeconfig reach different clusters/);
    assert.doesNotMatch(mismatch, /timed out/);
  });

  it("converges on cluster A once the component is given the kubeconfig its provider was made from", async () => {
    const result = await up(["kubeconfig=true"]);
    assert.deepEqual(result.errors, []);
    assert.equal(result.outputs.readyMachineCount, 1);
    assert.equal(machineSetOn(b), undefined);
  });
});
