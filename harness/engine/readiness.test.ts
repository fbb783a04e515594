/**
 * What the engine awaits after a Kubernetes create or update, against pulumi-kubernetes' rules:
 * awaiters.go (which kinds have a built-in awaiter), metadata.ReadyCondition (skipAwait, waitFor),
 * condition/kubectl.go (checkCondition) and jsonpath.go (Parse, Parsed.Matches).
 */
import * as assert from "node:assert/strict";
import { kubeType } from "../kube";
import { readinessOf } from "./readiness";

const type = (token: string) => kubeType(token)!;
const annotated = (annotations: Record<string, string>, rest: Record<string, unknown> = {}) => ({
  metadata: { name: "x", annotations },
  ...rest,
});

describe("readiness after a create or update, as pulumi-kubernetes awaits it", () => {
  it("awaits nothing for the kinds the library declares, as awaiters.go has no awaiter for them", () => {
    for (const token of [
      "kubernetes:core/v1:Namespace",
      "kubernetes:core/v1:ConfigMap",
      "kubernetes:node.k8s.io/v1:RuntimeClass",
      "kubernetes:machineconfiguration.openshift.io/v1:MachineConfig",
      "kubernetes:operators.coreos.com/v1alpha1:Subscription",
    ]) {
      assert.equal(readinessOf(type(token), { metadata: { name: "x" } }), undefined, token);
    }
    assert.equal(readinessOf(type("kubernetes:core/v1:Secret"), { type: "Opaque" }), undefined);
  });

  it("awaits a service-account-token Secret's data for 5 s at most (untilCoreV1SecretInitialized)", () => {
    const token = readinessOf(type("kubernetes:core/v1:Secret"), {
      type: "kubernetes.io/service-account-token",
    })!;
    assert.equal(token.limitSeconds, 5);
    assert.equal(token.ready({ data: {} }), false);
    assert.equal(token.ready({ data: { token: "dA==" } }), true);
  });

  it("refuses a kind whose built-in awaiter the harness does not model, naming the annotations that opt out", () => {
    assert.throws(
      () => readinessOf(type("kubernetes:apps/v1:Deployment"), { metadata: { name: "x" } }),
      /does not await a Deployment as pulumi-kubernetes does \(awaiters.go\); annotate it pulumi.com\/skipAwait or pulumi.com\/waitFor/,
    );
    assert.equal(
      readinessOf(type("kubernetes:apps/v1:Deployment"), annotated({ "pulumi.com/skipAwait": "true" })),
      undefined,
    );
  });

  it("skips waitFor when skipAwait is set (ReadyCondition)", () => {
    const object = annotated({ "pulumi.com/skipAwait": "true", "pulumi.com/waitFor": "condition=Ready" });
    assert.equal(readinessOf(type("kubernetes:core/v1:ConfigMap"), object), undefined);
  });

  it("waits for a condition as kubectl wait checks it: type and status case-insensitive, status True by default, a stale observedGeneration not ready (checkCondition)", () => {
    const ready = readinessOf(
      type("kubernetes:example.com/v1:Widget"),
      annotated({ "pulumi.com/waitFor": "condition=Ready" }),
    )!;
    const withCondition = (status: string, observedGeneration?: number) => ({
      metadata: { generation: 2 },
      status: {
        conditions: [{ type: "ready", status, ...(observedGeneration ? { observedGeneration } : {}) }],
      },
    });
    assert.equal(ready.ready({ metadata: {} }), false, "no conditions");
    assert.equal(ready.ready(withCondition("true")), true);
    assert.equal(ready.ready(withCondition("True", 1)), false, "the condition has not seen generation 2");
    const degraded = readinessOf(
      type("kubernetes:example.com/v1:Widget"),
      annotated({ "pulumi.com/waitFor": "condition=Degraded=False" }),
    )!;
    assert.equal(degraded.ready({ status: { conditions: [{ type: "Degraded", status: "False" }] } }), true);
  });

  it("waits for a JSONPath to exist or to print a value, and for every expression of a list (jsonpath.go, Parsed.Matches; condition.NewAll)", () => {
    const of = (waitFor: string) =>
      readinessOf(type("kubernetes:example.com/v1:Widget"), annotated({ "pulumi.com/waitFor": waitFor }))!;
    assert.equal(of("jsonpath={.status.phase}").ready({ status: {} }), false);
    assert.equal(of("jsonpath={.status.phase}").ready({ status: { phase: "Pending" } }), true);
    assert.equal(of("jsonpath={.status.phase}=Running").ready({ status: { phase: "Pending" } }), false);
    assert.equal(of("jsonpath={.status.replicas}=2").ready({ status: { replicas: 2 } }), true);
    const both = of(JSON.stringify(["jsonpath={.status.phase}=Running", "condition=Ready"]));
    assert.equal(both.ready({ status: { phase: "Running" } }), false);
    assert.equal(
      both.ready({ status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } }),
      true,
    );
  });

  it("refuses malformed waitFor expressions with the provider's messages (ReadyCondition, jsonpath.Parse)", () => {
    const of = (waitFor: string) =>
      readinessOf(type("kubernetes:core/v1:ConfigMap"), annotated({ "pulumi.com/waitFor": waitFor }));
    assert.throws(() => of("Ready"), /expected a "jsonpath=" or "condition=" prefix, got "Ready"/);
    assert.throws(() => of("[]"), /at least one condition must be specified/);
    assert.throws(() => of("jsonpath=.status.phase"), /should be wrapped in brackets/);
    assert.throws(() => of("jsonpath={.status.phase}="), /requires a value/);
  });

  it("with PULUMI_K8S_AWAIT_ALL awaits kstatus' Current status for kinds without a built-in awaiter: generation observed, not Reconciling nor Stalled, a Ready condition not False (metadata.ReadyCondition; kstatus status.Compute, checkGenericProperties, checkReadyCondition, legacyTypes)", () => {
    const pool = readinessOf(
      type("kubernetes:machineconfiguration.openshift.io/v1:MachineConfigPool"),
      { metadata: { name: "infra" } },
      true,
    )!;
    const at = (generation: number, status: Record<string, unknown>) => ({
      metadata: { name: "infra", generation },
      status,
    });
    assert.equal(pool.ready(at(2, { observedGeneration: 1 })), false, "its generation not observed yet");
    assert.equal(pool.ready(at(2, { observedGeneration: 2 })), true, "no known condition: current");
    assert.equal(pool.ready(at(1, {})), true, "no observedGeneration: nothing to compare");
    const condition = (type: string, status: string) => at(1, { conditions: [{ type, status }] });
    assert.equal(pool.ready(condition("Reconciling", "True")), false);
    assert.equal(pool.ready(condition("Stalled", "True")), false, "Failed is not Current either");
    assert.equal(pool.ready(condition("Ready", "False")), false);
    assert.equal(pool.ready(condition("Ready", "Unknown")), false);
    assert.equal(pool.ready(condition("Ready", "True")), true);
    assert.equal(
      pool.ready(condition("Updated", "False")),
      true,
      "the MCO's own conditions are not kstatus'",
    );
    assert.equal(
      pool.ready({ ...at(1, {}), metadata: { name: "infra", deletionTimestamp: "2026-01-01T00:00:00Z" } }),
      false,
    );
    const configMap = readinessOf(type("kubernetes:core/v1:ConfigMap"), { metadata: { name: "x" } }, true)!;
    assert.equal(configMap.ready(condition("Ready", "False")), true, "a ConfigMap is always ready");
    assert.equal(
      readinessOf(type("kubernetes:core/v1:ConfigMap"), { metadata: { name: "x" } }, false),
      undefined,
      "without it nothing is awaited",
    );
    assert.throws(
      () => readinessOf(type("kubernetes:apps/v1:ReplicaSet"), { metadata: { name: "x" } }, true),
      /does not compute kstatus for a ReplicaSet/,
    );
  });
});
