import * as pulumi from "@pulumi/pulumi";
import { ClusterAutoscaler, InfraNodePool } from "../../../index";

const config = new pulumi.Config();
// Tests run the simulator fast; a wait that has not converged in a minute never will.
const waitTimeouts = { create: "60s", update: "60s", delete: "60s" };

const autoscaler = new ClusterAutoscaler("autoscaler", {
  spec: { balanceSimilarNodeGroups: true, scaleDown: { enabled: true, unneededTime: "5m" } },
});
const zones = ["us-east-2a", "us-east-2b"];
new InfraNodePool(
  "infra",
  {
    // Zones from another resource's output (`zonesFromOutput=true`) are known only once resolved, as
    // zones looked up in the cloud are.
    zones: config.getBoolean("zonesFromOutput") ? pulumi.output(zones) : zones,
    autoscaling: { minReplicas: 2, maxReplicas: config.getNumber("maxReplicas") ?? 4 },
    // One machine of the pool may be remediated at a time (40% of 2 would allow none).
    healthCheck: { maxUnhealthy: 1 },
    waitTimeouts,
  },
  { dependsOn: [autoscaler] },
);
