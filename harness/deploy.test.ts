import type { PoolImpact } from "../builders/rollout-impact";
import * as assert from "node:assert/strict";
import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import type { KubeObject } from "../simulator/store/types";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { K, keyOf } from "../test/simulator-fixture";
import { deployCommandArgs, destroyLeavesNothing, refreshFindsDrift, revise } from "../test/stack-life";
import { deploy, DeployEvent, DeployOptions, preview } from "./deploy";
import { installedProgram } from "./installed";
import { loadProject } from "./project";
import { isSecret } from "./secrets";
import { Checkpoint } from "./engine/checkpoint";

const INFRA_POOL = path.join(__dirname, "testdata", "infra-pool");
const WORKER_CONFIG = path.join(__dirname, "testdata", "worker-config");
/** Fast enough that a rollout takes well under a second, slow enough that its steps are observable. */
const SPEED = 500;

function key(e: DeployEvent): string {
  return `${e.type.split(":").pop()} ${e.name}`;
}

describe("deploy harness against the simulator", function () {
  this.timeout(120_000);
  let sim: Simulator;
  let dir: string;
  const suite = simulatorForSuite("harness-test-", { speed: SPEED });
  before(() => ({ sim, dir } = suite));

  it("applies a program in dependency order, waits until it converged, updates and deletes by revision", async () => {
    const statePath = path.join(dir, "infra.json");
    const events: DeployEvent[] = [];
    const first = await deploy({
      project: loadProject(installedProgram(INFRA_POOL)),
      kubeconfigPath: sim.kubeconfigPath,
      statePath,
      onEvent: (e) => events.push(e),
    });
    assert.deepEqual(first.errors, []);
    assert.ok(first.ok);
    const machineSet = "cluster-zbwlg-cbgq7-infra-us-east-2a";
    assert.deepEqual(first.outputs.machineSets, [machineSet]);
    const pool = sim.store.get(keyOf(K.pool, "infra")) as any;
    assert.equal(first.outputs.renderedConfig, pool.status.configuration.name);
    assert.equal(pool.status.updatedMachineCount, 1);

    // What the SDK's ordering promises, seen from outside: nothing starts before what it depends on is done.
    const at = (phase: DeployEvent["phase"], what: string) =>
      events.findIndex((e) => e.phase === phase && key(e) === what);
    assert.ok(at("done", "MachineConfigPool infra-pool") < at("start", "MachineSet infra-us-east-2a"));
    assert.ok(
      at("done", "MachineSetRemoval infra-machines-removal") < at("start", "MachineSet infra-us-east-2a"),
    );
    assert.ok(at("done", "MachineSet infra-us-east-2a") < at("start", "PoolRollout infra-pool-rollout"));

    const text = fs.readFileSync(statePath, "utf8");
    const state = JSON.parse(text) as Checkpoint;
    const rollout = state.deployment.resources.find((r) => r.urn.endsWith("::99-infra-motd-rollout"))!;
    assert.ok(isSecret(rollout.inputs!.kubeconfig), "the kubeconfig stays marked secret in state");
    assert.ok(isSecret(rollout.outputs!.kubeconfig));
    // Encrypted as the passphrase backend does: no credential of the kubeconfig in the file.
    const kubeconfig = fs.readFileSync(sim.kubeconfigPath, "utf8");
    const credential = /(?:token|client-key-data|password): *(\S+)/.exec(kubeconfig)![1];
    assert.ok(!text.includes(credential), "no plaintext credential in the checkpoint");

    const revision = (config: string[]) =>
      deploy({
        project: loadProject(installedProgram(INFRA_POOL), "dev", config),
        kubeconfigPath: sim.kubeconfigPath,
        statePath,
      });
    const second = await revision(["motdText=second revision\n"]);
    assert.deepEqual(second.errors, []);
    assert.deepEqual(
      second.plan
        .filter((p) => p.op !== "same" && p.op !== "read")
        .map((p) => `${p.op} ${p.name}`)
        .sort(),
      ["update 99-infra-motd", "update 99-infra-motd-rollout"],
      "only the changed MachineConfig and its rollout waiter change",
    );
    const rolled = sim.store.get(keyOf(K.pool, "infra")) as any;
    assert.notEqual(rolled.status.configuration.name, pool.status.configuration.name);
    assert.equal(rolled.status.updatedMachineCount, 1);
    // Without a preview's cluster read, the rollout waiter compared the MachineConfig with the previous
    // deployment's, on the machine count it saw then: both kept in its own state.
    const updated = second.state.deployment.resources.find((r) => r.urn.endsWith("::99-infra-motd-rollout"))!;
    const impact = updated.outputs!.impact as PoolImpact;
    assert.deepEqual(
      [impact.newRender, impact.against, impact.machineCount, impact.causes.map((c) => c.name)],
      [true, "previous deployment", rollout.outputs!.machineCount, ["/etc/motd"]],
    );

    const third = await revision(["motd=false"]);
    assert.deepEqual(third.errors, []);
    assert.equal(third.counts.delete, 3, "the MachineConfig, its rollout waiter and its removal guard");
    assert.equal(sim.store.get(keyOf(K.machineConfig, "99-infra-motd")), undefined);
    // The guard held the deployment until the pool ran a render without the MachineConfig.
    const dropped = sim.store.get(keyOf(K.pool, "infra")) as any;
    const sources = (dropped.spec.configuration.source as Array<{ name: string }>).map((m) => m.name);
    assert.ok(!sources.includes("99-infra-motd"), sources.join(", "));
    assert.equal(dropped.status.configuration.name, dropped.spec.configuration.name);
    assert.equal(dropped.status.updatedMachineCount, dropped.status.machineCount);

    // Turning waiting off deletes the waiters, the removal guard among them, while the MachineSet
    // stays: the guard must see it is not being deleted instead of waiting into its deadline (60 s,
    // past this test's timeout).
    const fourth = await revision(["motd=false", "wait=false"]);
    assert.deepEqual(fourth.errors, []);
    assert.equal(fourth.counts.delete, 3, "the pool's waiters (rollout, node labels) and its removal guard");
    const kept = sim.store.get(keyOf(K.machineSet, machineSet, "openshift-machine-api")) as any;
    assert.equal(kept.spec.replicas, 1);
  });

  it("replaces every machine of a pool whose instance type changed, a new one Ready before an old one goes, and holds up until all run it (#26)", async () => {
    // The MachineSet controller copies its template into a Machine only when it creates it
    // (machine-api-operator pkg/controller/machineset/controller.go, createMachine): without a
    // replacement the pool would keep running m6i.xlarge under a template that says m6i.2xlarge.
    // The stack of the test above, grown to two machines; the test below takes it down.
    const options = (config: string[]): DeployOptions => ({
      project: loadProject(installedProgram(INFRA_POOL), "dev", ["replicas=2", ...config]),
      kubeconfigPath: sim.kubeconfigPath,
      statePath: path.join(dir, "infra.json"),
    });
    const machineSet = "cluster-zbwlg-cbgq7-infra-us-east-2a";
    const machines = () =>
      sim.store
        .list(K.machine.apiVersion, K.machine.kind, { namespace: "openshift-machine-api" })
        .filter((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machineset"] === machineSet);
    const live = () => machines().filter((m) => !m.metadata.deletionTimestamp);
    const typeOf = (m: KubeObject) => (m.spec as any).providerSpec.value.instanceType as string;
    const ready = (m: KubeObject) => {
      const node = sim.store.get(keyOf(K.node, (m.status as any)?.nodeRef?.name ?? "")) as any;
      return node?.status.conditions.some((c: any) => c.type === "Ready" && c.status === "True") === true;
    };
    const grown = await deploy(options([]));
    assert.deepEqual(grown.errors, []);
    const before = live().map((m) => m.metadata.name);
    assert.deepEqual(live().map(typeOf), ["m6i.xlarge", "m6i.xlarge"]);

    // The replacement never leaves fewer Ready machines than the replicas (maxUnavailable 0), nor more
    // than one extra (maxSurge 1); the render the KubeletConfig makes reboots one old node at a time
    // meanwhile (the pool's maxUnavailable 1), as the preview says.
    const seen = { minReady: Infinity, maxLive: 0 };
    const unsubscribe = sim.store.subscribe(() => {
      seen.minReady = Math.min(seen.minReady, live().filter(ready).length);
      seen.maxLive = Math.max(seen.maxLive, live().length);
    });
    // What a reviewer reads: the pool's one line, nothing said again of its MachineSet that exists
    // already (its network references, its boot image: at debug). The program's own notice of its
    // optional gitopsVersion output, undefined here, is the engine's, not the preview's.
    const said = async (config: string[]) => {
      const lines: string[] = [];
      const planned = await preview({
        ...options(config),
        onDiagnostic: (d) =>
          d.severity !== "debug" && !d.message.startsWith("Undefined value (") && lines.push(d.message),
      });
      assert.deepEqual(planned.errors, []);
      return lines;
    };
    // Without a replacement policy, the preview says the machines there keep their type.
    assert.deepEqual(await said(["instanceType=m6i.2xlarge"]), [
      "pool infra: 2 machines keep m6i.xlarge; only new machines get m6i.2xlarge (machineReplacement replaces them); no new render",
    ]);
    // With one, and a KubeletConfig for the pool: one line, the render with the replacement as up does
    // both at once (the pool's waiter holds up until its machines run the new type, its nodes the render).
    const change = ["instanceType=m6i.2xlarge", "maxSurge=1", "maxUnavailable=0", "maxPods=200"];
    const replace = options(change);
    assert.deepEqual(await said(change), [
      "pool infra: 2 machines on m6i.xlarge replaced by m6i.2xlarge (1 new first, an old one deleted (drained) " +
        "as each new one is Ready, none unavailable), 2 waves, about 12 min; new render at the same time (file " +
        "/etc/kubernetes/kubelet.conf of 99-infra-generated-kubelet): old nodes drain and reboot 1 at a time " +
        "until they are replaced (up to 2), new ones boot with it",
      // This program's 60 s deadline, once for the pool's three components; the simulator runs fast.
      "pool infra: waitTimeouts (1m) is shorter than this change's estimate (about 12 min) and the MCO's " +
        "drain timeout (1h, after which it reports a drain a PodDisruptionBudget holds): up can fail while " +
        "the rollout goes on; give more, or leave it out (the default is twice the estimate, 30m at least)",
    ]);
    try {
      const revised = await deploy(replace);
      assert.deepEqual(revised.errors, []);
      // When up returns, the pool runs the new type only: the waiter held it until then.
      const after = live();
      assert.deepEqual(after.map(typeOf), ["m6i.2xlarge", "m6i.2xlarge"]);
      assert.ok(after.every(ready));
      assert.ok(!after.some((m) => before.includes(m.metadata.name)), "every machine replaced");
      assert.equal(machines().length, 2, "the old machines are gone, not only being deleted");
      const set = sim.store.get(keyOf(K.machineSet, machineSet, "openshift-machine-api")) as any;
      assert.equal(set.spec.replicas, 2, "the surge is given back");
    } finally {
      unsubscribe();
    }
    assert.equal(seen.minReady, 1);
    assert.equal(seen.maxLive, 3);

    // A type of the right shape that EC2 does not have passes a preview without cloudLookups; the
    // machine surged for it fails as machine-api-provider-aws fails it (RunInstances' 4xx, a terminal
    // InvalidConfiguration), and up fails at once naming the Machine and EC2's answer, the pool still
    // on the previous type. The test below takes the stack back to one m6i.xlarge machine.
    const missing = await deploy(options(["instanceType=m6i.3xlarge", "maxSurge=1", "maxUnavailable=0"]));
    assert.equal(missing.ok, false);
    assert.equal(missing.errors.length, 1, missing.errors.join("\n"));
    assert.match(
      missing.errors[0],
      new RegExp(
        `MachineSet ${machineSet}: Machine ${machineSet}-\\w+ failed \\(InvalidConfiguration\\): error launching instance: Invalid value 'm6i\\.3xlarge' for InstanceType\\.; 2 machines still run the previous spec`,
      ),
    );
    assert.deepEqual(live().filter(ready).map(typeOf), ["m6i.2xlarge", "m6i.2xlarge"]);
  });

  it("destroys a pool with its MachineConfig: machines, nodes, the MachineConfig and the pool all go", async () => {
    // The stack of the test above, whose pool is still in the cluster: a second stack declaring the same
    // objects would fail its creates with AlreadyExists, as under pulumi-kubernetes.
    const statePath = path.join(dir, "infra.json");
    const revision = (config: string[]) =>
      deploy({
        project: loadProject(installedProgram(INFRA_POOL), "dev", config),
        kubeconfigPath: sim.kubeconfigPath,
        statePath,
      });
    const up = await revision([]);
    assert.deepEqual(up.errors, []);
    const [machineSet] = up.outputs.machineSets as string[];
    const nodes = (sim.store.list("v1", "Node") as Array<{ metadata: { labels?: Record<string, string> } }>)
      .filter((n) => n.metadata.labels?.["node-role.kubernetes.io/infra"] === "")
      .map((n) => (n as { metadata: { name: string } }).metadata.name);
    assert.equal(nodes.length, 1);

    // The MachineConfig's removal guard waits on a pool that is being emptied and deleted meanwhile.
    const down = await revision(["infra=false"]);
    assert.deepEqual(down.errors, []);
    assert.equal(sim.store.get(keyOf(K.machineSet, machineSet, "openshift-machine-api")), undefined);
    for (const node of nodes) assert.equal(sim.store.get(keyOf(K.node, node)), undefined);
    assert.equal(sim.store.get(keyOf(K.machineConfig, "99-infra-motd")), undefined);
    assert.equal(sim.store.get(keyOf(K.pool, "infra")), undefined);
  });

  it("a preview of bad input reports each error with its component and property", async () => {
    const result = await preview({
      project: loadProject(installedProgram(INFRA_POOL), "dev", ["replicas=-1", "motd=false"]),
      kubeconfigPath: sim.kubeconfigPath,
    });
    assert.equal(result.ok, false);
    assert.deepEqual(
      result.errors.map((e) => e.split(": ").slice(0, 2).join(": ")),
      ['InfraNodePool "infra": replicas'],
      result.errors.join("\n"),
    );
  });

  it("fails with the waiter's message when the pool degrades and the CLI exits non-zero; once repaired, the stack goes through its whole life", async () => {
    const program = installedProgram(WORKER_CONFIG);
    const options = (config: string[] = []): DeployOptions => ({
      project: loadProject(program, "dev", config),
      kubeconfigPath: sim.kubeconfigPath,
      statePath: path.join(dir, "worker.json"),
    });
    const node = sim.cluster.workerNodes[0];
    // Someone edited a file the MCO manages: the daemon's drift check fails at every retry until it is
    // repaired (daemon.go runPreflightConfigDriftCheck), and the node holds maxUnavailable meanwhile.
    sim.faults.inject("driftFile", { node, path: "/etc/kubernetes/kubelet.conf" });
    const result = await deploy(options());
    assert.equal(result.ok, false);
    assert.equal(result.errors.length, 1, result.errors.join("\n"));
    assert.match(result.errors[0], /^PoolRollout 99-worker-banner-rollout: /);
    assert.match(result.errors[0], new RegExp(node.replaceAll(".", "\\.")));
    assert.match(result.errors[0], /content mismatch for file "\/etc\/kubernetes\/kubelet\.conf"/);

    // Asynchronously: the simulator serving the child runs in this process.
    const cli = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        deployCommandArgs([
          "up",
          program,
          // The same stack: without its state the CLI would create the MachineConfig again, which exists.
          "--state",
          path.join(dir, "worker.json"),
        ]),
        {
          cwd: path.resolve(__dirname, ".."),
          timeout: 45_000,
          env: {
            ...process.env,
            KUBECONFIG: sim.kubeconfigPath,
            OPENSHIFT_TOPOLOGY_PROGRESS_LOG: "0",
            HOME: dir,
          },
        },
        (error, _stdout, stderr) => resolve({ code: error ? (error.code as number | null) : 0, stderr }),
      );
    });
    assert.equal(cli.code, 1, cli.stderr);
    // The component first, as the user declared it, then its waiter and the reason.
    assert.match(
      cli.stderr,
      /error: MachineConfig 99-worker-banner: PoolRollout 99-worker-banner-rollout: .*content mismatch for file/,
    );

    // The node repaired, the next up finishes what the failed one started.
    sim.faults.inject("clearClusterFaults");
    const repaired = await deploy(options());
    assert.deepEqual(repaired.errors, []);
    const revision = options(["banner=managed by Pulumi, second revision\n"]);
    await revise(revision, ["update 99-worker-banner", "update 99-worker-banner-rollout"]);
    // Someone takes the MachineConfig off the pool by hand: the worker pool renders without it.
    await refreshFindsDrift(
      sim,
      revision,
      ["label", "machineconfig", "99-worker-banner", "machineconfiguration.openshift.io/role-"],
      { "99-worker-banner": ["metadata.labels.machineconfiguration.openshift.io/role"] },
    );
    await destroyLeavesNothing(sim, revision);
  });
});
