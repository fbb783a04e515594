import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();

// `replicas` is another actor's once created (as an autoscaled MachineSet's): never diffed again. What
// a hand `kubectl patch` changed is taken back only by a forced apply (pulumi-kubernetes' patchForce):
// unforced, its preview's dry run and its up would conflict with kubectl-patch's fields.
new k8s.core.v1.ConfigMap(
  "scaled",
  {
    metadata: { name: "scaled", namespace: "default", annotations: { "pulumi.com/patchForce": "true" } },
    data: { replicas: "1", size: config.get("size") ?? "small" },
  },
  { ignoreChanges: ["data.replicas"] },
);
