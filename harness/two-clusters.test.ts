import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { parse, stringify } from "yaml";
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

  const diagnostics: Array<{ severity: string; message: string }> = [];
  const options = (config: string[], clusterA = a.kubeconfigPath) => ({
    project: loadProject(installedProgram(TWO_CLUSTERS), "dev", [`clusterA=${clusterA}`, ...config]),
    kubeconfigPath: b.kubeconfigPath,
    statePath: path.join(dir, "state.json"),
    // Every severity: the SDK's debug lines (the CLI's --debug) print its gRPC responses whole.
    onDiagnostic: (d: { severity: string; message: string }) => diagnostics.push(d),
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

  /**
   * One kubeconfig file holding both clusters, its current context B's: the provider's `context`
   * picks A, as clientcmd's ConfigOverrides do in pulumi-kubernetes' Configure (provider.go).
   */
  function bothClusters(): string {
    type Named = { name: string } & Record<string, unknown>;
    type File = Record<"clusters" | "contexts" | "users", Named[]>;
    const [fa, fb] = [parse(a.kubeconfig) as File, parse(b.kubeconfig) as File];
    const suffixed = (file: File, suffix: string, key: keyof File) =>
      file[key].map((entry) => {
        const renamed = { ...entry, name: `${entry.name}-${suffix}` };
        if (key !== "contexts") return renamed;
        const context = entry.context as { cluster: string; user: string };
        return {
          ...renamed,
          context: { ...context, cluster: `${context.cluster}-${suffix}`, user: `${context.user}-${suffix}` },
        };
      });
    const both = Object.fromEntries(
      (["clusters", "contexts", "users"] as const).map((k) => [
        k,
        [...suffixed(fb, "b", k), ...suffixed(fa, "a", k)],
      ]),
    );
    const file = path.join(dir, "both-clusters.kubeconfig");
    const current = `${fb.contexts[0].name}-b`;
    fs.writeFileSync(
      file,
      stringify({ apiVersion: "v1", kind: "Config", ...both, "current-context": current }),
    );
    return file;
  }

  it("without one, the preview reads and the waiters reach the provider's cluster, whose kubeconfig stays secret", async () => {
    // components/cluster/wait.ts providerSettings: the provider's kubeconfig and context, as its
    // Configure reads them; the harness applies the objects with the same (harness/engine/deployment.ts, clusterOf).
    const both = bothClusters();
    const contextA = `${(parse(a.kubeconfig) as { contexts: Array<{ name: string }> }).contexts[0].name}-a`;
    const withContext = (config: string[]) => options([`contextA=${contextA}`, ...config], both);
    const planned = await preview(withContext(["workerConfig=true"]));
    assert.deepEqual(planned.errors, []);
    const impact = planned.outputs.workerImpact as { machineCount?: number } | undefined;
    assert.equal(impact?.machineCount, 3, "the preview read the worker pool of cluster A");

    const up = await deploy(withContext([]));
    assert.deepEqual(up.errors, []);
    assert.equal(up.outputs.readyMachineCount, 1);
    assert.ok(machineSetOn(a), "the machines are on cluster A");
    assert.equal(machineSetOn(b), undefined);
    assert.equal(b.faults.status().pendingErrors, B_FAILURES, "no request reached cluster B");

    const credential = /(?:token|client-key-data|password): *(\S+)/.exec(a.kubeconfig)![1];
    assert.ok(!fs.readFileSync(path.join(dir, "state.json"), "utf8").includes(credential), "state");
    // harness/secrets.ts, Redactor: no kubeconfig reaches a log at any verbosity.
    const debug = diagnostics.filter((d) => d.severity === "debug");
    assert.ok(
      debug.some((d) =>
        /RegisterResource RPC finished: .*kubeconfig,[^[]*,value,+\[secret\]/s.test(d.message),
      ),
      "redacted",
    );
    const ca = /certificate-authority-data: *(\S+)/.exec(a.kubeconfig)![1];
    for (const leak of [credential, ca, ...[a, b].map((sim) => sim.kubeconfig)])
      assert.ok(!diagnostics.some((d) => d.message.includes(leak)), "logs");
  });
});
