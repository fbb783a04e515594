/**
 * Canary nodes against the simulator, whose node controller gives a node of worker and one custom
 * pool to the custom pool (machine-config-operator pkg/controller/common/helpers.go GetPoolsForNode)
 * and whose render controller gives a custom pool the worker configs and its own
 * (pkg/controller/render/render_controller.go getMachineConfigsForPool): the labelled node joins the
 * canary and returns when its label goes, without a drain while the two renders have the same content
 * (pkg/daemon/update.go compareMachineConfig); a label someone else set is never removed.
 */
import { strict as assert } from "node:assert";
import { machineConfigPool } from "../../builders/machineconfiguration";
import { CURRENT_CONFIG, DESIRED_CONFIG, MCD_STATE } from "../../primitives/openshift";
import {
  DEADLINE_MS,
  K,
  keyOf,
  Simulator,
  startTestSimulator,
  workerNodes,
} from "../../test/simulator-fixture";
import { evaluateCanaryMoves, placeCanaryNodes, returnCanaryNodes } from "./canary";
import type { KubeObject } from "./kinds";

const LABEL = "node-role.kubernetes.io/canary";

describe("canary nodes: labelled into their pool and returned", function () {
  this.timeout(DEADLINE_MS * 3);
  let sim: Simulator;
  before(async () => {
    sim = await startTestSimulator();
    sim.store.create(machineConfigPool({ name: "canary" }) as never);
  });
  after(() => sim.stop());

  const options = (nodes: string[], labelled: string[]) => ({
    kubeconfig: sim.kubeconfig,
    pool: "canary",
    parent: "worker",
    nodes,
    labelled,
    timeoutMs: DEADLINE_MS,
  });
  const node = (name: string) => sim.store.get(keyOf(K.node, name))!;

  it("labels a worker into the canary, returns it once unlisted, and leaves a node labelled by someone else as it is", async () => {
    const [first, second] = workerNodes(sim).map((n) => n.metadata.name);
    sim.store.mutate(keyOf(K.node, second), (n) => {
      n.metadata.labels = { ...n.metadata.labels, [LABEL]: "" };
    });
    let cordoned = false;
    const stop = sim.store.subscribe(({ object }) => {
      if (object.kind === "Node" && (object.spec as { unschedulable?: boolean }).unschedulable)
        cordoned = true;
    });
    const placed = await placeCanaryNodes(options([first, second], []));
    assert.deepEqual(placed.result.labelled, [first], "the label someone else set is theirs");
    for (const name of [first, second])
      assert.match(node(name).metadata.annotations?.[CURRENT_CONFIG] ?? "", /^rendered-canary-/);

    await placeCanaryNodes(options([second], [first]));
    assert.equal(node(first).metadata.labels?.[LABEL], undefined);
    assert.match(node(first).metadata.annotations?.[CURRENT_CONFIG] ?? "", /^rendered-worker-/);

    await returnCanaryNodes(options([second], []));
    assert.equal(node(second).metadata.labels?.[LABEL], "", "never removed: the stack did not write it");
    stop();
    assert.equal(cordoned, false, "the same configuration in both pools: no drain");
  });

  it("waits while a node has not been handed its pool's render or is applying it, and fails once it is gone", () => {
    const pool = (name: string, target: string) =>
      ({ metadata: { name }, spec: { configuration: { name: target } } }) as KubeObject;
    const at = (name: string, desired: string, current: string, state = "Done") =>
      ({
        metadata: {
          name,
          annotations: { [DESIRED_CONFIG]: desired, [CURRENT_CONFIG]: current, [MCD_STATE]: state },
        },
      }) as KubeObject;
    const pools = {
      canary: pool("canary", "rendered-canary-1"),
      worker: pool("worker", "rendered-worker-1"),
    };
    const moves = { pool: "canary", parent: "worker", joining: ["a"], returning: ["b"] };
    const evaluate = (nodes: KubeObject[]) => evaluateCanaryMoves(moves, pools, nodes);
    assert.deepEqual(
      [
        evaluate([
          at("a", "rendered-worker-1", "rendered-worker-1"),
          at("b", "rendered-worker-1", "rendered-canary-1", "Working"),
        ]),
      ].map((e) => [e.state, e.message]),
      [
        [
          "waiting",
          "a not yet handed pool canary's render rendered-canary-1; b applying rendered-worker-1 (Working)",
        ],
      ],
    );
    const done = evaluate([
      at("a", "rendered-canary-1", "rendered-canary-1"),
      at("b", "rendered-worker-1", "rendered-worker-1"),
    ]);
    assert.deepEqual([done.state, done.done, done.total], ["done", 2, 2]);
    assert.deepEqual(evaluate([at("a", "rendered-canary-1", "rendered-canary-1")]).message, "node b is gone");
  });
});
