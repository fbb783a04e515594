import { strict as assert } from "node:assert";
import { KubeObject } from "./kinds";
import { evaluateMachineSetsReady, MACHINESET_LABEL } from "./machineset";
import { nodeServes, WMCO_DESIRED_VERSION, WMCO_VERSION } from "./windows";
import {
  DELETE_MACHINE_ANNOTATION,
  isOutdated,
  MachineReplacement,
  planReplacement,
  ReplacementStep,
} from "./replacement";

/**
 * Replacing machines through the machine-api, as openshift/machine-api-operator's MachineSet controller
 * reacts (pkg/controller/machineset/controller.go): `syncReplicas` creates machines from the template
 * when there are fewer than replicas and deletes `getMachinesToDeletePrioritized` ones when there are
 * more, machines marked with `machine.openshift.io/delete-machine` first (delete_policy.go); machines
 * being deleted are not counted (`shouldExcludeMachine`), so a deleted Machine is replaced.
 */
const NS = "openshift-machine-api";
const OLD = { kind: "AWSMachineProviderConfig", instanceType: "m6i.xlarge" };
const NEW = { kind: "AWSMachineProviderConfig", instanceType: "m6i.2xlarge" };

function machineSet(replicas: number, observed = true): KubeObject {
  return {
    metadata: { name: "infra-a", namespace: NS, generation: 2 },
    spec: { replicas, template: { spec: { providerSpec: { value: NEW } } } },
    status: { observedGeneration: observed ? 2 : 1 },
  };
}

function machine(
  name: string,
  spec: object,
  extra: { marked?: boolean; deleting?: boolean } = {},
): KubeObject {
  return {
    metadata: {
      name,
      namespace: NS,
      labels: { [MACHINESET_LABEL]: "infra-a" },
      ...(extra.marked ? { annotations: { [DELETE_MACHINE_ANNOTATION]: "true" } } : {}),
      ...(extra.deleting ? { deletionTimestamp: "2026-11-25T00:00:00Z" } : {}),
    },
    spec: { providerSpec: { value: spec } },
    status: { nodeRef: { name } },
  };
}

const fixed = (maxSurge: number | string, maxUnavailable: number | string): MachineReplacement => ({
  maxSurge,
  maxUnavailable,
  replicas: { "infra-a": 3 },
});
const olds = () => ["o1", "o2", "o3"].map((n) => machine(n, OLD));
const allReady = () => true;

