import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { inClusterKubeconfig, SERVICE_ACCOUNT_DIR_ENV } from "../provider/dynamic/credentials";
import { currentContext } from "../provider/waiting/kubeconfig";
import { Simulator } from "../simulator/simulator";
import { simulatorForSuite } from "../test/harness-simulator";
import { K } from "../test/simulator-fixture";
import { deploy, DeployOptions, DeployResult } from "./deploy";
import { DYNAMIC_TYPE_PREFIX } from "./dynamic";
import { installedProgram } from "./installed";
import { loadProject } from "./project";
import { nameOf } from "./engine/checkpoint";
import { isSecret, reveal } from "./secrets";

const INFRA_POOL = path.join(__dirname, "testdata", "infra-pool");
const MACHINE_API = "openshift-machine-api";

/** The dynamic resources that reach the cluster; a RolloutBaseline only keeps inputs (no kubeconfig). */
const isWaiter = (type: string) =>
  type.startsWith(DYNAMIC_TYPE_PREFIX) && type !== `${DYNAMIC_TYPE_PREFIX}RolloutBaseline`;

describe("deploy harness: credentials renewed between runs", function () {
  this.timeout(60_000);
  let sim: Simulator;
  let dir: string;
  // Where the kubelet would mount a pod's service account, for the run in a pod below.
  const serviceAccount = fs.mkdtempSync(path.join(os.tmpdir(), "harness-credentials-sa-"));
  const suite = simulatorForSuite("harness-credentials-", { speed: 500, serviceAccountDir: serviceAccount });
  before(() => ({ sim, dir } = suite));
  after(() => fs.rmSync(serviceAccount, { recursive: true, force: true }));

  /** What is left in the cluster of a pool: its MachineSets, Machines and Nodes. */
  function poolObjects(role: string): string[] {
    const machineSets = sim.store
      .list(K.machineSet.apiVersion, K.machineSet.kind, { namespace: MACHINE_API })
      .filter((m) => m.metadata.name.includes(`-${role}-`))
      .map((m) => `MachineSet ${m.metadata.name}`);
    const machines = sim.store
      .list(K.machine.apiVersion, K.machine.kind, { namespace: MACHINE_API })
      .filter((m) => m.metadata.labels?.["machine.openshift.io/cluster-api-machine-role"] === role)
      .map((m) => `Machine ${m.metadata.name}`);
    const nodes = sim.store
      .list("v1", "Node")
      .filter((n) => n.metadata.labels?.[`node-role.kubernetes.io/${role}`] === "")
      .map((n) => `Node ${n.metadata.name}`);
    return [...machineSets, ...machines, ...nodes];
  }

  const waiters = (result: DeployResult) => result.state.deployment.resources.filter((r) => isWaiter(r.type));

  it("shows no change to any waiter after the token is renewed, and removes a pool and destroys the stack with the new token", async () => {
    const statePath = path.join(dir, "state.json");
    const run = (config: string[], onEvent?: DeployOptions["onEvent"]) =>
      deploy({
        project: loadProject(installedProgram(INFRA_POOL), "dev", config),
        kubeconfigPath: sim.kubeconfigPath,
        statePath,
        onEvent,
      });

    // A 2-second storm of 429 (Retry-After 1) as the first pool's wait starts: the engine's requests,
    // the waiters' and the preview's reads are tried again after it (client-go's rest client), in time.
    let storm = false;
    const up = await run(["edge=true"], (e) => {
      if (storm || e.phase !== "start" || !e.type.endsWith("PoolRollout")) return;
      storm = true;
      sim.faults.failRequestsFor(2, 429, 1);
    });
    assert.ok(storm);
    assert.deepEqual(up.errors, []);
    assert.equal(poolObjects("edge").length, 3, poolObjects("edge").join(", "));
    assert.equal(poolObjects("infra").length, 3, poolObjects("infra").join(", "));

    // The day after: the token expired, `oc login` wrote a new one to the kubeconfig file.
    const expired = sim.token;
    sim.faults.rotateToken();
    assert.notEqual(sim.token, expired);
    assert.ok(fs.readFileSync(sim.kubeconfigPath, "utf8").includes(sim.token));

    const again = await run(["edge=true"]);
    assert.deepEqual(again.errors, []);
    const names = waiters(up).map((r) => nameOf(r.urn));
    assert.equal(
      names.length,
      8,
      "per pool MachineSetRemoval, PoolRollout and NodeLabelsAndTaints; 2 for the MachineConfig",
    );
    assert.deepEqual(
      again.plan
        .filter((s) => isWaiter(s.type))
        .map((s) => `${s.op} ${s.name}`)
        .sort(),
      names.map((n) => `same ${n}`).sort(),
      "a renewed token alone changes no waiter",
    );
    for (const r of waiters(again)) {
      assert.ok(isSecret(r.inputs?.kubeconfig), `${r.urn}: the kubeconfig input stays secret`);
      assert.ok(isSecret(r.outputs?.kubeconfig), `${r.urn}: the kubeconfig output stays secret`);
    }
    assert.ok(
      !fs.readFileSync(statePath, "utf8").includes(sim.token),
      "no token in plaintext in the checkpoint",
    );

    // The removal guards stored the expired token; they must delete with the current one.
    const removed = await run(["edge=false"]);
    assert.deepEqual(removed.errors, []);
    assert.deepEqual(poolObjects("edge"), []);
    assert.equal(poolObjects("infra").length, 3, "the other pool stays");

    sim.faults.rotateToken();
    const destroyed = await run(["edge=false", "infra=false"]);
    assert.deepEqual(destroyed.errors, []);
    assert.deepEqual(poolObjects("infra"), []);
    assert.deepEqual(
      destroyed.state.deployment.resources.filter((r) => r.custom),
      [],
    );
  });

  it("runs in a pod without a kubeconfig as pulumi-kubernetes does, with its service account, whose token rotating mid-wait the waiters read again", async () => {
    // The Pulumi Kubernetes Operator's workspace pod: the service's variables and the service account's
    // files, no kubeconfig. pulumi-kubernetes connects with the in-cluster configuration there
    // (provider.go Configure, client-go DeferredLoadingClientConfig), which the engine is given as such.
    const pod = {
      KUBECONFIG: path.join(dir, "no-kubeconfig"),
      KUBERNETES_SERVICE_HOST: "127.0.0.1",
      KUBERNETES_SERVICE_PORT: new URL(sim.server).port,
      [SERVICE_ACCOUNT_DIR_ENV]: serviceAccount,
    };
    const provider = path.join(dir, "in-cluster-kubeconfig");
    fs.writeFileSync(provider, inClusterKubeconfig(pod)!.text!);
    const options = (config: string[]) => ({
      project: loadProject(installedProgram(INFRA_POOL), "pod", config),
      kubeconfigPath: provider,
      statePath: path.join(dir, "pod.json"),
      env: pod,
    });
    // The kubelet rotates the token as a waiter opens its first watch, which is refused with the old
    // one: the waiter reads the file again and opens it with the new one.
    let rotated = false;
    const stop = sim.observeRequests((_method, url) => {
      if (rotated || !url.includes("watch=true")) return;
      rotated = true;
      sim.faults.rotateToken();
    });
    let up: DeployResult;
    try {
      up = await deploy(options(["edge=false"]));
    } finally {
      stop();
    }
    assert.deepEqual(up.errors, []);
    assert.ok(rotated, "the token rotated during the up");
    assert.equal(poolObjects("infra").length, 3, poolObjects("infra").join(", "));
    // Every waiter waited with the service account's configuration, on the provider's API server.
    const waiting = waiters(up);
    assert.ok(waiting.length > 0);
    for (const r of waiting) {
      const { cluster, user } = currentContext(reveal(r.inputs?.kubeconfig) as string);
      assert.equal(cluster?.server, `https://127.0.0.1:${pod.KUBERNETES_SERVICE_PORT}`, r.urn);
      assert.equal(user?.tokenFile, path.join(serviceAccount, "token"), r.urn);
    }
    const destroyed = await deploy(options(["edge=false", "infra=false"]));
    assert.deepEqual(destroyed.errors, []);
    assert.deepEqual(poolObjects("infra"), []);
  });
});
