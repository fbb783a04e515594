import { MCD_REASON, MCD_STATE } from "../../primitives/openshift";
import * as assert from "node:assert/strict";
import { K, Sim, WMCO_NAMESPACE, annotation, condition, startSim, status, subscribeWmco } from "./testing";

interface PoolStatus {
  degradedMachineCount: number;
  updatedMachineCount: number;
  machineCount: number;
}

const HEAD = "windows-machine-config-operator.v10.17.0";

describe("cluster faults", () => {
  let sim: Sim;
  beforeEach(() => (sim = startSim()));
  afterEach(() => sim.stop());

  const healthy = () => {
    const p = sim.get(K.pool, "worker");
    return (
      condition(p, "Degraded")?.status === "False" && status<PoolStatus>(p).degradedMachineCount === 0 && p
    );
  };

  it("degrades a named node with a reason: node annotations, NodeDegraded, Degraded, degradedMachineCount; clearing heals", async () => {
    const [node] = sim.cluster.workerNodes;
    sim.controllers.faults.degradeNode(
      node,
      "unexpected on-disk state validating against rendered-worker-x: mode mismatch",
    );
    const p = await sim.until("pool degraded", () => {
      const w = sim.get(K.pool, "worker");
      return condition(w, "NodeDegraded")?.status === "True" && w;
    });
    const n = sim.get(K.node, node);
    assert.equal(annotation(n, MCD_STATE), "Degraded");
    assert.equal(
      annotation(n, MCD_REASON),
      "unexpected on-disk state validating against rendered-worker-x: mode mismatch",
    );
    assert.equal(status<PoolStatus>(p).degradedMachineCount, 1);
    assert.equal(condition(p, "NodeDegraded")?.reason, "1 nodes are reporting degraded status on sync");
    assert.equal(
      condition(p, "NodeDegraded")?.message,
      `Node ${node} is reporting: "unexpected on-disk state validating against rendered-worker-x: mode mismatch"`,
    );
    assert.equal(condition(p, "Degraded")?.status, "True");
    assert.equal(condition(sim.get(K.pool, "master"), "Degraded")?.status, "False");

    sim.controllers.faults.clear();
    await sim.until("healthy", healthy);
    assert.equal(annotation(sim.get(K.node, node), MCD_STATE), "Done");
  });

  it("drifts a managed file: content mismatch as the MCD words it, pool Degraded until cleared", async () => {
    const [node] = sim.cluster.workerNodes;
    assert.throws(() => sim.controllers.faults.driftFile(node, "/etc/not-managed"), /not managed/);
    sim.controllers.faults.driftFile(node, "/etc/kubernetes/kubelet.conf");
    const p = await sim.until("pool degraded", () => {
      const w = sim.get(K.pool, "worker");
      return condition(w, "Degraded")?.status === "True" && w;
    });
    assert.equal(
      annotation(sim.get(K.node, node), MCD_REASON),
      'content mismatch for file "/etc/kubernetes/kubelet.conf"',
    );
    assert.equal(
      condition(p, "NodeDegraded")?.message,
      `Node ${node} is reporting: "content mismatch for file \\"/etc/kubernetes/kubelet.conf\\""`,
    );
    assert.deepEqual(Object.keys(sim.controllers.faults.list().nodes), [node]);
    sim.controllers.faults.clear();
    await sim.until("healthy", healthy);
  });

  it("fails a CSV with a reason until cleared, then OLM brings it back to Succeeded", async () => {
    subscribeWmco(sim);
    const phase = () =>
      (sim.get(K.csv, HEAD, WMCO_NAMESPACE)?.status as { phase?: string; reason?: string } | undefined) ?? {};
    await sim.until("Succeeded", () => phase().phase === "Succeeded");
    sim.controllers.faults.failCsv(
      WMCO_NAMESPACE,
      HEAD,
      "InstallComponentFailed",
      "install strategy failed: deployment windows-machine-config-operator not ready",
    );
    await sim.until("Failed", () => phase().phase === "Failed");
    assert.equal(phase().reason, "InstallComponentFailed");
    sim.controllers.faults.clear();
    await sim.until("Succeeded again", () => phase().phase === "Succeeded");
    assert.throws(() => sim.controllers.faults.failCsv(WMCO_NAMESPACE, "nope"), /not found/);
    sim.controllers.faults.failCsv(WMCO_NAMESPACE, HEAD);
    await sim.until("Failed with OLM's default wording", () => phase().phase === "Failed");
    assert.equal(phase().reason, "ComponentUnhealthy");
    assert.match(
      String((sim.get(K.csv, HEAD, WMCO_NAMESPACE)?.status as { message?: string }).message),
      /^installing: waiting for deployment windows-machine-config-operator to become ready/,
    );
    assert.throws(() => sim.controllers.faults.degradeNode("no-such-node", "x"), /not found/);
  });
});
