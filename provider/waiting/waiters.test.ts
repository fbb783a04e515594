import { strict as assert } from "node:assert";
import { KINDS, KubeObject } from "./kinds";
import { apiError } from "./retry";
import { clientOf, observePoolRollout, waitForNodeConfigRemoval } from "./waiters";
import { fakeClock } from "../../test/fake-clock";
import { memoryClient } from "../../test/memory-client";

/**
 * The removal of node configuration follows the MCO's render controller
 * (openshift/machine-config-operator pkg/controller/render, syncMachineConfigPool: a pool's render is
 * made of the MachineConfigs that select it, so a deleted one leaves with the next render) and Pulumi's
 * delete order (a guard is deleted after what it guards, so an object still there and not being
 * deleted was kept on purpose, or made anew by someone else).
 */
describe("waitForNodeConfigRemoval: when there is nothing to roll out", () => {
  const options = { pool: "infra", kind: "KubeletConfig" as const, name: "max-pods", timeoutMs: 60_000 };

  it("is done at once when the object still exists and is not being deleted", async () => {
    const client = memoryClient();
    client.put(KINDS.kubeletConfig, {
      metadata: { name: "max-pods", uid: "u-1", creationTimestamp: "2026-01-01T00:00:00Z" },
    });
    const outcome = await waitForNodeConfigRemoval({ ...options, client, clock: fakeClock() });
    assert.equal(
      outcome.message,
      "removal of KubeletConfig max-pods from pool infra: KubeletConfig max-pods (uid u-1, created 2026-01-01T00:00:00Z) exists and is not being deleted: it was kept, or created anew by someone else; nothing of the stack's to roll out",
    );
    assert.equal(outcome.result, undefined);
    assert.equal(client.requests, 1);
  });

  it("is done when the pool is gone, its stack being destroyed", async () => {
    const client = memoryClient();
    const outcome = await waitForNodeConfigRemoval({ ...options, client, clock: fakeClock() });
    assert.equal(
      outcome.message,
      "removal of KubeletConfig max-pods from pool infra: the pool is gone, nothing to roll out",
    );
  });

  it("waits while the object is being deleted and the pool still renders what it generated", async () => {
    const client = memoryClient();
    client.put(KINDS.kubeletConfig, {
      metadata: { name: "max-pods", deletionTimestamp: "2026-01-01T00:00:00Z" },
    });
    client.put(KINDS.pool, {
      metadata: { name: "infra", generation: 1 },
      spec: {
        configuration: {
          name: "rendered-infra-1",
          source: [{ kind: "MachineConfig", name: "99-infra-generated-kubelet" }],
        },
      },
      status: { observedGeneration: 1, configuration: { name: "rendered-infra-1" } },
    });
    const clock = fakeClock();
    const messages: string[] = [];
    const wait = waitForNodeConfigRemoval({
      ...options,
      client,
      clock,
      progressIntervalMs: 0,
      onProgress: (e) => messages.push(e.message),
    });
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    client.remove(KINDS.pool, { metadata: { name: "infra" } });
    const outcome = await wait;
    assert.ok(messages.length > 1, "done before the pool left");
    assert.match(messages[0], /99-infra-generated-kubelet/, messages[0]);
    assert.match(outcome.message, /the pool is gone/);
  });
});

describe("cluster access", () => {
  it("asks for a kubeconfig or a client instead of reaching an ambient cluster", () => {
    assert.throws(() => clientOf({}), /a kubeconfig \(or a client\) is required to reach the cluster/);
    const client = memoryClient();
    assert.equal(clientOf({ client, kubeconfig: "ignored" }), client);
  });
});

/**
 * What the pool wait asks for: its nodes with the pool's whole nodeSelector (metav1.LabelSelectorAsSelector,
 * printed as apimachinery labels.Parse reads it), nothing for a selector the MCO matches no node with
 * (GetPoolsForNode: an empty selector selects none), and each node's MachineConfigNode by name (named as
 * its node: upgrade_monitor.go GenerateAndApplyMachineConfigNodes), one first, so that a cluster that
 * does not serve them (404) is asked once.
 */
