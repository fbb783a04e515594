import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { K, keyOf } from "../test/simulator-fixture";
import { deploy, preview } from "./deploy";
import { installedProgram } from "./installed";
import { loadProject } from "./project";

const TWO_CLUSTERS = path.join(__dirname, "testdata", "two-clusters");
const MACHINE_SET = "cluster-zbwlg-cbgq7-infra-us-east-2a";
/** More failures than the runs could ask for: any request that reaches cluster B takes one. */
const B_FAILURES = 1000;

/**
 * Issue 25: a component given only `provider` creates its objects on that provider's cluster; its
 * waiters and the preview's reads must reach the same one. Here the provider reaches cluster A and
 * $KUBECONFIG names cluster B, whose every answer is a failure that no request may use up.
 */
describe("waiters and the provider on two clusters", function () {
  this.timeout(60_000);
  let a: Simulator;
  let b: Simulator;
  let dir: string;
  const suiteA = simulatorForSuite("harness-two-clusters-", { speed: 500 });
  const suiteB = simulatorForSuite("harness-two-clusters-b-", { speed: 500 });
  before(() => ({ sim: a, dir } = suiteA));
  before(() => {
    ({ sim: b } = suiteB);
    b.faults.failNextRequests(B_FAILURES, 500);
  });

  const diagnostics: string[] = [];
  const options = (config: string[]) => ({
    project: loadProject(installedProgram(TWO_CLUSTERS), "dev", [`clusterA=${a.kubeconfigPath}`, ...config]),
    kubeconfigPath: b.kubeconfigPath,
    statePath: path.join(dir, "state.json"),
    // What the CLI prints without --debug: the SDK's debug lines print its gRPC messages whole.
    onDiagnostic: (d: { severity: string; message: string }) => {
      if (d.severity !== "debug") diagnostics.push(d.message);
    },
  });
  const machineSetOn = (sim: Simulator) =>
    sim.store.get(keyOf(K.machineSet, MACHINE_SET, "openshift-machine-api"));

  it("a kubeconfig for the waiters that reaches another cluster than the provider fails the preview, naming both", async () => {
    const result = await preview(options([`waitersKubeconfig=${b.kubeconfigPath}`]));
    assert.equal(result.ok, false);
    const mismatch = result.errors.find((e) => e.includes("kubeconfig"));
    assert.ok(mismatch, result.errors.join("\n"));
    assert.ok(
      mismatch.includes(`reaches ${b.server}/, but the component's Kubernetes provider reaches ${a.server}/`),
      mismatch,
    );
    assert.equal(machineSetOn(a), undefined);
  });

  it("without one, the preview reads and the waiters reach the provider's cluster, whose kubeconfig stays secret", async () => {
    // components/cluster/wait.ts providerSettings: the provider's kubeconfig, as its Configure reads it.
    const planned = await preview(options(["workerConfig=true"]));
    assert.deepEqual(planned.errors, []);
    const impact = planned.outputs.workerImpact as { machineCount?: number } | undefined;
    assert.equal(impact?.machineCount, 3, "the preview read the worker pool of cluster A");

    const up = await deploy(options([]));
    assert.deepEqual(up.errors, []);
    assert.equal(up.outputs.readyMachineCount, 1);
    assert.ok(machineSetOn(a), "the machines are on cluster A");
    assert.equal(machineSetOn(b), undefined);
    assert.equal(b.faults.status().pendingErrors, B_FAILURES, "no request reached cluster B");

    const credential = /(?:token|client-key-data|password): *(\S+)/.exec(a.kubeconfig)![1];
    assert.ok(!fs.readFileSync(path.join(dir, "state.json"), "utf8").includes(credential), "state");
    assert.ok(!diagnostics.some((d) => d.includes(credential)), "logs");
  });
});
