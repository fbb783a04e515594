import * as assert from "node:assert/strict";
import type { KubeObject } from "./kinds";
import { evaluateOperatorInstall } from "./operator";
import { evaluateDeployments, missingConfig } from "./operator-deployments";
import { PERSISTENCE_MS } from "./persistence";
import { crdsToRemove } from "./waiters";

const PLACEMENT = {
  nodeSelector: { "node-role.kubernetes.io/infra": "" },
  tolerations: [{ key: "node-role.kubernetes.io/infra", operator: "Exists", effect: "NoSchedule" }],
};
const UNSCHEDULABLE =
  "0/6 nodes are available: 3 node(s) didn't match Pod's node affinity/selector, 3 node(s) had untolerated taint {node-role.kubernetes.io/master: }. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.";

function deployment(
  pod: Record<string, unknown>,
  status: Record<string, unknown>,
  generation = 1,
): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "op", namespace: "ns", generation, labels: { "olm.owner": "op.v1" } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { name: "op" } },
      template: { metadata: { labels: { name: "op" } }, spec: { containers: [{ name: "manager" }], ...pod } },
    },
    status,
  };
}
const rolledOut = { observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1 };
const pendingPod: KubeObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "op-abc", namespace: "ns", labels: { name: "op" } },
  status: {
    phase: "Pending",
    conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: UNSCHEDULABLE }],
  },
};

describe("an operator's Deployments against its Subscription's config (OLM overrides/initializer.go)", () => {
  it("is ready when each Deployment carries the config and has rolled out", () => {
    const out = evaluateDeployments(["op"], [deployment(PLACEMENT, rolledOut)], [], PLACEMENT);
    assert.deepEqual(out, { ready: true, waiting: [], problems: [], unavailable: [] });
  });

  it("names the config fields a Deployment lacks, and a Deployment not created", () => {
    assert.deepEqual(
      missingConfig(deployment({}, rolledOut), { ...PLACEMENT, resources: { limits: { cpu: "1" } } }),
      ["nodeSelector", "tolerations", "resources"],
    );
    const out = evaluateDeployments(["op", "webhook"], [deployment({}, rolledOut)], [], PLACEMENT);
    assert.deepEqual(out.waiting, [
      "deployment op does not carry the Subscription's nodeSelector, tolerations yet",
      "deployment webhook not created yet",
    ]);
  });

  it("waits for a rollout as DeploymentStatus does: spec observed, no outdated replica, all available", () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [rolledOut, 2, "deployment op: its spec is not observed yet"],
      [{ ...rolledOut, updatedReplicas: 0 }, 1, "deployment op: 0/1 updated"],
      [{ ...rolledOut, replicas: 2 }, 1, "deployment op: 1 outdated replica(s) still running"],
      [{ ...rolledOut, availableReplicas: 0 }, 1, "deployment op: 0/1 available"],
    ];
    for (const [status, generation, message] of cases)
      assert.deepEqual(
        evaluateDeployments(["op"], [deployment(PLACEMENT, status, generation)], [], PLACEMENT).waiting,
        [message],
      );
  });

  it("takes a pod no node fits as a problem the scheduler retries, in its words; a progress deadline as final", () => {
    const stuck = deployment(PLACEMENT, { ...rolledOut, availableReplicas: 0 });
    const out = evaluateDeployments(["op"], [stuck], [pendingPod], PLACEMENT);
    assert.deepEqual(out.problems, [
      { key: "unschedulable/op", message: `deployment op: 0/1 available: ${UNSCHEDULABLE}` },
    ]);
    const past = deployment(PLACEMENT, {
      ...rolledOut,
      availableReplicas: 0,
      conditions: [{ type: "Progressing", status: "False", reason: "ProgressDeadlineExceeded" }],
    });
    assert.equal(
      evaluateDeployments(["op"], [past], [pendingPod], PLACEMENT).failure,
      `deployment op: 0/1 available: exceeded its progress deadline: ${UNSCHEDULABLE}`,
    );
  });
});