describe("the pool wait's sources", () => {
  const rendered = (nodeSelector: unknown, degraded: number) => ({
    metadata: { name: "infra", generation: 1 },
    spec: {
      nodeSelector,
      configuration: { name: "rendered-infra-2", source: [{ kind: "MachineConfig", name: "99-infra-x" }] },
    },
    status: {
      observedGeneration: 1,
      configuration: { name: "rendered-infra-1" },
      machineCount: 2,
      updatedMachineCount: 0,
      degradedMachineCount: degraded,
    },
  });
  const node = (name: string, labels: Record<string, string>) => ({ metadata: { name, labels } });

  /** Observes the pool once, recording each list as `plural: selectors`; 404 for MachineConfigNodes when `unserved`. */
  async function lists(pool: unknown, unserved = false): Promise<string[]> {
    const client = memoryClient();
    client.put(KINDS.pool, pool as KubeObject);
    client.put(KINDS.machineConfig, { metadata: { name: "99-infra-x", generation: 1 } });
    client.put(KINDS.node, node("infra-a", { "node-role.kubernetes.io/infra": "" }));
    client.put(KINDS.node, node("infra-b", { "node-role.kubernetes.io/infra": "" }));
    const seen: string[] = [];
    const list = client.list.bind(client);
    client.list = async (resource, selectors, signal) => {
      seen.push(
        `${resource.plural}: ${[selectors.labelSelector, selectors.fieldSelector].filter(Boolean).join(" ")}`,
      );
      if (unserved && resource === KINDS.machineConfigNode)
        throw apiError("the server could not find the requested resource", { status: 404 });
      return list(resource, selectors, signal);
    };
    await observePoolRollout({ client, pool: "infra", machineConfigs: ["99-infra-x"], timeoutMs: 60_000 });
    return seen.filter((l) => !l.startsWith("machineconfigpools"));
  }

  it("lists the nodes with the whole selector, and each node's MachineConfigNode by name, one first", async () => {
    const selector = {
      matchExpressions: [
        { key: "node-role.kubernetes.io/infra", operator: "Exists" },
        { key: "node-role.kubernetes.io/master", operator: "DoesNotExist" },
      ],
    };
    assert.deepEqual(await lists(rendered(selector, 1)), [
      "nodes: node-role.kubernetes.io/infra,!node-role.kubernetes.io/master",
      "machineconfignodes: metadata.name=infra-a",
      "machineconfignodes: metadata.name=infra-b",
    ]);
  });

  it("lists the nodes as soon as the pool reports degraded ones, before its render names the target", async () => {
    const selector = { matchLabels: { "node-role.kubernetes.io/infra": "" } };
    const pending = rendered(selector, 1);
    pending.spec.configuration.source = [];
    assert.deepEqual(await lists(pending), ["nodes: node-role.kubernetes.io/infra="]);
    assert.deepEqual(await lists(rendered(selector, 0)), [
      "nodes: node-role.kubernetes.io/infra=",
      "machineconfignodes: metadata.name=infra-a",
      "machineconfignodes: metadata.name=infra-b",
    ]);
    const healthyPending = rendered(selector, 0);
    healthyPending.spec.configuration.source = [];
    assert.deepEqual(await lists(healthyPending), []);
  });

  it("asks a cluster that does not serve MachineConfigNodes once", async () => {
    const selector = { matchLabels: { "node-role.kubernetes.io/infra": "" } };
    assert.deepEqual(await lists(rendered(selector, 1), true), [
      "nodes: node-role.kubernetes.io/infra=",
      "machineconfignodes: metadata.name=infra-a",
    ]);
  });

  it("lists no node for a pool whose selector selects none: empty, or one the MCO cannot convert", async () => {
    for (const selector of [{}, { matchExpressions: [{ key: "a", operator: "In", values: [] }] }])
      assert.deepEqual(await lists(rendered(selector, 1)), []);
  });

  it("lists nothing of the nodes for a pool rolled out at the first look", async () => {
    const done = rendered({ matchLabels: { "node-role.kubernetes.io/infra": "" } }, 0);
    done.status = {
      ...done.status,
      configuration: { name: "rendered-infra-2" },
      machineCount: 0,
      conditions: [{ type: "Updated", status: "True" }],
    } as typeof done.status;
    assert.deepEqual(await lists(done), []);
  });
});
