import * as assert from "node:assert/strict";
import { serveDefinedKinds } from "../apiserver/apiextensions";
import { ResourceRegistry } from "../apiserver/resources";
import { MemoryStore } from "../store/memory-store";
import { KubeObject } from "../store/types";
import { K, Sim, condition, startSim } from "./testing";
import { fitErrorMessage, unfitReason } from "./workloads";

const node = (labels: Record<string, string>, taints: object[] = [], unschedulable = false): KubeObject => ({
  apiVersion: "v1",
  kind: "Node",
  metadata: { name: "n", labels },
  spec: { taints, ...(unschedulable ? { unschedulable: true } : {}) },
  status: { conditions: [{ type: "Ready", status: "True" }] },
});
const INFRA_TAINT = { key: "node-role.kubernetes.io/infra", value: "reserved", effect: "NoSchedule" };

describe("the simulated scheduler (kube-scheduler's default filters and FitError)", () => {
  it("takes the first failing filter of a node: unschedulable, then taints, then node affinity", () => {
    const pod = { nodeSelector: { "node-role.kubernetes.io/infra": "" } };
    assert.equal(unfitReason(pod, node({}, [], true)), "node(s) were unschedulable");
    assert.equal(
      unfitReason(pod, node({ "node-role.kubernetes.io/infra": "" }, [INFRA_TAINT])),
      "node(s) had untolerated taint {node-role.kubernetes.io/infra: reserved}",
    );
    assert.equal(unfitReason(pod, node({})), "node(s) didn't match Pod's node affinity/selector");
    const tolerating = {
      ...pod,
      tolerations: [{ key: "node-role.kubernetes.io/infra", operator: "Exists" }],
    };
    assert.equal(
      unfitReason(tolerating, node({ "node-role.kubernetes.io/infra": "" }, [INFRA_TAINT])),
      undefined,
    );
    const affinity = {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["a"] }] }],
          },
        },
      },
    };
    assert.equal(unfitReason(affinity, node({ zone: "a" })), undefined);
    assert.equal(
      unfitReason(affinity, node({ zone: "b" })),
      "node(s) didn't match Pod's node affinity/selector",
    );
  });

  it("words a pod no node fits as FitError.Error does, the reasons counted and sorted", () => {
    const reasons = [
      "node(s) had untolerated taint {node-role.kubernetes.io/master: }",
      "node(s) didn't match Pod's node affinity/selector",
    ];
    assert.equal(
      fitErrorMessage([...reasons, ...reasons, ...reasons], 6),
      "0/6 nodes are available: 3 node(s) didn't match Pod's node affinity/selector, 3 node(s) had untolerated taint {node-role.kubernetes.io/master: }. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.",
    );
  });
});

describe("OLM installing an operator's Deployments with its Subscription's config", () => {
  let sim: Sim;
  let unserve: () => void;
  beforeEach(() => {
    sim = startSim();
    // The API server's apiextensions part establishes the CRDs the InstallPlan creates.
    unserve = serveDefinedKinds(sim.store as MemoryStore, new ResourceRegistry(), () => sim.clock.now());
  });
  afterEach(() => {
    unserve();
    sim.stop();
  });

  function subscribe(config: object): void {
    const ns = "openshift-local-storage";
    sim.store.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    sim.store.create({
      apiVersion: "operators.coreos.com/v1",
      kind: "OperatorGroup",
      metadata: { name: "local-storage", namespace: ns },
      spec: { targetNamespaces: [ns] },
    });
    sim.store.create({
      apiVersion: "operators.coreos.com/v1alpha1",
      kind: "Subscription",
      metadata: { name: "local-storage-operator", namespace: ns },
      spec: {
        channel: "stable",
        name: "local-storage-operator",
        source: "redhat-operators",
        sourceNamespace: "openshift-marketplace",
        config,
      },
    });
  }

  it("creates the bundle's CRDs, then the Deployment with the config (overrides/inject); no node fits, so the pod stays Pending with the scheduler's message and the CSV fails with OLM's install timeout", async () => {
    subscribe({
      nodeSelector: { "node-role.kubernetes.io/infra": "" },
      env: [{ name: "LOG_LEVEL", value: "debug" }],
    });
    const csv = await sim.until("the install timed out", () => {
      const c = sim.store.list(K.csv.apiVersion, K.csv.kind, { namespace: "openshift-local-storage" })[0];
      return (c?.status as { reason?: string } | undefined)?.reason === "InstallCheckFailed" && c;
    });
    // OLM's install timeout, or (on a loaded machine, the two deadlines passing at once) the Deployment's.
    assert.match(
      (csv.status as { message: string }).message,
      /^(install timeout|install failed: deployment local-storage-operator not ready before timeout: deployment "local-storage-operator" exceeded its progress deadline)$/,
    );
    assert.ok(sim.get(K.crd, "localvolumes.local.storage.openshift.io"));
    const deployment = sim.get(K.deployment, "local-storage-operator", "openshift-local-storage")!;
    const pod = (
      deployment.spec as {
        template: { spec: { nodeSelector: object; containers: Array<{ env: object[] }> } };
      }
    ).template.spec;
    assert.deepEqual(pod.nodeSelector, { "node-role.kubernetes.io/infra": "" });
    assert.deepEqual(pod.containers[0].env, [
      { name: "LOG_LEVEL", value: "debug" },
      { name: "OPERATOR_CONDITION_NAME", value: csv.metadata.name },
    ]);
    const [pending] = sim.store.list(K.pod.apiVersion, K.pod.kind, { namespace: "openshift-local-storage" });
    assert.equal(
      condition(pending, "PodScheduled")?.message,
      "0/6 nodes are available: 3 node(s) didn't match Pod's node affinity/selector, 3 node(s) had untolerated taint {node-role.kubernetes.io/master: }. preemption: 0/6 nodes are available: 6 Preemption is not helpful for scheduling.",
    );
  });
});