describe("an operator install with its Deployments and CRDs", () => {
  const sub: KubeObject = {
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "Subscription",
    metadata: { name: "op", namespace: "ns", uid: "u" },
    spec: {
      name: "op",
      source: "redhat-operators",
      sourceNamespace: "openshift-marketplace",
      config: PLACEMENT,
    },
    status: { installedCSV: "op.v1", currentCSV: "op.v1", state: "AtLatestKnown" },
  };
  const csv = (phase: string): KubeObject => ({
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    metadata: { name: "op.v1", namespace: "ns" },
    spec: {
      customresourcedefinitions: { owned: [{ name: "widgets.example.com" }] },
      install: { spec: { deployments: [{ name: "op" }] } },
    },
    status: { phase },
  });
  const crd: KubeObject = {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    status: {
      conditions: [
        { type: "Established", status: "True" },
        { type: "NamesAccepted", status: "True" },
      ],
    },
  };
  const target = { namespace: "ns", subscription: "op" };

  it("is done only once the Deployments run with the config and the owned CRDs are served", () => {
    const base = {
      subscription: sub,
      installPlans: [],
      csvs: [csv("Succeeded")],
      deployments: [deployment(PLACEMENT, rolledOut)],
    };
    const steps: Array<[Parameters<typeof evaluateOperatorInstall>[1], string]> = [
      [{ ...base, crds: { "widgets.example.com": undefined } }, "reading CRD widgets.example.com"],
      [{ ...base, crds: { "widgets.example.com": null } }, "CRD widgets.example.com not created yet"],
      [
        { ...base, crds: { "widgets.example.com": { ...crd, status: {} } } },
        "CRD widgets.example.com not Established yet",
      ],
      [{ ...base, crds: { "widgets.example.com": crd } }, "CRD widgets.example.com not served yet"],
    ];
    for (const [obs, message] of steps) {
      const out = evaluateOperatorInstall(target, obs);
      assert.equal(out.state, "waiting");
      assert.equal(out.message, `operator ns/op: op.v1 Succeeded, ${message}`);
      assert.deepEqual(out.reads?.crds, ["widgets.example.com"]);
    }
    const done = evaluateOperatorInstall(target, {
      ...base,
      crds: { "widgets.example.com": crd },
      served: ["widgets.example.com"],
    });
    assert.equal(done.state, "done");
    assert.deepEqual(done.result, {
      installedCSV: "op.v1",
      phase: "Succeeded",
      crds: ["widgets.example.com"],
    });
  });

  it("fails with the scheduler's message once a pod no node fits has lasted, while OLM still says Installing", () => {
    const obs = {
      subscription: sub,
      installPlans: [],
      csvs: [csv("Installing")],
      deployments: [deployment(PLACEMENT, { ...rolledOut, availableReplicas: 0 })],
      pods: [pendingPod],
    };
    const early = evaluateOperatorInstall(target, { ...obs, since: {}, nowMs: 0 });
    assert.equal(early.state, "waiting");
    assert.deepEqual(
      early.reads?.podsOf.map((d) => d.metadata.name),
      ["op"],
    );
    const late = evaluateOperatorInstall(target, {
      ...obs,
      since: { "unschedulable/op": 0 },
      nowMs: PERSISTENCE_MS,
    });
    assert.equal(late.state, "failed");
    assert.match(
      late.message,
      /deployment op: 0\/1 available: 0\/6 nodes are available: 3 node\(s\) didn't match/,
    );
  });
});

describe("the CRDs an uninstall may delete", () => {
  const csv = (namespace: string, name: string, crds: string[], copied = false): KubeObject => ({
    apiVersion: "operators.coreos.com/v1alpha1",
    kind: "ClusterServiceVersion",
    metadata: { name, namespace, ...(copied ? { labels: { "olm.copiedFrom": "ns" } } : {}) },
    spec: { customresourcedefinitions: { owned: crds.map((n) => ({ name: n })) } },
  });
  it("are those its CSVs own, unless a CSV of another Subscription owns one too (copies of its own aside)", () => {
    const mine = csv("a", "op.v1", ["b.example.com", "a.example.com"]);
    assert.deepEqual(
      crdsToRemove(
        [mine],
        [mine, csv("other", "op.v1", [], false), csv("x", "op.v1", ["a.example.com"], true)],
      ),
      {
        crds: ["a.example.com", "b.example.com"],
        refused: [],
      },
    );
    assert.deepEqual(crdsToRemove([mine], [mine, csv("b", "op.v1", ["a.example.com"])]).refused, [
      "CRD a.example.com is owned by ClusterServiceVersion b/op.v1 too",
    ]);
  });
});