describe("machine replacement: each decision", () => {
  it("tells an old machine by its provider spec, whatever the key order", () => {
    const ms = machineSet(3);
    assert.equal(isOutdated(machine("o1", OLD), ms), true);
    assert.equal(
      isOutdated(machine("n1", { instanceType: "m6i.2xlarge", kind: "AWSMachineProviderConfig" }), ms),
      false,
    );
  });

  it("surges first: raises replicas by maxSurge and deletes nothing while no machine is spare", () => {
    const plan = planReplacement(machineSet(3), olds(), allReady, fixed(1, 0));
    assert.deepEqual(plan.steps, [
      { type: "scale", machineSet: "infra-a", from: 3, replicas: 4, key: "scale/infra-a/3-4/o1,o2,o3" },
    ]);
    assert.deepEqual(plan.outdated, ["o1", "o2", "o3"]);
  });

  it("marks an old machine only once a new one is Ready, and keeps replicas (the deletion is replaced)", () => {
    const machines = [...olds(), machine("n1", NEW)];
    const waiting = planReplacement(machineSet(4), machines, (m) => m.metadata.name !== "n1", fixed(1, 0));
    assert.deepEqual(waiting.steps, []);
    assert.match(
      waiting.waiting ?? "",
      /waiting for new machines to be Ready \(3 Ready, 0 unavailable of 0 allowed\)/,
    );
    const plan = planReplacement(machineSet(4), machines, allReady, fixed(1, 0));
    assert.deepEqual(plan.steps, [{ type: "mark", machine: "o1" }]);
  });

  it("deletes a marked machine once the MachineSet has settled at the replicas it keeps", () => {
    const machines = [
      machine("o1", OLD, { marked: true }),
      machine("o2", OLD),
      machine("o3", OLD),
      machine("n1", NEW),
    ];
    assert.deepEqual(planReplacement(machineSet(4), machines, allReady, fixed(1, 0)).steps, [
      { type: "delete", machine: "o1" },
    ]);
    const unsettled = planReplacement(machineSet(4, false), machines, allReady, fixed(1, 0));
    assert.deepEqual(unsettled.steps, []);
    assert.match(unsettled.waiting ?? "", /to settle before deleting o1/);
  });

  it("ends by scaling down to the declared replicas once the last old machine carries the mark", () => {
    const news = ["n1", "n2", "n3"].map((n) => machine(n, NEW));
    const unmarked = planReplacement(machineSet(4), [machine("o3", OLD), ...news], allReady, fixed(1, 0));
    assert.deepEqual(unmarked.steps, [{ type: "mark", machine: "o3" }]);
    const marked = planReplacement(
      machineSet(4),
      [machine("o3", OLD, { marked: true }), ...news],
      allReady,
      fixed(1, 0),
    );
    assert.deepEqual(marked.steps, [
      { type: "scale", machineSet: "infra-a", from: 4, replicas: 3, key: "scale/infra-a/4-3/" },
    ]);
  });

  it("marks machines that are not Ready at once: they serve nothing", () => {
    const plan = planReplacement(machineSet(3), olds(), (m) => m.metadata.name !== "o2", fixed(1, 0));
    assert.deepEqual(
      plan.steps.filter((s) => s.type === "mark"),
      [{ type: "mark", machine: "o2" }],
    );
  });

  it("with maxUnavailable and no surge deletes first and never writes replicas", () => {
    const plan = planReplacement(machineSet(3), olds(), allReady, fixed(0, 2));
    assert.deepEqual(plan.steps, [
      { type: "mark", machine: "o1" },
      { type: "mark", machine: "o2" },
    ]);
  });

  // machine-api-operator controller.go reconcile sorts its machines by name (sort.Strings), as this
  // does: the machines replaced first and the scale's key do not depend on the order of a list or watch.
  it("takes machines in name order whatever the order observed", () => {
    const reversed = olds().reverse();
    const surge = planReplacement(machineSet(3), reversed, allReady, fixed(1, 0));
    assert.deepEqual(surge.outdated, ["o1", "o2", "o3"]);
    assert.deepEqual(surge.steps, [
      { type: "scale", machineSet: "infra-a", from: 3, replicas: 4, key: "scale/infra-a/3-4/o1,o2,o3" },
    ]);
    assert.deepEqual(planReplacement(machineSet(3), reversed, allReady, fixed(0, 2)).steps, [
      { type: "mark", machine: "o1" },
      { type: "mark", machine: "o2" },
    ]);
  });

  it("spends the unavailable budget on Ready machines only after marking those that serve nothing, each once", () => {
    const plan = planReplacement(machineSet(3), olds(), (m) => m.metadata.name !== "o1", fixed(0, 2));
    assert.deepEqual(plan.steps, [
      { type: "mark", machine: "o1" },
      { type: "mark", machine: "o2" },
    ]);
  });

  it("waits for the MachineSet to settle before deleting the machines it marked, naming them", () => {
    const machines = [
      machine("o1", OLD, { marked: true }),
      machine("o2", OLD, { marked: true }),
      machine("o3", OLD),
    ];
    const plan = planReplacement(machineSet(3, false), machines, allReady, fixed(0, 2));
    assert.deepEqual(plan.steps, []);
    assert.equal(plan.waiting, "waiting for MachineSet infra-a to settle before deleting o1, o2");
  });

  it("on an autoscaled MachineSet keeps the autoscaler's replicas and never surges", () => {
    const policy = { maxSurge: 1, maxUnavailable: 1 };
    const machines = [...olds(), machine("o4", OLD)];
    const plan = planReplacement(machineSet(4), machines, allReady, policy);
    assert.equal(plan.replicas, 4);
    assert.deepEqual(plan.steps, [{ type: "mark", machine: "o1" }]);
  });

  // openshift/machine-api-operator pkg/controller/machineset/controller.go, syncReplicas: the MachineSet
  // controller makes as many machines as spec.replicas says, whoever wrote it; `oc scale` writes it
  // through the scale subresource. Only the replacement moves the declared replicas, up to its surge.
  it("stops on replicas someone else set (oc scale) instead of scaling them back, naming the count and the way out", () => {
    const machines = [...olds(), machine("n1", NEW)];
    for (const replicas of [6, 2]) {
      const plan = planReplacement(machineSet(replicas), machines, allReady, fixed(1, 0));
      assert.deepEqual(plan.steps, [], "nothing written back");
      assert.deepEqual(plan.outdated, ["o1", "o2", "o3"]);
      assert.equal(
        plan.scaledByOthers,
        `MachineSet infra-a was scaled to ${replicas} replicas by someone else during the machine replacement (the pool declares 3, 4 with the replacement's surge); the replacement stops rather than scale it back: declare the replicas you want in the program, or scale it back (oc scale machineset infra-a -n openshift-machine-api --replicas=3), and run up again`,
      );
    }
    // Without a surge the declared replicas are the only count of its own.
    assert.equal(
      planReplacement(machineSet(4), machines, allReady, fixed(0, 1)).scaledByOthers,
      "MachineSet infra-a was scaled to 4 replicas by someone else during the machine replacement (the pool declares 3); the replacement stops rather than scale it back: declare the replicas you want in the program, or scale it back (oc scale machineset infra-a -n openshift-machine-api --replicas=3), and run up again",
    );
    // The counts its own steps make are its own: the declared replicas and the surge above them.
    for (const replicas of [3, 4])
      assert.equal(
        planReplacement(machineSet(replicas), machines, allReady, fixed(1, 0)).scaledByOthers,
        undefined,
      );
    // An autoscaled MachineSet's count is the autoscaler's, whatever it is.
    const autoscaled = planReplacement(machineSet(6), machines, allReady, { maxSurge: 0, maxUnavailable: 1 });
    assert.equal(autoscaled.scaledByOthers, undefined);
  });

  it("is over when no live machine is old; machines being deleted do not count", () => {
    const machines = [
      machine("o1", OLD, { deleting: true }),
      ...["n1", "n2", "n3"].map((n) => machine(n, NEW)),
    ];
    const plan = planReplacement(machineSet(3), machines, allReady, fixed(1, 0));
    assert.deepEqual(plan, { replicas: 3, outdated: [], current: 3, steps: [] });
  });
});

