import * as assert from "node:assert/strict";
import { K, keyOf, Simulator, startTestSimulator } from "../../test/simulator-fixture";
import { resetMocks, valueOf } from "../../test/mocks";
import { KubeletConfig, MachineConfig } from "../machine-configuration/machine-configuration";

describe("rollout impact at preview, against the cluster", function () {
  this.timeout(30_000);
  let sim: Simulator;
  before(async () => {
    sim = await startTestSimulator();
  });
  after(() => sim.stop());

  const chrony = (kubeconfig: string) =>
    new MachineConfig("99-worker-chrony", {
      role: "worker",
      files: [{ path: "/etc/chrony.conf", contents: { text: "pool 10.0.0.1 iburst\n" } }],
      kubeconfig,
    });
  const preview = async (make: (kubeconfig: string) => { rolloutImpact: MachineConfig["rolloutImpact"] }) => {
    await resetMocks(undefined, { preview: true });
    return valueOf(make(sim.kubeconfig).rolloutImpact);
  };

  it("a new file on the workers: a new render, 3 nodes drain and reboot one at a time", async () => {
    const impact = await preview(chrony);
    assert.deepEqual(
      [impact?.newRender, impact?.action, impact?.machineCount, impact?.waves],
      [true, "reboot", 3, 3],
    );
    assert.deepEqual(
      impact?.causes.map((c) => `${c.kind} ${c.name} of ${c.source}`),
      ["file /etc/chrony.conf of 99-worker-chrony"],
    );
  });

  it("follows the cluster's node disruption policy and pool settings; a KubeletConfig reboots", async () => {
    sim.store.mutate(keyOf(K.machineConfiguration, "cluster"), (m) => {
      (m.spec as Record<string, unknown>).nodeDisruptionPolicy = {
        files: [
          {
            path: "/etc/chrony.conf",
            actions: [{ type: "Restart", restart: { serviceName: "chronyd.service" } }],
          },
        ],
      };
    });
    sim.store.mutate(keyOf(K.pool, "worker"), (p) => {
      Object.assign(p.spec as Record<string, unknown>, { maxUnavailable: "100%", paused: true });
    });
    const restarted = await preview(chrony);
    assert.deepEqual(
      [restarted?.action, restarted?.steps, restarted?.atATime, restarted?.waves, restarted?.paused],
      ["restart", ["restart chronyd.service"], 3, 1, true],
    );
    const kubelet = await preview(
      (kubeconfig) =>
        new KubeletConfig("worker-pods", { pool: "worker", kubeletConfig: { maxPods: 300 }, kubeconfig }),
    );
    assert.deepEqual([kubelet?.action, kubelet?.causes[0].name], ["reboot", "/etc/kubernetes/kubelet.conf"]);
  });

  it("says nothing on up, where the object may already be applied", async () => {
    await resetMocks();
    const mc = new MachineConfig("99-worker-up", {
      role: "worker",
      files: [{ path: "/etc/up.conf", contents: { text: "x\n" } }],
      kubeconfig: sim.kubeconfig,
    });
    assert.equal(await valueOf(mc.rolloutImpact), undefined);
  });
});
