import * as pulumi from "@pulumi/pulumi";
import { ClusterAutoscaler, InfraNodePool, KubeletConfig, MachineConfig } from "../../../index";

const config = new pulumi.Config();
// Tests run the simulator fast; a wait that has not converged in a minute never will.
const waitTimeouts = { create: "60s", update: "60s", delete: "60s" };

/**
 * The pool and a MachineConfig for it; `infra=false` declares nothing, as a destroy. `autoscale=true`
 * lets the cluster autoscaler run the pool between 1 and 2 machines; `replicas` sets its size otherwise.
 * `instanceType` changes the machines' type, and `maxSurge`/`maxUnavailable` replace the machines
 * that have another (`machineReplacement`); `bootImageOwner` is the pool's; `maxPods` adds a
 * KubeletConfig for the pool.
 */
function infraPool() {
  const autoscale = config.getBoolean("autoscale") === true;
  const autoscaler = autoscale ? new ClusterAutoscaler("autoscaler", { spec: {} }) : undefined;
  const infra = new InfraNodePool(
    "infra",
    {
      zones: ["us-east-2a"],
      replicas: config.getNumber("replicas") ?? 1,
      ...(autoscale ? { autoscaling: { minReplicas: 1, maxReplicas: 2 } } : {}),
      ...(config.get("instanceType") ? { aws: { instanceType: config.get("instanceType") } } : {}),
      ...(config.get("maxSurge") !== undefined || config.get("maxUnavailable") !== undefined
        ? {
            machineReplacement: {
              strategy: "rolling" as const,
              maxSurge: config.getNumber("maxSurge"),
              maxUnavailable: config.getNumber("maxUnavailable"),
            },
          }
        : {}),
      bootImageOwner: config.get<"mco" | "stack">("bootImageOwner"),
      wait: config.getBoolean("wait") ?? true,
      waitTimeouts,
    },
    autoscaler ? { dependsOn: [autoscaler] } : {},
  );
  if (config.getBoolean("motd") !== false) {
    new MachineConfig("99-infra-motd", {
      role: infra.role,
      files: [{ path: "/etc/motd", contents: { text: config.get("motdText") ?? "first revision\n" } }],
      waitTimeouts,
    });
  }
  if (config.getNumber("maxPods") !== undefined) {
    new KubeletConfig("infra-kubelet", {
      pool: infra.role,
      kubeletConfig: { maxPods: config.getNumber("maxPods") },
      waitTimeouts,
    });
  }
  return infra;
}

const infra = config.getBoolean("infra") === false ? undefined : infraPool();
// A second pool, for revisions that remove one pool and keep the other.
if (config.getBoolean("edge")) {
  new InfraNodePool("edge", {
    role: "edge",
    zones: ["us-east-2b"],
    replicas: 1,
    wait: config.getBoolean("wait") ?? true,
    waitTimeouts,
  });
}
export const machineSets = infra?.machineSetNames;
export const renderedConfig = infra?.renderedConfig;