/**
 * A MachineSet controller reduced to what replacement depends on (`syncReplicas`): fewer live machines
 * than replicas creates machines from the template, more deletes marked ones first, a deleted machine
 * is gone at once. New machines become Ready one evaluation after they are created.
 */
function rollOut(policy: MachineReplacement, autoscaledReplicas?: number) {
  const replicas = autoscaledReplicas ?? 3;
  let ms = machineSet(replicas);
  let machines = Array.from({ length: replicas }, (_, i) => machine(`o${i + 1}`, OLD));
  const readyAfter = new Map<string, number>();
  let created = 0;
  let minReady = Infinity;
  let maxMachines = 0;
  const ready = (m: KubeObject) => (readyAfter.get(m.metadata.name) ?? 0) <= round;
  let round = 0;
  for (; round < 50; round++) {
    const live = machines.filter((m) => !m.metadata.deletionTimestamp);
    minReady = Math.min(minReady, live.filter(ready).length);
    maxMachines = Math.max(maxMachines, live.length);
    const plan = planReplacement(ms, machines, ready, policy);
    if (plan.outdated.length === 0 && (ms.spec as { replicas: number }).replicas === plan.replicas) break;
    for (const step of plan.steps as ReplacementStep[]) {
      if (step.type === "scale") ms = { ...ms, spec: { ...(ms.spec as object), replicas: step.replicas } };
      if (step.type === "mark")
        machines = machines.map((m) =>
          m.metadata.name === step.machine ? machine(m.metadata.name, OLD, { marked: true }) : m,
        );
      if (step.type === "delete") machines = machines.filter((m) => m.metadata.name !== step.machine);
    }
    const want = (ms.spec as { replicas: number }).replicas;
    while (machines.length > want) {
      const victim = machines.find((m) => m.metadata.annotations?.[DELETE_MACHINE_ANNOTATION]) ?? machines[0];
      machines = machines.filter((m) => m !== victim);
    }
    while (machines.length < want) {
      const name = `n${++created}`;
      machines.push(machine(name, NEW));
      readyAfter.set(name, round + 2);
    }
  }
  return { round, minReady, maxMachines, machines: machines.map((m) => m.metadata.name).sort(), created };
}

