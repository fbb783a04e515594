import * as assert from "node:assert/strict";
import { Simulator, startTestSimulator } from "../../test/simulator-fixture";
import { isWaitError } from "./converge";
import { checkCreatedObjects, guessResource } from "./identity";

describe("waiting core: the waiters' cluster holds the objects the provider created", function () {
  let sim: Simulator;
  before(async () => (sim = await startTestSimulator()));
  after(() => sim.stop());

  const pool = () => {
    const worker = sim.store.list("machineconfiguration.openshift.io/v1", "MachineConfigPool")[0];
    return { apiVersion: worker.apiVersion, kind: worker.kind, name: worker.metadata.name };
  };
  const check = (uid: string) =>
    checkCreatedObjects({
      kubeconfig: sim.kubeconfig,
      server: sim.server,
      waiter: "PoolRollout pool/worker",
      created: [{ ...pool(), uid }],
    });

  it("passes when the object there has the UID its provider reported", async () => {
    const uid = sim.store.list("machineconfiguration.openshift.io/v1", "MachineConfigPool")[0].metadata.uid!;
    await check(uid);
  });

  it("fails at once when an object of that name there has another UID: another cluster made it", async () => {
    await assert.rejects(
      check("0c0c0c0c-0000-4000-8000-000000000000"),
      (e: unknown) =>
        isWaitError(e) &&
        e.kind === "failed" &&
        e.message.startsWith(
          `MachineConfigPool ${pool().name} was created by the component's Kubernetes provider ` +
            `(uid 0c0c0c0c-0000-4000-8000-000000000000), but ${sim.server}, the cluster of the waiters' ` +
            `kubeconfig, holds another MachineConfigPool of that name (uid `,
        ),
    );
  });

  const ROUTER = {
    apiVersion: "operator.openshift.io/v1",
    kind: "IngressController",
    name: "default",
    namespace: "openshift-ingress-operator",
  };
  const advice =
    "the provider and the kubeconfig reach different clusters, and waiting there would never see the " +
    "objects converge. Leave the component's kubeconfig out (its waiters then connect as its provider " +
    "does), or give it the kubeconfig of the provider's cluster.";

  it("reads a namespaced object in its namespace, and names it with its namespace when the UID differs", async () => {
    const live = sim.store.get({ ...ROUTER })!;
    const checkRouter = (uid: string) =>
      checkCreatedObjects({
        kubeconfig: sim.kubeconfig,
        server: sim.server,
        waiter: "OperatorConfig router",
        created: [{ ...ROUTER, uid }],
      });
    await checkRouter(live.metadata.uid!);
    await assert.rejects(
      checkRouter("0c0c0c0c-0000-4000-8000-000000000000"),
      (e: unknown) =>
        isWaitError(e) &&
        e.message ===
          "IngressController openshift-ingress-operator/default was created by the component's Kubernetes " +
            `provider (uid 0c0c0c0c-0000-4000-8000-000000000000), but ${sim.server}, the cluster of the ` +
            `waiters' kubeconfig, holds another IngressController of that name (uid ${live.metadata.uid}): ${advice}`,
    );
  });

  it("fails at once, saying how to fix it, when the cluster there does not hold the object at all", async () => {
    await assert.rejects(
      checkCreatedObjects({
        kubeconfig: sim.kubeconfig,
        server: sim.server,
        waiter: "PoolRollout pool/infra",
        created: [{ ...pool(), name: "absent-here", uid: "1d1d1d1d-0000-4000-8000-000000000000" }],
      }),
      (e: unknown) =>
        isWaitError(e) &&
        e.kind === "failed" &&
        e.message ===
          "MachineConfigPool absent-here was created by the component's Kubernetes provider (uid " +
            `1d1d1d1d-0000-4000-8000-000000000000), but ${sim.server}, the cluster of the waiters' ` +
            `kubeconfig, does not hold it: ${advice}`,
    );
  });

  it("retries a transient API error only up to the timeout given, past the client's own tries", async () => {
    const uid = sim.store.list("machineconfiguration.openshift.io/v1", "MachineConfigPool")[0].metadata.uid!;
    // The client sends a request 11 times (retry.ts, MAX_RETRIES); the check tries no more at timeout 0.
    sim.faults.failNextRequests(11, 503, 0);
    await assert.rejects(
      checkCreatedObjects({
        kubeconfig: sim.kubeconfig,
        server: sim.server,
        waiter: "PoolRollout pool/worker",
        created: [{ ...pool(), uid }],
        timeoutMs: 0,
      }),
      (e: { status?: number; tries?: number }) => e.status === 503 && e.tries === 11,
    );
    assert.equal(sim.faults.status().pendingErrors, 0);
  });

  // kubernetes/apimachinery pkg/api/meta/restmapper.go, UnsafeGuessKindToResource.
  it("finds each kind's resource as apimachinery guesses it from the kind", () => {
    const plural = (apiVersion: string, kind: string) => guessResource(apiVersion, kind, true).plural;
    assert.equal(plural("autoscaling.openshift.io/v1beta1", "MachineAutoscaler"), "machineautoscalers");
    assert.equal(plural("operators.coreos.com/v1alpha1", "Subscription"), "subscriptions");
    assert.equal(plural("machine.openshift.io/v1beta1", "MachineSet"), "machinesets");
    assert.equal(plural("v1", "Policy"), "policies");
    assert.equal(plural("v1", "Ingress"), "ingresses");
    assert.equal(plural("config.openshift.io/v1", "Proxy"), "proxies");
    assert.equal(plural("hive.openshift.io/v1", "SyncSet"), "syncsets", "a consonant and y only at the end");
    assert.deepEqual(guessResource("v1", "Namespace", false), {
      group: "",
      version: "v1",
      plural: "namespaces",
      kind: "Namespace",
      namespaced: false,
    });
  });
});
