import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";

const config = new pulumi.Config();

// `replicas` is another actor's once created (as an autoscaled MachineSet's): never diffed again.
new k8s.core.v1.ConfigMap(
  "scaled",
  {
    metadata: { name: "scaled", namespace: "default" },
    data: { replicas: "1", size: config.get("size") ?? "small" },
  },
  { ignoreChanges: ["data.replicas"] },
);
