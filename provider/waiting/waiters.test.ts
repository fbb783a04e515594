import { strict as assert } from "node:assert";
import { KINDS } from "./kinds";
import { clientOf, waitForNodeConfigRemoval } from "./waiters";
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
