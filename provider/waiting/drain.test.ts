import { strict as assert } from "node:assert";
import { blockedPods, describeBlockedPod, podKey, refusingBudgets } from "./drain";
import { KubeObject } from "./kinds";
import { describeNodePhases, drainBlockedPods, drainErrorOf, PHASES_NAMED } from "./machineconfignode";

// k8s.io/kubectl/pkg/drain drain.go evictPods: a refusal retried until the helper's timeout, any other
// error at once; aggregated by apimachinery utilerrors.NewAggregate.
const timedOut = (pod: string, ns = "shop") =>
  `error when evicting pods/"${pod}" -n "${ns}": global timeout reached: 1m30s`;

// machine-config-operator drain_controller.go drainNode, on a failed attempt.
const failedDrain = (error: string) =>
  `Error: Node Drain has not succeeded. Error is: ${error} The drain will not be complete until desired drainer drain-rendered-worker-new matches current drainer uncordon-rendered-worker-old`;

function mcn(name: string, drained?: { status: string; message: string }): KubeObject {
  return {
    metadata: { name },
    spec: { pool: { name: "worker" }, configVersion: { desired: "rendered-worker-new" } },
    status: {
      configVersion: { current: "rendered-worker-old", desired: "rendered-worker-new" },
      conditions: drained ? [{ type: "Drained", ...drained }] : [],
    },
  };
}

function budget(name: string, status: Record<string, number>, extra: Partial<KubeObject["metadata"]> = {}) {
  return {
    metadata: { name, namespace: "shop", generation: 1, ...extra },
    spec: { minAvailable: 1, selector: { matchLabels: { app: "web" } } },
    status: { observedGeneration: 1, ...status },
  } as KubeObject;
}

const pod = (labels: Record<string, string> = { app: "web" }): KubeObject => ({
  metadata: { name: "web-1", namespace: "shop", labels },
});

