import * as assert from "node:assert/strict";
import { evaluateExtensionInstall } from "./extension";
import type { KubeObject } from "./kinds";
import { PERSISTENCE_MS } from "./persistence";

const extension = (conditions: object[], install?: object, generation = 1): KubeObject => ({
  apiVersion: "olm.operatorframework.io/v1",
  kind: "ClusterExtension",
  metadata: { name: "gitops", generation },
  status: { conditions, ...(install ? { install } : {}) },
});
const cond = (type: string, status: string, reason: string, message = "", observedGeneration = 1) => ({
  type,
  status,
  reason,
  message,
  observedGeneration,
});
const BUNDLE = { bundle: { name: "openshift-gitops-operator.v1.14.2", version: "1.14.2" } };

describe("an OLM v1 ClusterExtension as operator-controller reports it (common_controller.go)", () => {
  it("is done with Installed True and Progressing Succeeded of the current generation, naming the bundle", () => {
    const done = evaluateExtensionInstall(
      "gitops",
      extension(
        [
          cond("Installed", "True", "Succeeded"),
          cond("Progressing", "True", "Succeeded", "desired state reached"),
        ],
        BUNDLE,
      ),
    );
    assert.deepEqual(done, {
      state: "done",
      message: "ClusterExtension gitops: openshift-gitops-operator.v1.14.2 installed",
      problems: [],
      result: { bundle: "openshift-gitops-operator.v1.14.2", version: "1.14.2" },
    });
  });

  it("waits for a generation not reconciled yet, whatever its old conditions say", () => {
    const stale = extension(
      [cond("Installed", "True", "Succeeded"), cond("Progressing", "True", "Succeeded")],
      BUNDLE,
      2,
    );
    assert.equal(
      evaluateExtensionInstall("gitops", stale).message,
      "ClusterExtension gitops: generation 2 not reconciled yet",
    );
    assert.equal(evaluateExtensionInstall("gitops", undefined).state, "waiting");
  });

  it("fails on Blocked at once, on Retrying once it persists", () => {
    const blocked = extension([
      cond("Installed", "False", "Failed"),
      cond("Progressing", "False", "Blocked", "terminal"),
    ]);
    assert.equal(
      evaluateExtensionInstall("gitops", blocked).message,
      "ClusterExtension gitops: Blocked: terminal",
    );
    const retrying = extension([
      cond("Installed", "False", "Failed", "No bundle installed"),
      cond(
        "Progressing",
        "True",
        "Retrying",
        'no bundles found for package "openshift-gitops-operator" matching version "2.0.0"',
      ),
    ]);
    const early = evaluateExtensionInstall("gitops", retrying, {}, 0);
    assert.equal(early.state, "waiting");
    assert.equal(early.recheckMs, PERSISTENCE_MS);
    const late = evaluateExtensionInstall("gitops", retrying, { Retrying: 0 }, PERSISTENCE_MS);
    assert.equal(late.state, "failed");
    assert.match(
      late.message,
      /Progressing Retrying: no bundles found for package "openshift-gitops-operator" matching version "2.0.0" \(persisted 5m0s/,
    );
  });
});
