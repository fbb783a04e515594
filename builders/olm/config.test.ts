import * as assert from "node:assert/strict";
import { assertMatchesCrd } from "../../test/crd-schemas";
import { CRDS, requireReference } from "../../test/reference";
import { InputErrors } from "../errors";
import { subscription, SubscriptionConfig } from ".";

const BASE = { packageName: "loki-operator", namespace: "openshift-operators-redhat", channel: "stable-6.1" };

const FULL: SubscriptionConfig = {
  nodeSelector: { "node-role.kubernetes.io/infra": "" },
  tolerations: [
    { key: "node-role.kubernetes.io/infra", operator: "Exists", effect: "NoSchedule" },
    {
      key: "node-role.kubernetes.io/infra",
      operator: "Equal",
      value: "reserved",
      effect: "NoExecute",
      tolerationSeconds: 60,
    },
  ],
  resources: { requests: { cpu: "100m", memory: "256Mi" }, limits: { memory: "1Gi" } },
  env: [{ name: "HTTP_PROXY", value: "http://proxy:3128" }],
  envFrom: [{ configMapRef: { name: "proxy" } }],
  volumes: [{ name: "ca", configMap: { name: "trusted-ca" } }],
  volumeMounts: [{ name: "ca", mountPath: "/etc/pki/ca-trust/extracted/pem", readOnly: true }],
  selector: { matchLabels: { name: "loki-operator" } },
  affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
  annotations: { "example.com/owner": "platform" },
};

describe("a Subscription's config (OLM's SubscriptionConfig)", () => {
  it("keeps every field OLM applies, and the Subscription CRD takes it without pruning any", function () {
    const sub = subscription({ ...BASE, config: FULL });
    assert.deepEqual(sub.spec.config, FULL);
    requireReference(this, CRDS);
    assertMatchesCrd(sub);
  });

  it("leaves an empty config out", () => {
    assert.equal("config" in subscription({ ...BASE, config: {} }).spec, false);
  });

  it("names every problem at once, each at its path, as the CRD and the API server would refuse it", () => {
    const bad = {
      nodeSelectr: {},
      tolerations: [
        { operator: "Equal", effect: "NoSchedule" },
        { key: "a", operator: "Exists", value: "x" },
        { key: "b", effect: "NoSchedule", tolerationSeconds: 5 },
      ],
      resources: { requests: { memory: "1 Gi" } },
      env: [{ name: "1BAD", value: "x", valueFrom: {} }],
      volumes: [{ name: "v" }],
      volumeMounts: [{ name: "v", mountPath: "relative" }],
    } as unknown as SubscriptionConfig;
    assert.throws(
      () => subscription({ ...BASE, config: bad }),
      (e: unknown) => {
        assert.deepEqual(
          InputErrors.of(e).map((x) => x.propertyPath),
          ["config.nodeSelectr"],
        );
        return true;
      },
    );
    const { nodeSelectr: _, ...known } = bad as unknown as Record<string, unknown>;
    assert.throws(
      () => subscription({ ...BASE, config: known as SubscriptionConfig }),
      (e: unknown) => {
        assert.deepEqual(
          InputErrors.of(e).map((x) => x.propertyPath),
          [
            "config.tolerations[0].operator",
            "config.tolerations[1].value",
            "config.tolerations[2].tolerationSeconds",
            'config.resources.requests["memory"]',
            "config.env[0].name",
            "config.env[0]",
            "config.volumes[0]",
            "config.volumeMounts[0].mountPath",
          ],
        );
        return true;
      },
    );
  });
});