describe("what holds a drain", () => {
  it("reads the pods of one error or of an aggregate, each once, keeping a reason other than the helper's timeout", () => {
    assert.deepEqual(blockedPods(timedOut("web-1")), [{ namespace: "shop", name: "web-1" }]);
    const refused = `error when evicting pods/"db-0" -n "data": This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.`;
    assert.deepEqual(blockedPods(`[${timedOut("web-1")}, ${refused}, ${timedOut("web-1")}]`), [
      { namespace: "shop", name: "web-1" },
      {
        namespace: "data",
        name: "db-0",
        why: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
      },
    ]);
    assert.deepEqual(blockedPods("failed to cordon: the server is unavailable"), []);
  });

  it("keeps pods that share a name or a namespace apart, and a single error whose reason ends in brackets whole", () => {
    const pods = [timedOut("web-1"), timedOut("web-2"), timedOut("web-1", "data")];
    assert.deepEqual(blockedPods(`[${pods.join(", ")}]`).map(podKey), [
      "shop/web-1",
      "shop/web-2",
      "data/web-1",
    ]);
    // An admission webhook's denial, as apimachinery aggregates a validation's errors.
    const denied = `error when evicting pods/"web-1" -n "shop": admission webhook "pdb.example.com" denied the request: [budget web holds]`;
    assert.deepEqual(blockedPods(denied), [
      {
        namespace: "shop",
        name: "web-1",
        why: 'admission webhook "pdb.example.com" denied the request: [budget web holds]',
      },
    ]);
  });

  // kubernetes pkg/registry/core/pod/storage/eviction.go checkAndDecrement.
  it("takes for refusing the budgets of the pod's namespace that select it and allow no disruption or lag their spec", () => {
    const none = budget("web", { disruptionsAllowed: 0, desiredHealthy: 1, currentHealthy: 1 });
    const one = budget("spare", { disruptionsAllowed: 1 });
    const behind = budget("late", { disruptionsAllowed: 1 }, { generation: 2 });
    const elsewhere = budget("other", { disruptionsAllowed: 0 }, { namespace: "data" });
    assert.deepEqual(
      refusingBudgets(pod(), [none, one, behind, elsewhere]).map((b) => b.metadata.name),
      ["web", "late"],
    );
    assert.deepEqual(refusingBudgets(pod({ app: "db" }), [none]), []);
  });

  it("names the pod with its refusing budget as the eviction's cause says it, else with what the error says", () => {
    const [web] = blockedPods(timedOut("web-1"));
    const none = budget("web", { disruptionsAllowed: 0, desiredHealthy: 2, currentHealthy: 2 });
    assert.equal(
      describeBlockedPod(web, pod(), [none]),
      "pod shop/web-1: PodDisruptionBudget shop/web needs 2 healthy pods and has 2",
    );
    const single = budget("web", { disruptionsAllowed: 0, desiredHealthy: 1, currentHealthy: 0 });
    assert.equal(
      describeBlockedPod(web, pod(), [single]),
      "pod shop/web-1: PodDisruptionBudget shop/web needs 1 healthy pod and has 0",
    );
    // Behind its spec, its counts are not the refusal's reason.
    const late = budget("web", { disruptionsAllowed: 0, desiredHealthy: 1, currentHealthy: 3 });
    assert.equal(describeBlockedPod(web, pod(), [late]), "pod shop/web-1: PodDisruptionBudget shop/web");
    // A budget the disruption controller has not counted yet (no desiredHealthy or currentHealthy).
    const uncounted = (status: Record<string, number>) =>
      budget("web", { disruptionsAllowed: 0, ...status }, { generation: 2 });
    for (const status of [{}, { desiredHealthy: 1 }, { currentHealthy: 0 }] as Record<string, number>[])
      assert.equal(
        describeBlockedPod(web, pod(), [uncounted(status)]),
        "pod shop/web-1: PodDisruptionBudget shop/web",
      );
    const spare = budget("web-spare", { disruptionsAllowed: 0, desiredHealthy: 1, currentHealthy: 1 });
    assert.equal(
      describeBlockedPod(web, pod(), [none, spare]),
      "pod shop/web-1: PodDisruptionBudget shop/web needs 2 healthy pods and has 2, PodDisruptionBudget shop/web-spare needs 1 healthy pod and has 1",
    );
    assert.equal(describeBlockedPod(web, undefined, undefined), "pod shop/web-1");
    assert.equal(describeBlockedPod(web, null, [none]), "pod shop/web-1");
    assert.equal(
      describeBlockedPod({ ...web, why: 'pods "web-1" is forbidden' }, pod(), []),
      'pod shop/web-1: pods "web-1" is forbidden',
    );
  });

  it("reads a failed drain attempt from the MachineConfigNode only while the drain goes on", () => {
    const error = `[${timedOut("web-1")}, ${timedOut("web-2")}]`;
    assert.equal(drainErrorOf(mcn("ip-1", { status: "Unknown", message: failedDrain(error) })), error);
    const draining =
      "Draining node. The drain will not be complete until desired drainer drain-rendered-worker-new matches current drainer";
    assert.equal(drainErrorOf(mcn("ip-1", { status: "Unknown", message: draining })), undefined);
    assert.equal(drainErrorOf(mcn("ip-1", { status: "True", message: failedDrain(error) })), undefined);
  });

  it("says on the progress line which pods hold each named node's drain, and asks for those alone", () => {
    const held = mcn("ip-00", { status: "Unknown", message: failedDrain(timedOut("web-1")) });
    const nodes = Array.from({ length: PHASES_NAMED }, (_, i) =>
      mcn(`ip-${String(i + 1).padStart(2, "0")}`, {
        status: "Unknown",
        message: failedDrain(timedOut(`web-${i + 2}`)),
      }),
    );
    const all = [held, ...nodes];
    assert.deepEqual(
      drainBlockedPods(all, "rendered-worker-new").map((p) => p.name),
      Array.from({ length: PHASES_NAMED }, (_, i) => `web-${i + 1}`),
      "the eleventh node is counted, not named",
    );
    const line = describeNodePhases([held], "rendered-worker-new", (p) => `pod ${p.name} (x)`);
    assert.equal(line, "ip-00 draining (cannot evict pod web-1 (x))");
    assert.equal(
      describeNodePhases([held], "rendered-worker-new"),
      "ip-00 draining (cannot evict pod shop/web-1)",
    );
  });
});
