import * as assert from "node:assert/strict";
import { evaluateAutoscalersReady, MAX_SIZE_ANNOTATION, MIN_SIZE_ANNOTATION } from "./autoscaling";
import { KubeObject } from "./kinds";

const NS = "openshift-machine-api";
const SET = "c-infra-us-east-2a";

function autoscaler(lastTarget?: string): KubeObject {
  return {
    metadata: { name: SET, namespace: NS },
    spec: { minReplicas: 2, maxReplicas: 4, scaleTargetRef: { kind: "MachineSet", name: SET } },
    ...(lastTarget ? { status: { lastTargetRef: { kind: "MachineSet", name: lastTarget } } } : {}),
  };
}

function machineSet(annotated: boolean): KubeObject {
  return {
    metadata: {
      name: SET,
      namespace: NS,
      ...(annotated ? { annotations: { [MIN_SIZE_ANNOTATION]: "2", [MAX_SIZE_ANNOTATION]: "4" } } : {}),
    },
    spec: { replicas: 3 },
  };
}

function machine(name: string, node: string, phase = "Running"): KubeObject {
  return {
    metadata: { name, namespace: NS, labels: { "machine.openshift.io/cluster-api-machineset": SET } },
    status: { phase, nodeRef: { name: node } },
  };
}

function node(name: string, ready: boolean): KubeObject {
  return {
    metadata: { name },
    status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] },
  };
}

const target = { namespace: NS, autoscalers: [SET] };

describe("MachineAutoscalers in effect", () => {
  it("waits for the autoscaler, the annotations, lastTargetRef and the minimum of Ready machines, in that order", () => {
    const machines = [machine("m1", "n1"), machine("m2", "n2"), machine("m3", "n3")];
    const steps: Array<[Parameters<typeof evaluateAutoscalersReady>[1], RegExp]> = [
      [
        { autoscalers: [], machineSets: [], machines: [], nodes: [] },
        /MachineAutoscaler \S+ does not exist yet/,
      ],
      [
        { autoscalers: [autoscaler()], machineSets: [machineSet(false)], machines, nodes: [] },
        /does not carry the bounds 2-4/,
      ],
      [
        { autoscalers: [autoscaler()], machineSets: [machineSet(true)], machines, nodes: [] },
        /has not reported its target/,
      ],
      [
        {
          autoscalers: [autoscaler(SET)],
          machineSets: [machineSet(true)],
          machines,
          nodes: [node("n1", true), node("n2", false)],
        },
        /has 1 of at least 2 machines Ready/,
      ],
    ];
    for (const [obs, message] of steps) {
      const e = evaluateAutoscalersReady(target, obs);
      assert.equal(e.state, "waiting");
      assert.match(e.message, message);
    }
    const done = evaluateAutoscalersReady(target, {
      autoscalers: [autoscaler(SET)],
      machineSets: [machineSet(true)],
      machines,
      nodes: [node("n1", true), node("n2", true), node("n3", false)],
    });
    assert.equal(done.state, "done", "the minimum is enough: the autoscaler may be adding the third");
    assert.equal(done.result?.readyMachineCount, 2);
  });

  it("fails naming a failed Machine", () => {
    const failed = { ...machine("m1", "n1", "Failed") };
    (failed.status as Record<string, unknown>).errorMessage = "no capacity";
    const e = evaluateAutoscalersReady(target, {
      autoscalers: [autoscaler(SET)],
      machineSets: [machineSet(true)],
      machines: [failed],
      nodes: [],
    });
    assert.equal(e.state, "failed");
    assert.match(e.message, /Machine m1 failed: no capacity/);
  });
});