describe("machine replacement: a whole rollout against the MachineSet controller's rules", () => {
  // Percentages of the 3 replicas as ResolveFenceposts resolves them (kubernetes
  // pkg/controller/deployment/util/deployment_util.go): the surge rounds up (25% -> 1, 50% -> 2), the
  // unavailable down (34% -> 1, 50% -> 1), and when both come to 0 one machine may be unavailable.
  for (const [surge, unavailable, minReady, maxMachines] of [
    [1, 0, 3, 4],
    [2, 0, 3, 5],
    [0, 1, 2, 3],
    [1, 1, 2, 4],
    ["25%", "0%", 3, 4],
    ["0%", "34%", 2, 3],
    ["50%", "50%", 3, 5],
    ["0%", "10%", 2, 3],
  ] as const) {
    it(`maxSurge ${surge}, maxUnavailable ${unavailable}: every machine replaced, never fewer than ${minReady} Ready nor more than ${maxMachines} machines`, () => {
      const result = rollOut(fixed(surge, unavailable));
      assert.ok(result.round < 50, "the rollout ends");
      // Three new machines, no more: none was created only to be deleted again.
      assert.deepEqual(result.machines, ["n1", "n2", "n3"]);
      assert.equal(result.created, 3);
      assert.equal(result.minReady, minReady);
      assert.equal(result.maxMachines, maxMachines);
    });
  }

  it("an autoscaled MachineSet of 2 is replaced at its own count, one machine down at a time", () => {
    const result = rollOut({ maxSurge: 0, maxUnavailable: 1 }, 2);
    assert.deepEqual(result.machines, ["n1", "n2"]);
    assert.equal(result.minReady, 1);
    assert.equal(result.maxMachines, 2);
  });
});

