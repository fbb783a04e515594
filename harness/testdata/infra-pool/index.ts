import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import {
  ClusterAutoscaler,
  ClusterExtension,
  InfraNodePool,
  KubeletConfig,
  MachineConfig,
  OperatorSubscription,
} from "../../../index";

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
/**
 * `operator=true`: the local-storage operator on the pool's nodes by one line (`config: infra.placement`),
 * a LocalVolume of it in the same up, and its CRDs removed with it.
 */
if (infra && config.getBoolean("operator")) {
  const storage = new OperatorSubscription("local-storage", {
    packageName: "local-storage-operator",
    namespace: "openshift-local-storage",
    channel: "stable",
    config: infra.placement,
    removeCustomResources: true,
    waitTimeouts,
  });
  new k8s.apiextensions.CustomResource(
    "local-disks",
    {
      apiVersion: "local.storage.openshift.io/v1",
      kind: "LocalVolume",
      metadata: { name: "local-disks", namespace: storage.namespace },
      spec: {
        storageClassDevices: [
          {
            storageClassName: "local-sc",
            volumeMode: "Filesystem",
            fsType: "xfs",
            devicePaths: ["/dev/nvme1n1"],
          },
        ],
      },
    },
    { dependsOn: [storage.crdsReady] },
  );
}
// `extension=true`: an operator through OLM v1, its version range checked against the catalog at preview.
const gitops = config.getBoolean("extension")
  ? new ClusterExtension("gitops", {
      packageName: "openshift-gitops-operator",
      channels: ["latest"],
      version: ">=1.14.0, <1.15.0",
      waitTimeouts,
    })
  : undefined;
export const gitopsVersion = gitops?.installedVersion;
export const machineSets = infra?.machineSetNames;
export const renderedConfig = infra?.renderedConfig;
