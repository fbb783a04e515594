/**
 * The steps of an ordered rollout against the simulator, whose node controller does what the MCO's
 * does with a paused pool (pkg/controller/node/node_controller.go syncMachineConfigPool: the render
 * goes on, `syncStatusOnly`, no node gets the new desiredConfig): a held pool takes the new render
 * without moving a node, and rolls it out once released; a pool someone paused stays paused.
 */
import { strict as assert } from "node:assert";
import { DESIRED_CONFIG } from "../../primitives/openshift";
import {
  DEADLINE_MS,
  K,
  keyOf,
  machineConfig,
  poolTarget,
  Simulator,
  startTestSimulator,
  storeUntil,
  workerNodes,
} from "../../test/simulator-fixture";
import { createApiClient } from "./api";
import { KINDS } from "./kinds";
import { HOLD_FIELD_MANAGER, holdPool, releasePool } from "./pool-hold";

describe("pool hold: the pause and resume of an ordered rollout", function () {
  this.timeout(DEADLINE_MS * 3);
  let sim: Simulator;
  before(async () => {
    sim = await startTestSimulator();
  });
  after(() => sim.stop());

  const options = () => ({
    kubeconfig: sim.kubeconfig,
    pool: "worker",
    after: ["canary"],
    timeoutMs: DEADLINE_MS,
  });
  const paused = () => (sim.store.get(keyOf(K.pool, "worker"))!.spec as { paused?: boolean }).paused;
  const desired = () => workerNodes(sim).map((n) => n.metadata.annotations?.[DESIRED_CONFIG]);

  it("holds the pool's nodes on their config while the new render is made, and rolls it out once released", async () => {
    const before = poolTarget(sim);
    const held = await holdPool(options());
    assert.deepEqual(held, {
      byHand: false,
      line: `paused pool worker until canary has rolled out; should one fail, worker stays paused: fix it and run up again, or oc patch mcp worker --type merge -p '{"spec":{"paused":false}}'`,
    });
    assert.equal(paused(), true);
    // A second object of the same pool: it stays paused, as the library's.
    assert.equal((await holdPool(options())).line, "pool worker stays paused until canary has rolled out");
    sim.store.create(machineConfig("99-worker-held", { "/etc/held.conf": "held\n" }));
    const rendered = await storeUntil(
      sim,
      "a new render",
      () => poolTarget(sim) !== before && poolTarget(sim),
    );
    assert.ok(
      desired().every((d) => d === before),
      "no node is handed the new render while held",
    );
    assert.deepEqual(await releasePool(options()), {
      byHand: false,
      line: "unpaused pool worker: canary rolled out",
    });
    await storeUntil(sim, "every node handed the render", () => desired().every((d) => d === rendered));
    assert.equal(paused(), false);
  });

  it("leaves a pool paused by hand as it is, and says how its rollout goes on", async () => {
    const client = createApiClient(sim.kubeconfig);
    await client.mergePatch(
      KINDS.pool,
      "worker",
      undefined,
      { spec: { paused: true } },
      undefined,
      "kubectl-patch",
    );
    const byHand = {
      byHand: true,
      line: `pool worker is paused by kubectl-patch: left paused; its rollout waits for oc patch mcp worker --type merge -p '{"spec":{"paused":false}}'`,
    };
    assert.deepEqual(await holdPool(options()), byHand);
    assert.deepEqual(await releasePool(options()), byHand);
    assert.equal(paused(), true);
    const owners = sim.store.get(keyOf(K.pool, "worker"))!.metadata.managedFields as Array<{
      manager: string;
    }>;
    assert.ok(
      !owners.some((o) => o.manager === HOLD_FIELD_MANAGER && JSON.stringify(o).includes("f:paused")),
    );
    await client.mergePatch(
      KINDS.pool,
      "worker",
      undefined,
      { spec: { paused: false } },
      undefined,
      "kubectl-patch",
    );
    assert.deepEqual(await holdPool({ ...options(), pool: "absent" }), {
      byHand: false,
      line: "pool absent is not in the cluster yet: nothing to hold",
    });
  });
});