describe("MachineSets ready with a replacement policy", () => {
  const target = { namespace: NS, machineSets: ["infra-a"], replacement: fixed(1, 0) };
  const nodes = (names: string[]): KubeObject[] =>
    names.map((name) => ({
      metadata: { name },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    }));
  const withCondition = (m: KubeObject, condition: Record<string, string>): KubeObject => ({
    ...m,
    status: { ...(m.status as object), conditions: [condition] },
  });
  const settled = (replicas: number): KubeObject => ({
    ...machineSet(replicas),
    status: { observedGeneration: 2, replicas, readyReplicas: replicas, availableReplicas: replicas },
  });

  it("is not done while a Ready, labelled machine runs the previous spec, and says which", () => {
    const e = evaluateMachineSetsReady(target, {
      machineSets: [settled(3)],
      machines: olds(),
      nodes: nodes(["o1", "o2", "o3"]),
    });
    assert.equal(e.state, "waiting");
    assert.equal(
      e.message,
      "MachineSets infra-a: 0/3 nodes ready (MachineSet infra-a: 3 of 3 machines run the previous spec (o1, o2, o3); scaling from 3 to 4)",
    );
    assert.equal(e.steps?.length, 1);
  });

  it("says what it does next: marking, scaling and deleting, in the order it does them", () => {
    const upAndMark = evaluateMachineSetsReady(target, {
      machineSets: [settled(3)],
      machines: olds(),
      nodes: nodes(["o1", "o3"]),
    });
    assert.equal(
      upAndMark.message,
      "MachineSets infra-a: 0/3 nodes ready (MachineSet infra-a: 3 of 3 machines run the previous spec (o1, o2, o3); marking o2 for deletion, scaling from 3 to 4)",
    );
    const deleting = evaluateMachineSetsReady(target, {
      machineSets: [settled(4)],
      machines: [
        machine("o1", OLD, { marked: true }),
        machine("o2", OLD),
        machine("o3", OLD),
        machine("n1", NEW),
      ],
      nodes: nodes(["o1", "o2", "o3", "n1"]),
    });
    assert.equal(
      deleting.message,
      "MachineSets infra-a: 1/3 nodes ready (MachineSet infra-a: 3 of 3 machines run the previous spec (o1, o2, o3); deleting o1)",
    );
  });

  // machine-api-operator pkg/controller/machineset/controller.go, reconcile: the status is calculated
  // over the machines listed before syncReplicas creates or deletes any, for the generation observed.
  it("is not done while its surge is still to scale back, even when the status counts the declared replicas", () => {
    const e = evaluateMachineSetsReady(target, {
      machineSets: [{ ...machineSet(4), status: { ...settled(3).status! } }],
      machines: ["n1", "n2", "n3"].map((n) => machine(n, NEW)),
      nodes: nodes(["n1", "n2", "n3"]),
    });
    assert.equal(e.state, "waiting");
    assert.equal(e.message, "MachineSets infra-a: 3/3 nodes ready (MachineSet infra-a: scaling from 4 to 3)");
    assert.deepEqual(e.steps, [
      { type: "scale", machineSet: "infra-a", from: 4, replicas: 3, key: "scale/infra-a/4-3/" },
    ]);
  });

  // machine-api-operator pkg/controller/machine/drain_controller.go Reconcile drains only a Machine being
  // deleted, Drained False with the drain's error; controller.go setLifecycleHookConditions gives every
  // Machine with a pre-drain hook Drainable False, deleted or not, so only a deleted one is held by it.
  it("says first which old machine the machine-api cannot drain, so that a deadline names it, not a hook on one in service", () => {
    const hook = {
      type: "Drainable",
      status: "False",
      reason: "MachineHookPresent",
      message: "Drain operation currently blocked by: [{Name:pre-drain Owner:storage}]",
    };
    const pdb = {
      type: "Drained",
      status: "False",
      reason: "MachineDrainError",
      message: "could not drain machine: Cannot evict pod as it would violate the pod's disruption budget.",
    };
    for (const condition of [pdb, hook]) {
      const e = evaluateMachineSetsReady(target, {
        machineSets: [settled(4)],
        machines: [
          withCondition(machine("o2", OLD), hook),
          withCondition(machine("o1", OLD, { marked: true, deleting: true }), condition),
          machine("o3", OLD),
          machine("n1", NEW),
          machine("n2", NEW),
        ],
        nodes: nodes(["o1", "o2", "o3", "n1", "n2"]),
      });
      assert.equal(e.state, "waiting");
      assert.ok(
        e.message.endsWith(`(MachineSet infra-a: Machine o1 is not drained: ${condition.message})`),
        e.message,
      );
    }
  });

  it("fails on a MachineSet scaled by hand during the replacement, naming it", () => {
    const e = evaluateMachineSetsReady(target, {
      machineSets: [settled(6)],
      machines: [...olds(), machine("n1", NEW)],
      nodes: nodes(["o1", "o2", "o3", "n1"]),
    });
    assert.equal(e.state, "failed");
    assert.match(
      e.message,
      /^MachineSet infra-a was scaled to 6 replicas by someone else during the machine replacement/,
    );
    assert.equal(e.steps, undefined);
  });

  it("fails naming the new machine that cannot come up and the old machines left", () => {
    const failed = machine("n1", NEW);
    failed.status = {
      phase: "Failed",
      errorReason: "InvalidConfiguration",
      errorMessage: "no capacity for m6i.2xlarge",
    };
    const e = evaluateMachineSetsReady(target, {
      machineSets: [settled(4)],
      machines: [...olds(), failed],
      nodes: nodes(["o1", "o2", "o3"]),
    });
    assert.equal(e.state, "failed");
    assert.equal(
      e.message,
      "MachineSet infra-a: Machine n1 failed (InvalidConfiguration): no capacity for m6i.2xlarge; 3 machines still run the previous spec (o1, o2, o3)",
    );
    failed.status = { phase: "Failed" };
    const bare = evaluateMachineSetsReady(target, {
      machineSets: [settled(4)],
      machines: [...olds(), failed],
      nodes: nodes(["o1", "o2", "o3"]),
    });
    assert.equal(
      bare.message,
      "MachineSet infra-a: Machine n1 failed: no message; 3 machines still run the previous spec (o1, o2, o3)",
    );
  });

  it("is done when every machine has the template's spec at the declared replicas", () => {
    const e = evaluateMachineSetsReady(target, {
      machineSets: [settled(3)],
      machines: ["n1", "n2", "n3"].map((n) => machine(n, NEW)),
      nodes: nodes(["n1", "n2", "n3"]),
    });
    assert.equal(e.state, "done");
    assert.equal(e.steps, undefined);
  });

  it("deletes an old Windows machine only once WMCO has configured the new one, not when its node is Ready (nodeconfig.go Configure cordons it until done)", () => {
    const windowsNode = (name: string, configured: boolean): KubeObject => ({
      metadata: {
        name,
        labels: { "kubernetes.io/os": "windows" },
        annotations: configured ? { [WMCO_VERSION]: "10.16.1", [WMCO_DESIRED_VERSION]: "10.16.1" } : {},
      },
      spec: configured ? {} : { unschedulable: true },
      status: { conditions: [{ type: "Ready", status: "True" }] },
    });
    const observe = (configured: boolean) =>
      evaluateMachineSetsReady(
        target,
        {
          machineSets: [settled(4)],
          machines: [...olds(), machine("n1", NEW)],
          nodes: [...["o1", "o2", "o3"].map((n) => windowsNode(n, true)), windowsNode("n1", configured)],
        },
        nodeServes,
      );
    assert.deepEqual(observe(false).steps ?? [], []);
    assert.deepEqual(observe(true).steps, [{ type: "mark", machine: "o1" }]);
  });
});
